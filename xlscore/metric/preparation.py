"""The scorer's preparation of a corpus: each side embedded (by the paper's two encoders, or
by the similarity encoder alone when the paper's columns are not asked for) and the anchor
pairs of each pair found (:mod:`xlscore.metric.anchors`), into a :class:`PreparedCorpus`.

A mixin of :class:`xlscore.scorer.XLScorer`: it relies on the scorer's encoders (``en``,
``ru``), ``fields``, ``estimator``, ``lexicon``, ``translator`` and its
``_similarity_encoder`` method.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from xlscore.errors import InputError, XLScoreError
from xlscore.metric.anchors import AnchorSet, find_anchors, is_cyrillic
from xlscore.metric.corpus import PreparedCorpus
from xlscore.metric.translators import AlignmentTranslator

if TYPE_CHECKING:
    from xlscore.encoders.encoder import Encoder, WordVectors
    from xlscore.estimator.model import QualityEstimator
    from xlscore.metric.lexicon import Lexicon
    from xlscore.metric.translators import WordTranslator


class CorpusPreparation:
    """Embedding and anchoring a corpus (see the module's docstring)."""

    if TYPE_CHECKING:  # what this mixin uses of :class:`xlscore.scorer.XLScorer`
        en: Encoder
        ru: Encoder
        fields: frozenset[str]
        estimator: QualityEstimator | None
        lexicon: Lexicon
        translator: WordTranslator

        def _similarity_encoder(self) -> Encoder: ...

        @property
        def computes_similarity(self) -> bool: ...

    def _prepare(
        self, sources: list[str], translations: list[str], progress: bool
    ) -> PreparedCorpus:
        """:meth:`prepare` of a corpus already checked (by the public method that called)."""
        src = self.en.embed_words(sources, progress=progress)
        mt = self.ru.embed_words(translations, progress=progress)
        space = None
        if isinstance(self.translator, AlignmentTranslator):
            # the similarity reuses the sources' vectors in that space
            space = self._alignment_space(sources, translations, mt, progress)
        corpus = self.anchor(src, mt, space=space)
        corpus.given = translations
        if space is not None:
            corpus.sim_src = space[0]
        return corpus

    def _prepare_chunk(
        self, sources: list[str], translations: list[str], progress: bool
    ) -> PreparedCorpus:
        """A chunk prepared for :meth:`iter_score`: everything (:meth:`prepare`) when the
        paper's columns are asked for; else anchors only as far as the evidence needs them
        (for the foreign-text share and the flags, without any word translation, when it is
        not asked for either), on both sides embedded once by the similarity encoder when the
        estimator's similarity or the word alignment needs vectors, and on the words alone
        (no encoder pass) when nothing does."""
        if "paper" in self.fields:
            return self._prepare(sources, translations, progress)
        enc = self._similarity_encoder()
        translate = "evidence" in self.fields
        similar = self.computes_similarity
        if similar or (translate and isinstance(self.translator, AlignmentTranslator)):
            src = enc.embed_words(sources, progress=progress)
            mt = enc.embed_words(translations, progress=progress)
            space: tuple[list[WordVectors], list[WordVectors]] | None = (src, mt)
        else:
            src, mt, space = enc.words_only(sources), enc.words_only(translations), None
        corpus = self.anchor(src, mt, translate=translate, space=space)
        corpus.given, corpus.paper = translations, False
        return corpus

    def _alignment_space(
        self,
        sources: list[str],
        translations: list[str],
        ru_vectors: Sequence[WordVectors] | None = None,
        progress: bool = False,
    ) -> tuple[list[WordVectors], list[WordVectors]]:
        """Both sides' word vectors in the similarity encoder's space, which the word
        alignment needs; ``ru_vectors`` (the translations by the Russian encoder) are reused
        when that encoder is the similarity encoder."""
        enc = self._similarity_encoder()
        src = enc.embed_words(sources, progress=progress)
        if ru_vectors is not None and enc is self.ru:
            return src, list(ru_vectors)
        return src, enc.embed_words(translations, progress=progress)

    def anchor(
        self,
        src: Sequence[WordVectors],
        mt: Sequence[WordVectors],
        *,
        translate: bool = True,
        space: tuple[Sequence[WordVectors], Sequence[WordVectors]] | None = None,
    ) -> PreparedCorpus:
        """Find the anchors of already embedded pairs (``src[i]`` with ``mt[i]``);
        ``translate=False`` looks no word up, so that only the foreign-text share and the flags
        (which need no translation) are meaningful. With the ``"alignment"`` translator,
        ``space`` holds both sides' vectors in the similarity encoder's space (embedded here
        when not given)."""
        if len(src) != len(mt):
            raise InputError(f"{len(src)} sources but {len(mt)} translations")
        corpus = PreparedCorpus(list(src), list(mt))
        aligned = translate and isinstance(self.translator, AlignmentTranslator)
        if aligned and space is None:
            space = self._alignment_space([s.text for s in src], [m.text for m in mt])
        ru_words = (
            [w for wv in corpus.mt for w in wv.words if is_cyrillic(w)]
            if translate and not aligned
            else []
        )
        table = self.translator.translations(ru_words) if ru_words else {}
        empty: frozenset[str] = frozenset()
        lex = self.lexicon
        known, _ = lex.known_words()
        cached: dict[tuple[str, str], AnchorSet] = {}
        for k, (s, m) in enumerate(zip(corpus.src, corpus.mt)):
            key = (s.text, m.text)
            if key not in cached:
                words = table
                if aligned:
                    if space is None or not isinstance(self.translator, AlignmentTranslator):
                        raise XLScoreError("word alignment needs the alignment translator")
                    a_src, a_mt = space[0][k], space[1][k]
                    words = self.translator.pair_translations(
                        a_src.words, a_src.vectors, a_mt.words, a_mt.vectors, lex.en_keys
                    )

                def translations(
                    w: str, words: Mapping[str, frozenset[str]] = words
                ) -> frozenset[str]:
                    return words.get(w, empty)

                cached[key] = find_anchors(s.words, m.words, translations, lex.en_keys, known)
            corpus.anchors.append(cached[key])
        return corpus
