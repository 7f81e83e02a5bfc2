"""Corpus statistics for BERTScore's options in the paper's score
(:class:`xlscore.paper.paper_scorer.PaperScorer`): idf word weights and the baseline for rescaling
(the mean P, R, F1 of mismatched pairs).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from xlscore.encoders.bertscore import idf_weights
from xlscore.errors import XLScoreError
from xlscore.paper.alignment import ProcrustesAligner
from xlscore.paper.mapping import Maps
from xlscore.results import ScoreResult
from xlscore.scoring.corpus import PreparedCorpus
from xlscore.text.words import normalize_text, split_words

#: mismatched pairs scored for a rescaling baseline
BASELINE_PAIRS = 2_000


class BaselineScorer(Protocol):
    """What :func:`compute_baseline` needs of the paper's scorer
    (:class:`xlscore.paper.paper_scorer.PaperScorer`)."""

    maps: Maps

    @property
    def multilingual(self) -> bool: ...

    def variant_of(self, variant: str | None) -> str: ...

    def prepare(
        self, sources: Sequence[str], translations: Sequence[str], *, progress: bool = False
    ) -> PreparedCorpus: ...

    def paper_columns(
        self, corpus: PreparedCorpus, variant: str, aligner: ProcrustesAligner, idf, baseline
    ) -> list[ScoreResult]: ...


def compute_idf(sources: Sequence[str], translations: Sequence[str]):
    """idf functions ``(english, russian)`` from a corpus's distinct sources and
    translations."""
    return (
        idf_weights(
            [w.text for w in split_words(normalize_text(s))] for s in dict.fromkeys(sources)
        ),
        idf_weights(
            [w.text for w in split_words(normalize_text(t))] for t in dict.fromkeys(translations)
        ),
    )


def compute_baseline(
    paper: BaselineScorer,
    sources: Sequence[str],
    translations: Sequence[str],
    *,
    variant: str | None = None,
    aligner: ProcrustesAligner | None = None,
    idf=None,
    seed: int = 0,
    max_pairs: int = BASELINE_PAIRS,
    progress: bool = False,
) -> tuple[float, float, float]:
    """Baseline for rescaling: the mean P, R, F1 of translations scored against the source of
    another segment, with no rescaling. The distinct sources are sorted and shuffled with
    ``seed``, and each translation meets the next source in that order, so the baseline does
    not depend on input order. Pairs of the anchors variant that find no anchor are left out
    of the mean.

    Args:
        paper: the scorer of the mismatched pairs.
        sources, translations: the corpus.
        variant: ``"anchors"`` or ``"all"`` (default: the paper's).
        aligner: the map that scores the real pairs (default: the paper's map for them).
        idf: the idf weights of the real pairs, if any.
        seed: the seed of the shuffle and of the sample.
        max_pairs: at most this many pairs, sampled with ``seed``.
        progress: show progress bars.

    Returns:
        The mean ``(P, R, F1)``.
    """
    variant = paper.variant_of(variant)
    pairs = sorted(zip(sources, translations))
    order = sorted(dict.fromkeys(s for s, _ in pairs))
    if len(order) < 2:
        raise XLScoreError("a baseline needs at least two distinct sources")
    rng = random.Random(seed)
    rng.shuffle(order)
    nxt = {s: order[(i + 1) % len(order)] for i, s in enumerate(order)}
    if len(pairs) > max_pairs:
        pairs = sorted(rng.sample(pairs, max_pairs))
    if aligner is None:
        aligner = paper.maps.choose(
            paper.prepare([s for s, _ in pairs], [t for _, t in pairs])
            if paper.maps.mode == "corpus" and not paper.multilingual
            else None
        )
    corpus = paper.prepare([nxt[s] for s, _ in pairs], [t for _, t in pairs], progress=progress)
    results = paper.paper_columns(corpus, variant, aligner, idf, None)
    used = [r for r in results if variant == "all" or r.n_anchors]
    if not used:
        raise XLScoreError("no mismatched pair found an anchor; cannot set a baseline")
    return tuple(
        sum(getattr(r, k) for r in used) / len(used) for k in ("precision", "recall", "f1")
    )
