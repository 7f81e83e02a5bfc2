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
from dataclasses import asdict, dataclass, field
from typing import Sequence

import torch

from . import __version__
from .alignment import ProcrustesAligner, dictionary_alignment
from .anchors import AnchorSet, find_anchors, is_cyrillic
from .bertscore import greedy_match, idf_weights, pad, rescale
from .encoders import Encoder, WordVectors
from .errors import InputError, XLScoreError
from .lexicon import Lexicon
from .translators import WordTranslator, make_translator

VARIANTS = ("anchors", "all")
ALIGNMENTS = ("dictionary", "corpus")
OFFLINE_EN = "pack:minilm-en"
OFFLINE_RU = "pack:e5-small"
_CHUNK = 256   # pairs per padded similarity batch


@dataclass(frozen=True)
class ScoreResult:
    """The score of one translation.

    ``precision``/``recall``/``f1``: BERTScore of the chosen variant. ``score``: F1 with the
    foreign-text penalty (what rankings and system scores use). ``anchors``: the anchor pairs as
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


def _penalised(f1: float, foreign: float) -> float:
    """Move F1 towards -1 (the lowest cosine) by the share of foreign words."""
    return f1 - foreign * (f1 + 1.0)


@dataclass
class PreparedCorpus:
    """Embedded, anchored pairs (:meth:`XLScorer.prepare`), ready to be scored in several
    ways without embedding again."""

    src: list[WordVectors]
    mt: list[WordVectors]
    anchors: list[AnchorSet] = field(default_factory=list)


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
    does not depend on the other segments), a saved map's path or a :class:`ProcrustesAligner`. ``variant``: ``"anchors"`` (default) or ``"all"``.
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
                 variant: str = "anchors", idf: bool = False, rescale: bool = False,
                 baseline: tuple[float, float, float] | None = None,
                 batch_size: int = 32, device: str | None = None,
                 align_center: bool = False, align_normalize: bool = True) -> None:
        if variant not in VARIANTS:
            raise XLScoreError(f"unknown variant {variant!r}: use one of {', '.join(VARIANTS)}")
        en_layer, ru_layer = layer if isinstance(layer, tuple) else (layer, layer)
        if multilingual is not None:
            if en_model is not None or ru_model is not None:
                raise XLScoreError("give either multilingual= or en_model=/ru_model=, not both")
            self.en = self.ru = self._encoder(multilingual, en_layer, device, batch_size)
            if ru_layer != en_layer and ru_layer is not None:
                self.ru = self.en.with_layer(ru_layer)
        else:
            self.en = self._encoder(en_model or OFFLINE_EN, en_layer, device, batch_size)
            self.ru = self._encoder(ru_model or OFFLINE_RU, ru_layer, device, batch_size)
        self.multilingual = multilingual is not None
        self.lexicon = Lexicon.load(lexicon)
        self.translator = make_translator(translator, self.lexicon)
        self.variant = variant
        self.idf, self.rescale = idf, rescale
        self.baseline = baseline
        self.align_center, self.align_normalize = align_center, align_normalize
        self._idf_en = self._idf_ru = None
        self._dictionary_map: ProcrustesAligner | None = None
        self.fixed_alignment: ProcrustesAligner | None = None
        self.alignment_mode = "identity" if self.multilingual else "corpus"
        self.last_alignment: ProcrustesAligner | None = None
        if not self.multilingual:
            if isinstance(alignment, ProcrustesAligner):
                self.fixed_alignment, self.alignment_mode = alignment, "fixed"
            elif alignment in ALIGNMENTS:
                self.alignment_mode = str(alignment)
            elif isinstance(alignment, (str, os.PathLike)):
                self.fixed_alignment = ProcrustesAligner.load(
                    alignment, expect={"en": self.en.describe(), "ru": self.ru.describe()})
                self.alignment_mode = "fixed"
            else:
                raise XLScoreError(f"unknown alignment {alignment!r}")
            if self.en.dim != self.ru.dim and self.alignment_mode == "identity":
                raise XLScoreError("encoders of different sizes need an alignment")

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

    def _corpus_aligner(self, corpus: PreparedCorpus, progress: bool) -> ProcrustesAligner:
        aligner = ProcrustesAligner(center=self.align_center, normalize=self.align_normalize,
                                    prior=self.dictionary_map(progress))
        xs, ys = [], []
        for src, mt, anchors in zip(corpus.src, corpus.mt, corpus.anchors):
            if len(anchors):
                xs.append(mt.vectors[anchors.ru])
                ys.append(src.vectors[anchors.en])
        if xs:
            aligner.partial_fit(torch.cat(xs), torch.cat(ys))
        else:
            aligner.W_ = aligner.prior.W_
            aligner.mean_x_, aligner.mean_y_ = aligner.prior.mean_x_, aligner.prior.mean_y_
            aligner.reliable = aligner.prior.reliable
        aligner.meta = {"kind": "corpus", "lexicon": self.lexicon.describe(),
                        "encoders": {"en": self.en.describe(), "ru": self.ru.describe()}}
        return aligner

    def fit(self, sources: Sequence[str], translations: Sequence[str], *,
            progress: bool = False) -> "XLScorer":
        """Fit the alignment on the anchors of a corpus (regularised towards the dictionary
        map) and use it from now on. Optional: :meth:`score` fits as its ``alignment`` says."""
        if self.multilingual:
            raise XLScoreError("a single multilingual encoder needs no alignment")
        corpus = self.prepare(sources, translations, progress=progress)
        self.fixed_alignment = self._corpus_aligner(corpus, progress)
        self.alignment_mode = "fixed"
        return self

    def _aligner_for(self, corpus: PreparedCorpus, progress: bool) -> ProcrustesAligner:
        if self.multilingual:
            return ProcrustesAligner.identity(self.en.dim)
        if self.alignment_mode == "fixed":
            return self.fixed_alignment
        if self.alignment_mode == "corpus":
            return self._corpus_aligner(corpus, progress)
        return self.dictionary_map(progress)

    # ------------------------------------------------------------------ weights
    def fit_idf(self, sources: Sequence[str], translations: Sequence[str]) -> "XLScorer":
        """Compute idf weights from a corpus (English from the sources, Russian from the
        translations) and use them from now on."""
        from .words import normalize_text, split_words

        self._idf_en = idf_weights([w.text for w in split_words(normalize_text(s))]
                                   for s in dict.fromkeys(sources))
        self._idf_ru = idf_weights([w.text for w in split_words(normalize_text(t))]
                                   for t in dict.fromkeys(translations))
        self.idf = True
        return self

    def fit_baseline(self, sources: Sequence[str], translations: Sequence[str], *,
                     seed: int = 0, progress: bool = False) -> tuple[float, float, float]:
        """Baseline for rescaling: the mean P, R, F1 of translations scored against the source
        of another, randomly chosen segment (a fixed-seed derangement of the distinct
        sources), with the current settings and no rescaling. Pairs of the anchors variant that
        find no anchor are left out of the mean."""
        uniq = list(dict.fromkeys(sources))
        if len(uniq) < 2:
            raise XLScoreError("a baseline needs at least two distinct sources")
        order = uniq[:]
        random.Random(seed).shuffle(order)
        other = {s: order[(order.index(s) + 1) % len(order)] for s in uniq}
        saved, self.rescale = self.rescale, False
        try:
            results = self.score([other[s] for s in sources], list(translations),
                                 progress=progress)
        finally:
            self.rescale = saved
        used = [r for r in results if self.variant == "all" or r.n_anchors]
        if not used:
            raise XLScoreError("no mismatched pair found an anchor; cannot set a baseline")
        self.baseline = tuple(sum(getattr(r, k) for r in used) / len(used)
                              for k in ("precision", "recall", "f1"))
        return self.baseline

    # ------------------------------------------------------------------ scoring
    def prepare(self, sources: Sequence[str], translations: Sequence[str], *,
                progress: bool = False) -> PreparedCorpus:
        """Embed and anchor a corpus once; :meth:`score_prepared` then scores it any way."""
        if isinstance(sources, str) or isinstance(translations, str):
            raise TypeError("sources and translations must be lists of strings")
        sources, translations = list(sources), list(translations)
        if len(sources) != len(translations):
            raise InputError(f"{len(sources)} sources but {len(translations)} translations")
        for what, seq in (("source", sources), ("translation", translations)):
            for i, s in enumerate(seq):
                if not isinstance(s, str):
                    raise InputError(f"{what} is {type(s).__name__}, not a string", line=i + 1)
        corpus = PreparedCorpus(self.en.embed_words(sources, progress=progress),
                         self.ru.embed_words(translations, progress=progress))
        ru_words = [w for wv in corpus.mt for w in wv.words if is_cyrillic(w)]
        table = self.translator.translations(ru_words)
        empty: frozenset[str] = frozenset()
        lex = self.lexicon
        cached: dict[tuple[str, str], AnchorSet] = {}
        for src, mt in zip(corpus.src, corpus.mt):
            key = (src.text, mt.text)
            if key not in cached:
                cached[key] = find_anchors(src.words, mt.words, lambda w: table.get(w, empty),
                                           lex.en_keys, lex.headwords)
            corpus.anchors.append(cached[key])
        return corpus

    def score(self, sources: Sequence[str], translations: Sequence[str],
              variant: str | None = None, *, progress: bool = False) -> list[ScoreResult]:
        """Score each translation against its source; one :class:`ScoreResult` per pair."""
        if variant is not None and variant not in VARIANTS:
            raise XLScoreError(f"unknown variant {variant!r}: use one of {', '.join(VARIANTS)}")
        corpus = self.prepare(sources, translations, progress=progress)
        return self.score_prepared(corpus, variant, progress=progress)

    def score_prepared(self, corpus: PreparedCorpus, variant: str | None = None, *,
                       aligner: ProcrustesAligner | None = None,
                       progress: bool = False) -> list[ScoreResult]:
        """Score a :class:`PreparedCorpus`; ``aligner`` overrides the scorer's alignment."""
        variant = variant or self.variant
        if variant not in VARIANTS:
            raise XLScoreError(f"unknown variant {variant!r}: use one of {', '.join(VARIANTS)}")
        if aligner is None:
            aligner = self._aligner_for(corpus, progress)
        self.last_alignment = aligner
        mapped = self._map(corpus.mt, aligner)
        idf_en, idf_ru = self._idf_en, self._idf_ru
        if self.idf and idf_en is None:
            idf_en = idf_weights(wv.words for wv in {id(w): w for w in corpus.src}.values())
            idf_ru = idf_weights(wv.words for wv in {id(w): w for w in corpus.mt}.values())
        cand, ref, cand_w, ref_w = [], [], [], []
        for src, mt, m, anchors in zip(corpus.src, corpus.mt, mapped, corpus.anchors):
            ci = anchors.ru if variant == "anchors" else list(range(len(mt)))
            ri = anchors.en if variant == "anchors" else list(range(len(src)))
            cand.append(m[ci])
            ref.append(src.vectors[ri])
            if self.idf:
                cand_w.append(torch.tensor([idf_ru(mt.words[i]) for i in ci]))
                ref_w.append(torch.tensor([idf_en(src.words[i]) for i in ri]))
        p, r, f = self._greedy(cand, ref, cand_w if self.idf else None,
                               ref_w if self.idf else None)
        if self.rescale:
            if self.baseline is None:
                self.fit_baseline([wv.text for wv in corpus.src], [wv.text for wv in corpus.mt],
                                  progress=progress)
            bp, br, bf = self.baseline
            p, r, f = rescale(p, bp), rescale(r, br), rescale(f, bf)
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
                score=_penalised(f1, anchors.foreign), n_anchors=len(anchors),
                anchors=tuple((src.words[e], mt.words[i]) for e, i in anchors.pairs),
                foreign=anchors.foreign, flags=tuple(flags)))
        return out

    @staticmethod
    def _map(mt: list[WordVectors], aligner: ProcrustesAligner) -> list[torch.Tensor]:
        """All translation word vectors mapped in one matrix product, split back per pair."""
        uniq = list({id(wv): wv for wv in mt}.values())
        sizes = [len(wv) for wv in uniq]
        if not sum(sizes):
            return [wv.vectors for wv in mt]
        mapped = aligner.transform(torch.cat([wv.vectors for wv in uniq])).float()
        parts = dict(zip((id(wv) for wv in uniq), torch.split(mapped, sizes)))
        return [parts[id(wv)] for wv in mt]

    @staticmethod
    def _greedy(cand, ref, cand_w, ref_w) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Greedy matching over all pairs, in padded chunks of pairs of similar size."""
        n = len(cand)
        p, r, f = torch.zeros(n), torch.zeros(n), torch.zeros(n)
        order = sorted(range(n), key=lambda i: (len(cand[i]), len(ref[i])))
        dim = cand[0].shape[1] if n else 0
        for s in range(0, n, _CHUNK):
            idx = order[s:s + _CHUNK]
            c, cm = pad([cand[i] for i in idx], dim)
            rr, rm = pad([ref[i] for i in idx], dim)
            cw = pad([cand_w[i][:, None] for i in idx], 1)[0][..., 0] if cand_w else None
            rw = pad([ref_w[i][:, None] for i in idx], 1)[0][..., 0] if ref_w else None
            pp, rr_, ff = greedy_match(c, cm, rr, rm, cw, rw)
            p[idx], r[idx], f[idx] = pp, rr_, ff
        return p, r, f

    def rank(self, source: str, translations: Sequence[str]) -> list[RankedTranslation]:
        """Rank several translations of one source, best first (the source is embedded once).
        Flagged translations (untranslated, wrong language, empty) come last; ties keep input
        order."""
        results = self.score([source] * len(translations), list(translations))
        order = sorted(range(len(results)),
                       key=lambda i: (bool(results[i].flags), -results[i].score, i))
        return [RankedTranslation(i, translations[i], results[i], rank)
                for rank, i in enumerate(order, start=1)]

    # ------------------------------------------------------------------ identity
    def describe(self) -> dict:
        """Every setting that changes a score (the signature's content)."""
        align = self.alignment_mode
        if self.last_alignment is not None and not self.multilingual:
            align += "#" + self.last_alignment.digest
        return {
            "version": __version__, "en": self.en.describe(), "ru": self.ru.describe(),
            "variant": self.variant, "idf": self.idf, "rescale": self.rescale,
            "baseline": list(self.baseline) if self.rescale and self.baseline else None,
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
                 f"variant:{d['variant']}", f"idf:{'yes' if d['idf'] else 'no'}",
                 "rescale:" + ("no" if not d["rescale"] else
                               "/".join(f"{b:.4f}" for b in d["baseline"] or ())),
                 f"lex:{d['lexicon']}", f"tr:{d['translator'].split(':')[0]}",
                 f"align:{d['alignment']}"]
        return "|".join(parts)
