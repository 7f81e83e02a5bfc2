"""The scorer's maps from the Russian into the English vector space: the encoder pair's
dictionary map, a map refined on the anchors of a corpus (read in chunks), the map the
scorer's ``alignment`` setting gives for a corpus, and cross-fitted scoring (each fold scored
with a map fitted on the other folds).

A mixin of :class:`xlscore.scorer.XLScorer`: it relies on the scorer's encoders (``en``,
``ru``), ``lexicon``, alignment settings and its ``_prepare`` / ``score_prepared`` methods.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import torch

from xlscore.errors import InputError, XLScoreError
from xlscore.metric.alignment import (
    IllPosedAlignmentWarning,
    ProcrustesAligner,
    dictionary_alignment,
)
from xlscore.metric.corpus import (
    CHUNK_PAIRS,
    PreparedCorpus,
    assign_folds,
    check_corpus,
    segment_chunks,
    segment_pairs,
)
from xlscore.results import ScoreResult

if TYPE_CHECKING:  # typing.Self is Python 3.11+
    from typing import Self

    from xlscore.encoders.encoder import Encoder
    from xlscore.metric.lexicon import Lexicon


class MapFitting:
    """Fitting and choosing the orthogonal map (see the module's docstring)."""

    if TYPE_CHECKING:  # what this mixin uses of :class:`xlscore.scorer.XLScorer`
        en: Encoder
        ru: Encoder
        lexicon: Lexicon
        multilingual: bool
        align_center: bool
        align_normalize: bool
        alignment_mode: str
        fixed_alignment: ProcrustesAligner | None
        last_alignment: ProcrustesAligner | None
        last_baseline: tuple[float, float, float] | None
        _dictionary_map: ProcrustesAligner | None

        def _prepare(
            self, sources: list[str], translations: list[str], progress: bool
        ) -> PreparedCorpus: ...
        def _set_fixed(self, aligner: ProcrustesAligner) -> None: ...
        def _idf_for(self, sources: Sequence[str], translations: Sequence[str]): ...
        def score_prepared(
            self,
            corpus: PreparedCorpus,
            variant: str | None = None,
            *,
            aligner: ProcrustesAligner | None = None,
            idf=None,
            baseline: tuple[float, float, float] | None = None,
            progress: bool = False,
        ) -> list[ScoreResult]: ...

    def dictionary_map(self, progress: bool = False) -> ProcrustesAligner:
        """The encoder pair's dictionary map (fitted once, then cached on disk)."""
        if self.multilingual:
            return ProcrustesAligner.identity(self.en.dim)
        if not self.lexicon.table:
            raise XLScoreError(
                f"the lexicon {self.lexicon.name} holds no word pairs to fit "
                "a dictionary map on: use alignment='corpus' (the default) or "
                "install Müller's dictionary (apt-get install mueller7-dict)"
            )
        if self._dictionary_map is None:
            self._dictionary_map = dictionary_alignment(
                self.en,
                self.ru,
                self.lexicon,
                center=self.align_center,
                normalize=self.align_normalize,
                progress=progress,
            )
        return self._dictionary_map

    def _new_corpus_aligner(self, prior: bool, progress: bool) -> ProcrustesAligner:
        # without a dictionary (anchors from word alignment) the map is the corpus's alone
        prior = prior and bool(self.lexicon.table)
        aligner = ProcrustesAligner(
            center=self.align_center,
            normalize=self.align_normalize,
            prior=self.dictionary_map(progress) if prior else None,
        )
        aligner.meta = {
            "kind": "corpus",
            "lexicon": self.lexicon.describe(),
            "encoders": {"en": self.en.describe(), "ru": self.ru.describe()},
        }
        return aligner

    def map_statistics(self, corpus: PreparedCorpus) -> dict:
        """The anchor-pair statistics of a prepared corpus that a corpus map is solved from
        (:meth:`ProcrustesAligner.statistics`). Statistics of the parts of a corpus, computed
        anywhere, give through :meth:`map_from_statistics` the map of the whole."""
        aligner = ProcrustesAligner(center=self.align_center, normalize=self.align_normalize)
        xs, ys = [], []
        for src, mt, anchors in zip(corpus.src, corpus.mt, corpus.anchors):
            if len(anchors):
                xs.append(mt.vectors[anchors.ru])
                ys.append(src.vectors[anchors.en])
        if xs:
            aligner.add_pairs(torch.cat(xs), torch.cat(ys))
        return aligner.statistics()

    def map_from_statistics(
        self, parts: Iterable[dict], *, prior: bool = True, progress: bool = False
    ) -> ProcrustesAligner:
        """The corpus map (refined from the dictionary map unless ``prior=False``) solved from
        the summed :meth:`map_statistics` of a corpus's parts; with no anchor pair at all, the
        dictionary map itself."""
        aligner = self._new_corpus_aligner(prior, progress)
        for stats in parts:
            aligner.merge(stats)
        if aligner.n_pairs_:
            return aligner.solve()
        if aligner.prior is None and not self.lexicon.table and self.en.dim == self.ru.dim:
            # no dictionary and not one anchor in the input: a map cannot be fitted, and the
            # score (the estimator's) does not need one; the paper's columns are then
            # meaningless, and said to be so
            warnings.warn(
                "no anchor pairs in the input and no dictionary to fit a map on: "
                "F1, P and R are not meaningful here (the identity map stands in)",
                IllPosedAlignmentWarning,
                stacklevel=3,
            )
            fallback = ProcrustesAligner.identity(self.en.dim)
            fallback.reliable = False
            fallback.meta = {"kind": "identity, no anchors"}
            return fallback
        if aligner.prior is None:
            raise XLScoreError("no anchor pairs to fit an alignment on")
        aligner.W_ = aligner.prior.W_
        aligner.mean_x_, aligner.mean_y_ = aligner.prior.mean_x_, aligner.prior.mean_y_
        aligner.reliable = aligner.prior.reliable
        return aligner

    def _corpus_aligner(
        self, corpus: PreparedCorpus, progress: bool = False, prior: bool = True
    ) -> ProcrustesAligner:
        return self.map_from_statistics(
            [self.map_statistics(corpus)], prior=prior, progress=progress
        )

    def fit_map(
        self,
        sources: Sequence[str],
        systems: Sequence[str] | Mapping[str, Sequence[str]],
        *,
        chunk_size: int = CHUNK_PAIRS,
        progress: bool = False,
    ) -> ProcrustesAligner:
        """A map refined (from the dictionary map) on the anchors of a corpus, read in chunks
        of ``chunk_size`` pairs so that memory does not grow with the corpus."""
        if self.multilingual:
            raise XLScoreError("a single multilingual encoder needs no alignment")
        return self._fit_map(*check_corpus(sources, systems), chunk_size, progress)

    def _fit_map(
        self, sources: list[str], systems: dict[str, list[str]], chunk_size: int, progress: bool
    ) -> ProcrustesAligner:
        """:meth:`fit_map` of a corpus already checked (by the public method that called)."""
        return self.map_from_statistics(
            (
                self.map_statistics(self._prepare(*segment_pairs(sources, systems, a, b), False))
                for a, b in segment_chunks(len(sources), len(systems), chunk_size)
            ),
            progress=progress,
        )

    def fit(
        self,
        sources: Sequence[str],
        translations: Sequence[str] | Mapping[str, Sequence[str]],
        *,
        chunk_size: int = CHUNK_PAIRS,
        progress: bool = False,
    ) -> Self:
        """Fit the alignment on the anchors of a corpus (regularised towards the dictionary
        map) and use it from now on. ``translations``: one list, or several engines' lists by
        name. Optional: :meth:`score` fits as its ``alignment`` says."""
        self._set_fixed(
            self.fit_map(sources, translations, chunk_size=chunk_size, progress=progress)
        )
        return self

    def _aligner_for(
        self, corpus: PreparedCorpus | None, progress: bool = False
    ) -> ProcrustesAligner:
        """The map the scorer's settings give for a corpus (which only ``"corpus"`` reads)."""
        if self.multilingual:
            return ProcrustesAligner.identity(self.en.dim)
        if self.alignment_mode == "fixed":
            if self.fixed_alignment is None:
                raise XLScoreError("alignment 'fixed' without a map")
            return self.fixed_alignment
        if self.alignment_mode == "corpus":
            if corpus is None:
                raise XLScoreError("alignment='corpus' needs the corpus to fit on")
            return self._corpus_aligner(corpus, progress)
        return self.dictionary_map(progress)

    def score_cross_fitted(
        self,
        corpus: PreparedCorpus,
        groups: Sequence[str],
        variant: str | None = None,
        *,
        folds: int = 5,
        seed: int = 0,
        prior: bool = True,
    ) -> list[ScoreResult]:
        """Score each pair with a map fitted only on the anchors of other groups (e.g.
        documents): the groups are dealt into ``folds`` folds at random (fixed ``seed``), and
        each fold is scored with the map refined on the remaining folds (``prior=False``: fitted
        on them alone). This is the honest counterpart of ``alignment="corpus"``, which fits on
        the very texts it scores. idf weights come from the whole corpus; a rescaling baseline
        is computed for each fold's map. Like :meth:`score_prepared`, the paper's method only
        (``score`` is F1-based, no estimator)."""
        if len(groups) != len(corpus):
            raise InputError(f"{len(groups)} group labels for {len(corpus)} pairs")
        if folds < 2:
            raise XLScoreError("cross-fitting needs at least two folds")
        fold_of = assign_folds(groups, folds, seed)
        idf = self._idf_for(*corpus.texts())
        last = self.last_alignment, self.last_baseline
        out: list[ScoreResult | None] = [None] * len(corpus)
        for f in range(min(folds, len(fold_of))):
            test = [i for i, g in enumerate(groups) if fold_of[g] == f]
            train = [i for i, g in enumerate(groups) if fold_of[g] != f]
            aligner = self._corpus_aligner(corpus.subset(train), False, prior)
            for i, res in zip(
                test, self.score_prepared(corpus.subset(test), variant, aligner=aligner, idf=idf)
            ):
                out[i] = res
        self.last_alignment, self.last_baseline = last  # the fold maps are not the signature's
        return out  # type: ignore[return-value]
