"""The paper's settings as one record: which encoders read the two sides, how their words
are anchored and mapped, and the BERTScore options (:class:`PaperSettings`); and the presets
(:data:`PRESETS`), each the paper's settings with an estimator. A record is checked once,
where it is made; :class:`~xlscore.paper.paper_scorer.PaperScorer` and
:class:`~xlscore.paper.mapping.Maps` read it, and :class:`~xlscore.XLScorer` takes it beside
the estimator. The module loads no model, so the command line reads the presets' names from
it at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from xlscore.errors import XLScoreError

if TYPE_CHECKING:
    from xlscore.encoders.encoder import Encoder
    from xlscore.lexicon.dictionary import Lexicon
    from xlscore.lexicon.translators import WordTranslator
    from xlscore.paper.alignment import ProcrustesAligner

#: the paper's words: the anchors alone or all words
VARIANTS = ("anchors", "all")
#: the alignment settings given by name
ALIGNMENTS = ("dictionary", "corpus")
#: the offline packs: the English and the multilingual encoder
OFFLINE_EN = "pack:minilm-en"
OFFLINE_RU = "pack:e5-small"
#: a baseline: mean P, R and F1 of mismatched pairs
Baseline = tuple[float, float, float]


def checked_variant(variant: str | None, default: str) -> str:
    """``variant``, or ``default`` when ``None``; one of :data:`VARIANTS`."""
    variant = variant or default
    if variant not in VARIANTS:
        raise XLScoreError(f"unknown variant {variant!r}: use one of {', '.join(VARIANTS)}")
    return variant


@dataclass(frozen=True)
class PaperSettings:
    """How the paper's method reads a pair (Vetrov & Gorn): the encoders, the anchors and the
    map, and BERTScore's options. The defaults are the offline default's.

    Attributes:
        en_model, ru_model: the English and Russian encoders: names, packs or
            :class:`~xlscore.encoders.encoder.Encoder` objects (``None``: ``pack:minilm-en``
            and ``pack:e5-small``; the paper: ``bert-base-cased`` and
            ``DeepPavlov/rubert-base-cased``).
        multilingual: one encoder for both sides, with no map (instead of the two above).
        layer: an int for both encoders or a pair ``(en, ru)``; default each pack's layer.
        lexicon: ``None`` (Müller's dictionary where installed, else English words only),
            ``"mueller7"``, ``"english-words"``, a ``ru<TAB>en`` file or a :class:`Lexicon`.
        translator: ``None`` (the dictionary when the lexicon has word pairs, else
            ``"alignment"``), ``"dictionary"``, ``"alignment"``, ``"google"`` or an object.
        alignment: ``"corpus"`` (the dictionary map refined on the texts scored),
            ``"dictionary"``, a saved map's path or a
            :class:`~xlscore.paper.alignment.ProcrustesAligner`.
        variant: ``"anchors"`` or ``"all"`` words in the paper's BERTScore.
        idf, rescale, baseline: BERTScore's idf weights and rescaling (with a given baseline,
            or one computed on the corpus).
        align_center, align_normalize: centre and unit-normalise the vectors a map is fitted
            on.
    """

    en_model: str | os.PathLike | Encoder | None = None
    ru_model: str | os.PathLike | Encoder | None = None
    multilingual: str | os.PathLike | Encoder | None = None
    layer: int | tuple[int | None, int | None] | None = None
    lexicon: str | os.PathLike | Lexicon | None = None
    translator: str | WordTranslator | None = None
    alignment: str | os.PathLike | ProcrustesAligner = "corpus"
    variant: str = "anchors"
    idf: bool = False
    rescale: bool = False
    baseline: Baseline | None = None
    align_center: bool = False
    align_normalize: bool = True

    def __post_init__(self) -> None:
        checked_variant(self.variant, "anchors")
        if self.multilingual is not None:
            if self.en_model is not None or self.ru_model is not None:
                raise XLScoreError(
                    "give either one multilingual encoder or English and Russian ones, not both"
                )
            if not (isinstance(self.alignment, str) and self.alignment in ALIGNMENTS):
                raise XLScoreError("a single multilingual encoder takes no alignment")
        if self.baseline is not None and len(self.baseline) != 3:
            raise XLScoreError("a baseline is three numbers: mean P, R and F1")

    @property
    def map_name(self) -> str | None:
        """The map by name: ``identity`` for one multilingual encoder, ``corpus`` or
        ``dictionary``; ``None`` for a saved map (:attr:`saved_map`)."""
        if self.multilingual is not None:
            return "identity"
        named = isinstance(self.alignment, str) and self.alignment in ALIGNMENTS
        return str(self.alignment) if named else None

    @property
    def saved_map(self) -> bool:
        """Whether a saved map is given (a path or a
        :class:`~xlscore.paper.alignment.ProcrustesAligner`), whose digest signs every score,
        rather than named (:attr:`map_name`)."""
        return self.map_name is None

    @property
    def layers(self) -> tuple[int | None, int | None]:
        """The English and the Russian encoder's layer (``None``: the encoder's own)."""
        layer: Any = self.layer
        return tuple(layer) if isinstance(layer, tuple) else (layer, layer)

    @classmethod
    def split(cls, settings: dict) -> tuple[dict, dict]:
        """Flat keyword settings parted into this record's and the others."""
        own = {f.name for f in fields(cls)}
        return (
            {k: v for k, v in settings.items() if k in own},
            {k: v for k, v in settings.items() if k not in own},
        )


def settings_description(
    settings: PaperSettings,
    *,
    en: dict | None,
    ru: dict,
    lexicon: Lexicon,
    translator: str,
    alignment: str,
    baseline: Baseline | None,
    **changed: Any,
) -> dict:
    """The paper's settings as the scorer's description gives them (:mod:`xlscore.signature`):
    the encoders as described (``en`` ``None`` when not loaded for it), the lexicon, the
    translator's name and the map in force; ``changed`` overrides the record's ``variant``,
    ``idf``, ``rescale``, ``align_center`` and ``align_normalize``."""
    own = {
        "variant": settings.variant,
        "idf": settings.idf,
        "rescale": settings.rescale,
        "align_center": settings.align_center,
        "align_normalize": settings.align_normalize,
        **changed,
    }
    return {
        "en": en,
        "ru": ru,
        "variant": own["variant"],
        "idf": own["idf"],
        "rescale": own["rescale"],
        "baseline": list(baseline) if own["rescale"] and baseline else None,
        "lexicon": lexicon.describe(),
        "words": lexicon.known_words()[1],
        "translator": translator,
        "alignment": alignment,
        "align_center": own["align_center"],
        "align_normalize": own["align_normalize"],
    }


@dataclass(frozen=True)
class Preset:
    """A named starting point (``xlscore score --preset NAME``): the paper's settings, the
    estimator and whether the candidates' consensus enters the score."""

    paper: PaperSettings
    estimator: str | None
    consensus: bool


#: the presets, by name
PRESETS: dict[str, Preset] = {
    "offline": Preset(PaperSettings(en_model=OFFLINE_EN, ru_model=OFFLINE_RU), "default", True),
    "paper": Preset(
        PaperSettings(
            en_model="bert-base-cased", ru_model="DeepPavlov/rubert-base-cased", translator="google"
        ),
        None,
        False,
    ),
    "multilingual": Preset(PaperSettings(multilingual=OFFLINE_RU), None, False),
}
