"""The ``number`` check: the numbers of both sides (digits, Roman numerals, number words)
compared as values, and amounts whose currency changed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import regex

from xlscore.checks import number_words as W
from xlscore.checks.digits import _digit_quantities, _roman_quantities
from xlscore.checks.numerals import _en_word_quantities, _ru_word_quantities
from xlscore.checks.quantities import _Qty
from xlscore.finding import Finding
from xlscore.text.morph import fold_ru


@functools.lru_cache(maxsize=4096)
def _quantities(text: str, lang: str) -> tuple[_Qty, ...]:
    """Every number of a text: digits, mixed tokens, Roman numerals and number words (found
    once per text: a source's for all its translations)."""
    qs, taken = _digit_quantities(text, lang)
    roman = _roman_quantities(text, taken)
    taken = taken + [q.span for q in roman]
    qs += roman + (_en_word_quantities if lang == "en" else _ru_word_quantities)(text, taken)
    return tuple(qs)


_CURRENCY_AFTER = regex.compile(r"[\s\u00a0]*(\p{L}+)(?:[\s\u00a0]+(\p{L}+))?")


def _currency(text: str, span: tuple[int, int], lang: str) -> tuple[str | None, int]:
    """The currency a number is an amount of (``$5``, ``5 dollars``, ``5 млн долларов``) and
    where the amount with its currency word ends."""
    s, e = span
    before = text[max(0, s - 3) : s].rstrip()
    if before and before[-1] in W.CURRENCY_SYMBOLS:
        return W.CURRENCY_SYMBOLS[before[-1]], e
    m = _CURRENCY_AFTER.match(text, e)
    if not m:
        return None, e
    first, second = fold_ru(m.group(1)), fold_ru(m.group(2) or "")
    if lang == "en":
        if first == "pounds" and second == "sterling":
            return "GBP", m.end()
        return W.EN_CURRENCY_WORDS.get(first), m.end(1)
    code = next((code for stem, code in W.RU_CURRENCY_STEMS if first.startswith(stem)), None)
    return code, (m.end() if second.startswith("стерлинг") else m.end(1))


def _currency_swaps(
    source: str, translation: str, src: Sequence[_Qty], tr: Sequence[_Qty]
) -> list[Finding]:
    """Amounts whose value matches but whose currency differs (``$1,000`` -> ``1000 фунтов``)."""
    out = []
    src_cur = [(q, _currency(source, q.span, "en")[0]) for q in src]
    for q in tr:
        cur, end = _currency(translation, q.span, "ru")
        if cur is None:
            continue
        same = [c for p, c in src_cur if p.values & q.values]
        if same and cur not in same and all(c is not None for c in same):
            shown = translation[q.span[0] : end]
            message = f"{shown}: {cur} in the translation, {same[0]} in the source"
            out.append(Finding("number", message, (q.span[0], end), None))
    return out


def _check_numbers(source: str, translation: str) -> list[Finding]:
    """Numbers of one side whose value the other side lacks, and currency swaps."""
    src = _quantities(source, "en")
    tr = _quantities(translation, "ru")
    src_vals = set().union(*(q.values for q in src))
    tr_vals = set().union(*(q.values for q in tr))
    converted = ("unit", "en") in src_vals
    out: list[Finding] = []
    # a Russian 1,250 (1.25 to its reader) for the source's 1,250: one finding, at the calque
    calques = [q for q in tr if q.calque & src_vals and not q.values & src_vals]
    explained = set().union(*(q.calque for q in calques))
    for q in calques:
        shown = translation[q.span[0] : q.span[1]]
        read = min(v for v in q.values if isinstance(v, float))
        message = (f"{shown} is {read:g} to a Russian reader (decimal comma); the source's "
                   f"{shown} is written {shown.replace(',', ' ')} in Russian")  # fmt: skip
        out.append(Finding("number", message, q.span, None))
    for q in src:
        if not q.optional and not (q.values & tr_vals) and not (q.values & explained):
            shown = source[q.span[0] : q.span[1]]
            out.append(
                Finding("number", f"{shown} in the source, not in the translation", None, q.span)
            )
    for q in tr:
        if q.optional or (converted and ("unit", "ru") in q.values) or q in calques:
            continue
        if not (q.values & src_vals):
            shown = translation[q.span[0] : q.span[1]]
            out.append(
                Finding("number", f"{shown} in the translation, not in the source", q.span, None)
            )
    return out + _currency_swaps(source, translation, src, tr)
