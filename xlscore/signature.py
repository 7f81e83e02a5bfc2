"""The scorer's identity: every setting that changes a score (:meth:`Signature.describe`)
and the sacreBLEU-style one-line signature made of them, which results carry.

A mixin of :class:`xlscore.scorer.XLScorer`: it relies on the scorer's encoders, settings,
lexicon, translator, alignment, estimator and its ``_similarity_encoder`` method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xlscore._version import __version__
from xlscore.fields import FIELDS, resolve_fields
from xlscore.final_score import CONSENSUS_WEIGHT

if TYPE_CHECKING:
    from xlscore.encoders.encoder import Encoder
    from xlscore.estimator.model import QualityEstimator
    from xlscore.metric.alignment import ProcrustesAligner
    from xlscore.metric.lexicon import Lexicon
    from xlscore.metric.translators import WordTranslator


class Signature:
    """The settings and the signature of a scorer (see the module's docstring)."""

    if TYPE_CHECKING:  # what this mixin uses of :class:`xlscore.scorer.XLScorer`
        en: Encoder
        ru: Encoder
        variant: str
        idf: bool
        rescale: bool
        consensus: bool
        baseline: tuple[float, float, float] | None
        last_baseline: tuple[float, float, float] | None
        lexicon: Lexicon
        translator: WordTranslator
        multilingual: bool
        alignment_mode: str
        fixed_alignment: ProcrustesAligner | None
        last_alignment: ProcrustesAligner | None
        align_center: bool
        align_normalize: bool
        estimator: QualityEstimator | None
        fields: frozenset[str]

        def _similarity_encoder(self) -> Encoder: ...

        @property
        def computes_similarity(self) -> bool: ...

    def describe(self) -> dict:
        """Every setting that changes a score (the signature's content)."""
        align = self.alignment_mode
        if self.alignment_mode == "fixed" and self.fixed_alignment is not None:
            align += "#" + self.fixed_alignment.digest
        elif self.last_alignment is not None and not self.multilingual:
            align += "#" + self.last_alignment.digest
        baseline = self.baseline or self.last_baseline
        return {
            "version": __version__,
            # the English encoder serves the paper's columns alone
            "en": self.en.describe() if "paper" in self.fields else None,
            "ru": self.ru.describe(),
            "variant": self.variant,
            "idf": self.idf,
            "rescale": self.rescale,
            "consensus": CONSENSUS_WEIGHT if self.consensus else None,
            "baseline": list(baseline) if self.rescale and baseline else None,
            "lexicon": self.lexicon.describe(),
            "words": self.lexicon.known_words()[1],
            "translator": self.translator.name,
            "alignment": align,
            "align_center": self.align_center,
            "align_normalize": self.align_normalize,
            "estimator": self.estimator.describe() if self.estimator is not None else None,
            "fields": [f for f in FIELDS if f in self.fields],
            "similarity": (
                self._similarity_encoder().describe() if self.computes_similarity else None
            ),
        }

    def signature(self) -> str:
        """A sacreBLEU-style one-line signature of the settings."""
        d = self.describe()

        def enc(e: dict) -> str:
            return f"{e['model']}@{e['layer']}#{e['fingerprint'][:8]}/{e['precision']}"

        qe = self.estimator
        est = qe.signature() if qe is not None else "est:no"
        if qe is not None and qe.meaning_blend:
            est += f"+{qe.meaning_blend:g}*meaning"
        if qe is not None and d["similarity"] is not None and qe.separate_similarity:
            est += f"+{qe.similarity_weight:g}*sim:{enc(d['similarity'])}"  # in the score
        if qe is not None and qe.check_weight:
            est += f"-{qe.check_weight:g}*checks"
        parts = [
            f"xlscore:{d['version']}",
            est,
            "en:" + (enc(d["en"]) if d["en"] is not None else "no"),
            f"ru:{enc(d['ru'])}",
            f"variant:{d['variant']}",
            "cons:" + (f"{d['consensus']:g}" if d["consensus"] is not None else "no"),
            f"idf:{'yes' if d['idf'] else 'no'}",
            "rescale:"
            + (
                "no"
                if not d["rescale"]
                else "/".join(f"{b:.4f}" for b in d["baseline"] or ()) or "yes"
            ),
            f"lex:{d['lexicon']}",
            f"words:{d['words']}",
            f"tr:{d['translator'].split(':')[0]}",
            f"align:{d['alignment']}",
            "fields:"
            + (
                "all"
                if set(d["fields"]) == resolve_fields(None, estimator=self.estimator is not None)
                else "+".join(d["fields"])
            ),
        ]
        if d["similarity"] is not None and not (
            self.estimator is not None and self.estimator.separate_similarity
        ):  # the similarity field, beside the score
            parts.append(f"sim:{enc(d['similarity'])}")
        return "|".join(parts)
