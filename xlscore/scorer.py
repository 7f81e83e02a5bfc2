"""The scorer: English source + Russian translation -> cross-lingual BERTScore, no reference.

Pipeline for a corpus of ``(source, translation)`` pairs:

1. embed the sources with the English encoder and the translations with the Russian one
   (each unique sentence once, in length-sorted batches);
2. find anchor pairs with the word translator (:mod:`xlscore.anchors`);
3. map the Russian word vectors into the English space with an orthogonal map
   (:mod:`xlscore.alignment`): by default the dictionary map of the encoder pair refined on
   the anchors of the texts being scored (``alignment="corpus"``, the paper's way with the
   dictionary map as prior), or the dictionary map alone (``"dictionary"``), a saved map, or
   the identity for a single multilingual encoder;
4. BERTScore (:mod:`xlscore.bertscore`) over all words, or over anchor words only
   (``variant="anchors"``: precision over the Russian anchor words, recall over the English
   anchor words), optionally idf-weighted and baseline-rescaled.

``ScoreResult.score`` is the number to rank by: F1, pulled towards -1 by the share of the
translation that is not Russian (English copied from the source, another language), so that
an untranslated copy never scores high.
"""
from __future__ import annotations

import os
import random
from dataclasses import asdict, dataclass, field, replace
from typing import Iterable, Iterator, Mapping, Sequence

import torch

from . import __version__
from .alignment import ProcrustesAligner, dictionary_alignment
from .anchors import AnchorSet, find_anchors, is_cyrillic
from .bertscore import idf_weights, rescale, score_pairs
from .consensus import consensus_bertscore_groups
from .encoders import Encoder, WordVectors
from .errors import AlignmentMismatchError, InputError, XLScoreError
from .lexicon import Lexicon
from .translators import WordTranslator, make_translator
from .words import normalize_text

VARIANTS = ("anchors", "all")
ALIGNMENTS = ("dictionary", "corpus")
OFFLINE_EN = "pack:minilm-en"
OFFLINE_RU = "pack:e5-small"
_CHUNK = 256   # pairs per padded similarity batch
CHUNK_PAIRS = 10_000     # pairs embedded and scored together (bounds memory)
BASELINE_PAIRS = 2_000   # mismatched pairs scored for a rescaling baseline


