"""The anchors of each pair (:mod:`xlscore.lexicon.anchor_pairs`) over its embedded words: the word
translator's candidates (a dictionary for the whole corpus at once, or word alignment in the
similarity encoder's space, pair by pair), each distinct pair anchored once. The anchors give
the paper's anchors-only BERTScore and map, the foreign-text share and flags that the score
depends on, and the evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xlscore.encoders.encoder import WordVectors
from xlscore.errors import InputError, XLScoreError
from xlscore.lexicon.anchor_pairs import AnchorSet, SourceSide, find_anchors, source_side
from xlscore.lexicon.dictionary import Lexicon
from xlscore.lexicon.translators import AlignmentTranslator, WordTranslator
from xlscore.scoring.corpus import PreparedCorpus
from xlscore.scoring.similarity import Similarity
from xlscore.text.pairs import DistinctPairs, distinct_pairs
from xlscore.text.scripts import is_cyrillic


class Anchoring:
    """Anchors of embedded pairs (see the module's docstring).

    Args:
        lexicon: the word pairs and the English words the anchors may use.
        translator: the word translator.
        similarity: the multilingual similarity, in whose space word alignment works.
    """

    def __init__(
        self, lexicon: Lexicon, translator: WordTranslator, similarity: Similarity
    ) -> None:
        self.lexicon, self.translator = lexicon, translator
        self.similarity = similarity

    @property
    def aligned(self) -> bool:
        """Whether the anchors come from word alignment (which needs vectors of both sides
        in the similarity encoder's space)."""
        return isinstance(self.translator, AlignmentTranslator)

    def alignment_space(
        self,
        sources: list[str],
        translations: list[str],
        ru_vectors: Sequence[WordVectors] | None = None,
        progress: bool = False,
        normalised: bool = False,
    ) -> tuple[list[WordVectors], list[WordVectors]]:
        """Both sides' word vectors in the similarity encoder's space, which the word
        alignment needs; ``ru_vectors`` (the translations by the Russian encoder) are reused
        when that encoder is the similarity encoder; ``normalised``: the texts are normalised
        already."""
        enc = self.similarity.encoder()
        src = enc.embed_words(sources, progress=progress, normalised=normalised)
        if ru_vectors is not None and enc is self.similarity.ru:
            return src, list(ru_vectors)
        return src, enc.embed_words(translations, progress=progress, normalised=normalised)

    def prepare(
        self,
        pairs: DistinctPairs,
        *,
        vectors: bool,
        translate: bool,
        progress: bool = False,
    ) -> PreparedCorpus:
        """A corpus prepared without the paper's encoders from its pairs, normalised and
        de-duplicated already: both sides cut into words by the similarity encoder, and
        embedded by it when ``vectors`` (the similarity or the word alignment needs them; else
        no encoder pass), then anchored (``translate``: with word translation, which the
        evidence needs)."""
        enc = self.similarity.encoder()
        space = None
        if vectors or (translate and self.aligned):
            src = enc.embed_words(pairs.sources, progress=progress, normalised=True)
            mt = enc.embed_words(pairs.translations, progress=progress, normalised=True)
            space = (src, mt)
        else:
            src = enc.words_only(pairs.sources, normalised=True)
            mt = enc.words_only(pairs.translations, normalised=True)
        corpus = self.anchor(src, mt, translate=translate, space=space, pairs=pairs)
        corpus.paper = False
        return corpus

    def anchor(
        self,
        src: Sequence[WordVectors],
        mt: Sequence[WordVectors],
        *,
        translate: bool = True,
        space: tuple[Sequence[WordVectors], Sequence[WordVectors]] | None = None,
        pairs: DistinctPairs | None = None,
    ) -> PreparedCorpus:
        """Find the anchors of already embedded pairs (``src[i]`` with ``mt[i]``), each
        distinct pair once; ``translate=False`` looks no word up, so that only the foreign-text
        share and the flags (which need no translation) are meaningful. With the
        ``"alignment"`` translator, ``space`` holds both sides' vectors in the similarity
        encoder's space (embedded here when not given). ``pairs``: the pairs' texts as
        :func:`~xlscore.text.pairs.distinct_pairs` made them (else made here of the vectors'
        normalised texts); the corpus keeps them."""
        if len(src) != len(mt):
            raise InputError(f"{len(src)} sources but {len(mt)} translations")
        if pairs is None:
            pairs = distinct_pairs([s.text for s in src], [m.text for m in mt], normalised=True)
        corpus = PreparedCorpus(list(src), list(mt), pairs=pairs)
        aligned = translate and self.aligned
        if aligned and space is None:
            space = self.alignment_space(pairs.sources, pairs.translations, normalised=True)
        ru_words = (
            [w for wv in corpus.mt for w in wv.words if is_cyrillic(w)]
            if translate and not aligned
            else []
        )
        table = self.translator.translations(ru_words) if ru_words else {}
        empty: frozenset[str] = frozenset()
        lex = self.lexicon
        known, _ = lex.known_words()
        found: list[AnchorSet] = []  # each distinct pair's anchors
        # each source's part once for all its translations, and its words' candidates (one
        # table for the corpus: with the dictionary, not the per-pair word alignment)
        sides: dict[str, tuple[SourceSide, dict[str, list[int]]]] = {}
        for k in pairs.first:
            s, m = corpus.src[k], corpus.mt[k]
            if s.text not in sides:
                sides[s.text] = (source_side(s.words, lex.en_keys), {})
            side, memo = sides[s.text]
            words = table
            if aligned:
                if space is None or not isinstance(self.translator, AlignmentTranslator):
                    raise XLScoreError("word alignment needs the alignment translator")
                a_src, a_mt = space[0][k], space[1][k]
                words = self.translator.pair_translations(
                    a_src.words, a_src.vectors, a_mt.words, a_mt.vectors, lex.en_keys
                )

            def translations(w: str, words: Mapping[str, frozenset[str]] = words) -> frozenset[str]:
                return words.get(w, empty)

            found.append(
                find_anchors(
                    s.words,
                    m.words,
                    translations,
                    lex.en_keys,
                    known,
                    side,
                    None if aligned else memo,
                )
            )
        corpus.anchors = [found[j] for j in pairs.order]
        return corpus
