"""Synthetic corruptions of a Russian translation, each worse than the original.

Used in training (:class:`xlscore.training.Recipe` ``synthetic``) as extra ranking pairs:
the original translation must score above its corruption. The kinds follow the errors that
expert MQM annotators mark and that reference-free metrics are known to miss: an omitted
span, a flipped negation, a changed number, a content word replaced by one from another
sentence (mistranslation), a span from another sentence added, a span left in English
(untranslated), and a shuffled span (word order). Words are space-separated tokens, so
punctuation stays attached; every function returns ``None`` when it does not apply.
"""
from __future__ import annotations

import random
from functools import lru_cache
from typing import Callable, Sequence

import regex

_NUMBER = regex.compile(r"\d+")


@lru_cache(maxsize=1)
def _morph():
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


def _content(words: Sequence[str]) -> list[int]:
    return [i for i, w in enumerate(words) if len(w) > 3 and w.isalpha()]


def omission(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> str | None:
    """Drop a run of 15-40% of the words (at least two)."""
    w = text.split(" ")
    if len(w) < 5:
        return None
    n = max(2, int(len(w) * rng.uniform(0.15, 0.4)))
    s = rng.randrange(0, len(w) - n + 1)
    return " ".join(w[:s] + w[s + n:])


def negation(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> str | None:
    """Remove a ``не``, or put one before a verb."""
    w = text.split(" ")
    if "не" in w:
        i = w.index("не")
        return " ".join(w[:i] + w[i + 1:])
    verbs = [i for i, x in enumerate(w)
             if x.isalpha() and _morph().parse(x.lower())[0].tag.POS in ("VERB", "INFN")]
    if not verbs:
        return None
    i = rng.choice(verbs)
    return " ".join(w[:i] + ["не"] + w[i:])


def number(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> str | None:
    """Change one number."""
    found = list(_NUMBER.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    value = int(m.group())
    new = value + rng.choice([1, 2, 3, 10, -1] if value > 3 else [1, 2, 5])
    return text[:m.start()] + str(new) + text[m.end():]


def substitution(source: str, text: str, rng: random.Random, pool: Sequence[str]
                 ) -> str | None:
    """Replace about one content word in six by a content word of another sentence."""
    w = text.split(" ")
    slots = _content(w)
    if not slots or not pool:
        return None
    for _ in range(max(1, len(slots) // 6)):
        other = rng.choice(pool).split(" ")
        words = [other[i] for i in _content(other)]
        if words:
            w[rng.choice(slots)] = rng.choice(words)
    return " ".join(w)


def addition(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> str | None:
    """Insert two to six words of another sentence."""
    other = rng.choice(pool).split(" ") if pool else []
    if len(other) < 3:
        return None
    w = text.split(" ")
    n = rng.randint(2, min(6, len(other)))
    s = rng.randrange(0, len(other) - n + 1)
    i = rng.randrange(0, len(w) + 1)
    return " ".join(w[:i] + other[s:s + n] + w[i:])


def untranslated(source: str, text: str, rng: random.Random, pool: Sequence[str]
                 ) -> str | None:
    """Replace 20-50% of the words by a run of the English source."""
    w, sw = text.split(" "), source.split(" ")
    if len(w) < 4 or len(sw) < 4:
        return None
    n = max(2, int(len(w) * rng.uniform(0.2, 0.5)))
    s = rng.randrange(0, len(w) - n + 1)
    ss = rng.randrange(0, max(1, len(sw) - n + 1))
    return " ".join(w[:s] + sw[ss:ss + n] + w[s + n:])


def scramble(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> str | None:
    """Shuffle a run of three to six words."""
    w = text.split(" ")
    if len(w) < 5:
        return None
    n = rng.randint(3, min(6, len(w)))
    s = rng.randrange(0, len(w) - n + 1)
    run = w[s:s + n]
    rng.shuffle(run)
    return " ".join(w[:s] + run + w[s + n:])


KINDS: tuple[Callable[..., str | None], ...] = (omission, negation, number, substitution,
                                               addition, untranslated, scramble)


def corrupt(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> str | None:
    """One corrupted version of ``text`` (a kind picked at random among those that apply and
    change it), or ``None``. ``pool``: other translations to borrow words from."""
    kinds = list(KINDS)
    rng.shuffle(kinds)
    for kind in kinds:
        bad = kind(source, text, rng, pool)
        if bad is not None and bad != text:
            return bad
    return None
