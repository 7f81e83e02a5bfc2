"""The method the project started from (Vetrov & Gorn) as a scorer of its own: cross-lingual
BERTScore with two monolingual encoders, English source against Russian translation, no
reference.

1. embed the sources with the English encoder and the translations with the Russian one
   (each unique sentence once, in length-sorted batches);
2. find anchor pairs with the word translator (:mod:`xlscore.lexicon.anchor_pairs`);
3. map the Russian word vectors into the English space with an orthogonal map
   (:class:`xlscore.paper.mapping.Maps`): by default the dictionary map refined on the anchors
   of the texts being scored, or the dictionary map alone, a saved map, or the identity for a
   single multilingual encoder;
4. BERTScore (:mod:`xlscore.encoders.bertscore`) over all words, or over anchor words only
   (``variant="anchors"``: precision over the Russian anchor words, recall over the English
   anchor words), optionally idf-weighted and baseline-rescaled
   (:mod:`xlscore.paper.weighting`).

Each result's ``score`` is F1 pulled towards its floor by the share of the translation that is
not Russian; the results also carry the anchors, the flags and the word-level evidence.
:class:`xlscore.XLScorer` runs it for the paper's columns (and as the score without an
estimator); ``XLScorer(..., estimator=None).paper`` is this scorer alone, which prepares and
scores corpora by the paper's method the way bert_score's ``BERTScorer`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from xlscore.encoders.bertscore import rescale, score_pairs
from xlscore.encoders.encoder import Encoder, WordVectors
from xlscore.errors import AlignmentMismatchError, InputError, XLScoreError
from xlscore.lexicon.dictionary import Lexicon
from xlscore.paper.alignment import ProcrustesAligner
from xlscore.paper.mapping import Maps
from xlscore.paper.weighting import compute_baseline, compute_idf
from xlscore.results import ScoreResult, penalised
from xlscore.scoring.anchoring import Anchoring
from xlscore.scoring.corpus import PreparedCorpus, assign_folds
from xlscore.scoring.pair_parts import evidence, findings, flags
from xlscore.scoring.presets import (
    Baseline,
    PaperSettings,
    checked_variant,
    settings_description,
)
from xlscore.text.pairs import (
    CHUNK_PAIRS,
    check_corpus,
    distinct_pairs,
    segment_chunks,
    segment_pairs,
)
from xlscore.text.words import normalize_text

#: the idf functions (English, Russian)
Idf = tuple[Callable[[str], float], Callable[[str], float]]


class PaperScorer:
    """The paper's cross-lingual BERTScore (see the module's docstring).

    Args:
        en: the English encoder, or a function that loads it on first use.
        ru: the Russian encoder.
        anchoring: the anchors of each pair (its lexicon also gives the dictionary map).
        settings: the paper's settings (:class:`~xlscore.scoring.presets.PaperSettings`:
            the map, the variant, idf, rescaling and baseline; ``multilingual`` set: ``en``
            and ``ru`` are one multilingual encoder, with no map).
    """

    def __init__(
        self,
        en: Encoder | Callable[[], Encoder],
        ru: Encoder,
        *,
        anchoring: Anchoring,
        settings: PaperSettings,
    ) -> None:
        self.settings = settings
        self.variant = settings.variant
        self.anchoring = anchoring
        self.maps = Maps(en, ru, anchoring.lexicon, settings)
        self.idf, self.rescale = settings.idf, settings.rescale
        self.baseline = settings.baseline
        self._idf: Idf | None = None
        #: the baseline the last corpus was scored with (the signature names it)
        self.last_baseline: Baseline | None = None

    @property
    def en(self) -> Encoder:
        """The English encoder (loaded on first use when given as a function)."""
        return self.maps.en

    @property
    def ru(self) -> Encoder:
        """The Russian encoder."""
        return self.maps.ru

    @property
    def multilingual(self) -> bool:
        """Whether one multilingual encoder reads both sides (no map)."""
        return self.maps.multilingual

    @property
    def lexicon(self) -> Lexicon:
        """The lexicon of the anchors and the dictionary map."""
        return self.anchoring.lexicon

    def variant_of(self, variant: str | None) -> str:
        """``variant``, or this scorer's own when ``None``; checked."""
        return checked_variant(variant, self.variant)

    def describe(self, *, english: bool = True) -> dict:
        """This part's settings in the scorer's description (:mod:`xlscore.signature`);
        ``english=False``: ``None`` for the English encoder (not loaded for it)."""
        return settings_description(
            self.settings,
            en=self.en.describe() if english else None,
            ru=self.ru.describe(),
            lexicon=self.lexicon,
            translator=self.anchoring.translator.name,
            alignment=self.maps.describe(),
            baseline=self.baseline or self.last_baseline,
            variant=self.variant,
            idf=self.idf,
            rescale=self.rescale,
            align_center=self.maps.center,
            align_normalize=self.maps.normalize,
        )

    @staticmethod
    def map_vectors(mt: list[WordVectors], aligner: ProcrustesAligner) -> list[torch.Tensor]:
        """Each translation's word vectors mapped by ``aligner`` (:func:`map_vectors`)."""
        return map_vectors(mt, aligner)

    # ------------------------------------------------------------------ preparing
    def prepare(
        self, sources: Sequence[str], translations: Sequence[str], *, progress: bool = False
    ) -> PreparedCorpus:
        """Embed and anchor a corpus once (each side by its encoder); :meth:`score_prepared`
        then scores it any way."""
        sources, systems = check_corpus(sources, translations)
        return self.prepare_checked(sources, systems[next(iter(systems))], progress)

    def prepare_checked(
        self, sources: list[str], translations: list[str], progress: bool = False
    ) -> PreparedCorpus:
        """:meth:`prepare` of lists already checked (by the public method that called): the
        pairs normalised and de-duplicated once (:func:`~xlscore.text.pairs.distinct_pairs`),
        then embedded and anchored."""
        pairs = distinct_pairs(sources, translations)
        src = self.en.embed_words(pairs.sources, progress=progress, normalised=True)
        mt = self.ru.embed_words(pairs.translations, progress=progress, normalised=True)
        space = None
        if self.anchoring.aligned:
            # the similarity reuses the sources' vectors in that space
            space = self.anchoring.alignment_space(
                pairs.sources, pairs.translations, mt, progress, normalised=True
            )
        corpus = self.anchoring.anchor(src, mt, space=space, pairs=pairs)
        if space is not None:
            corpus.sim_src = space[0]
        return corpus

    # ------------------------------------------------------------------ scoring
    def fit_corpus_in_chunks(
        self,
        sources: list[str],
        systems: dict[str, list[str]],
        variant: str,
        chunk_size: int,
        progress: bool = False,
    ) -> tuple[ProcrustesAligner, Idf | None, Baseline | None]:
        """:meth:`fit_corpus` on a whole corpus read in chunks (checked lists), so that a score
        does not depend on the chunking: the texts as a single chunk sees them (normalised),
        and with ``alignment="corpus"`` the map fitted on the corpus first."""
        all_src = [normalize_text(s) for s in sources for _ in systems]
        all_mt = [normalize_text(v[i]) for i in range(len(sources)) for v in systems.values()]
        aligner = (
            self.fit_map_checked(sources, systems, chunk_size, progress)
            if self.maps.mode == "corpus" and not self.multilingual
            else self.maps.choose(None, progress)
        )
        return self.fit_corpus(all_src, all_mt, variant, aligner, None, progress)

    def fit_corpus(
        self,
        sources: list[str],
        translations: list[str],
        variant: str,
        aligner: ProcrustesAligner | None,
        corpus: PreparedCorpus | None,
        progress: bool = False,
        idf: Idf | None = None,
        baseline: Baseline | None = None,
    ) -> tuple[ProcrustesAligner, Idf | None, Baseline | None]:
        """Map, idf weights and baseline for a corpus, from the given values or the settings;
        remembers the map and baseline for the signature."""
        if aligner is None:
            aligner = self.maps.choose(corpus, progress)
        if idf is None:
            idf = self.idf_for(sources, translations)
        if self.rescale and baseline is None:
            baseline = self.baseline or self.compute_baseline(
                sources, translations, variant=variant, aligner=aligner, idf=idf, progress=progress
            )
        if not self.rescale:
            baseline = None
        self.maps.last, self.last_baseline = aligner, baseline
        return aligner, idf, baseline

    def score_prepared(
        self,
        corpus: PreparedCorpus,
        variant: str | None = None,
        *,
        aligner: ProcrustesAligner | None = None,
        idf: Idf | None = None,
        baseline: Baseline | None = None,
        progress: bool = False,
    ) -> list[ScoreResult]:
        """Score a :class:`PreparedCorpus`. ``aligner`` overrides the alignment; ``idf`` and
        ``baseline`` the weights and rescaling baseline; what is not given comes from the
        settings or, failing that, this corpus."""
        variant = self.variant_of(variant)
        if not corpus.paper:
            raise XLScoreError(
                "this corpus was prepared without the paper's columns; "
                "prepare it with PaperScorer.prepare (or XLScorer.prepare)"
            )
        settled = self.fit_corpus(
            *corpus.texts(), variant, aligner, corpus, progress, idf, baseline
        )
        return self.paper_columns(corpus, variant, *settled)

    def paper_columns(
        self,
        corpus: PreparedCorpus,
        variant: str,
        aligner: ProcrustesAligner,
        idf: Idf | None,
        baseline: Baseline | None,
    ) -> list[ScoreResult]:
        """The arithmetic: map, select words, greedy matching, rescaling, penalty."""
        mapped = map_vectors(corpus.mt, aligner)
        cand, ref, cand_w, ref_w = [], [], [], []
        for src, mt, m, anchors in zip(corpus.src, corpus.mt, mapped, corpus.anchors):
            ci = anchors.ru if variant == "anchors" else list(range(len(mt)))
            ri = anchors.en if variant == "anchors" else list(range(len(src)))
            cand.append(m[ci])
            ref.append(src.vectors[ri])
            if idf is not None:
                cand_w.append(torch.tensor([idf[1](mt.words[i]) for i in ci]))
                ref_w.append(torch.tensor([idf[0](src.words[i]) for i in ri]))
        p, r, f = score_pairs(cand, ref, cand_w or None, ref_w or None)
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
                    anchors_at=tuple((*src.spans[e], *mt.spans[i]) for e, i in anchors.pairs),
                    foreign=anchors.foreign,
                    flags=flags(src, mt, anchors),
                    evidence=evidence(corpus, k),
                    findings=findings(corpus, k),
                )
            )
        return out

    # ------------------------------------------------------------------ the map
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
        return self.fit_map_checked(*check_corpus(sources, systems), chunk_size, progress)

    def fit_map_checked(
        self, sources: list[str], systems: dict[str, list[str]], chunk_size: int, progress: bool
    ) -> ProcrustesAligner:
        """:meth:`fit_map` of a corpus already checked (by the public method that called)."""
        return self.maps.map_from_statistics(
            (
                self.maps.map_statistics(
                    self.prepare_checked(*segment_pairs(sources, systems, a, b))
                )
                for a, b in segment_chunks(len(sources), len(systems), chunk_size)
            ),
            progress=progress,
        )

    def fit_alignment(
        self,
        sources: Sequence[str],
        translations: Sequence[str] | Mapping[str, Sequence[str]],
        *,
        chunk_size: int = CHUNK_PAIRS,
        progress: bool = False,
    ) -> ProcrustesAligner:
        """Fit the map on the anchors of a corpus (regularised towards the dictionary map)
        and score with it from now on; returns it. ``translations``: one list, or several
        engines' lists by name."""
        aligner = self.fit_map(sources, translations, chunk_size=chunk_size, progress=progress)
        self.maps.set_fixed(aligner)
        return aligner

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
        each fold is scored with the map refined on the remaining folds (``prior=False``:
        fitted on them alone). The honest counterpart of ``alignment="corpus"``, which fits on
        the very texts it scores. idf weights come from the whole corpus; a rescaling baseline
        is computed for each fold's map."""
        if len(groups) != len(corpus):
            raise InputError(f"{len(groups)} group labels for {len(corpus)} pairs")
        if folds < 2:
            raise XLScoreError("cross-fitting needs at least two folds")
        fold_of = assign_folds(groups, folds, seed)
        idf = self.idf_for(*corpus.texts())
        last = self.maps.last, self.last_baseline
        out: list[ScoreResult | None] = [None] * len(corpus)
        for f in range(min(folds, len(fold_of))):
            test = [i for i, g in enumerate(groups) if fold_of[g] == f]
            train = [i for i, g in enumerate(groups) if fold_of[g] != f]
            aligner = self.maps.for_corpus(corpus.subset(train), False, prior)
            for i, res in zip(
                test, self.score_prepared(corpus.subset(test), variant, aligner=aligner, idf=idf)
            ):
                out[i] = res
        self.maps.last, self.last_baseline = last  # the fold maps are not the signature's
        return out  # type: ignore[return-value]

    # ------------------------------------------------------------------ idf and baseline
    def fit_idf(self, sources: Sequence[str], translations: Sequence[str]) -> Idf:
        """Compute idf weights from a corpus (English from the sources, Russian from the
        translations) and use them from now on; returns them."""
        self._idf = compute_idf(sources, translations)
        self.idf = True
        return self._idf

    def idf_for(self, sources: Sequence[str], translations: Sequence[str]) -> Idf | None:
        """The idf weights in force for a corpus: fitted ones, else the corpus's own, or
        ``None`` when idf is off."""
        if not self.idf:
            return None
        return self._idf or compute_idf(sources, translations)

    def compute_baseline(
        self, sources: Sequence[str], translations: Sequence[str], **kwargs: Any
    ) -> Baseline:
        """:func:`xlscore.paper.weighting.compute_baseline` with this scorer."""
        return compute_baseline(self, sources, translations, **kwargs)

    def fit_baseline(
        self,
        sources: Sequence[str],
        translations: Sequence[str],
        *,
        variant: str | None = None,
        seed: int = 0,
        progress: bool = False,
    ) -> Baseline:
        """:meth:`compute_baseline` on a corpus, kept for all later scoring."""
        self.baseline = self.compute_baseline(
            sources,
            translations,
            variant=variant,
            seed=seed,
            idf=self.idf_for(sources, translations),
            progress=progress,
        )
        return self.baseline


def map_vectors(mt: list[WordVectors], aligner: ProcrustesAligner) -> list[torch.Tensor]:
    """Each translation's word vectors mapped by one matrix product of its own, so that they
    depend on it alone: a product over many translations, whose height picks the kernel,
    rounds some rows otherwise (9 of 5,996 random rows on an AVX-512 CPU)."""
    if aligner.W_ is None:
        raise AlignmentMismatchError("the alignment is not fitted yet")
    uniq = [wv for wv in {id(wv): wv for wv in mt}.values() if len(wv)]
    mapped = dict(zip(map(id, uniq), aligner.transform_each([wv.vectors for wv in uniq])))
    empty = torch.zeros((0, aligner.W_.shape[1]))
    return [mapped[id(wv)].float() if len(wv) else empty for wv in mt]
