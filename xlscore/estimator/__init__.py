"""The trained quality estimator as it runs: the cross-encoder network, prediction, the file
format and score formula, the recipe record, weight deltas, error spans and the span tagger, and
the shipped weights. Training lives in :mod:`xlscore.training`, the rule checks in
:mod:`xlscore.checks`."""
