"""The scorer: English sources and Russian translations in, one :class:`ScoreResult` per pair out,
no reference.

:class:`XLScorer` runs its components over a corpus, chunk by chunk: the words of each side
(:mod:`xlscore.text.words`), their anchors (:class:`~xlscore.metric.anchoring.Anchoring`)
and, when asked for, the paper's columns (:class:`~xlscore.metric.paper.PaperScorer`); then
the final score (:class:`~xlscore.final_score.FinalScore`: the quality estimator's
prediction, the default, or the paper's F1 with the candidates' consensus), with the
multilingual similarity (:class:`~xlscore.metric.similarity.Similarity`) where the score or
a field needs it. Each component describes its own part of the signature
(:mod:`xlscore.signature`).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from xlscore._version import __version__
from xlscore.checking import Checking
from xlscore.encoders.encoder import Encoder
from xlscore.errors import XLScoreError
from xlscore.estimator.model import DEFAULT as DEFAULT_ESTIMATOR
from xlscore.estimator.model import QualityEstimator
from xlscore.fields import FIELDS, resolve_fields
from xlscore.final_score import CONSENSUS_MIN, PAPER_CONSENSUS_WEIGHT, FinalScore
from xlscore.metric.alignment import ProcrustesAligner
from xlscore.metric.anchoring import Anchoring
from xlscore.metric.corpus import (
    CHUNK_PAIRS,
    PreparedCorpus,
    assign_folds,
    check_corpus,
    segment_chunks,
    segment_pairs,
)
from xlscore.metric.lexicon import Lexicon
from xlscore.metric.mapping import ALIGNMENTS
from xlscore.metric.pair_parts import unscored
from xlscore.metric.paper import PaperScorer, checked_variant
from xlscore.metric.similarity import Similarity
from xlscore.metric.translators import WordTranslator, make_translator
from xlscore.results import RankedTranslation, ScoreResult, rank_order
from xlscore.signature import KEYS, signature_line

__all__ = [
    "CHUNK_PAIRS",
    "CONSENSUS_MIN",
    "PAPER_CONSENSUS_WEIGHT",
    "PreparedCorpus",
    "RankedTranslation",
    "ScoreResult",
    "XLScorer",
    "assign_folds",
    "rank_order",
    "score",
]

OFFLINE_EN = "pack:minilm-en"
OFFLINE_RU = "pack:e5-small"


def _encoder(spec, layer, device, dtype) -> Encoder:
    if isinstance(spec, Encoder):
        return spec if layer is None else spec.with_layer(layer)
    return Encoder.load(spec, layer=layer, device=device, dtype=dtype)


def _encoders(
    en_model, ru_model, multilingual, layer, device, dtype: str, alignment, *, paper: frozenset
) -> tuple[Encoder | Callable[[], Encoder], Encoder]:
    """The English and Russian encoders of :class:`XLScorer`'s arguments (one for both sides
    with ``multilingual``); the offline default's English encoder serves the paper's columns
    alone, so without ``"paper"`` among the fields it loads on first use, not here."""
    if multilingual is not None:
        if en_model is not None or ru_model is not None:
            raise XLScoreError("give either multilingual= or en_model=/ru_model=, not both")
        if not (isinstance(alignment, str) and alignment in ALIGNMENTS):
            raise XLScoreError("a single multilingual encoder takes no alignment")
    en_layer, ru_layer = layer if isinstance(layer, tuple) else (layer, layer)
    if multilingual is not None:
        both = _encoder(multilingual, en_layer, device, dtype)
        other = ru_layer != en_layer and ru_layer is not None
        return both, both.with_layer(ru_layer) if other else both
    english = (en_model or OFFLINE_EN, en_layer, device, dtype)
    lazy = en_model in (None, OFFLINE_EN) and "paper" not in paper
    en = (lambda: _encoder(*english)) if lazy else _encoder(*english)
    return en, _encoder(ru_model or OFFLINE_RU, ru_layer, device, dtype)


class XLScorer:
    """Reference-free scorer of English->Russian translations.

    ``XLScorer.offline()`` uses the offline packs (``pack:minilm-en``, ``pack:e5-small``);
    ``XLScorer(en_model=..., ru_model=...)`` any two encoders (the paper: ``bert-base-cased``
    and ``DeepPavlov/rubert-base-cased``), names or :class:`Encoder` objects;
    ``XLScorer(multilingual=...)`` one encoder for both sides, with no map.

    Args:
        layer: an int for both encoders or a pair ``(en, ru)``; default each pack's layer.
        lexicon: ``None`` (Müller's dictionary where installed, else English words only),
            ``"mueller7"``, ``"english-words"``, a ``ru<TAB>en`` file or a :class:`Lexicon`.
        translator: ``None`` (the dictionary when the lexicon has word pairs, else
            ``"alignment"``), ``"dictionary"``, ``"alignment"``, ``"google"`` or an object.
        alignment: ``"corpus"`` (the dictionary map refined on the texts scored),
            ``"dictionary"``, a saved map's path or a :class:`ProcrustesAligner`.
        variant: ``"anchors"`` or ``"all"`` words in the paper's BERTScore.
        estimator: ``"default"`` (the shipped one), a shipped name, a ``.safetensors`` path or
            a :class:`QualityEstimator` whose prediction is ``score``; ``None``: the paper's F1.
        dtype: ``"auto"``, ``"fp32"``, ``"bf16"``, ``"fp16"`` or ``"int8"`` for every model
            loaded here (:mod:`xlscore.encoders.arithmetic`); objects keep their own.
        consensus: blend each candidate's agreement with the others of its source into
            ``score`` when three or more are scored together (:mod:`xlscore.metric.consensus`;
            the estimator's file gives its weight, :data:`PAPER_CONSENSUS_WEIGHT` the paper
            score's); ``False``: every score is the translation's own.
        idf, rescale, baseline, align_center, align_normalize: the paper's BERTScore options
            (:class:`~xlscore.metric.paper.PaperScorer`).
        fields: the parts of each result to compute (:mod:`xlscore.fields`; ``None``: all).
            Without ``"paper"`` the English encoder, the map and BERTScore are skipped (the
            score is the same); :meth:`prepare` computes everything whatever this says.
    """

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
        consensus: bool = True,
        idf: bool = False,
        rescale: bool = False,
        baseline: tuple[float, float, float] | None = None,
        device: str | None = None,
        align_center: bool = False,
        align_normalize: bool = True,
        estimator: str | os.PathLike | QualityEstimator | None = DEFAULT_ESTIMATOR,
        dtype: str = "auto",
        fields: str | Iterable[str] | None = None,
    ) -> None:
        # the settings are checked before any model loads
        checked_variant(variant, "anchors")
        chosen = resolve_fields(fields, estimator=estimator is not None)
        en, ru = _encoders(
            en_model, ru_model, multilingual, layer, device, dtype, alignment, paper=chosen
        )
        if estimator is not None and not isinstance(estimator, QualityEstimator):
            estimator = QualityEstimator.load(estimator, device=device, dtype=dtype)
        lexicon = Lexicon.load(lexicon)
        self.similarity = Similarity(ru)
        self.anchoring = Anchoring(lexicon, make_translator(translator, lexicon), self.similarity)
        self.paper = PaperScorer(
            en,
            ru,
            multilingual=multilingual is not None,
            anchoring=self.anchoring,
            alignment=alignment,
            variant=variant,
            idf=idf,
            rescale=rescale,
            baseline=baseline,
            align_center=align_center,
            align_normalize=align_normalize,
        )
        self.final = FinalScore(
            estimator, consensus=consensus, fields=chosen, similarity=self.similarity
        )
        self.checking = Checking.needed(
            chosen,
            estimator.check_weight if estimator else 0.0,
            spans=estimator is not None and estimator.tagger is not None,
        )
        # the models, tokenizers and tables just loaded live as long as the scorer: moved out
        # of the collector's reach, they are not scanned again by every collection while
        # scoring allocates (the collector cost about 0.28 s a call on 1,400 pairs)
        gc.collect()
        gc.freeze()

    @classmethod
    def offline(cls, **kwargs) -> XLScorer:
        """The offline default: English ``pack:minilm-en`` + Russian ``pack:e5-small``."""
        return cls(en_model=OFFLINE_EN, ru_model=OFFLINE_RU, **kwargs)

    @property
    def en(self) -> Encoder:
        """The English encoder (the offline default's is loaded on first use when the fields
        leave out the paper's columns)."""
        return self.paper.en

    @property
    def ru(self) -> Encoder:
        """The Russian encoder."""
        return self.paper.ru

    @property
    def fields(self) -> frozenset[str]:
        """The field groups this scorer computes (:mod:`xlscore.fields`)."""
        return self.final.fields

    @property
    def estimator(self) -> QualityEstimator | None:
        """The quality estimator whose prediction is the score (``None``: the paper's F1)."""
        return self.final.estimator

    def describe(self) -> dict:
        """Every setting that changes a score (the signature's content), in :data:`KEYS`."""
        d = {
            "version": __version__,
            **self.paper.describe(english="paper" in self.fields),
            **self.final.describe(),
            "fields": [f for f in FIELDS if f in self.fields],
        }
        return {k: d[k] for k in KEYS}

    def signature(self) -> str:
        """A sacreBLEU-style one-line signature of the settings."""
        return signature_line(self.describe(), self.estimator)

    # ------------------------------------------------------------------ scoring
    def prepare(
        self, sources: Sequence[str], translations: Sequence[str], *, progress: bool = False
    ) -> PreparedCorpus:
        """Embed and anchor a corpus once, with every column (the paper's included);
        ``self.paper.score_prepared`` and ``self.final.finish`` then score it."""
        return self.paper.prepare(sources, translations, progress=progress)

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
        """Score a corpus in chunks; memory is bounded by the chunk.

        Whatever the scores depend on beyond a pair is settled on the whole corpus first, so
        that results do not depend on chunking or on ``start``: idf weights (when ``idf`` and
        none were fitted), the rescaling baseline (when ``rescale`` and none was given) and,
        with ``alignment="corpus"``, the map. A corpus larger than one chunk is then read
        twice (once to fit the map, once to score).

        Args:
            sources: English sources.
            translations: one list (engine ``""``) or several by engine name.
            variant: the paper's words, ``"anchors"`` or ``"all"`` (default: the scorer's).
            chunk_size: pairs per chunk. With the same size, a run started at ``start`` gives
                bit-identical results to an uninterrupted one (chunks are recomputed whole);
                other sizes agree to about 1e-6.
            start: the first segment to yield; chunks that end before it are not computed
                (resuming a finished corpus runs no checks and no estimator; with the paper's
                fields the corpus map is still fitted, as its digest is in the signature).
            progress: show progress bars.
            on_pairs: called with the number of pairs each estimator pass has read, for a
                progress bar that moves inside a chunk.

        Returns:
            ``(segment index, {engine: result})`` in order, from segment ``start``.
        """
        variant = self.paper.variant_of(variant)
        sources, systems = check_corpus(sources, translations)
        names = list(systems)
        chunks = segment_chunks(len(sources), len(names), chunk_size)
        paper, settled = self.paper, None
        if "paper" in self.fields and (len(chunks) > 1 or start >= len(sources)):
            # the corpus map signs the output, so it is fitted even when nothing is left to
            # score (a resumed, finished file keeps the signature an uninterrupted run wrote)
            settled = paper.settle_corpus(sources, systems, variant, chunk_size, progress)
        for a, b in chunks:
            if b <= start:
                continue  # finished: nothing of it is yielded, and nothing later needs it
            # a chunk is always computed whole, so that resuming reproduces the same batches
            # and therefore the same floating-point results; its pairs before ``start`` were
            # done before, so they do not move a progress bar again
            told = _after(on_pairs, (start - a) * len(names)) if a < start else on_pairs
            src, mt = segment_pairs(sources, systems, a, b)
            corpus = (
                paper.prepare_checked(src, mt, progress)
                if "paper" in self.fields
                else self.anchoring.prepare(
                    src,
                    mt,
                    vectors=self.final.computes_similarity,
                    translate="evidence" in self.fields,
                    progress=progress,
                )
            )
            self.checking.run(corpus)
            if settled is None and corpus.paper:
                settled = paper.settle(*corpus.texts(), variant, None, corpus, progress)
            n = len(names)
            results = self.final.finish(
                corpus,
                paper.score_core(corpus, variant, *settled)
                if corpus.paper and settled is not None
                else unscored(corpus, "evidence" in self.fields),
                [range(k, k + n) for k in range(0, len(corpus), n)],
                told,
                _naming(a, names),
            )
            for i in range(max(a, start), b):
                k = (i - a) * n
                yield i, dict(zip(names, results[k : k + n]))

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


def _naming(first: int, names: Sequence[str]) -> Callable[[int], str]:
    """How a warning names the pair at position ``k`` of a chunk whose first segment is
    ``first`` (0-based), its engines ``names`` in turn: ``segment 3`` (1-based), with
    ``, engine NAME`` when the engines have names."""

    def named(k: int) -> str:
        engine = names[k % len(names)]
        return f"segment {first + k // len(names) + 1}" + (f", engine {engine}" if engine else "")

    return named


def _after(on_pairs: Callable[[int], None] | None, skip: int) -> Callable[[int], None] | None:
    """``on_pairs`` told only of the pairs after the first ``skip`` (those a resumed run
    computes again, already counted)."""
    if on_pairs is None:
        return None
    left = skip

    def told(pairs: int) -> None:
        nonlocal left
        seen = min(left, pairs)
        left -= seen
        if pairs > seen:
            on_pairs(pairs - seen)

    return told


def score(sources: Sequence[str], translations: Sequence[str], **settings) -> list[ScoreResult]:
    """Score each translation against its source in one call: a new
    ``XLScorer(**settings)`` (the offline default unless ``settings`` say otherwise).
    For several calls build one :class:`XLScorer` and call its :meth:`~XLScorer.score`: the
    models then load once.

    Args:
        sources: English sources.
        translations: their Russian translations, one per source.
        settings: :class:`XLScorer` keyword arguments.

    Returns:
        One :class:`ScoreResult` per pair, in order.
    """
    return XLScorer(**settings).score(sources, translations)
