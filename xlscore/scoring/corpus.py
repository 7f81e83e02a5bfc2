"""A corpus on its way through the scorer, once validated and cut into chunks
(:mod:`xlscore.text.pairs`): its pairs embedded and anchored (:class:`PreparedCorpus`), and
dealt into folds for cross-fitting (:func:`assign_folds`)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xlscore.errors import InputError
from xlscore.finding import Finding
from xlscore.lexicon.anchor_pairs import AnchorSet
from xlscore.text.pairs import DistinctPairs

if TYPE_CHECKING:  # the vectors' type only: the module loads no torch (``xlscore --help``)
    from xlscore.encoders.encoder import WordVectors


def assign_folds(groups: Iterable[str], folds: int = 5, seed: int = 0) -> dict[str, int]:
    """Deal group names (e.g. documents) into ``folds`` folds at random, with a fixed ``seed``:
    ``{group: fold}``. The folds of
    :meth:`xlscore.paper.paper_scorer.PaperScorer.score_cross_fitted`."""
    names = sorted(set(groups))
    random.Random(seed).shuffle(names)
    return {g: i % folds for i, g in enumerate(names)}


@dataclass
class PreparedCorpus:
    """Embedded, anchored pairs (:meth:`XLScorer.prepare`), ready to be scored in several
    ways without embedding again."""

    src: list[WordVectors]
    mt: list[WordVectors]
    anchors: list[AnchorSet] = field(default_factory=list)
    #: whether ``src`` and ``mt`` hold the paper's encoders' vectors and full anchors; else
    #: both sides are the similarity encoder's and the anchors may lack word translations
    #: (:mod:`xlscore.fields`)
    paper: bool = True
    #: the sources in the similarity encoder's space, when the anchors needed them (word
    #: alignment) and ``src`` holds another encoder's vectors
    sim_src: list[WordVectors] | None = None
    #: each pair's rule-check findings, when the scorer ran the checks
    #: (:class:`xlscore.scoring.rule_checks.RuleChecks`)
    findings: list[tuple[Finding, ...]] | None = None
    #: the pairs normalised and de-duplicated once (:func:`xlscore.text.pairs.distinct_pairs`),
    #: which the anchors, the checks and the estimator's inputs read
    pairs: DistinctPairs | None = None

    def __len__(self) -> int:
        return len(self.src)

    def subset(self, indices: Sequence[int]) -> PreparedCorpus:
        """The pairs at ``indices``, in that order."""
        return PreparedCorpus(
            [self.src[i] for i in indices],
            [self.mt[i] for i in indices],
            [self.anchors[i] for i in indices],
            self.paper,
            None if self.sim_src is None else [self.sim_src[i] for i in indices],
            None if self.findings is None else [self.findings[i] for i in indices],
            None if self.pairs is None else self.pairs.subset(indices),
        )

    def texts(self) -> tuple[list[str], list[str]]:
        """The (normalised) sources and translations."""
        return [wv.text for wv in self.src], [wv.text for wv in self.mt]

    @property
    def given(self) -> list[str] | None:
        """The translations as the caller gave them (before normalisation), when known:
        character offsets reported to the caller refer to these."""
        return None if self.pairs is None else self.pairs.given[1]

    def distinct(self) -> DistinctPairs:
        """:attr:`pairs` (set by whoever prepared the corpus)."""
        if self.pairs is None:
            raise InputError("this corpus was made without its distinct pairs")
        return self.pairs
