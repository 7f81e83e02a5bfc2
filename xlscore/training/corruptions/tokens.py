"""Words of a translation as character spans, and how a replacement is written.

Tokens (:class:`Tok`) are numbers or words with their offsets, so that edits keep the
punctuation in place and spans are exact; a replacement takes the capitals of the word it
replaces and the ``ё`` usage of the text.
"""

from __future__ import annotations

from typing import NamedTuple

import regex

from xlscore.text.words import Word, split_words

_NUMBER = regex.compile(r"(?:\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)|\d+)(?:[.,:]\d+)?")
_CYRILLIC = regex.compile(r"\p{Cyrillic}+(?:-\p{Cyrillic}+)*")
_LATIN = regex.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
_JOINERS = "-‐'’"


class Tok(NamedTuple):
    start: int
    end: int
    text: str
    num: bool


def _tokens(text: str) -> list[Tok]:
    """The numbers (digits with their group and decimal separators) and the words (letters,
    hyphens and apostrophes joining) of ``text``, in order; the two never overlap."""
    nums = [Tok(m.start(), m.end(), m.group(), True) for m in _NUMBER.finditer(text)]
    words = split_words(text, joiners=_JOINERS, letters=True)
    return sorted(nums + [Tok(w.start, w.end, w.text, False) for w in words])


def latin_words(text: str) -> list[Word]:
    """The words of ``text`` written in ASCII Latin letters (hyphens and apostrophes joining)."""
    return [
        w for w in split_words(text, joiners=_JOINERS, letters=True) if _LATIN.fullmatch(w.text)
    ]


def _cyr(word: str) -> bool:
    return _CYRILLIC.fullmatch(word) is not None


def _tight(text: str, a: Tok, b: Tok) -> bool:
    """Only whitespace between two tokens."""
    gap = text[a.end : b.start]
    return 0 < len(gap) <= 3 and gap.isspace()


def _sentence_start(text: str, i: int) -> bool:
    j = i
    while j > 0 and (text[j - 1].isspace() or text[j - 1] in "«\"„“'(–—-"):
        j -= 1
    return j == 0 or text[j - 1] in ".!?…:"


def _style(orig: str, new: str, text: str) -> str:
    """``new`` written like ``orig`` (capitals) and like ``text`` (``ё`` or not)."""
    if "ё" not in text and "Ё" not in text:
        new = new.replace("ё", "е").replace("Ё", "Е")
    if len(orig) > 1 and orig.isupper() and len(new) > 1:
        return new.upper()
    if orig[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def _title(word: str) -> str:
    return "-".join(
        p[:1].upper() + p[1:] if len(p) > 2 or i == 0 else p for i, p in enumerate(word.split("-"))
    )
