"""The untrained multilingual similarity of a pair: the cross-lingual all-words BERTScore F1 of
:data:`SIMILARITY_ENCODER` between source and translation (no map: the encoder is
multilingual), with the foreign-text penalty.

An estimator whose file gives it a weight blends it into the score (the shipped default does
not); the ``similarity`` field reports it beside the score; the word-alignment translator
finds anchors in this encoder's space. The encoder is the scorer's Russian encoder when that
is it, else loaded once on first use.
"""

from __future__ import annotations

from xlscore.encoders import packs
from xlscore.encoders.bertscore import score_pairs
from xlscore.encoders.encoder import Encoder
from xlscore.results import penalised
from xlscore.scoring.corpus import PreparedCorpus

#: the multilingual encoder (at its pack's layer) of the similarity
SIMILARITY_ENCODER = "pack:e5-small"


class Similarity:
    """The similarity of each pair of a prepared corpus (see the module's docstring).

    Args:
        ru: the scorer's Russian encoder, reused when it is :data:`SIMILARITY_ENCODER`.
    """

    def __init__(self, ru: Encoder) -> None:
        self.ru = ru
        self._encoder: Encoder | None = None

    def encoder(self) -> Encoder:
        """:data:`SIMILARITY_ENCODER` at its pack's layer: the Russian encoder itself when it
        is that, a view of it at that layer, or a separately loaded copy."""
        if self._encoder is None:
            layer = packs.get(SIMILARITY_ENCODER).default_layer
            if self.ru.spec != SIMILARITY_ENCODER:
                self._encoder = Encoder.load(
                    SIMILARITY_ENCODER, layer, device=self.ru.device, dtype=self.ru.dtype
                )
            else:
                self._encoder = self.ru if self.ru.layer == layer else self.ru.with_layer(layer)
        return self._encoder

    def scores(self, corpus: PreparedCorpus) -> list[float]:
        """Each pair's similarity. The Russian encoder's vectors are reused when it is the
        similarity's encoder, and both sides' when the corpus was prepared by that encoder
        (without the paper's columns); the rest is embedded here."""
        enc = self.encoder()
        sources, translations = corpus.texts()
        mt = (
            [wv.vectors for wv in corpus.mt]
            if enc is self.ru or not corpus.paper
            else [wv.vectors for wv in enc.embed_words(translations)]
        )
        src = (
            [wv.vectors for wv in corpus.src]
            if not corpus.paper
            else [wv.vectors for wv in corpus.sim_src]
            if corpus.sim_src is not None
            else [wv.vectors for wv in enc.embed_words(sources)]
        )
        _, _, f = score_pairs(mt, src)
        return [penalised(float(f[k]), a.foreign, -1.0) for k, a in enumerate(corpus.anchors)]
