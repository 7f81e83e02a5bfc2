"""Helpers every check uses: pymorphy3 look-ups of Russian words, case folding, and whether a
word may start a sentence.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from xlscore.metric.morph import analyzer as _morph


class _Parse(NamedTuple):
    normal: str
    grammemes: frozenset[str]
    pos: str


@functools.lru_cache(maxsize=200_000)
def _parses(word: str) -> tuple[_Parse, ...]:
    """pymorphy3 parses of a lower-case Russian word (``ё`` folded), best first."""
    return tuple(
        _Parse(p.normal_form.replace("ё", "е"), frozenset(p.tag.grammemes), str(p.tag.POS))
        for p in _morph().parse(word)
    )


@functools.lru_cache(maxsize=200_000)
def _is_known(word: str) -> bool:
    """pymorphy3's dictionary has the word (not only a guess from its ending)."""
    return bool(_morph().word_is_known(word))


def words(text: str) -> tuple[str, ...]:
    """The words of a table written as running text, in order (whitespace separates them)."""
    return tuple(text.split())


def pairs(text: str) -> list[tuple[str, str]]:
    """The ``key=value`` entries of a table written as running text, in order."""
    out = []
    for entry in text.split():
        key, sep, value = entry.partition("=")
        if not sep or not key:
            raise ValueError(f"table entry {entry!r} is not key=value")
        out.append((key, value))
    return out


def number(text: str) -> float:
    """A table's number: an ``int`` when written without a point, else a ``float``."""
    return float(text) if any(c in text for c in ".e") else int(text)


def _fold(word: str) -> str:
    """Lower case, ``ё`` written ``е``."""
    return word.lower().replace("ё", "е")


def _ru_lemma(word: str) -> str:
    """pymorphy3's first normal form of a Russian word."""
    parses = _parses(_fold(word))
    return parses[0].normal if parses else _fold(word)


# a Roman numeral's letters (the pattern matches an empty string too)
ROMAN = r"M*(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})"
_SENT_END = set(".!?…:;")
_OPENERS = set("\"'«“„‘‚([{<—–-‐‑|•*#")


def _sentence_initial(text: str, start: int) -> bool:
    """Whether a word starting at ``start`` may start a sentence or a quotation."""
    i = start - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    return i < 0 or text[i] in _SENT_END or text[i] in _OPENERS
