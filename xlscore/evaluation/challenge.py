"""Challenge sets: a correct translation against a corrupted one, per phenomenon.

A challenge file is a TSV with the header ``case, phenomenon, source, good, bad`` (no quoting):
each row gives a source, a correct translation and a translation with one accuracy error
(untranslated copy or fragment, wrong language, addition, omission, flipped negation, changed
number in digits or words, swapped named entity, antonym, swapped roles, changed date or
unit). The statistic is how often the correct translation is ranked above the flawed one, with
the ranking rule of :meth:`xlscore.XLScorer.rank` (flagged translations last, then by score);
for a scorer that predicts error spans, also how often a span lands on the error
(:func:`error_region`, :func:`span_on_error`) and how often the correct translation gets one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from xlscore.errors import InputError
from xlscore.io.inputs import read_columns
from xlscore.scoring.scorer import XLScorer, rank_order

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


@dataclass(frozen=True)
class ChallengeRow:
    """How a scorer did on one phenomenon: ``wins`` of ``total`` pairs; with error spans,
    ``on_error`` flawed translations with a span on the error and ``good_flagged`` correct
    translations with any span; ``won``: each pair's outcome, in the order of the cases."""

    wins: int
    total: int
    on_error: int = 0
    good_flagged: int = 0
    won: tuple[bool, ...] = ()


def error_region(good: str, bad: str) -> list[tuple[int, int]]:
    """Where ``bad`` differs from ``good``: character spans of ``bad`` (material deleted from
    ``good`` is a zero-length span at its position)."""
    ops = difflib.SequenceMatcher(None, good, bad, autojunk=False).get_opcodes()
    return [(j1, j2) for tag, _, _, j1, j2 in ops if tag != "equal"]


def span_on_error(spans: Iterable[tuple[int, int]], region: Iterable[tuple[int, int]]) -> bool:
    """Whether a predicted span overlaps the error region; for a deletion, whether a span
    touches its position (ends or starts next to it)."""
    region = list(region)
    for a, b in spans:
        for s, e in region:
            if (a < e and s < b) if s < e else (a - 1 <= s <= b + 1):
                return True
    return False


def run_challenge(scorer: XLScorer, cases: list[Challenge]) -> dict[str, ChallengeRow]:
    """``{phenomenon: ChallengeRow}``, in the order the phenomena first appear: times the good
    translation is ranked strictly above the bad one (a tie is not a win), and where the
    scorer's error spans fall. All pairs are scored in one call."""
    results = scorer.score(
        [c.source for c in cases] * 2, [c.good for c in cases] + [c.bad for c in cases]
    )
    n = len(cases)
    table: dict[str, list[int]] = {}
    outcomes: dict[str, list[bool]] = {}
    for k, c in enumerate(cases):
        good, bad = results[k], results[n + k]
        # a strict win: ranked first by the rule of rank(), and not merely kept first by a tie
        won = rank_order([good, bad])[0] == 0 and rank_order([bad, good])[0] == 1
        entry = table.setdefault(c.phenomenon, [0, 0, 0, 0])
        entry[0] += won
        entry[1] += 1
        entry[2] += span_on_error(
            [(s.start, s.end) for s in bad.error_spans], error_region(c.good, c.bad)
        )
        entry[3] += bool(good.error_spans)
        outcomes.setdefault(c.phenomenon, []).append(bool(won))
    return {
        ph: ChallengeRow(wins, total, on_error, flagged, won=tuple(outcomes[ph]))
        for ph, (wins, total, on_error, flagged) in table.items()
    }