def _chunks(n_segments: int, n_systems: int, chunk_pairs: int) -> list[tuple[int, int]]:
    """Segment ranges holding about ``chunk_pairs`` pairs each (at least one segment)."""
    step = max(1, int(chunk_pairs) // max(n_systems, 1))
    return [(a, min(a + step, n_segments)) for a in range(0, n_segments, step)]


def _pairs(sources: list[str], systems: dict[str, list[str]], a: int, b: int
           ) -> tuple[list[str], list[str]]:
    """Segment-major pairs of segments ``a..b``: each source with every engine's translation."""
    src, mt = [], []
    for i in range(a, b):
        for v in systems.values():
            src.append(sources[i])
            mt.append(v[i])
    return src, mt


@dataclass(frozen=True)
class ScoreResult:
    """The score of one translation.

    ``precision``/``recall``/``f1``: BERTScore of the chosen variant. ``consensus``: mean
    BERTScore F1 of the translation against the other candidates of the same source (when at
    least :data:`CONSENSUS_MIN` candidates were scored together and consensus is on, else
    ``None``). ``score`` (what rankings and system scores use): F1 with the foreign-text
    penalty, blended with the consensus as ``(1 - w) * F1 + w * consensus`` when there is one
    (``w`` = :data:`CONSENSUS_WEIGHT`). ``anchors``: the anchor pairs as
    ``(english_word, russian_word)``. ``foreign``: share of the translation's words that are not
    Russian (names and acronyms excepted). ``flags``: ``untranslated``, ``wrong_language``,
    ``empty``, ``empty_source``.
    """

    precision: float
    recall: float
    f1: float
    score: float
    n_anchors: int
    anchors: tuple[tuple[str, str], ...]
    foreign: float = 0.0
    flags: tuple[str, ...] = ()
    consensus: float | None = None

    def to_dict(self) -> dict:
        """Plain dictionary (for JSON)."""
        d = asdict(self)
        d["anchors"] = [list(a) for a in self.anchors]
        d["flags"] = list(self.flags)
        return d


@dataclass(frozen=True)
class RankedTranslation:
    """One translation in a ranking: its position in the input, text, result and 1-based rank."""

    index: int
    translation: str
    result: ScoreResult
    rank: int

    @property
    def score(self) -> float:
        return self.result.score

    @property
    def f1(self) -> float:
        return self.result.f1

    @property
    def precision(self) -> float:
        return self.result.precision

    @property
    def recall(self) -> float:
        return self.result.recall

    @property
    def n_anchors(self) -> int:
        return self.result.n_anchors


def rank_order(results: Sequence[ScoreResult]) -> list[int]:
    """Indices of ``results`` best first: flagged results (untranslated, wrong language, empty)
    last, then by descending score; ties keep input order."""
    return sorted(range(len(results)),
                  key=lambda i: (bool(results[i].flags), -results[i].score, i))


#: weight of the candidates' consensus in ``score``: equal weights of the two signals after
#: scaling each by its standard deviation on WMT21 newstest en-ru (0.057 for anchor F1, 0.035
#: for consensus), the weights a grid search also picks there; choosing them by
#: cross-validation over documents scores a little lower (experiments/beyond.py)
CONSENSUS_WEIGHT = 0.6
#: consensus is used when at least this many candidates of one source are scored together
CONSENSUS_MIN = 3


def assign_folds(groups: Iterable[str], folds: int = 5, seed: int = 0) -> dict[str, int]:
    """Deal group names (e.g. documents) into ``folds`` folds at random, with a fixed ``seed``:
    ``{group: fold}``. The folds of :meth:`XLScorer.score_cross_fitted`."""
    names = sorted(set(groups))
    random.Random(seed).shuffle(names)
    return {g: i % folds for i, g in enumerate(names)}


def _penalised(f1: float, foreign: float, floor: float) -> float:
    """Move F1 towards ``floor`` (the lowest possible score) by the share of foreign words."""
    return f1 - foreign * (f1 - floor)


@dataclass
class PreparedCorpus:
    """Embedded, anchored pairs (:meth:`XLScorer.prepare`), ready to be scored in several
    ways without embedding again."""

    src: list[WordVectors]
    mt: list[WordVectors]
    anchors: list[AnchorSet] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.src)

    def subset(self, indices: Sequence[int]) -> "PreparedCorpus":
        """The pairs at ``indices``, in that order."""
        return PreparedCorpus([self.src[i] for i in indices], [self.mt[i] for i in indices],
                              [self.anchors[i] for i in indices])

    def texts(self) -> tuple[list[str], list[str]]:
        """The (normalised) sources and translations."""
        return [wv.text for wv in self.src], [wv.text for wv in self.mt]


def _variant(variant: str | None, default: str) -> str:
    variant = variant or default
    if variant not in VARIANTS:
        raise XLScoreError(f"unknown variant {variant!r}: use one of {', '.join(VARIANTS)}")
    return variant


