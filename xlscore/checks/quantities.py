"""A number found in a text (:class:`_Qty`: the values it can mean, its span, whether it may
go unmatched), the key its values are compared by, and whether a unit next to it lets a
translation convert it.
"""

from __future__ import annotations

from typing import NamedTuple

import regex

from xlscore.checks import number_words as W
from xlscore.checks.common import words
from xlscore.text.morph import fold_ru
from xlscore.text.words import compiled


class _Qty(NamedTuple):
    """A number: its values, span, whether unreported, and its English value if calqued."""

    values: frozenset
    span: tuple[int, int]
    optional: bool
    calque: frozenset = frozenset()


_UNIT_AFTER = regex.compile(r"[\s\-‑–]*(°\s*[FfCc]?|[\p{L}]+)")
_UNIT_BEFORE = regex.compile(r"(°\s*[FfCc]?\s*|[\p{L}]+[-‑])$")
_METRIC_SHORT = frozenset(
    words(
        """
    м см мм км кг г т л га с ° °c °с ф миль мили миля милю
    """
    )
)


def _key(v: float) -> float:
    """A number as a comparable value."""
    return round(float(v), 6)


def _near_unit(text: str, start: int, end: int, lang: str) -> bool:
    """Whether the number at ``text[start:end]`` measures something a translation may convert
    (imperial units, degrees) -- or, on the Russian side, a metric unit."""
    after = _UNIT_AFTER.match(text, end)
    words = []
    if after:
        words.append(after.group(1))
        nxt = _UNIT_AFTER.match(text, after.end())
        if nxt:
            words.append(nxt.group(1))
    before = _UNIT_BEFORE.search(text[max(0, start - 20) : start])
    if before:  # 6-foot-6
        words.append(before.group(1))
    for w in words:
        lw = fold_ru(compiled(r"[\s\-‑]").sub("", w))
        if lw.startswith("°"):
            return True
        if lang == "en" and lw in W.IMPERIAL_UNITS:
            return True
        if lang == "ru" and (
            lw in _METRIC_SHORT or any(lw.startswith(p) for p in W.METRIC_PREFIXES if len(p) > 2)
        ):
            return True
    return False
