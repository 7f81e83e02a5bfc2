"""Russian morphology through pymorphy3, shared by the lexicon, the explicit checks and the
corruption generators: the analyser (loaded once per process), case folding, the parses of a
word (:func:`parses`: the one cache of analyses, so a word is parsed once whoever asks),
whether the dictionary knows a word, its lemma, and the stem its case forms share.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple


@lru_cache(maxsize=1)
def analyzer() -> Any:
    """The pymorphy3 ``MorphAnalyzer`` (loaded on first use; about a second)."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


def fold_ru(word: str) -> str:
    """Lower case with ``ё`` folded to ``е``."""
    return word.lower().replace("ё", "е")


class Parse(NamedTuple):
    """One pymorphy3 analysis: the normal form (folded), the grammemes, the part of speech,
    and pymorphy3's own ``Parse`` (``analysis``: for inflecting, or the lexeme)."""

    normal: str
    grammemes: frozenset[str]
    pos: str
    analysis: Any


@lru_cache(maxsize=200_000)
def parses(word: str) -> tuple[Parse, ...]:
    """pymorphy3's analyses of ``word`` as written, best first (the checks pass it lower case
    with ``ё`` folded; the lexicon and the corruptions as they read it)."""
    return tuple(
        Parse(fold_ru(p.normal_form), frozenset(p.tag.grammemes), str(p.tag.POS), p)
        for p in analyzer().parse(word)
    )


@lru_cache(maxsize=200_000)
def is_known(word: str) -> bool:
    """pymorphy3's dictionary has the word (not only a guess from its ending)."""
    return bool(analyzer().word_is_known(word))


def lemma(word: str) -> str:
    """pymorphy3's first normal form of a Russian word, folded."""
    found = parses(fold_ru(word))
    return found[0].normal if found else fold_ru(word)


# grammemes a word's case forms differ in (pymorphy3's OpenCorpora tags)
_CASE_FREE = frozenset(
    {"nomn", "gent", "datv", "accs", "ablt", "loct", "voct", "gen2", "acc2", "loc2", "masc"}
    | {"femn", "neut", "ms-f", "anim", "inan", "V-oy", "V-ej", "V-ey", "V-be", "V-en"}
)


def word_stem(word: str) -> str:
    """The stem of a Russian word: the longest prefix its case forms share (pymorphy3's
    paradigm; a noun in its own number, an adjective or participle in all genders), at
    least three letters, else the word. A hyphenated word keeps its first parts whole."""
    word = fold_ru(word)
    if "-" in word:
        head, _, last = word.rpartition("-")
        return f"{head}-{word_stem(last)}"
    parse = next((p.analysis for p in parses(word) if p.pos in ("NOUN", "ADJF", "PRTF")), None)
    if parse is None:
        return word
    free = _CASE_FREE if parse.tag.POS == "NOUN" else _CASE_FREE | {"sing", "plur"}
    kind = set(parse.tag.grammemes) - free
    forms = [fold_ru(f.word) for f in parse.lexeme if set(f.tag.grammemes) - free == kind] + [word]
    stem = min(forms)
    while not all(f.startswith(stem) for f in forms):
        stem = stem[:-1]
    return stem if len(stem) >= 3 else word
