"""The scorer's corpus statistics for BERTScore's options: idf word weights and the baseline
for rescaling (the mean P, R, F1 of mismatched pairs).

A mixin of :class:`xlscore.scorer.XLScorer`: it relies on the scorer's settings (``idf``,
``variant``, alignment) and its ``prepare`` / ``_score_core`` / ``_aligner_for`` methods.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xlscore.encoders.words import normalize_text, split_words
from xlscore.errors import XLScoreError
from xlscore.metric.alignment import ProcrustesAligner
from xlscore.metric.bertscore import idf_weights

#: mismatched pairs scored for a rescaling baseline
BASELINE_PAIRS = 2_000

if TYPE_CHECKING:  # typing.Self is Python 3.11+
    from typing import Self

    from xlscore.metric.corpus import PreparedCorpus
    from xlscore.results import ScoreResult


class Weighting:
    """idf weights and the rescaling baseline (see the module's docstring)."""

    if TYPE_CHECKING:  # what this mixin uses of :class:`xlscore.scorer.XLScorer`
        multilingual: bool
        alignment_mode: str
        baseline: tuple[float, float, float] | None

        def _variant_of(self, variant: str | None) -> str: ...
        def _aligner_for(
            self, corpus: PreparedCorpus | None, progress: bool = False
        ) -> ProcrustesAligner: ...
        def prepare(
            self, sources: Sequence[str], translations: Sequence[str], *, progress: bool = False
        ) -> PreparedCorpus: ...
        def _score_core(
            self,
            corpus: PreparedCorpus,
            variant: str,
            aligner: ProcrustesAligner,
            idf,
            baseline: tuple[float, float, float] | None,
        ) -> list[ScoreResult]: ...

    @staticmethod
    def compute_idf(sources: Sequence[str], translations: Sequence[str]):
        """idf functions ``(english, russian)`` from a corpus's distinct sources and
        translations."""
        return (
            idf_weights(
                [w.text for w in split_words(normalize_text(s))] for s in dict.fromkeys(sources)
            ),
            idf_weights(
                [w.text for w in split_words(normalize_text(t))]
                for t in dict.fromkeys(translations)
            ),
        )

    def fit_idf(self, sources: Sequence[str], translations: Sequence[str]) -> Self:
        """Compute idf weights from a corpus (English from the sources, Russian from the
        translations) and use them from now on."""
        self._idf_en, self._idf_ru = self.compute_idf(sources, translations)
        self.idf = True
        return self

    def _idf_for(self, sources: Sequence[str], translations: Sequence[str]):
        """The idf weights in force for a corpus: fitted ones, else the corpus's own, or
        ``None`` when idf is off."""
        if not self.idf:
            return None
        if self._idf_en is not None:
            return self._idf_en, self._idf_ru
        return self.compute_idf(sources, translations)

    def compute_baseline(
        self,
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
        """Baseline for rescaling: the mean P, R, F1 of translations scored against the source
        of another segment, with the given settings (``aligner``: the map that scores the real
        pairs; by default the scorer's map for them) and no rescaling. The distinct sources are
        sorted and shuffled with ``seed``, and each translation meets the next source in that
        order; at most ``max_pairs`` pairs, sampled with the same seed, so the baseline does
        not depend on input order. Pairs of the anchors variant that find no anchor are left
        out of the mean."""
        variant = self._variant_of(variant)
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
            aligner = self._aligner_for(
                self.prepare([s for s, _ in pairs], [t for _, t in pairs])
                if self.alignment_mode == "corpus" and not self.multilingual
                else None
            )
        corpus = self.prepare([nxt[s] for s, _ in pairs], [t for _, t in pairs], progress=progress)
        results = self._score_core(corpus, variant, aligner, idf, None)
        used = [r for r in results if variant == "all" or r.n_anchors]
        if not used:
            raise XLScoreError("no mismatched pair found an anchor; cannot set a baseline")
        return tuple(
            sum(getattr(r, k) for r in used) / len(used) for k in ("precision", "recall", "f1")
        )

    def fit_baseline(
        self,
        sources: Sequence[str],
        translations: Sequence[str],
        *,
        variant: str | None = None,
        seed: int = 0,
        progress: bool = False,
    ) -> tuple[float, float, float]:
        """:meth:`compute_baseline` on a corpus, kept for all later scoring."""
        self.baseline = self.compute_baseline(
            sources,
            translations,
            variant=variant,
            seed=seed,
            idf=self._idf_for(sources, translations),
            progress=progress,
        )
        return self.baseline
