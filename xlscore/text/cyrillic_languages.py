"""Is a Cyrillic text another language than Russian? Ukrainian, Belarusian, Serbian,
Macedonian, Bulgarian, Kazakh... share most letters with Russian, so a translation in one of
them is only partly *foreign* word by word (Ukrainian ``у``, ``собор``, ``Президент`` are
Russian letters) and may stay below the share that flags a translation ``wrong_language``
(:data:`xlscore.lexicon.anchor_pairs.FOREIGN_FLAG_SHARE`).

A word *marks* another language when it is written in lower case (or starts its sentence: a
capitalised word inside a sentence is a name, and a Russian text may name ``Київ``) and

* has a Cyrillic letter Russian does not use (Ukrainian ``і ї є ґ``, Belarusian ``ў``, Serbian
  and Macedonian ``ђ ј љ њ ћ џ ѓ ќ ѕ``, Kazakh ``ә ғ қ ң ө ұ ү һ``...), or
* is one of :data:`MARKER_WORDS`, frequent words of those languages that Russian does not
  have although they are spelt with its letters (Ukrainian ``що``, Bulgarian ``това``, Serbian
  ``су``...), or
* has a Bulgarian ``ъ`` inside a word (Russian writes ``ъ`` only before ``е ё ю я``).

:func:`other_cyrillic` says a text is another Cyrillic language when at least
:data:`MIN_MARKED` of its Cyrillic words, and at least :data:`MARKED_SHARE` of them, mark it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import regex

#: a Cyrillic letter the Russian alphabet does not have: a word with one is another
#: language's (Ukrainian і ї є ґ, Belarusian ў, Serbian and Macedonian ђ ј љ њ ћ џ ѓ ќ ѕ, ...);
#: :func:`xlscore.text.scripts.is_russian_script` reads it too
NOT_RUSSIAN = regex.compile(r"[^\P{Cyrillic}а-яёА-ЯЁ\p{M}]")
# Bulgarian's ъ: anywhere but before е ё ю я (Russian подъезд, объявил, съёмка)
_BULGARIAN_HARD = regex.compile(r"ъ(?![еёюя])")
_CYRILLIC = regex.compile(r"\p{Cyrillic}")

#: frequent words of other Cyrillic languages that Russian spells with its letters but does
#: not use (how often each occurs in lower case in the Russian text of the judged sets:
#: ``experiments/results/cyrillic.md``)
_MARKERS = (
    # Ukrainian
    "що це але або дуже також вже ще щоб якщо його буде були була було був вони зараз "
    "тобто проте адже навколо протягом понад серед вона воно нього неї цього цей ця "
    "року має мають можна треба своє свого своєму "
    # Belarusian
    "гэта гэты ён яна яны вельмі таксама каля калі быў "
    # Bulgarian
    "във със това тази този които която който което беше като също трябва защото "
    "обаче днес вече чрез няма има според към са се ще нея че през ние вие тях всички "
    "когато където най сега "
    # Serbian and Macedonian
    "је су који која које био била било веома од кој беше дека"
)
MARKER_WORDS = frozenset(_MARKERS.split())
#: at least this many Cyrillic words must mark another language
MIN_MARKED = 2
#: and at least this share of the Cyrillic words
MARKED_SHARE = 0.15


@lru_cache(maxsize=1 << 17)
def _word(word: str) -> tuple[bool, bool, bool]:
    """Whether a word is Cyrillic, starts with a capital, and marks another language in lower
    case (see the module)."""
    low = word.casefold()
    marks = (
        NOT_RUSSIAN.search(low) is not None
        or low in MARKER_WORDS
        or _BULGARIAN_HARD.search(low) is not None
    )
    return _CYRILLIC.search(word) is not None, word[:1].isupper(), marks


def marks_other(word: str, sentence_initial: bool) -> bool:
    """Whether a Cyrillic word marks a language other than Russian: a capitalised word
    inside a sentence is a name and marks nothing (a Russian text may write ``Київ``)."""
    cyrillic, capital, marks = _word(word)
    return cyrillic and marks and (sentence_initial or not capital)


def other_cyrillic(
    words: Sequence[str], sentence_initial: Callable[[Sequence[str]], Sequence[bool]]
) -> bool:
    """Whether the words of a text are Cyrillic of another language than Russian: at least
    :data:`MIN_MARKED` and :data:`MARKED_SHARE` of its Cyrillic words mark one
    (:func:`marks_other`); ``sentence_initial`` says which of the words start a sentence (only
    asked when enough words may mark one)."""
    kinds = [_word(w) for w in words]
    cyrillic = sum(k[0] for k in kinds)
    may = sum(k[0] and k[2] for k in kinds)
    if may < MIN_MARKED or may < MARKED_SHARE * cyrillic:
        return False
    initial = sentence_initial(words)
    marked = sum(k[0] and k[2] and (i or not k[1]) for k, i in zip(kinds, initial))
    return marked >= MIN_MARKED and marked >= MARKED_SHARE * cyrillic
