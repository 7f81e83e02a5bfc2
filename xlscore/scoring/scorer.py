"""The scorer: English sources and Russian translations in, one :class:`ScoreResult` per pair out,
no reference.

:class:`XLScorer` runs its components over a corpus, chunk by chunk: the words of each side
(:mod:`xlscore.text.words`), their anchors (:class:`~xlscore.scoring.anchoring.Anchoring`)
and, when asked for, the paper's columns (:class:`~xlscore.paper.paper_scorer.PaperScorer`); then
the final score (:class:`~xlscore.scoring.blend.ScoreBlend`: the quality estimator's
prediction, the default, or the paper's F1 with the candidates' consensus), with the
multilingual similarity (:class:`~xlscore.scoring.similarity.Similarity`) where the score or
a field needs it. Each component describes its own part of the signature
(:mod:`xlscore.signature`).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from xlscore._version import __version__
from xlscore.encoders.encoder import Encoder
from xlscore.errors import XLScoreError
from xlscore.estimator.model import DEFAULT as DEFAULT_ESTIMATOR
from xlscore.estimator.model import QualityEstimator
from xlscore.fields import DEFAULT as DEFAULT_FIELDS
from xlscore.fields import FIELDS, resolve_fields
from xlscore.lexicon.dictionary import Lexicon
from xlscore.lexicon.translators import make_translator
from xlscore.results import RankedTranslation, ScoreResult, rank_order
from xlscore.scoring.anchoring import Anchoring
from xlscore.scoring.blend import CONSENSUS_MIN, PAPER_CONSENSUS_WEIGHT, ScoreBlend
from xlscore.scoring.blocks import BlockPipeline
from xlscore.scoring.corpus import PreparedCorpus, assign_folds
from xlscore.scoring.corpus_result import CorpusResult
from xlscore.scoring.engine_set import engines_part, warned_copies
from xlscore.scoring.plan import Plan
from xlscore.scoring.presets import (
    OFFLINE_EN,
    OFFLINE_RU,
    PRESETS,
    PaperSettings,
    Preset,
    checked_variant,
    settings_description,
)
from xlscore.scoring.rule_checks import RuleChecks
from xlscore.scoring.similarity import Similarity
from xlscore.signature import KEYS, signature_of
from xlscore.text.pairs import CHUNK_PAIRS, check_corpus, segment_chunks, segment_pairs

if TYPE_CHECKING:  # built on first use (:attr:`XLScorer.paper`), never by the default score
    from xlscore.paper.paper_scorer import PaperScorer

__all__ = [
    "CHUNK_PAIRS",
    "CONSENSUS_MIN",
    "PAPER_CONSENSUS_WEIGHT",
    "PRESETS",
    "PaperSettings",
    "PreparedCorpus",
    "Preset",
    "RankedTranslation",
    "ScoreResult",
    "XLScorer",
    "assign_folds",
    "rank_order",
    "score",
]


def _encoder(spec, layer, device, dtype) -> Encoder:
    if isinstance(spec, Encoder):
        return spec if layer is None else spec.with_layer(layer)
    return Encoder.load(spec, layer=layer, device=device, dtype=dtype)


def _encoders(
    paper: PaperSettings, device, dtype: str, *, fields: frozenset
) -> tuple[Encoder | Callable[[], Encoder], Encoder]:
    """The English and Russian encoders of the paper's settings (one for both sides with
    ``multilingual``); the offline default's English encoder serves the paper's columns
    alone, so without ``"paper"`` among the fields it loads on first use, not here."""
    en_layer, ru_layer = paper.layers
    if paper.multilingual is not None:
        both = _encoder(paper.multilingual, en_layer, device, dtype)
        if ru_layer is not None and ru_layer != en_layer:
            return both, both.with_layer(ru_layer)
        return both, both
    english = (paper.en_model or OFFLINE_EN, en_layer, device, dtype)
    lazy = paper.en_model in (None, OFFLINE_EN) and "paper" not in fields
    en = (lambda: _encoder(*english)) if lazy else _encoder(*english)
    return en, _encoder(paper.ru_model or OFFLINE_RU, ru_layer, device, dtype)


#: the scorer's own settings beside the paper's record
_OWN = ("estimator", "consensus", "fields", "device", "dtype")


class XLScorer:
    """Reference-free scorer of English->Russian translations.

    ``XLScorer()`` (or ``XLScorer.offline()``) is the offline default: the shipped estimator,
    with the offline packs (``pack:minilm-en``, ``pack:e5-small``) for the paper's columns.
    ``XLScorer(PaperSettings(en_model=..., ru_model=...))`` reads the paper's columns with
    any two encoders (the paper: ``bert-base-cased`` and ``DeepPavlov/rubert-base-cased``),
    ``PaperSettings(multilingual=...)`` with one encoder for both sides and no map.
    :meth:`preset` and :meth:`offline` take the settings by name.

    Args:
        paper: the paper's settings (:class:`~xlscore.scoring.presets.PaperSettings`:
            encoders, layer, lexicon, translator, alignment, variant, idf, rescaling);
            ``None``: the offline default's.
        estimator: ``"default"`` (the shipped one), a shipped name, a ``.safetensors`` path or
            a :class:`QualityEstimator` whose prediction is ``score``; ``None``: the paper's F1.
        consensus: blend each candidate's agreement with the others of its source into
            ``score`` when three or more are scored together (:mod:`xlscore.scoring.consensus`;
            the estimator's file gives its weight, :data:`PAPER_CONSENSUS_WEIGHT` the paper
            score's); ``False``: every score is the translation's own.
        fields: the parts of each result to compute (:mod:`xlscore.fields`): by default
            (or ``None``) ``"score,evidence"``, what ``xlscore score`` computes; ``"all"``
            adds the paper's columns and the untrained similarity. Without ``"paper"`` the English
            encoder, the map and BERTScore are skipped (the score is the same);
            :meth:`prepare` computes everything whatever this says.
        device: where the models run (``None``: the GPU when there is one, else the CPU).
        dtype: ``"auto"``, ``"fp32"``, ``"bf16"`` or ``"fp16"`` for every model
            loaded here (:mod:`xlscore.encoders.arithmetic`; ``"int8"`` is refused: it failed
            the ship gate); objects keep their own.
    """

    def __init__(
        self,
        paper: PaperSettings | None = None,
        *,
        estimator: str | os.PathLike | QualityEstimator | None = DEFAULT_ESTIMATOR,
        consensus: bool = True,
        fields: str | Iterable[str] | None = DEFAULT_FIELDS,
        device: str | None = None,
        dtype: str = "auto",
    ) -> None:
        # the settings are checked before any model loads (the record, where it was made)
        paper = PaperSettings() if paper is None else paper
        if not isinstance(paper, PaperSettings):
            raise TypeError(
                "paper must be a PaperSettings record; XLScorer.offline(...) and "
                "XLScorer.preset(...) take the settings by name"
            )
        chosen = resolve_fields(fields, estimator=estimator is not None)
        en, ru = _encoders(paper, device, dtype, fields=chosen)
        if estimator is not None and not isinstance(estimator, QualityEstimator):
            estimator = QualityEstimator.load(estimator, device=device, dtype=dtype)
        lexicon = Lexicon.load(paper.lexicon)
        self.similarity = Similarity(ru)
        self.anchoring = Anchoring(
            lexicon, make_translator(paper.translator, lexicon), self.similarity
        )
        #: the settings of the encoders, the anchors and the paper's method
        self.settings = paper
        self._en, self._ru = en, ru
        #: which parts run, decided here once (:class:`~xlscore.scoring.plan.Plan`)
        self.plan = Plan.of(
            chosen,
            estimator,
            consensus=consensus,
            aligned=self.anchoring.aligned,
            saved_map=paper.saved_map,
        )
        self._paper: PaperScorer | None = self._paper_scorer() if self.plan.paper_scorer else None
        self.final = ScoreBlend(estimator, plan=self.plan, similarity=self.similarity)
        #: the engine set the last :meth:`iter_score` blended a consensus over (its
        #: signature part, :func:`~xlscore.scoring.consensus.engine_set`), or ``None``
        self.last_engines: str | None = None
        self.rule_checks = RuleChecks(self.plan.checks)
        #: the blocks beside the estimator's passes, over the components above
        self.blocks = BlockPipeline(self.plan, self.anchoring, self.rule_checks, self.final)
        # the models, tokenizers and tables just loaded live as long as the scorer: moved out
        # of the collector's reach, they are not scanned again by every collection while
        # scoring allocates (the collector cost about 0.28 s a call on 1,400 pairs)
        gc.collect()
        gc.freeze()

    @classmethod
    def preset(cls, preset: str = "offline", **settings) -> XLScorer:
        """A preset (:data:`PRESETS`: ``offline``, ``paper``, ``multilingual``) with any
        setting changed by name: the paper's (:class:`PaperSettings`' fields) or the
        scorer's own (``estimator``, ``consensus``, ``fields``, ``device``, ``dtype``). Giving
        ``multilingual`` replaces the preset's two encoders, and ``en_model``/``ru_model`` its
        multilingual one. The one way settings by name become a scorer: :meth:`offline`,
        :func:`score`, the command line and the batch job's workers all come here (so a
        settings dict, ``preset`` among its keys, makes the same scorer everywhere)."""
        name = preset
        if name not in PRESETS:
            raise XLScoreError(f"unknown preset {name!r}: use one of {', '.join(PRESETS)}")
        own, rest = PaperSettings.split(settings)
        unknown = sorted(set(rest) - set(_OWN))
        if unknown:
            raise TypeError(f"XLScorer has no setting {unknown[0]!r}")
        base = PRESETS[name]
        if "multilingual" in own:
            own = {"en_model": None, "ru_model": None, **own}
        elif "en_model" in own or "ru_model" in own:
            own = {"multilingual": None, **own}
        rest = {"estimator": base.estimator, "consensus": base.consensus, **rest}
        return cls(replace(base.paper, **own), **rest)

    @classmethod
    def offline(cls, **settings) -> XLScorer:
        """The offline default (``pack:minilm-en`` + ``pack:e5-small`` and the shipped
        estimator), any setting changed by name (:meth:`preset`)."""
        return cls.preset("offline", **settings)

    @property
    def en(self) -> Encoder:
        """The English encoder (the offline default's is loaded on first use when the fields
        leave out the paper's columns)."""
        if not isinstance(self._en, Encoder):
            self._en = self._en()
        return self._en

    @property
    def ru(self) -> Encoder:
        """The Russian encoder."""
        return self._ru

    @property
    def paper(self) -> PaperScorer:
        """The paper's scorer (:class:`~xlscore.paper.paper_scorer.PaperScorer`), built here
        when the fields or the preset ask for its columns or its score, else on first use (a
        plot, ``fit``, ``evaluate``): the default score never builds it."""
        if self._paper is None:
            self._paper = self._paper_scorer()
        return self._paper

    def _paper_scorer(self) -> PaperScorer:
        from xlscore.paper.paper_scorer import PaperScorer

        en = self._en if isinstance(self._en, Encoder) else (lambda: self.en)
        return PaperScorer(en, self.ru, anchoring=self.anchoring, settings=self.settings)

    @property
    def fields(self) -> frozenset[str]:
        """The field groups this scorer computes (:mod:`xlscore.fields`)."""
        return self.plan.fields

    @property
    def estimator(self) -> QualityEstimator | None:
        """The quality estimator whose prediction is the score (``None``: the paper's F1)."""
        return self.final.estimator

    def describe(self) -> dict:
        """Every setting that changes a score (the signature's content), in :data:`KEYS`."""
        d = {
            "version": __version__,
            **(
                self._paper.describe(english=self.plan.paper)
                if self._paper is not None
                else self._settings_described()
            ),
            **self.final.describe(),
            "fields": [f for f in FIELDS if f in self.fields],
        }
        return {k: d[k] for k in KEYS}

    def _settings_described(self) -> dict:
        """The paper's settings in the description when its scorer is not built: no English
        encoder, the map by name (no map was fitted or loaded)."""
        settings = self.settings
        return settings_description(
            settings,
            en=None,
            ru=self.ru.describe(),
            lexicon=self.anchoring.lexicon,
            translator=self.anchoring.translator.name,
            alignment=str(settings.map_name),  # named: a saved map builds the paper's scorer
            baseline=settings.baseline,
        )

    def signature(
        self,
        sources: Sequence[str] | None = None,
        engines: Mapping[str, Sequence[str]] | None = None,
    ) -> str:
        """A sacreBLEU-style one-line signature of the settings. With the consensus in the
        score, a score depends on the other engines scored with it: the signature then ends
        with the engine set (``|engines:COUNT#DIGEST``,
        :func:`~xlscore.scoring.engine_set.engines_part`) of ``sources`` and ``engines``
        when given, else of the last :meth:`iter_score` (``score``, ``rank``...), so that
        two results under one signature give the same numbers."""
        part = self.last_engines
        if sources is not None and engines is not None:
            part = engines_part(self.final.describe()["consensus"], sources, engines)
        sig = signature_of(self.describe(), self.estimator)
        return (sig.with_part("engines", part) if part else sig).format()

    # ------------------------------------------------------------------ scoring
    def prepare(
        self, sources: Sequence[str], translations: Sequence[str], *, progress: bool = False
    ) -> PreparedCorpus:
        """Embed, anchor and check a corpus once, with every column (the paper's included);
        ``self.paper.score_prepared`` and ``self.final.finish`` then score it."""
        corpus = self.paper.prepare(sources, translations, progress=progress)
        self.rule_checks.run(corpus)
        return corpus

    def score(
        self,
        sources: Sequence[str],
        translations: Sequence[str],
        variant: str | None = None,
        *,
        chunk_size: int = CHUNK_PAIRS,
        progress: bool = False,
        workers: int = 0,
    ) -> list[ScoreResult]:
        """Score each translation against its source; one :class:`ScoreResult` per pair
        (``workers``: as :meth:`iter_score`)."""
        return [
            by[""]
            for _, by in self.iter_score(
                sources,
                translations,
                variant,
                chunk_size=chunk_size,
                progress=progress,
                workers=workers,
            )
        ]

    def score_corpus(
        self,
        sources: Sequence[str],
        translations: Sequence[str] | Mapping[str, Sequence[str]],
        *,
        chunk_size: int = CHUNK_PAIRS,
        progress: bool = False,
        on_pairs: Callable[[int], None] | None = None,
        on_segment: Callable[[int], None] | None = None,
        workers: int = 0,
    ) -> CorpusResult:
        """Score a corpus of one or more engines into one record: each segment's results by
        engine, each engine's system score, the signature (engine set included) and, by its
        :meth:`~xlscore.scoring.corpus_result.CorpusResult.compare`, the engines compared
        with their significance. ``on_segment`` is told each segment (0-based) as it is
        done; the other arguments as :meth:`iter_score`."""
        engines = list(translations) if isinstance(translations, Mapping) else [""]
        segments = []
        for i, by in self.iter_score(
            sources,
            translations,
            chunk_size=chunk_size,
            progress=progress,
            on_pairs=on_pairs,
            workers=workers,
        ):
            segments.append(by)
            if on_segment is not None:
                on_segment(i)
        return CorpusResult.of(segments, self.signature(), [str(e) for e in engines])

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
        workers: int = 0,
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
            workers: run the CPU work in this many worker processes beside the estimator's
                passes (:mod:`xlscore.scoring.blocks`: the same results to the last bit; for the
                estimator's fields only, not the paper's columns or the similarity); 0: all
                in this process.

        Returns:
            ``(segment index, {engine: result})`` in order, from segment ``start``.
        """
        variant = checked_variant(variant, self.settings.variant)
        self.blocks.check_workers(workers)
        sources, systems = check_corpus(sources, translations)
        self.last_engines = engines_part(self.final.describe()["consensus"], sources, systems)
        copies = warned_copies(systems, start)
        if self.blocks.runs_in_blocks():  # the estimator's fields alone: blocks beside the passes
            yield from self._iter_blocks(
                sources, systems, start, chunk_size, progress, on_pairs, workers, copies
            )
        else:
            yield from self._iter_chunks(
                sources, systems, variant, start, chunk_size, progress, on_pairs, copies
            )

    def _iter_blocks(
        self,
        sources: list[str],
        systems: dict[str, list[str]],
        start: int,
        chunk_size: int,
        progress: bool,
        on_pairs: Callable[[int], None] | None,
        workers: int,
        copies: Mapping[str, str],
    ) -> Iterator[tuple[int, dict[str, ScoreResult]]]:
        """:meth:`iter_score` with the estimator's fields alone: blocks beside the passes
        (:meth:`xlscore.scoring.blocks.BlockPipeline.score`)."""
        from tqdm.auto import tqdm

        left = max(0, len(sources) - start) * len(systems)
        with tqdm(total=left, desc="scoring", unit="pair", disable=not progress) as bar:
            yield from self.blocks.score(
                sources,
                systems,
                workers=workers,
                start=start,
                chunk_pairs=chunk_size,
                on_pairs=on_pairs if on_pairs is not None or not progress else bar.update,
                copies=copies,
            )

    def _iter_chunks(
        self,
        sources: list[str],
        systems: dict[str, list[str]],
        variant: str,
        start: int,
        chunk_size: int,
        progress: bool,
        on_pairs: Callable[[int], None] | None,
        copies: Mapping[str, str],
    ) -> Iterator[tuple[int, dict[str, ScoreResult]]]:
        """:meth:`iter_score` chunk by chunk in this process (the paper's columns, or the
        similarity)."""
        names = list(systems)
        chunks = segment_chunks(len(sources), len(names), chunk_size)
        # the paper's scorer only for its columns: without them it is never built
        paper, settled = (self.paper if self.plan.paper else None), None
        if paper is not None and (len(chunks) > 1 or start >= len(sources)):
            # the corpus map signs the output, so it is fitted even when nothing is left to
            # score (a resumed, finished file keeps the signature an uninterrupted run wrote)
            settled = paper.fit_corpus_in_chunks(sources, systems, variant, chunk_size, progress)
        for a, b in chunks:
            if b <= start:
                continue  # finished: nothing of it is yielded, and nothing later needs it
            # a chunk is always computed whole, so that resuming reproduces the same batches
            # and therefore the same floating-point results; its pairs before ``start`` were
            # done before, so they do not move a progress bar again
            on_new_pairs = _after(on_pairs, (start - a) * len(names)) if a < start else on_pairs
            src, mt = segment_pairs(sources, systems, a, b)
            columns = None
            if paper is not None:
                corpus = paper.prepare_checked(src, mt, progress)
                self.rule_checks.run(corpus)
                if settled is None:
                    settled = paper.fit_corpus(*corpus.texts(), variant, None, corpus, progress)
                columns = paper.paper_columns(corpus, variant, *settled)
            else:
                corpus = self.blocks.read(src, mt, progress)
            results = self.blocks.finish(corpus, columns, a, names, on_new_pairs, copies=copies)
            n = len(names)
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


def _after(on_pairs: Callable[[int], None] | None, skip: int) -> Callable[[int], None] | None:
    """``on_pairs`` told only of the pairs after the first ``skip`` (those a resumed run
    computes again, already counted)."""
    if on_pairs is None:
        return None
    left = skip

    def on_new_pairs(pairs: int) -> None:
        nonlocal left
        seen = min(left, pairs)
        left -= seen
        if pairs > seen:
            on_pairs(pairs - seen)

    return on_new_pairs


def score(sources: Sequence[str], translations: Sequence[str], **settings) -> list[ScoreResult]:
    """Score each translation against its source in one call: a new
    ``XLScorer.offline(**settings)`` (the offline default unless ``settings`` say otherwise).
    For several calls build one :class:`XLScorer` and call its :meth:`~XLScorer.score`: the
    models then load once.

    Args:
        sources: English sources.
        translations: their Russian translations, one per source.
        settings: settings by name (:meth:`XLScorer.preset`).

    Returns:
        One :class:`ScoreResult` per pair, in order.
    """
    return XLScorer.offline(**settings).score(sources, translations)
