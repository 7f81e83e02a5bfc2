"""A corpus on its way through the scorer: validated, cut into chunks of segments, embedded
and anchored (:class:`PreparedCorpus`), and dealt into folds for cross-fitting."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xlscore.errors import InputError
from xlscore.finding import Finding
from xlscore.metric.anchor_pairs import AnchorSet
from xlscore.text.pairs import DistinctPairs

if TYPE_CHECKING:  # the vectors' type only: the module loads no torch (``xlscore --help``)
    from xlscore.encoders.encoder import WordVectors

#: pairs embedded and scored together (bounds memory)
CHUNK_PAIRS = 10_000


def check_corpus(sources, systems) -> tuple[list[str], dict[str, list[str]]]:
    """Validate a corpus: a list of sources and one list of translations (or several, by
    name), all strings, of equal length."""
    if isinstance(sources, str) or isinstance(systems, str):
        raise TypeError("sources and translations must be lists of strings")
    sources = list(sources)
    if isinstance(systems, Mapping):
        systems = {str(k): list(v) for k, v in systems.items()}
    else:
        systems = {"": list(systems)}
    for name, seq in systems.items():
        if len(seq) != len(sources):
            raise InputError(
                f"{len(sources)} sources but {len(seq)} translations"
                + (f" from {name}" if name else "")
            )
    for what, seq in [("source", sources)] + [("translation", v) for v in systems.values()]:
        for i, x in enumerate(seq):
            if not isinstance(x, str):
                raise InputError(f"{what} is {type(x).__name__}, not a string", line=i + 1)
    return sources, systems


def segment_chunks(n_segments: int, n_systems: int, chunk_pairs: int) -> list[tuple[int, int]]:
    """Segment ranges holding about ``chunk_pairs`` pairs each (at least one segment)."""
    step = max(1, int(chunk_pairs) // max(n_systems, 1))
    return [(a, min(a + step, n_segments)) for a in range(0, n_segments, step)]


def segment_pairs(
    sources: list[str], systems: dict[str, list[str]], a: int, b: int
) -> tuple[list[str], list[str]]:
    """Segment-major pairs of segments ``a..b``: each source with every engine's translation."""
    src, mt = [], []
    for i in range(a, b):
        for v in systems.values():
            src.append(sources[i])
            mt.append(v[i])
    return src, mt


def assign_folds(groups: Iterable[str], folds: int = 5, seed: int = 0) -> dict[str, int]:
    """Deal group names (e.g. documents) into ``folds`` folds at random, with a fixed ``seed``:
    ``{group: fold}``. The folds of :meth:`xlscore.metric.paper.PaperScorer.score_cross_fitted`."""
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
