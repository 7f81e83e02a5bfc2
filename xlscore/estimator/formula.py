"""The score formula of an estimator file: how the network's parts and the scorer's signals
become the score, as one typed record stored in the file's metadata with the weights.

``score = estimate - similarity_weight * (1 - similarity) - check_weight * findings``, where
the estimate already holds ``meaning_blend`` times the meaning head's output
(:mod:`xlscore.estimator.crossencoder`); without a similarity weight the estimate is pulled
towards the floor by the share of foreign words instead
(:func:`xlscore.scoring.blend.estimator_score`). When three or more translations of one source
are scored together, ``consensus_weight`` times the spread of their scores times the z score of
each one's agreement with the others is added (:func:`xlscore.scoring.consensus.blend`). The
scorer, the distillation of a student and the ship gate all read it from the file through
:meth:`ScoreFormula.from_meta`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields

from xlscore.errors import ModelError, XLScoreError

#: at most this many check findings of one pair cost points: the check term saturates, so that
#: a long source with dozens of numbers against a short translation loses at most
#: ``CHECK_CAP * check_weight`` (1.0 for the default), not 0.25 per number
CHECK_CAP = 4


@dataclass(frozen=True)
class ScoreFormula:
    """The weights of the score's parts (each finite and at least 0; 0: the part is off).

    Attributes:
        meaning_blend: weight of the meaning head's output in the estimate.
        similarity_weight: weight of the multilingual similarity (one minus it) subtracted.
        check_weight: what each reliable check finding subtracts.
        consensus_weight: weight of the candidates' agreement when three or more
            translations of one source are scored together.
    """

    meaning_blend: float = 0.0
    similarity_weight: float = 0.0
    check_weight: float = 0.0
    consensus_weight: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise XLScoreError(f"{f.name} must be a number, not {value!r}")
            if not (math.isfinite(value) and value >= 0):
                raise XLScoreError(f"{f.name} must be a finite weight >= 0, not {value!r}")
            object.__setattr__(self, f.name, float(value))

    @classmethod
    def from_meta(cls, meta: dict, path: str | os.PathLike | None = None) -> ScoreFormula:
        """The formula an estimator file's metadata stores (a key it lacks is 0).

        Raises:
            ModelError: a weight is not a finite number >= 0 (naming ``path`` and the key).
        """
        values = {f.name: meta.get(f.name, 0.0) for f in fields(cls)}
        for key, value in values.items():
            try:
                cls(**{key: value})
            except XLScoreError:
                where = f"estimator file {path}" if path is not None else "estimator metadata"
                raise ModelError(f"{where} has a bad {key} {value!r}") from None
        return cls(**values)

    def to_meta(self) -> dict:
        """The metadata entries a file stores: the weights that are not 0."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name)}

    def signature(self, similarity: str | None) -> str:
        """This formula's part of the estimator's signature, e.g.
        ``+0.005*meaning-0.25*checks<=4`` (at most four findings count:
        :data:`CHECK_CAP`); ``similarity`` names the similarity's encoder
        when the score blends it in."""
        out = f"+{self.meaning_blend:g}*meaning" if self.meaning_blend else ""
        if self.similarity_weight and similarity is not None:
            out += f"+{self.similarity_weight:g}*sim:{similarity}"
        if self.check_weight:
            out += f"-{self.check_weight:g}*checks<={CHECK_CAP}"
        return out  # the consensus weight is the scorer's ``cons:`` part
