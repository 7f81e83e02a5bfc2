"""The paper's maps from the Russian into the English vector space (:class:`Maps`, a component
of :class:`xlscore.paper.paper_scorer.PaperScorer`): the ``alignment`` setting (the corpus map, the
dictionary map, a saved or given map, the identity for one multilingual encoder), the encoder
pair's dictionary map, a map refined on the anchor-pair statistics of a corpus (which add up
over its parts, wherever they were computed), and the map the setting gives for a corpus.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable

import torch

from xlscore.encoders.encoder import Encoder
from xlscore.errors import AlignmentMismatchError, XLScoreError
from xlscore.lexicon.dictionary import Lexicon
from xlscore.paper.alignment import (
    IllPosedAlignmentWarning,
    ProcrustesAligner,
    dictionary_alignment,
)
from xlscore.scoring.corpus import PreparedCorpus
from xlscore.scoring.presets import ALIGNMENTS, PaperSettings


class Maps:
    """The map the paper's score uses (see the module's docstring).

    Args:
        en: the English encoder, or a function that loads it on first use.
        ru: the Russian encoder.
        lexicon: the word pairs of the dictionary map.
        settings: the paper's settings: one ``multilingual`` encoder for both sides (the
            identity map), or their ``alignment`` (``"corpus"``, ``"dictionary"``, a saved
            map's path or a :class:`ProcrustesAligner`) and the Procrustes fit's centring and
            row normalisation (``align_center``, ``align_normalize``).
    """

    def __init__(
        self,
        en: Encoder | Callable[[], Encoder],
        ru: Encoder,
        lexicon: Lexicon,
        settings: PaperSettings,
    ) -> None:
        self._en = en
        self.ru, self.lexicon = ru, lexicon
        self.multilingual = settings.multilingual is not None
        self.center, self.normalize = settings.align_center, settings.align_normalize
        self._dictionary_map: ProcrustesAligner | None = None
        self.fixed: ProcrustesAligner | None = None
        #: the last map a corpus was scored with (the signature names it)
        self.last: ProcrustesAligner | None = None
        alignment = settings.alignment
        if self.multilingual:  # the identity (the settings refuse a map for one encoder)
            self.mode = "identity"
        elif isinstance(alignment, ProcrustesAligner):
            self.set_fixed(alignment)
        elif isinstance(alignment, str) and alignment in ALIGNMENTS:
            self.mode = alignment
        elif isinstance(alignment, (str, os.PathLike)):
            self.set_fixed(
                ProcrustesAligner.load(
                    alignment, expect={"en": self.en.describe(), "ru": self.ru.describe()}
                )
            )
        else:
            raise XLScoreError(f"unknown alignment {alignment!r}")

    @property
    def en(self) -> Encoder:
        """The English encoder (loaded on first use when given as a function)."""
        if not isinstance(self._en, Encoder):
            self._en = self._en()
        return self._en

    @staticmethod
    def load_map(path: str | os.PathLike) -> ProcrustesAligner:
        """A map saved by :meth:`ProcrustesAligner.save` (a batch job's corpus map)."""
        return ProcrustesAligner.load(path)

    def set_fixed(self, aligner: ProcrustesAligner) -> None:
        """Score with ``aligner`` from now on, whatever the corpus."""
        want = (self.ru.dim, self.en.dim)
        if aligner.W_ is None or aligner.W_.shape != want:
            shape = None if aligner.W_ is None else aligner.W_.shape
            raise AlignmentMismatchError(
                f"the alignment maps {shape}, but these encoders need {want[0]}x{want[1]}"
            )
        self.fixed, self.mode = aligner, "fixed"

    def describe(self) -> str:
        """The setting, with the digest of the map in force (fixed, or the last one used)."""
        if self.mode == "fixed" and self.fixed is not None:
            return f"{self.mode}#{self.fixed.digest}"
        if self.last is not None and not self.multilingual:
            return f"{self.mode}#{self.last.digest}"
        return self.mode

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
                center=self.center,
                normalize=self.normalize,
                progress=progress,
            )
        return self._dictionary_map

    def _new_corpus_aligner(self, prior: bool, progress: bool) -> ProcrustesAligner:
        # without a dictionary (anchors from word alignment) the map is the corpus's alone
        prior = prior and bool(self.lexicon.table)
        aligner = ProcrustesAligner(
            center=self.center,
            normalize=self.normalize,
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
        aligner = ProcrustesAligner(center=self.center, normalize=self.normalize)
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

    def for_corpus(
        self, corpus: PreparedCorpus, progress: bool = False, prior: bool = True
    ) -> ProcrustesAligner:
        """The corpus map of one prepared corpus (refined from the dictionary map unless
        ``prior=False``)."""
        return self.map_from_statistics(
            [self.map_statistics(corpus)], prior=prior, progress=progress
        )

    def choose(self, corpus: PreparedCorpus | None, progress: bool = False) -> ProcrustesAligner:
        """The map the setting gives for a corpus (which only ``"corpus"`` reads)."""
        if self.multilingual:
            return ProcrustesAligner.identity(self.en.dim)
        if self.mode == "fixed":
            if self.fixed is None:
                raise XLScoreError("alignment 'fixed' without a map")
            return self.fixed
        if self.mode == "corpus":
            if corpus is None:
                raise XLScoreError("alignment='corpus' needs the corpus to fit on")
            return self.for_corpus(corpus, progress)
        return self.dictionary_map(progress)
