"""Function words the structural kinds (:mod:`xlscore.training.corruptions.structure`)
recognise: negative pronouns and their positive counterparts (``negation``) and the words
that open a subordinate clause (``omission``).
"""

from __future__ import annotations

# a negative pronoun/adverb, its positive counterpart (the ``не`` after it goes too)
NEGATIVE_PRONOUNS: list[tuple[str, str]] = [
    ("никто", "кто-то"),
    ("ничто", "что-то"),
    ("никогда", "всегда"),
    ("нигде", "везде"),
    ("никуда", "куда-то"),
    ("никакой", "какой-то"),
    ("ничего", "что-то"),
]

# words that open a subordinate clause
SUBORDINATORS: list[str] = [
    "если",
    "когда",
    "хотя",
    "пока",
    "поскольку",
    "так",
    "чтобы",
    "после",
    "несмотря",
    "как",
    "где",
    "что",
    "который",
    "благодаря",
    "согласно",
    "по",
]
