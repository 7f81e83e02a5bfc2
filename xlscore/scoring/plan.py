"""Which parts of the scoring run: one record (:class:`Plan`), decided once when the scorer is
made (:meth:`Plan.of`, from the fields, the estimator and whether a saved map is given), that
every component reads -- the scorer (whether the paper's scorer is built with it), the blocks
(:mod:`xlscore.scoring.blocks`: whether the work runs beside the estimator's passes), the
blend (:mod:`xlscore.scoring.blend`: the similarity, the consensus) and the rule checks
(:mod:`xlscore.scoring.rule_checks`: which checks).

Which checks run follows what the scorer computes: every check when the evidence is computed
(the ``evidence`` field, or the paper's columns, which always carry it) or when the estimator's
span tagger reads the findings (:mod:`xlscore.estimator.span_tagger`); else the checks the
score counts (:data:`~xlscore.checks.COUNTED`) when the estimator's formula counts any (a
``check_weight``); else, with an estimator, the ``degenerate`` check, whose share every
estimator's score takes (so that its findings say why); else none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xlscore.estimator.model import QualityEstimator


@dataclass(frozen=True)
class Plan:
    """What a scorer computes and which of its parts run.

    Attributes:
        fields: the field groups computed (:mod:`xlscore.fields`).
        estimator: the score is an estimator's prediction (else the paper's F1).
        similarity: the similarity encoder runs (the estimator's score blends it in, or the
            ``similarity`` field asks for it).
        aligned_evidence: the evidence's anchors come from word alignment (its encoders run
            in the main process).
        consensus: each source's engines scored together blend their consensus in (at the
            estimator's weight) when three or more take part.
        spans: the estimator's span tagger reads the checks' findings.
        checks: the rule checks that run (:data:`xlscore.checks.CHECKS` names).
        saved_map: the settings give a saved map (its digest signs every score).
    """

    fields: frozenset[str]
    estimator: bool
    similarity: bool
    aligned_evidence: bool
    consensus: bool
    spans: bool
    checks: tuple[str, ...]
    saved_map: bool = False

    @classmethod
    def of(
        cls,
        fields: frozenset[str],
        estimator: QualityEstimator | None,
        *,
        consensus: bool,
        aligned: bool = False,
        saved_map: bool = False,
    ) -> Plan:
        """The plan of a scorer computing ``fields`` with ``estimator`` (``None``: the
        paper's score); ``aligned``: its anchors come from word alignment; ``saved_map``: the
        settings give a saved map."""
        spans = estimator is not None and estimator.tagger is not None
        weight = estimator.check_weight if estimator is not None else 0.0
        return cls(
            fields=fields,
            estimator=estimator is not None,
            similarity=estimator is not None
            and (estimator.separate_similarity or "similarity" in fields),
            aligned_evidence=aligned and "evidence" in fields,
            consensus=bool(consensus),
            spans=spans,
            checks=_checks(fields, weight, spans, estimator is not None),
            saved_map=saved_map,
        )

    @property
    def paper(self) -> bool:
        """The paper's columns are computed."""
        return "paper" in self.fields

    @property
    def paper_scorer(self) -> bool:
        """The paper's scorer is built with the scorer: for its columns (which its score,
        without an estimator, always adds: :func:`xlscore.fields.resolve_fields`) or a saved
        map's digest; else only on first use (``XLScorer.paper``)."""
        return self.paper or self.saved_map

    @property
    def evidence(self) -> bool:
        """The evidence is gathered (its anchors translated)."""
        return "evidence" in self.fields

    def beside_estimator(self) -> list[str]:
        """What of the work needs an encoder beside the estimator's (empty: the estimator's
        fields alone, which run in blocks beside its passes)."""
        needs = []
        if not self.estimator:
            needs.append("the paper's score (no estimator)")
        if self.paper:
            needs.append("the paper's columns")
        if self.similarity:
            needs.append("the similarity")
        if self.aligned_evidence:
            needs.append("the evidence by word alignment")
        return needs


def _checks(
    fields: frozenset[str], check_weight: float, spans: bool, estimator: bool
) -> tuple[str, ...]:
    """The checks a scorer needs (the module's docstring says which)."""
    if {"evidence", "paper"} & fields or spans:
        from xlscore.checks import CHECKS

        return tuple(CHECKS)
    if check_weight:
        from xlscore.checks import COUNTED

        return tuple(COUNTED)
    return ("degenerate",) if estimator else ()
