"""Müller's English-Russian dictionary as Debian's ``mueller7-dict`` ships it, in the dictd
format: every entry read from the index and the (gzip-compressed) data file
(:func:`read_dictd`), and one entry's single-word Russian translations parsed from its prose
(:func:`parse_entry`), which :class:`xlscore.lexicon.dictionary.Lexicon` inverts.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path

from xlscore.errors import LexiconError

_B64 = {
    c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
}
_CYR_WORD = re.compile(r"^[а-яё]+$")
_LATIN = re.compile(r"[A-Za-z]")
_FORM_OF = re.compile(r"(?:_(?:p|p-p|pres-p|pl|comp|sup)\.\s*(?:и\s+)?)+\s*от\s+([a-z]+)")
_BRACKETS = re.compile(r"\[[^\]]*\]|\{[^}]*\}")
_SENSE = re.compile(r"(?:^|\s)(?:\d+\.|\d+\)|[а-я]\))")
_LABEL = re.compile(r"_\S+")
_REFLEXIVE = re.compile(r"([а-яё]+)\((ся|сь)\)")
_PARENS = re.compile(r"\([^()]*\)")


def _b64(text: str) -> int:
    value = 0
    for c in text:
        value = value * 64 + _B64[c]
    return value


def read_dictd(index: Path, data: Path) -> Iterator[tuple[str, str]]:
    """``(headword, entry text)`` for every entry of a dictd dictionary (``.dict`` or
    ``.dict.dz``)."""
    try:
        if data.suffix == ".dz":
            with gzip.open(data) as fh:
                raw = fh.read()
        else:
            raw = data.read_bytes()
        lines = index.read_text(encoding="utf-8").splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise LexiconError(f"cannot read dictionary {index} / {data}: {err}") from None
    for n, line in enumerate(lines, start=1):
        parts = line.split("\t")
        if len(parts) != 3:
            raise LexiconError(f"{index}, line {n}: expected headword, offset and length")
        head, off, size = parts[0], _b64(parts[1]), _b64(parts[2])
        if head.startswith("00-database"):
            continue
        yield head, raw[off : off + size].decode("utf-8", errors="replace")


def parse_entry(body: str) -> tuple[list[str], str | None]:
    """Single-word Russian translations in one Müller entry (its first line is the headword),
    and the headword's base form when the entry says it is a form of another word
    (``_p. и _p-p. от find``).

    Within each numbered sense, translations come first and examples after: the first segment
    with Latin letters (an example or a cross-reference) ends the sense's translations. A
    segment with a phrase of three or more words is a description, not a list of synonyms.
    """
    text = body.split("\n", 1)[1] if "\n" in body else ""
    text = text.replace("\n", " ")
    m = _FORM_OF.search(text)
    base = m.group(1) if m else None
    text = _BRACKETS.sub(" ", text)
    text = _REFLEXIVE.sub(r"\1 , \1\2", text)
    for _ in range(3):  # nested parentheses, innermost first
        text = _PARENS.sub(" ", text)
    text = _LABEL.sub(" ", text)
    words: list[str] = []
    for sense in _SENSE.split(text):
        for segment in sense.split(";"):
            if _LATIN.search(segment) or "=" in segment:
                break
            items = [i.strip(" \t.!?:\"«»'") for i in segment.split(",")]
            if any(len(i.split()) >= 3 for i in items):
                continue
            words += [i.lower() for i in items if _CYR_WORD.match(i.lower())]
    return words, base
