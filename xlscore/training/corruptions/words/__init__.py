"""Word tables for :mod:`xlscore.training.corruptions` (synthetic training errors only).

Everything here is a lemma as pymorphy3 writes its normal form (lower case; ``ё`` and ``е``
are treated alike when looked up) unless said otherwise. Lists, not sets, so that every
random choice made from them is reproducible.

One module per idea: :mod:`.antonyms` (``antonym``), :mod:`.quantities` (number words,
dates, times and units: ``spelled_number``, ``date_unit``), :mod:`.entities` (named
entities: ``named_entity``), :mod:`.additions` (material ``addition`` inserts) and
:mod:`.function_words` (negative pronouns, clause openers: ``negation``, ``omission``). The
kinds read the tables through this package (``words.CITIES``).
"""

from __future__ import annotations

from xlscore.training.corruptions.words.additions import (
    ADDED_ADJECTIVES,
    ADDED_ADVERBS,
)
from xlscore.training.corruptions.words.antonyms import (
    ANTONYM_ADJECTIVES,
    ANTONYM_ADVERBS,
    ANTONYM_NOUNS,
    ANTONYM_PREPOSITIONS,
    ANTONYM_VERBS,
)
from xlscore.training.corruptions.words.entities import (
    ABBREVIATIONS,
    CITIES,
    COMPANIES,
    COUNTRIES,
    FEMALE_NAMES,
    LATIN_NAMES,
    MALE_NAMES,
    SURNAMES,
)
from xlscore.training.corruptions.words.function_words import (
    NEGATIVE_PRONOUNS,
    SUBORDINATORS,
)
from xlscore.training.corruptions.words.quantity_words import (
    CARDINALS,
    COLLECTIVES,
    DATE_UNIT_LITERALS,
    DATE_UNIT_WORDS,
    NUMBER_ABBREVIATIONS,
    NUMBER_WORDS,
    ORDINALS,
)

__all__ = [
    "ABBREVIATIONS",
    "ADDED_ADJECTIVES",
    "ADDED_ADVERBS",
    "ANTONYM_ADJECTIVES",
    "ANTONYM_ADVERBS",
    "ANTONYM_NOUNS",
    "ANTONYM_PREPOSITIONS",
    "ANTONYM_VERBS",
    "CARDINALS",
    "CITIES",
    "COLLECTIVES",
    "COMPANIES",
    "COUNTRIES",
    "DATE_UNIT_LITERALS",
    "DATE_UNIT_WORDS",
    "FEMALE_NAMES",
    "LATIN_NAMES",
    "MALE_NAMES",
    "NEGATIVE_PRONOUNS",
    "NUMBER_ABBREVIATIONS",
    "NUMBER_WORDS",
    "ORDINALS",
    "SUBORDINATORS",
    "SURNAMES",
]
