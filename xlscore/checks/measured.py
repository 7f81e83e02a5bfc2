"""Why a finding that costs nothing costs nothing: what its rule measured on real translations
with expert error annotations.

A finding either costs points in the score (:meth:`xlscore.checks.Check.costs`) or carries
the measured reason it does not (:attr:`xlscore.finding.Finding.why_free`), e.g. ``reported,
no cost: 200 false alarms in 6,016 error-free translations, 139 hits in 2,416 with an
error (WMT21 newstest MQM; experiments/results/checks.md)``.

The figures are not typed by hand: ``python tools/checks.py --data-dir DIR`` writes them
to ``measured.tsv`` beside this module (one line per rule whose findings cost nothing), from the
same run as ``experiments/results/checks.md``. A *false alarm* is a translation the rule flags
in which the rater marked no error at all; a *hit*, one flagged with at least one error.
"""

from __future__ import annotations

import csv
from functools import cache, lru_cache
from pathlib import Path

MEASURED_FILE = Path(__file__).with_name("measured.tsv")
#: the columns of :data:`MEASURED_FILE`
COLUMNS = ("check", "rule", "set", "error_free", "false_alarms", "with_error", "hits")
#: where the figures come from, named in each reason
WHERE = "experiments/results/checks.md"
#: the reason of a rule the file has no line for
UNMEASURED = "reported, no cost: not measured precise enough to cost points"


@lru_cache(maxsize=1)
def measured() -> dict[tuple[str, str], dict[str, str]]:
    """The measured lines of :data:`MEASURED_FILE` by ``(check, rule)`` (empty if it is
    missing)."""
    if not MEASURED_FILE.exists():
        return {}
    with open(MEASURED_FILE, encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(_no_comments(fh), delimiter="\t") if r.get("check")]
    return {(r["check"], r["rule"]): r for r in rows}


def _no_comments(lines):
    """The lines of a TSV file that are not ``#`` comments."""
    return (line for line in lines if not line.startswith("#"))


@cache
def why_free(check: str, rule: str) -> str:
    """The reason findings of ``rule`` of ``check`` cost nothing, with its measured figures,
    e.g. ``reported, no cost: 200 false alarms in 6,016 error-free translations, 139 hits in
    2,416 with an error (WMT21 newstest MQM; experiments/results/checks.md)``."""
    row = measured().get((check, rule))
    if row is None:
        return UNMEASURED
    n = {k: int(row[k]) for k in COLUMNS[3:]}
    return (
        f"reported, no cost: {n['false_alarms']:,} false alarms in {n['error_free']:,} "
        f"error-free translations, {n['hits']:,} hits in {n['with_error']:,} with an error "
        f"({row['set']}; {WHERE})"
    )
