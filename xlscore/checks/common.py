"""Helpers every check uses: tables written as running text, the Roman-numeral pattern, and
whether a word may start a sentence (the Russian morphology is :mod:`xlscore.text.morph`).
"""

from __future__ import annotations


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
