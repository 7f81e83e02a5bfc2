"""Synthetic accuracy errors in a Russian translation of an English source.

Training only: the corruptions give the quality estimator extra ranking pairs (the real
translation must score above its corruption, :class:`xlscore.training.loop.Recipe`
``synthetic``) and word-level labels (the characters in :attr:`Corruption.spans` are the
error). They are never used to build evaluation or challenge sets, which must stay
independent of this code.

Each kind is a function ``kind(source, text, rng, pool) -> Corruption | None`` that makes
one error of its kind, or returns ``None`` when it does not apply (or would not change the
text). ``pool`` holds other Russian translations to borrow material from. The kinds follow
the accuracy errors of MQM annotation: changed numbers (in digits or words), flipped
negation, a wrong named entity, an omission, an addition, an antonym, an untranslated
fragment, swapped roles, a wrong date/time/unit, a mistranslated word, and a word-order
error. Words are found with character offsets, so punctuation stays in place and spans are
exact; pymorphy3 parses and inflects, so replacements keep case, number, gender and tense.

Everything is reproducible for a given ``random.Random`` state, and no kind raises on odd
input: any internal failure gives ``None``.

The package: :mod:`.text` (tokens, spelling of a replacement), :mod:`.morphology` (pymorphy3
parsing, inflection, agreement, noun groups), :mod:`.base` (:class:`Corruption`, applying
edits, the wrapper every kind goes through), the kinds in :mod:`.numbers`, :mod:`.lexical`,
:mod:`.structure`, :mod:`.copying` and :mod:`.roles`, and the word tables in :mod:`.words`
(one module per idea: antonyms, quantities, entities, additions, function words).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from xlscore.estimator.recipe import CORRUPTION_KINDS
from xlscore.text.morph import fold_ru  # noqa: F401
from xlscore.training.corruptions.base import Corruption
from xlscore.training.corruptions.copying import scramble, untranslated

# helpers the tests reach through this package
from xlscore.training.corruptions.lexical import (
    _antonyms,  # noqa: F401
    antonym,
    named_entity,
    substitution,
)
from xlscore.training.corruptions.quantity_kinds import date_unit, number, spelled_number
from xlscore.training.corruptions.roles import role_swap
from xlscore.training.corruptions.structure import addition, negation, omission

__all__ = [
    "KINDS",
    "Corruption",
    "addition",
    "antonym",
    "corrupt",
    "date_unit",
    "named_entity",
    "negation",
    "number",
    "omission",
    "role_swap",
    "scramble",
    "spelled_number",
    "substitution",
    "untranslated",
]

_STRICT = False  # tests set this to see exceptions instead of None


#: each kind of :data:`xlscore.estimator.recipe.CORRUPTION_KINDS` (the one list of kinds, in
#: the record a recipe reads) and the function of that name that makes it
KINDS: dict[str, Callable[..., Corruption | None]] = {
    kind: globals()[kind] for kind in CORRUPTION_KINDS
}


def corrupt(
    source: str,
    text: str,
    rng: random.Random,
    pool: Sequence[str],
    kinds: Sequence[str] | None = None,
) -> Corruption | None:
    """One corruption of ``text``, of a kind picked at random (``rng``) among ``kinds``
    (default: all of :data:`KINDS`) that apply and change it; None if none does.
    ``pool``: other Russian translations to borrow material from."""
    names = list(KINDS) if kinds is None else list(kinds)
    unknown = [k for k in names if k not in KINDS]
    if unknown:
        raise ValueError(
            f"unknown corruption kind(s): {', '.join(unknown)}; known: {', '.join(KINDS)}"
        )
    rng.shuffle(names)
    for name in names:
        c = KINDS[name](source, text, rng, pool)
        if c is not None and c.text != text:
            return c
    return None
