"""Training the quality estimator: the training loop, its data and losses, the fit, the
distillation of students and the corruptions that make minimal pairs. Nothing here loads when
xlscore scores: the scoring path reads only the recipe record and the trained file.

``fit(estimator, datasets)`` (:func:`xlscore.training.fitting.fit`) trains one."""

from xlscore.training.fitting import fit

__all__ = ["fit"]
