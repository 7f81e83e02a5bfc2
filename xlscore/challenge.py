"""Challenge sets: a correct translation against a corrupted one, per phenomenon.

A challenge file is a TSV with the header ``case, phenomenon, source, good, bad`` (no quoting):
each row gives a source, a correct translation and a translation corrupted by one known
failure mode of reference-free metrics (untranslated copy, wrong language, addition,
omission, flipped negation, changed number, swapped named entity). The statistic is how often
the correct translation is ranked above the corrupted one, with the ranking rule of
:meth:`xlscore.XLScorer.rank` (flagged translations last, then by score).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .inputs import read_columns
from .scorer import XLScorer, rank_order

COLUMNS = ("case", "phenomenon", "source", "good", "bad")


@dataclass(frozen=True)
class Challenge:
    """One row of a challenge set."""

    case: str
    phenomenon: str
    source: str
    good: str
    bad: str


def read_challenge(path: str | Path) -> list[Challenge]:
    """Rows of a challenge TSV (or JSON lines with those fields); a missing column or an empty
    cell is an :class:`~xlscore.errors.InputError` naming the file and line."""
    cols = read_columns(path, COLUMNS)
    out = [Challenge(*row) for row in zip(*(cols[c] for c in COLUMNS))]
    if not out:
        raise InputError("no rows after the header", path=path)
    return out


def run_challenge(scorer: XLScorer, cases: list[Challenge]) -> dict[str, tuple[int, int]]:
    """``{phenomenon: (times the good translation is ranked strictly above the bad one,
    cases)}``, in the order the phenomena first appear (a tie is not a win). All pairs are
    scored in one call."""
    results = scorer.score([c.source for c in cases] * 2,
                           [c.good for c in cases] + [c.bad for c in cases])
    n = len(cases)
    table: dict[str, list[int]] = {}
    for k, c in enumerate(cases):
        good, bad = results[k], results[n + k]
        # a strict win: ranked first by the rule of rank(), and not merely kept first by a tie
        won = rank_order([good, bad])[0] == 0 and rank_order([bad, good])[0] == 1
        entry = table.setdefault(c.phenomenon, [0, 0])
        entry[0] += won
        entry[1] += 1
    return {ph: (w, t) for ph, (w, t) in table.items()}