class XLScorer:
    """Reference-free scorer of English->Russian translations.

    ``XLScorer.offline()`` uses the offline packs (English ``pack:minilm-en``, Russian
    ``pack:e5-small``). ``XLScorer(en_model=..., ru_model=...)`` takes any two encoders (the paper:
    ``bert-base-cased`` and ``DeepPavlov/rubert-base-cased``); ``XLScorer(multilingual=...)`` one
    encoder for both sides, with no alignment. Encoders may be given as :class:`Encoder` objects.

    ``layer``: an int for both encoders or a pair ``(en, ru)``; default each pack's layer.
    ``lexicon``: ``None`` (Müller's dictionary), a ``ru<TAB>en`` file or a :class:`Lexicon`.
    ``translator``: ``"dictionary"``, ``"google"`` or a translator object.
    ``alignment``: ``"corpus"`` (default: the dictionary map refined on the anchors of the
    texts being scored), ``"dictionary"`` (the dictionary map alone, so that a segment's score
    does not depend on the other segments), a saved map's path or a :class:`ProcrustesAligner`.
    ``variant``: ``"anchors"`` (default) or ``"all"``.
    ``consensus``: when several candidates of one source are scored together (several engines,
    :meth:`rank`), blend each one's agreement with the others into ``score`` (default on; see
    :class:`ScoreResult`). A single list of translations is never affected.
    ``idf``: weight words by inverse document frequency (from :meth:`fit_idf`, else from the
    texts being scored). ``rescale``: baseline rescaling (baseline from :meth:`fit_baseline`,
    ``baseline=``, else from the texts being scored).
    """

    def __init__(self, en_model: str | os.PathLike | Encoder | None = None,
                 ru_model: str | os.PathLike | Encoder | None = None, *,
                 multilingual: str | os.PathLike | Encoder | None = None,
                 layer: int | tuple[int | None, int | None] | None = None,
                 lexicon: str | os.PathLike | Lexicon | None = None,
                 translator: str | WordTranslator = "dictionary",
                 alignment: str | os.PathLike | ProcrustesAligner = "corpus",
                 variant: str = "anchors", consensus: bool = True,
                 idf: bool = False, rescale: bool = False,
                 baseline: tuple[float, float, float] | None = None,
                 batch_size: int = 32, device: str | None = None,
                 align_center: bool = False, align_normalize: bool = True) -> None:
        self.variant = _variant(variant, "anchors")
        en_layer, ru_layer = layer if isinstance(layer, tuple) else (layer, layer)
        if multilingual is not None:
            if en_model is not None or ru_model is not None:
                raise XLScoreError("give either multilingual= or en_model=/ru_model=, not both")
            if not (isinstance(alignment, str) and alignment in ALIGNMENTS):
                raise XLScoreError("a single multilingual encoder takes no alignment")
            self.en = self.ru = self._encoder(multilingual, en_layer, device, batch_size)
            if ru_layer != en_layer and ru_layer is not None:
                self.ru = self.en.with_layer(ru_layer)
        else:
            self.en = self._encoder(en_model or OFFLINE_EN, en_layer, device, batch_size)
            self.ru = self._encoder(ru_model or OFFLINE_RU, ru_layer, device, batch_size)
        self.multilingual = multilingual is not None
        self.lexicon = Lexicon.load(lexicon)
        self.translator = make_translator(translator, self.lexicon)
        self.idf, self.rescale = idf, rescale
        self.consensus = bool(consensus)
        self.baseline = baseline
        self.align_center, self.align_normalize = align_center, align_normalize
        self._idf_en = self._idf_ru = None
        self._dictionary_map: ProcrustesAligner | None = None
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
            self._set_fixed(ProcrustesAligner.load(
                alignment, expect={"en": self.en.describe(), "ru": self.ru.describe()}))
        else:
            raise XLScoreError(f"unknown alignment {alignment!r}")

    def _set_fixed(self, aligner: ProcrustesAligner) -> None:
        want = (self.ru.dim, self.en.dim)
        if aligner.W_ is None or aligner.W_.shape != want:
            shape = None if aligner.W_ is None else aligner.W_.shape
            raise AlignmentMismatchError(f"the alignment maps {shape}, but these encoders "
                                         f"need {want[0]}x{want[1]}")
        self.fixed_alignment, self.alignment_mode = aligner, "fixed"

    @staticmethod
    def _encoder(spec, layer, device, batch_size) -> Encoder:
        if isinstance(spec, Encoder):
            return spec if layer is None else spec.with_layer(layer)
        return Encoder.load(spec, layer=layer, device=device, batch_size=batch_size)

    @classmethod
    def offline(cls, **kwargs) -> "XLScorer":
        """The offline default: English ``pack:minilm-en`` + Russian ``pack:e5-small``."""
        return cls(en_model=OFFLINE_EN, ru_model=OFFLINE_RU, **kwargs)

    # ------------------------------------------------------------------ alignment
    def dictionary_map(self, progress: bool = False) -> ProcrustesAligner:
        """The encoder pair's dictionary map (fitted once, then cached on disk)."""
        if self.multilingual:
            return ProcrustesAligner.identity(self.en.dim)
        if self._dictionary_map is None:
            self._dictionary_map = dictionary_alignment(
                self.en, self.ru, self.lexicon, center=self.align_center,
                normalize=self.align_normalize, progress=progress)
        return self._dictionary_map

    def _new_corpus_aligner(self, prior: bool, progress: bool) -> ProcrustesAligner:
        aligner = ProcrustesAligner(center=self.align_center, normalize=self.align_normalize,
                                    prior=self.dictionary_map(progress) if prior else None)
        aligner.meta = {"kind": "corpus", "lexicon": self.lexicon.describe(),
                        "encoders": {"en": self.en.describe(), "ru": self.ru.describe()}}
        return aligner

    @staticmethod
    def _accumulate(aligner: ProcrustesAligner, corpus: PreparedCorpus) -> None:
        """Add a corpus's anchor pairs to an aligner's cross-covariance."""
        xs, ys = [], []
        for src, mt, anchors in zip(corpus.src, corpus.mt, corpus.anchors):
            if len(anchors):
                xs.append(mt.vectors[anchors.ru])
                ys.append(src.vectors[anchors.en])
        if xs:
            aligner.partial_fit(torch.cat(xs), torch.cat(ys))

    @staticmethod
    def _finish(aligner: ProcrustesAligner) -> ProcrustesAligner:
        """An aligner that saw no anchor pair is its prior (or an error without one)."""
        if aligner.W_ is None:
            if aligner.prior is None:
                raise XLScoreError("no anchor pairs to fit an alignment on")
            aligner.W_ = aligner.prior.W_
            aligner.mean_x_, aligner.mean_y_ = aligner.prior.mean_x_, aligner.prior.mean_y_
            aligner.reliable = aligner.prior.reliable
        return aligner

    def _corpus_aligner(self, corpus: PreparedCorpus, progress: bool = False,
                        prior: bool = True) -> ProcrustesAligner:
        aligner = self._new_corpus_aligner(prior, progress)
        self._accumulate(aligner, corpus)
        return self._finish(aligner)

    def fit_map(self, sources: Sequence[str], systems: Sequence[str] | Mapping[str, Sequence[str]],
                *, chunk_size: int = CHUNK_PAIRS, progress: bool = False) -> ProcrustesAligner:
        """A map refined (from the dictionary map) on the anchors of a corpus, read in chunks
        of ``chunk_size`` pairs so that memory does not grow with the corpus."""
        if self.multilingual:
            raise XLScoreError("a single multilingual encoder needs no alignment")
        sources, systems = self._check(sources, systems)
        aligner = self._new_corpus_aligner(True, progress)
        for a, b in _chunks(len(sources), len(systems), chunk_size):
            self._accumulate(aligner, self.prepare(*_pairs(sources, systems, a, b)))
        return self._finish(aligner)

    def fit(self, sources: Sequence[str], translations: Sequence[str] | Mapping[str, Sequence[str]],
            *, chunk_size: int = CHUNK_PAIRS, progress: bool = False) -> "XLScorer":
        """Fit the alignment on the anchors of a corpus (regularised towards the dictionary
        map) and use it from now on. ``translations``: one list, or several engines' lists by
        name. Optional: :meth:`score` fits as its ``alignment`` says."""
        self._set_fixed(self.fit_map(sources, translations, chunk_size=chunk_size,
                                     progress=progress))
        return self

    def _aligner_for(self, corpus: PreparedCorpus | None, progress: bool = False
                     ) -> ProcrustesAligner:
        """The map the scorer's settings give for a corpus (which only ``"corpus"`` reads)."""
        if self.multilingual:
            return ProcrustesAligner.identity(self.en.dim)
        if self.alignment_mode == "fixed":
            return self.fixed_alignment
        if self.alignment_mode == "corpus":
            if corpus is None:
                raise XLScoreError("alignment='corpus' needs the corpus to fit on")
            return self._corpus_aligner(corpus, progress)
        return self.dictionary_map(progress)

    def score_cross_fitted(self, corpus: PreparedCorpus, groups: Sequence[str],
                           variant: str | None = None, *, folds: int = 5,
                           seed: int = 0, prior: bool = True) -> list[ScoreResult]:
        """Score each pair with a map fitted only on the anchors of other groups (e.g.
        documents): the groups are dealt into ``folds`` folds at random (fixed ``seed``), and
        each fold is scored with the map refined on the remaining folds (``prior=False``: fitted
        on them alone). This is the honest counterpart of ``alignment="corpus"``, which fits on
        the very texts it scores. idf weights come from the whole corpus; a rescaling baseline
        is computed for each fold's map."""
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
            for i, res in zip(test, self.score_prepared(corpus.subset(test), variant,
                                                        aligner=aligner, idf=idf)):
                out[i] = res
        self.last_alignment, self.last_baseline = last   # the fold maps are not the signature's
        return out  # type: ignore[return-value]

    # ------------------------------------------------------------------ weights
    @staticmethod
    def compute_idf(sources: Sequence[str], translations: Sequence[str]):
        """idf functions ``(english, russian)`` from a corpus's distinct sources and
        translations."""
        from .words import split_words

        return (idf_weights([w.text for w in split_words(normalize_text(s))]
                            for s in dict.fromkeys(sources)),
                idf_weights([w.text for w in split_words(normalize_text(t))]
                            for t in dict.fromkeys(translations)))

    def fit_idf(self, sources: Sequence[str], translations: Sequence[str]) -> "XLScorer":
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

    def compute_baseline(self, sources: Sequence[str], translations: Sequence[str], *,
                         variant: str | None = None, aligner: ProcrustesAligner | None = None,
                         idf=None, seed: int = 0, max_pairs: int = BASELINE_PAIRS,
                         progress: bool = False) -> tuple[float, float, float]:
        """Baseline for rescaling: the mean P, R, F1 of translations scored against the source
        of another segment, with the given settings (``aligner``: the map that scores the real
        pairs; by default the scorer's map for them) and no rescaling. The distinct sources are
        sorted and shuffled with ``seed``, and each translation meets the next source in that
        order; at most ``max_pairs`` pairs, sampled with the same seed, so the baseline does
        not depend on input order. Pairs of the anchors variant that find no anchor are left
        out of the mean."""
        variant = _variant(variant, self.variant)
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
                if self.alignment_mode == "corpus" and not self.multilingual else None)
        corpus = self.prepare([nxt[s] for s, _ in pairs], [t for _, t in pairs],
                              progress=progress)
        results = self._score_core(corpus, variant, aligner, idf, None)
        used = [r for r in results if variant == "all" or r.n_anchors]
        if not used:
            raise XLScoreError("no mismatched pair found an anchor; cannot set a baseline")
        return tuple(sum(getattr(r, k) for r in used) / len(used)   # type: ignore[return-value]
                     for k in ("precision", "recall", "f1"))

    def fit_baseline(self, sources: Sequence[str], translations: Sequence[str], *,
                     variant: str | None = None, seed: int = 0,
                     progress: bool = False) -> tuple[float, float, float]:
        """:meth:`compute_baseline` on a corpus, kept for all later scoring."""
        self.baseline = self.compute_baseline(sources, translations, variant=variant, seed=seed,
                                              idf=self._idf_for(sources, translations),
                                              progress=progress)
        return self.baseline

    # ------------------------------------------------------------------ scoring
    @staticmethod
    def _check(sources, systems) -> tuple[list[str], dict[str, list[str]]]:
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
                raise InputError(f"{len(sources)} sources but {len(seq)} translations"
                                 + (f" from {name}" if name else ""))
        for what, seq in [("source", sources)] + [("translation", v) for v in systems.values()]:
            for i, x in enumerate(seq):
                if not isinstance(x, str):
                    raise InputError(f"{what} is {type(x).__name__}, not a string", line=i + 1)
        return sources, systems

    def prepare(self, sources: Sequence[str], translations: Sequence[str], *,
                progress: bool = False) -> PreparedCorpus:
        """Embed and anchor a corpus once; :meth:`score_prepared` then scores it any way."""
        sources, systems = self._check(sources, translations)
        translations = systems[next(iter(systems))]
        return self.anchor(self.en.embed_words(sources, progress=progress),
                           self.ru.embed_words(translations, progress=progress))

    def anchor(self, src: Sequence[WordVectors], mt: Sequence[WordVectors]) -> PreparedCorpus:
        """Find the anchors of already embedded pairs (``src[i]`` with ``mt[i]``)."""
        if len(src) != len(mt):
            raise InputError(f"{len(src)} sources but {len(mt)} translations")
        corpus = PreparedCorpus(list(src), list(mt))
        ru_words = [w for wv in corpus.mt for w in wv.words if is_cyrillic(w)]
        table = self.translator.translations(ru_words)
        empty: frozenset[str] = frozenset()
        lex = self.lexicon
        cached: dict[tuple[str, str], AnchorSet] = {}
        for s, m in zip(corpus.src, corpus.mt):
            key = (s.text, m.text)
            if key not in cached:
                cached[key] = find_anchors(s.words, m.words, lambda w: table.get(w, empty),
                                           lex.en_keys, lex.headwords)
            corpus.anchors.append(cached[key])
        return corpus

    def score(self, sources: Sequence[str], translations: Sequence[str],
              variant: str | None = None, *, chunk_size: int = CHUNK_PAIRS,
              progress: bool = False) -> list[ScoreResult]:
        """Score each translation against its source; one :class:`ScoreResult` per pair."""
        return [by[""] for _, by in self.iter_score(sources, translations, variant,
                                                    chunk_size=chunk_size, progress=progress)]

    def iter_score(self, sources: Sequence[str],
                   translations: Sequence[str] | Mapping[str, Sequence[str]],
                   variant: str | None = None, *, chunk_size: int = CHUNK_PAIRS,
                   start: int = 0, progress: bool = False
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
        recomputed whole); other chunk sizes agree to about 1e-6."""
        variant = _variant(variant, self.variant)
        sources, systems = self._check(sources, translations)
        names = list(systems)
        chunks = _chunks(len(sources), len(names), chunk_size)
        settled = None
        if len(chunks) > 1:
            # the texts as the single-chunk path sees them (normalised), so that idf and the
            # baseline do not depend on the chunk size
            all_src = [normalize_text(s) for s in sources for _ in names]
            all_mt = [normalize_text(v[i]) for i in range(len(sources))
                      for v in systems.values()]
            aligner = (self.fit_map(sources, systems, chunk_size=chunk_size, progress=progress)
                       if self.alignment_mode == "corpus" and not self.multilingual
                       else self._aligner_for(None, progress))
            settled = self._settle(all_src, all_mt, variant, aligner, None, progress)
        for a, b in chunks:
            if b <= start and settled is not None:
                continue     # (a single chunk is settled even when nothing is left to yield)
            # a chunk is always computed whole, so that resuming reproduces the same batches
            # and therefore the same floating-point results
            corpus = self.prepare(*_pairs(sources, systems, a, b), progress=progress)
            if settled is None:
                settled = self._settle(*corpus.texts(), variant, None, corpus, progress)
            n = len(names)
            results = self.blend_consensus(corpus, self._score_core(corpus, variant, *settled),
                                           [range(k, k + n) for k in range(0, len(corpus), n)])
            for i in range(max(a, start), b):
                k = (i - a) * n
                yield i, dict(zip(names, results[k:k + n]))

    def _settle(self, sources: list[str], translations: list[str], variant: str,
                aligner: ProcrustesAligner | None, corpus: PreparedCorpus | None,
                progress: bool, idf=None, baseline=None):
        """Map, idf weights and baseline for a corpus, from the given values or the scorer's
        settings; remembers the map and baseline for the signature."""
        if aligner is None:
            aligner = self._aligner_for(corpus, progress)
        if idf is None:
            idf = self._idf_for(sources, translations)
        if self.rescale and baseline is None:
            baseline = self.baseline or self.compute_baseline(
                sources, translations, variant=variant, aligner=aligner, idf=idf,
                progress=progress)
        if not self.rescale:
            baseline = None
        self.last_alignment, self.last_baseline = aligner, baseline
        return aligner, idf, baseline

    def score_prepared(self, corpus: PreparedCorpus, variant: str | None = None, *,
                       aligner: ProcrustesAligner | None = None, idf=None,
                       baseline: tuple[float, float, float] | None = None,
                       progress: bool = False) -> list[ScoreResult]:
        """Score a :class:`PreparedCorpus`. ``aligner`` overrides the scorer's alignment;
        ``idf`` (a pair of functions) and ``baseline`` its weights and rescaling baseline;
        what is not given comes from the scorer's settings or, failing that, this corpus."""
        variant = _variant(variant, self.variant)
        settled = self._settle(*corpus.texts(), variant, aligner, corpus, progress, idf,
                               baseline)
        return self._score_core(corpus, variant, *settled)

    def _score_core(self, corpus: PreparedCorpus, variant: str, aligner: ProcrustesAligner,
                    idf, baseline: tuple[float, float, float] | None) -> list[ScoreResult]:
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
        p, r, f = score_pairs(cand, ref, cand_w or None, ref_w or None, batch=_CHUNK)
        floor = -1.0
        if baseline is not None:
            bp, br, bf = baseline
            p, r, f = rescale(p, bp), rescale(r, br), rescale(f, bf)
            floor = rescale(-1.0, bf)
        out = []
        for k, (src, mt, anchors) in enumerate(zip(corpus.src, corpus.mt, corpus.anchors)):
            flags = list(anchors.flags)
            if not len(mt):
                flags.append("empty")
            if not len(src):
                flags.append("empty_source")
            f1 = float(f[k])
            out.append(ScoreResult(
                precision=float(p[k]), recall=float(r[k]), f1=f1,
                score=_penalised(f1, anchors.foreign, floor), n_anchors=len(anchors),
                anchors=tuple((src.words[e], mt.words[i]) for e, i in anchors.pairs),
                foreign=anchors.foreign, flags=tuple(flags)))
        return out

    def blend_consensus(self, corpus: PreparedCorpus, results: Sequence[ScoreResult],
                        groups: Iterable[Sequence[int]]) -> list[ScoreResult]:
        """``results`` (of ``corpus``, in its order) with each group's consensus blended into
        the scores; ``groups`` holds the positions of candidates of one source (e.g. all
        engines' translations of a segment). Groups smaller than :data:`CONSENSUS_MIN`, and
        every result when consensus is off, are returned unchanged."""
        out = list(results)
        if not self.consensus:
            return out
        w = CONSENSUS_WEIGHT
        groups = [list(g) for g in groups if len(g) >= CONSENSUS_MIN]
        agree = consensus_bertscore_groups([[corpus.mt[k].vectors for k in g] for g in groups])
        for group, values in zip(groups, agree):
            for k, c in zip(group, values):
                out[k] = replace(out[k], consensus=c, score=(1 - w) * out[k].score + w * c)
        return out

    @staticmethod
    def _map(mt: list[WordVectors], aligner: ProcrustesAligner) -> list[torch.Tensor]:
        """All translation word vectors mapped in one matrix product, split back per pair."""
        uniq = list({id(wv): wv for wv in mt}.values())
        sizes = [len(wv) for wv in uniq]
        if not sum(sizes):
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
        return [RankedTranslation(i, translations[i], results[i], rank)
                for rank, i in enumerate(order, start=1)]

    # ------------------------------------------------------------------ identity
    def describe(self) -> dict:
        """Every setting that changes a score (the signature's content)."""
        align = self.alignment_mode
        if self.alignment_mode == "fixed":
            align += "#" + self.fixed_alignment.digest
        elif self.last_alignment is not None and not self.multilingual:
            align += "#" + self.last_alignment.digest
        baseline = self.baseline or self.last_baseline
        return {
            "version": __version__, "en": self.en.describe(), "ru": self.ru.describe(),
            "variant": self.variant, "idf": self.idf, "rescale": self.rescale,
            "consensus": CONSENSUS_WEIGHT if self.consensus else None,
            "baseline": list(baseline) if self.rescale and baseline else None,
            "lexicon": self.lexicon.describe(), "translator": self.translator.name,
            "alignment": align, "align_center": self.align_center,
            "align_normalize": self.align_normalize,
        }

    def signature(self) -> str:
        """A sacreBLEU-style one-line signature of the settings."""
        d = self.describe()

        def enc(e: dict) -> str:
            return f"{e['model']}@{e['layer']}#{e['fingerprint'][:8]}"

        parts = [f"xlscore:{d['version']}", f"en:{enc(d['en'])}", f"ru:{enc(d['ru'])}",
                 f"variant:{d['variant']}",
                 "cons:" + (f"{d['consensus']:g}" if d["consensus"] is not None else "no"),
                 f"idf:{'yes' if d['idf'] else 'no'}",
                 "rescale:" + ("no" if not d["rescale"] else
                               "/".join(f"{b:.4f}" for b in d["baseline"] or ()) or "yes"),
                 f"lex:{d['lexicon']}", f"tr:{d['translator'].split(':')[0]}",
                 f"align:{d['alignment']}"]
        return "|".join(parts)
