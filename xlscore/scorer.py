"""The scorer: English source + Russian translation -> cross-lingual BERTScore, no reference.

Pipeline for a corpus of ``(source, translation)`` pairs:

1. embed the sources with the English encoder and the translations with the Russian one
   (each unique sentence once, in length-sorted batches);
2. find anchor pairs with the word translator (:mod:`xlscore.metric.anchors`);
3. map the Russian word vectors into the English space with an orthogonal map
   (:mod:`xlscore.metric.alignment`): by default the dictionary map of the encoder pair refined on
   the anchors of the texts being scored (``alignment="corpus"``, the paper's way with the
   dictionary map as prior), or the dictionary map alone (``"dictionary"``), a saved map, or
   the identity for a single multilingual encoder;
4. BERTScore (:mod:`xlscore.metric.bertscore`) over all words, or over anchor words only
   (``variant="anchors"``: precision over the Russian anchor words, recall over the English
   anchor words), optionally idf-weighted and baseline-rescaled.

``ScoreResult.score`` is the number to rank by. With a quality estimator (the default,
:mod:`xlscore.estimator.model`) it is the estimator's prediction; without one (``estimator=None``,
the paper's method) it is F1. Either is pulled towards its lowest value by the share of the
translation that is not Russian (English copied from the source, another language), so that
an untranslated copy never scores high. ``precision``/``recall``/``f1``/``anchors`` always
report the paper's method, and every result carries word-level evidence
(:mod:`xlscore.metric.evidence`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import torch

from xlscore.encoders.encoder import Encoder, WordVectors
from xlscore.encoders.words import normalize_text
from xlscore.errors import AlignmentMismatchError, XLScoreError
from xlscore.estimator.model import DEFAULT as DEFAULT_ESTIMATOR
from xlscore.estimator.model import QualityEstimator
from xlscore.fields import resolve_fields
from xlscore.final_score import (
    CONSENSUS_MIN,
    CONSENSUS_WEIGHT,
    PAIRS_PER_BATCH,
    FinalScore,
)
from xlscore.metric.alignment import ProcrustesAligner
from xlscore.metric.anchors import AnchorSet
from xlscore.metric.bertscore import rescale, score_pairs
from xlscore.metric.corpus import (
    CHUNK_PAIRS,
    PreparedCorpus,
    assign_folds,
    check_corpus,
    segment_chunks,
    segment_pairs,
)
from xlscore.metric.evidence import Evidence, gather, number_evidence
from xlscore.metric.lexicon import Lexicon
from xlscore.metric.mapping import MapFitting
from xlscore.metric.preparation import CorpusPreparation
from xlscore.metric.translators import WordTranslator, make_translator
from xlscore.metric.weighting import Weighting
from xlscore.results import RankedTranslation, ScoreResult, penalised, rank_order
from xlscore.signature import Signature

__all__ = [
    "CHUNK_PAIRS",
    "CONSENSUS_MIN",
    "CONSENSUS_WEIGHT",
    "PreparedCorpus",
    "RankedTranslation",
    "ScoreResult",
    "XLScorer",
    "assign_folds",
    "rank_order",
]

VARIANTS = ("anchors", "all")
ALIGNMENTS = ("dictionary", "corpus")
OFFLINE_EN = "pack:minilm-en"
OFFLINE_RU = "pack:e5-small"


def _flags(src: WordVectors, mt: WordVectors, anchors: AnchorSet) -> tuple[str, ...]:
    """A pair's flags: the anchors' (untranslated, wrong language), and empty sides."""
    return anchors.flags + ("empty",) * (not len(mt)) + ("empty_source",) * (not len(src))


def _numbers(src: WordVectors, mt: WordVectors) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The numbers one side of a pair lacks of the other's, each read in its language."""
    return number_evidence(src.text, mt.text)


def _variant(variant: str | None, default: str) -> str:
    variant = variant or default
    if variant not in VARIANTS:
        raise XLScoreError(f"unknown variant {variant!r}: use one of {', '.join(VARIANTS)}")
    return variant


