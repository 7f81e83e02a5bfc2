"""What a rule check reports: a :class:`Finding`, kept in each result
(:attr:`xlscore.ScoreResult.findings`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One mismatch a rule check found between a source and its translation
    (:mod:`xlscore.checks`).

    ``span`` is the character span in the translation the finding points at (``None`` when
    there is nothing to point at, e.g. a number of the source that the translation lacks);
    ``source_span`` the span in the source; ``counts``: whether it is one of the findings an
    estimator's check weight takes points for (:data:`xlscore.checks.REGISTRY`);
    ``why_free``: when it does not count, why -- its rule's measured false alarms and hits
    (:mod:`xlscore.checks.measured`), e.g. ``reported, no cost: 200 false alarms in 6,016
    error-free translations, ...``; ``""`` for a finding that counts. ``share``: the share of
    the translation a ``degenerate`` finding covers, which pulls the score towards the floor
    (:mod:`xlscore.checks.degenerate`: the blend reads it here, not by checking again);
    ``None`` for the other checks.
    """

    check: str
    message: str
    span: tuple[int, int] | None
    source_span: tuple[int, int] | None
    counts: bool = False
    why_free: str = ""
    share: float | None = None

    def to_dict(self) -> dict:
        """Plain dictionary (for JSON and Parquet): the spans as ``start``/``end`` and
        ``source_start``/``source_end`` (``None`` where there is no span), ``counts``,
        ``why_free`` and ``share``."""
        span, src = self.span or (None, None), self.source_span or (None, None)
        return {
            "check": self.check,
            "message": self.message,
            "start": span[0],
            "end": span[1],
            "source_start": src[0],
            "source_end": src[1],
            "counts": self.counts,
            "why_free": self.why_free,
            "share": self.share,
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> Finding:
        """The finding :meth:`to_dict` wrote."""

        def span(a: str, b: str) -> tuple[int, int] | None:
            return None if d.get(a) is None else (int(d[a]), int(d[b]))

        return cls(
            str(d["check"]),
            str(d["message"]),
            span("start", "end"),
            span("source_start", "source_end"),
            bool(d.get("counts", False)),
            str(d.get("why_free") or ""),
            None if d.get("share") is None else float(d["share"]),
        )
