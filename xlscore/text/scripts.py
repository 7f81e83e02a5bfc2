"""Which script a word is written in: letters at all, Latin, Cyrillic, the Russian alphabet,
digits (each test remembered per distinct word)."""

from __future__ import annotations

from functools import lru_cache

import regex

from xlscore.text.cyrillic_languages import NOT_RUSSIAN

_LETTER = regex.compile(r"\p{L}")
_LATIN_LETTER = regex.compile(r"\p{Latin}")
_NUMBER = regex.compile(r"^\p{N}+$")
_LATIN_WORD = regex.compile(r"^[\p{Latin}\p{M}\p{N}]*\p{Latin}[\p{Latin}\p{M}\p{N}]*$")
_CYRILLIC_WORD = regex.compile(r"^[\p{Cyrillic}\p{M}\p{N}]*\p{Cyrillic}[\p{Cyrillic}\p{M}\p{N}]*$")

#: distinct words whose script tests are remembered (each engine of a source repeats most of
#: the others' words, so a test runs about once per word of the corpus, not once per use)
WORD_CACHE = 1 << 17


@lru_cache(maxsize=WORD_CACHE)
def has_letter(word: str) -> bool:
    """At least one letter."""
    return _LETTER.search(word) is not None


@lru_cache(maxsize=WORD_CACHE)
def has_latin(word: str) -> bool:
    """At least one Latin letter."""
    return _LATIN_LETTER.search(word) is not None


@lru_cache(maxsize=WORD_CACHE)
def is_number(word: str) -> bool:
    """Digits only."""
    return bool(_NUMBER.match(word))


@lru_cache(maxsize=WORD_CACHE)
def is_latin(word: str) -> bool:
    """A Latin-script word (digits allowed)."""
    return bool(_LATIN_WORD.match(word))


@lru_cache(maxsize=WORD_CACHE)
def is_cyrillic(word: str) -> bool:
    """A Cyrillic word (digits allowed)."""
    return bool(_CYRILLIC_WORD.match(word))


@lru_cache(maxsize=WORD_CACHE)
def is_russian_script(word: str) -> bool:
    """A Cyrillic word whose letters are all of the Russian alphabet (digits allowed): not,
    e.g., Ukrainian ``Бразилії``."""
    return is_cyrillic(word) and not NOT_RUSSIAN.search(word)