class XLScorer(CorpusPreparation, MapFitting, Weighting, FinalScore, Signature):
    """Reference-free scorer of English->Russian translations.

    ``XLScorer.offline()`` uses the offline packs (English ``pack:minilm-en``, Russian
    ``pack:e5-small``). ``XLScorer(en_model=..., ru_model=...)`` takes any two encoders (the paper:
    ``bert-base-cased`` and ``DeepPavlov/rubert-base-cased``); ``XLScorer(multilingual=...)`` one
    encoder for both sides, with no alignment. Encoders may be given as :class:`Encoder` objects.

    ``layer``: an int for both encoders or a pair ``(en, ru)``; default each pack's layer.
    ``lexicon``: ``None`` (Müller's dictionary where it is installed, else English words
    only: :meth:`Lexicon.load`), ``"mueller7"``, ``"english-words"``, a ``ru<TAB>en`` file or
    a :class:`Lexicon`.
    ``translator``: ``None`` (the dictionary when the lexicon has word pairs, else
    ``"alignment"``), ``"dictionary"``, ``"alignment"`` (anchors from word alignment in
    ``pack:e5-small``'s space, :mod:`xlscore.metric.wordalign`), ``"google"`` or a
    translator object.
    ``alignment``: ``"corpus"`` (default: the dictionary map refined on the anchors of the
    texts being scored), ``"dictionary"`` (the dictionary map alone, so that a segment's score
    does not depend on the other segments), a saved map's path or a :class:`ProcrustesAligner`.
    ``variant``: ``"anchors"`` (default) or ``"all"``.
    ``estimator``: the quality estimator whose prediction is ``score``
    (:mod:`xlscore.estimator.model`): ``"default"`` (the shipped one), a shipped name, a
    ``.safetensors`` path or a :class:`QualityEstimator`; ``None`` scores by the paper's
    method (F1).
    ``precision``: the arithmetic of every model the scorer loads (encoders and estimator):
    ``"auto"`` (bfloat16 where the hardware computes in it, else float32), ``"fp32"`` (exact),
    ``"bf16"``, ``"fp16"`` or ``"int8"`` (:mod:`xlscore.encoders.precision`); encoders and
    estimators passed in as objects keep their own.
    ``consensus``: without an estimator, when several candidates of one source are scored
    together (several engines, :meth:`rank`), blend each one's agreement with the others into
    ``score`` (default off; see :class:`ScoreResult`). A single list of translations is never
    affected.
    ``idf``: weight words by inverse document frequency (from :meth:`fit_idf`, else from the
    texts being scored). ``rescale``: baseline rescaling (baseline from :meth:`fit_baseline`,
    ``baseline=``, else from the texts being scored).
    ``fields``: the parts of each result to compute (:mod:`xlscore.fields`): ``None`` (all),
    or a comma-separated string or names among ``"score"``, ``"evidence"``, ``"paper"``;
    leaving out ``"paper"`` skips the English encoder, the map and BERTScore (the score is the
    same; the offline default's English encoder is then loaded only if the map is asked for,
    and the signature says ``en:no``). :meth:`prepare` and the paper's methods compute
    everything whatever this says.
    """

    _en: Encoder | None = None
    #: how to load the English encoder on first use (the offline default without the paper)
    _english: tuple[Any, Any, str | None, str]

    def __init__(
        self,
        en_model: str | os.PathLike | Encoder | None = None,
        ru_model: str | os.PathLike | Encoder | None = None,
        *,
        multilingual: str | os.PathLike | Encoder | None = None,
        layer: int | tuple[int | None, int | None] | None = None,
        lexicon: str | os.PathLike | Lexicon | None = None,
        translator: str | WordTranslator | None = None,
        alignment: str | os.PathLike | ProcrustesAligner = "corpus",
        variant: str = "anchors",
        consensus: bool = False,
        idf: bool = False,
        rescale: bool = False,
        baseline: tuple[float, float, float] | None = None,
        device: str | None = None,
        align_center: bool = False,
        align_normalize: bool = True,
        estimator: str | os.PathLike | QualityEstimator | None = DEFAULT_ESTIMATOR,
        precision: str = "auto",
        fields: str | Iterable[str] | None = None,
    ) -> None:
        self.variant = _variant(variant, "anchors")
        self.fields = resolve_fields(fields, estimator=estimator is not None)
        if estimator is not None and consensus:
            raise XLScoreError(
                "consensus blends into the paper's score only: use it with "
                "estimator=None (--estimator none)"
            )
        en_layer, ru_layer = layer if isinstance(layer, tuple) else (layer, layer)
        if multilingual is not None:
            if en_model is not None or ru_model is not None:
                raise XLScoreError("give either multilingual= or en_model=/ru_model=, not both")
            if not (isinstance(alignment, str) and alignment in ALIGNMENTS):
                raise XLScoreError("a single multilingual encoder takes no alignment")
            self.en = self.ru = self._encoder(multilingual, en_layer, device, precision)
            if ru_layer != en_layer and ru_layer is not None:
                self.ru = self.en.with_layer(ru_layer)
        else:
            english = (en_model or OFFLINE_EN, en_layer, device, precision)
            if en_model in (None, OFFLINE_EN) and "paper" not in self.fields:
                # the offline default's English encoder serves the paper's columns alone: it
                # is loaded when they (or the map) are first asked for, not before
                self._english = english
            else:
                self.en = self._encoder(*english)
            self.ru = self._encoder(ru_model or OFFLINE_RU, ru_layer, device, precision)
        self.multilingual = multilingual is not None
        if estimator is None or isinstance(estimator, QualityEstimator):
            self.estimator = estimator
        else:
            self.estimator = QualityEstimator.load(estimator, device=device, precision=precision)
        self.lexicon = Lexicon.load(lexicon)
        self.translator = make_translator(translator, self.lexicon)
        self.idf, self.rescale = idf, rescale
        self.consensus = bool(consensus)
        self.baseline = baseline
        self.align_center, self.align_normalize = align_center, align_normalize
        self._idf_en = self._idf_ru = None
        self._dictionary_map: ProcrustesAligner | None = None
        self._sim_encoder: Encoder | None = None
        self.fixed_alignment: ProcrustesAligner | None = None
        self.alignment_mode = "identity" if self.multilingual else "corpus"
        self.last_alignment: ProcrustesAligner | None = None
        self.last_baseline: tuple[float, float, float] | None = None
        if self.multilingual:
            return
        if isinstance(alignment, ProcrustesAligner):
            self._set_fixed(alignment)
        elif isinstance(alignment, str) and alignment in ALIGNMENTS:
            self.alignment_mode = alignment
        elif isinstance(alignment, (str, os.PathLike)):
            self._set_fixed(
                ProcrustesAligner.load(
                    alignment, expect={"en": self.en.describe(), "ru": self.ru.describe()}
                )
            )
        else:
            raise XLScoreError(f"unknown alignment {alignment!r}")

    def _set_fixed(self, aligner: ProcrustesAligner) -> None:
        want = (self.ru.dim, self.en.dim)
        if aligner.W_ is None or aligner.W_.shape != want:
            shape = None if aligner.W_ is None else aligner.W_.shape
            raise AlignmentMismatchError(
                f"the alignment maps {shape}, but these encoders need {want[0]}x{want[1]}"
            )
        self.fixed_alignment, self.alignment_mode = aligner, "fixed"

    @property
    def en(self) -> Encoder:
        """The English encoder (the paper's source side); the offline default's is loaded on
        first use when the scorer's fields leave out the paper's columns."""
        if self._en is None:
            self._en = self._encoder(*self._english)
        return self._en

    @en.setter
    def en(self, encoder: Encoder) -> None:
        self._en = encoder

    @staticmethod
    def _encoder(spec, layer, device, precision) -> Encoder:
        if isinstance(spec, Encoder):
            return spec if layer is None else spec.with_layer(layer)
        return Encoder.load(spec, layer=layer, device=device, precision=precision)

    def _variant_of(self, variant: str | None) -> str:
        """``variant``, or the scorer's own when ``None``; checked."""
        return _variant(variant, self.variant)

    @classmethod
    def offline(cls, **kwargs) -> XLScorer:
        """The offline default: English ``pack:minilm-en`` + Russian ``pack:e5-small``."""
        return cls(en_model=OFFLINE_EN, ru_model=OFFLINE_RU, **kwargs)

    # ------------------------------------------------------------------ scoring
    def prepare(
        self, sources: Sequence[str], translations: Sequence[str], *, progress: bool = False
    ) -> PreparedCorpus:
        """Embed and anchor a corpus once; :meth:`score_prepared` then scores it any way."""
        sources, systems = check_corpus(sources, translations)
        return self._prepare(sources, systems[next(iter(systems))], progress)

    def score(
        self,
        sources: Sequence[str],
        translations: Sequence[str],
        variant: str | None = None,
        *,
        chunk_size: int = CHUNK_PAIRS,
        progress: bool = False,
    ) -> list[ScoreResult]:
        """Score each translation against its source; one :class:`ScoreResult` per pair."""
        return [
            by[""]
            for _, by in self.iter_score(
                sources, translations, variant, chunk_size=chunk_size, progress=progress
            )
        ]

    def iter_score(
        self,
        sources: Sequence[str],
        translations: Sequence[str] | Mapping[str, Sequence[str]],
        variant: str | None = None,
        *,
        chunk_size: int = CHUNK_PAIRS,
        start: int = 0,
        progress: bool = False,
        on_pairs: Callable[[int], None] | None = None,
    ) -> Iterator[tuple[int, dict[str, ScoreResult]]]:
        """Score a corpus in chunks, yielding ``(segment index, {engine: result})`` in order
        from segment ``start``; ``translations`` is one list (engine ``""``) or several by
        engine name. Memory is bounded by the chunk (``chunk_size`` pairs).

        Whatever the scores depend on beyond a pair is settled on the whole corpus first, so
        that results do not depend on chunking or on ``start``: idf weights (when ``idf`` and
        none were fitted), the rescaling baseline (when ``rescale`` and none was given) and,
        with ``alignment="corpus"``, the map. A corpus larger than one chunk is then read
        twice (once to fit the map, once to score). With the same ``chunk_size``, a run
        started at ``start`` gives bit-identical results to an uninterrupted one (chunks are
        recomputed whole); other chunk sizes agree to about 1e-6. ``on_pairs``: called with the
        number of pairs each estimator pass has read, for a progress bar that moves inside a
        chunk."""
        variant = _variant(variant, self.variant)
        sources, systems = check_corpus(sources, translations)
        names = list(systems)
        chunks = segment_chunks(len(sources), len(names), chunk_size)
        settled: tuple[ProcrustesAligner, Any, tuple[float, float, float] | None] | None = None
        if len(chunks) > 1 and "paper" in self.fields:
            # the texts as the single-chunk path sees them (normalised), so that idf and the
            # baseline do not depend on the chunk size
            all_src = [normalize_text(s) for s in sources for _ in names]
            all_mt = [normalize_text(v[i]) for i in range(len(sources)) for v in systems.values()]
            aligner = (
                self._fit_map(sources, systems, chunk_size, progress)
                if self.alignment_mode == "corpus" and not self.multilingual
                else self._aligner_for(None, progress)
            )
            settled = self._settle(all_src, all_mt, variant, aligner, None, progress)
        for a, b in chunks:
            if b <= start and settled is not None:
                continue  # (a single chunk is settled even when nothing is left to yield)
            # a chunk is always computed whole, so that resuming reproduces the same batches
            # and therefore the same floating-point results
            corpus = self._prepare_chunk(*segment_pairs(sources, systems, a, b), progress)
            if settled is None and corpus.paper:
                settled = self._settle(*corpus.texts(), variant, None, corpus, progress)
            n = len(names)
            results = self.finish(
                corpus,
                self._score_core(corpus, variant, *settled)
                if corpus.paper and settled is not None
                else self._unscored(corpus),
                [range(k, k + n) for k in range(0, len(corpus), n)],
                on_pairs,
            )
            for i in range(max(a, start), b):
                k = (i - a) * n
                yield i, dict(zip(names, results[k : k + n]))

    def _settle(
        self,
        sources: list[str],
        translations: list[str],
        variant: str,
        aligner: ProcrustesAligner | None,
        corpus: PreparedCorpus | None,
        progress: bool,
        idf=None,
        baseline=None,
    ) -> tuple[ProcrustesAligner, Any, tuple[float, float, float] | None]:
        """Map, idf weights and baseline for a corpus, from the given values or the scorer's
        settings; remembers the map and baseline for the signature."""
        if aligner is None:
            aligner = self._aligner_for(corpus, progress)
        if idf is None:
            idf = self._idf_for(sources, translations)
        if self.rescale and baseline is None:
            baseline = self.baseline or self.compute_baseline(
                sources, translations, variant=variant, aligner=aligner, idf=idf, progress=progress
            )
        if not self.rescale:
            baseline = None
        self.last_alignment, self.last_baseline = aligner, baseline
        return aligner, idf, baseline

    def score_prepared(
        self,
        corpus: PreparedCorpus,
        variant: str | None = None,
        *,
        aligner: ProcrustesAligner | None = None,
        idf=None,
        baseline: tuple[float, float, float] | None = None,
        progress: bool = False,
    ) -> list[ScoreResult]:
        """Score a :class:`PreparedCorpus`. ``aligner`` overrides the scorer's alignment;
        ``idf`` (a pair of functions) and ``baseline`` its weights and rescaling baseline;
        what is not given comes from the scorer's settings or, failing that, this corpus.
        This is the paper's method only: ``score`` is the (penalised) F1 even when the scorer
        has an estimator; :meth:`finish` turns the results into the final scores."""
        variant = _variant(variant, self.variant)
        if not corpus.paper:
            raise XLScoreError(
                "this corpus was prepared without the paper's columns; "
                "prepare it with XLScorer.prepare"
            )
        settled = self._settle(*corpus.texts(), variant, aligner, corpus, progress, idf, baseline)
        return self._score_core(corpus, variant, *settled)

    def _score_core(
        self,
        corpus: PreparedCorpus,
        variant: str,
        aligner: ProcrustesAligner,
        idf,
        baseline: tuple[float, float, float] | None,
    ) -> list[ScoreResult]:
        """The arithmetic: map, select words, greedy matching, rescaling, penalty."""
        mapped = self._map(corpus.mt, aligner)
        cand, ref, cand_w, ref_w = [], [], [], []
        for src, mt, m, anchors in zip(corpus.src, corpus.mt, mapped, corpus.anchors):
            ci = anchors.ru if variant == "anchors" else list(range(len(mt)))
            ri = anchors.en if variant == "anchors" else list(range(len(src)))
            cand.append(m[ci])
            ref.append(src.vectors[ri])
            if idf is not None:
                cand_w.append(torch.tensor([idf[1](mt.words[i]) for i in ci]))
                ref_w.append(torch.tensor([idf[0](src.words[i]) for i in ri]))
        p, r, f = score_pairs(cand, ref, cand_w or None, ref_w or None, batch=PAIRS_PER_BATCH)
        floor = -1.0
        if baseline is not None:
            bp, br, bf = baseline
            p, r, f = rescale(p, bp), rescale(r, br), rescale(f, bf)
            floor = rescale(-1.0, bf)
        out = []
        for k, (src, mt, anchors) in enumerate(zip(corpus.src, corpus.mt, corpus.anchors)):
            f1 = float(f[k])
            out.append(
                ScoreResult(
                    precision=float(p[k]),
                    recall=float(r[k]),
                    f1=f1,
                    score=floor
                    if not (len(src) and len(mt))
                    else penalised(f1, anchors.foreign, floor),
                    n_anchors=len(anchors),
                    anchors=tuple((src.words[e], mt.words[i]) for e, i in anchors.pairs),
                    foreign=anchors.foreign,
                    flags=_flags(src, mt, anchors),
                    evidence=gather(src.words, mt.words, anchors, _numbers(src, mt)),
                )
            )
        return out

    def _unscored(self, corpus: PreparedCorpus) -> list[ScoreResult]:
        """Results of a corpus prepared without the paper's columns: flags, foreign share and
        (when asked for) evidence; no P/R/F1 or anchors, and a ``score`` that :meth:`finish`
        sets."""
        evidence = "evidence" in self.fields
        out = []
        for src, mt, anchors in zip(corpus.src, corpus.mt, corpus.anchors):
            out.append(
                ScoreResult(
                    precision=None,
                    recall=None,
                    f1=None,
                    score=float("nan"),
                    n_anchors=None,
                    anchors=(),
                    foreign=anchors.foreign,
                    flags=_flags(src, mt, anchors),
                    evidence=(
                        gather(src.words, mt.words, anchors, _numbers(src, mt))
                        if evidence
                        else Evidence()
                    ),
                )
            )
        return out

    @staticmethod
    def _map(mt: list[WordVectors], aligner: ProcrustesAligner) -> list[torch.Tensor]:
        """All translation word vectors mapped in one matrix product, split back per pair."""
        uniq = list({id(wv): wv for wv in mt}.values())
        sizes = [len(wv) for wv in uniq]
        if not sum(sizes):
            if aligner.W_ is None:
                raise AlignmentMismatchError("the alignment is not fitted yet")
            return [torch.zeros((0, aligner.W_.shape[1])) for _ in mt]
        mapped = aligner.transform(torch.cat([wv.vectors for wv in uniq])).float()
        parts = dict(zip((id(wv) for wv in uniq), torch.split(mapped, sizes)))
        return [parts[id(wv)] for wv in mt]

    def rank(self, source: str, translations: Sequence[str]) -> list[RankedTranslation]:
        """Rank several translations of one source, best first (the source is embedded once).
        Flagged translations (untranslated, wrong language, empty) come last; ties keep input
        order. With three or more translations and consensus on, each one's agreement with the
        others is part of its score."""
        if isinstance(translations, str):
            raise TypeError("translations must be a list of strings")
        engines = {str(k): [t] for k, t in enumerate(translations)}
        results = [] if not engines else list(next(self.iter_score([source], engines))[1].values())
        order = rank_order(results)
        return [
            RankedTranslation(i, translations[i], results[i], rank)
            for rank, i in enumerate(order, start=1)
        ]
