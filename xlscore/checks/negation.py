"""The ``negation`` check: a negation of the source the translation drops, or a negated verb
in a translation whose source has no reason for one.

Its rules read Russian: a translation with no Cyrillic word (an untranslated copy, another
language: flagged ``untranslated`` or ``wrong_language``, and pulled to the floor by its foreign
share) gets no finding, and an English negation the translation keeps is not missing.
"""

from __future__ import annotations

import functools

from xlscore.checks import negation_words as W
from xlscore.checks.common import words
from xlscore.finding import Finding
from xlscore.text.morph import fold_ru, is_known, lemma, parses
from xlscore.text.words import compiled, split_words

_NE_EXCEPTIONS = frozenset(
    words(
        """
        несколько некоторый немного немало нечто некий нередко неделя небо нефть необходимо
        необходимый безопасность безопасный
        """
    )
)


@functools.lru_cache(maxsize=4096)
def _en_negations(source: str) -> tuple[tuple[tuple[str, int, int], ...], bool]:
    """Strong negations of the source (word, start, end) and whether any weaker negative
    word (``fail``, ``until``, ``unless``, ``un-``) is there; found once for all the
    source's translations."""
    strong: list[tuple[str, int, int]] = []
    weak = False
    for m in split_words(source, joiners="'’", letters=True):
        w = m.text.lower().replace("’", "'")
        if w.endswith("n't") or w in W.EN_NEGATIONS:
            if w == "no" and compiled(r"\.?\s?[0-9]").match(source[m.end : m.end + 3]):
                continue
            strong.append((m.text, m.start, m.end))
            continue
        if (
            w in W.EN_WEAK_NEGATIONS
            or (w.startswith(("un", "non", "dis", "in", "im", "ir", "il")) and len(w) > 4)
            or w.endswith(("less", "lessly", "lessness"))
        ):
            weak = True
    return tuple(strong), weak


@functools.lru_cache(maxsize=100_000)
def _ru_negative_word(word: str) -> bool:
    """A negation word, or a ``не-``/``без-`` word whose unprefixed form is a word
    (``невозможно``, ``безработный``)."""
    if word in W.RU_NEGATIONS:
        return True
    for prefix in ("не", "без", "бес"):
        if word.startswith(prefix) and len(word) > len(prefix) + 3:
            nf = lemma(word)
            if nf in _NE_EXCEPTIONS:
                return False
            rest = word[len(prefix) :]
            if is_known(rest) and nf == prefix + lemma(rest):
                return True
    return False


def _check_negation(source: str, translation: str) -> list[Finding]:
    """A dropped negation, or a negated verb that the source has no reason for; nothing for a
    translation without a Cyrillic word."""
    if not compiled(r"\p{Cyrillic}").search(translation):
        return []  # not Russian: the rules have nothing to read
    strong, weak = _en_negations(source)
    tokens = split_words(translation, letters=True)
    low = [fold_ru(t[0]) for t in tokens]
    out: list[Finding] = []
    if strong:
        # a negation copied in English (a half-translated text) is not a negation dropped
        if not any(_ru_negative_word(w) for w in low) and not _en_negations(translation)[0]:
            word, s, e = strong[0]
            message = f"negation '{word}' in the source, none in the translation"
            out.append(Finding("negation", message, None, (s, e)))
        return out
    if weak:
        return out
    for i, w in enumerate(low):
        if w != "не" or i + 1 >= len(low):
            continue
        if i > 0 and low[i - 1] in W.RU_NE_IDIOM_BEFORE:
            continue
        nxt = parses(low[i + 1])
        if nxt and nxt[0].pos in W.RU_VERB_POS:
            shown = f"'{tokens[i][0]} {tokens[i + 1][0]}'"
            message = f"{shown} negated in the translation, no negation in the source"
            out.append(Finding("negation", message, (tokens[i][1], tokens[i][2]), None))
    return out
