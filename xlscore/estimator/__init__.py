"""The trained quality estimator: the cross-encoder model, its training, the shipped weights (stored
as deltas), predicted error spans, training corruptions and rule checks."""
