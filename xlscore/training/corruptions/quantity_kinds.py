"""Kinds that change a quantity: ``number`` (digits), ``spelled_number`` (number words) and
``date_unit`` (months, weekdays, times of day, periods, units and currencies).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import regex

from xlscore.text.morph import fold_ru
from xlscore.training.corruptions import words as W
from xlscore.training.corruptions.base import Corruption, _kind, _make
from xlscore.training.corruptions.morphology import (
    _forms,
    _in_context,
    _inflect,
    _inflect_parse,
    _lemma,
    _parse_all,
    _reagree_left,
)
from xlscore.training.corruptions.tokens import Tok, _style, _tight, _tokens

# number --------------------------------------------------------------------------------


def _value(s: str) -> float:
    return float(regex.sub(r"[ \u00a0\u202f]", "", s).replace(",", ".").replace(":", "."))


def _int_variants(d: str, rng: random.Random) -> list[str]:
    """Realistic slips on a string of digits: a digit changed, a zero added or removed,
    two digits swapped (for a year, only its last two digits change)."""
    n = len(d)
    ops: list[list[str]] = []
    positions = [2, 3] if n == 4 and d[:2] in ("19", "20") else list(range(n))
    i = rng.choice(positions)
    ops.append(
        [
            d[:i] + c + d[i + 1 :]
            for c in "0123456789"
            if c != d[i] and not (i == 0 and c == "0" and n > 1)
        ]
    )
    if n < 4 or d.endswith("0"):
        ops.append([d + "0"] if not (n == 4 and d[:2] in ("19", "20")) else [])
    if n > 1 and d.endswith("0"):
        ops.append([d[:-1]])
    ops.append(
        [
            d[:j] + d[j + 1] + d[j] + d[j + 2 :]
            for j in range(n - 1)
            if d[j] != d[j + 1]
            and not (j == 0 and d[1] == "0")
            and (n != 4 or d[:2] not in ("19", "20") or j >= 2)
        ]
    )
    ops = [o for o in ops if o]
    return rng.choice(ops) if ops else []


def _group(d: str, sep: str) -> str:
    out: list[str] = []
    while len(d) > 3:
        out.insert(0, d[-3:])
        d = d[:-3]
    return sep.join([d, *out])


def _number_variants(s: str, rng: random.Random) -> list[str]:
    if ":" in s:
        h, m = s.split(":", 1)
        if len(m) == 2 and int(m) < 60 and int(h) < 24:
            if rng.random() < 0.5:
                return [f"{h}:{(int(m) + k) % 60:02d}" for k in (15, 30, 45)]
            return [
                f"{(int(h) + k) % 24}:{m}"
                for k in (1, 2, 3, 12, 21, 22, 23)
                if (int(h) + k) % 24 != int(h)
            ]
        return [f"{m}:{h}"] if m != h else []
    for sep in ",.":
        if sep in s:
            a, b = s.split(sep, 1)
            if rng.random() < 0.4 and a != b and not b.startswith("0"):
                return [b + sep + a]
            if rng.random() < 0.5 and not a.startswith("0"):
                return [a + b]
            return [a + sep + v for v in _int_variants(b, rng)]
    grouped = regex.search(r"[ \u00a0\u202f]", s)
    d = regex.sub(r"[ \u00a0\u202f]", "", s)
    variants = _int_variants(d, rng)
    if grouped:
        return [_group(v, grouped.group()) if len(v) > 4 else v for v in variants]
    return variants


@_kind
def number(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> Corruption | None:
    """Change one number written in digits (a digit, a zero, two digits swapped; times,
    decimals and grouped thousands too)."""
    nums = [t for t in _tokens(text) if t.num]
    rng.shuffle(nums)
    for t in nums[:5]:
        for _ in range(4):
            variants = [
                v
                for v in _number_variants(t.text, rng)
                if v != t.text and _value(v) != _value(t.text)
            ]
            if variants:
                return _make("number", text, [(t.start, t.end, rng.choice(variants))])
    return None


# spelled_number -----------------------------------------------------------------------


def _number_word(
    text: str, toks: list[Tok], i: int
) -> tuple[Any, list[str], tuple[str, ...]] | None:
    """(analysis, alternative lemmas, their part of speech) for a number word."""
    word = toks[i].text
    for p in _parse_all(word)[:3]:
        nf = fold_ru(p.normal_form)
        tag = p.tag
        if tag.POS == "NUMR" and "Coll" in tag:
            alts = [x for x in W.COLLECTIVES if fold_ru(x) != nf]
            if len(alts) < len(W.COLLECTIVES):
                return p, alts, ("NUMR",)
        if tag.POS == "NUMR":
            direct = (
                any(q.tag.case in ("nomn", "accs") for q in _parse_all(word) if q.tag.POS == "NUMR")
                or tag.case is None
            )
            for magnitude in W.CARDINALS:
                for group in magnitude:
                    if nf in [fold_ru(x) for x in group]:
                        pool = group if direct else [x for g in magnitude for x in g]
                        return p, [x for x in pool if fold_ru(x) != nf], ("NUMR",)
        if tag.POS == "ADJF" and "Anum" in tag:
            for group in W.ORDINALS:
                if nf in [fold_ru(x) for x in group]:
                    p = _in_context(text, toks, i, p)
                    return p, [x for x in group if fold_ru(x) != nf], ("ADJF",)
        for pos, group in W.NUMBER_WORDS:
            if pos == tag.POS and nf in [fold_ru(x) for x in group]:
                p = _in_context(text, toks, i, p)
                return p, [x for x in group if fold_ru(x) != nf], (pos,)
    return None


@_kind
def spelled_number(
    source: str, text: str, rng: random.Random, pool: Sequence[str]
) -> Corruption | None:
    """Change a number word (numeral, ordinal, fraction, multiplier, scale word) into another
    of its kind, in the same case, gender and number."""
    toks = _tokens(text)
    found: list[tuple[int, Any, list[str], tuple[str, ...]]] = []
    for i, t in enumerate(toks):
        if t.num:
            continue
        for group in W.NUMBER_ABBREVIATIONS:
            if t.text in group:
                found.append((i, None, [x for x in group if x != t.text], ()))
        hit = _number_word(text, toks, i)
        if hit is not None:
            found.append((i, *hit))
    rng.shuffle(found)
    for i, p, alts, pos in found[:6]:
        t = toks[i]
        alts = list(alts)
        rng.shuffle(alts)
        for alt in alts:
            new = alt if p is None else _inflect(alt, pos, p.tag)
            if new and fold_ru(new) != fold_ru(t.text):
                return _make("spelled_number", text, [(t.start, t.end, _style(t.text, new, text))])
    return None


# date_unit -----------------------------------------------------------------------------

_SIGNS = regex.compile(r"[$€£₽¥]")


def _date_word(text: str, toks: list[Tok], i: int) -> tuple[Any, list[str], tuple[str, ...]] | None:
    t = toks[i]
    low = fold_ru(t.text)
    for p in _parse_all(t.text)[:2]:
        alts: list[str] = []
        pos: tuple[str, ...] = ()
        for cpos, group in W.DATE_UNIT_WORDS:
            names = [fold_ru(x) for x in group]
            key = low if cpos == "ADVB" else fold_ru(p.normal_form)
            if key in names and (
                cpos == p.tag.POS or (cpos == "ADVB" and p.tag.POS in ("ADVB", "NOUN"))
            ):
                alts += [x for x in group if fold_ru(x) != key and x not in alts]
                pos = (cpos,)
        if alts:
            return _in_context(text, toks, i, p), alts, pos
    return None


@_kind
def date_unit(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> Corruption | None:
    """Change a month, weekday, time of day, period, unit of measure or currency, agreeing
    with a number before it."""
    toks = _tokens(text)
    found: list[tuple[Any, ...]] = [
        ("sign", m.start(), m.end(), m.group()) for m in _SIGNS.finditer(text)
    ]
    for i, t in enumerate(toks):
        if t.num:
            continue
        after_num = i > 0 and toks[i - 1].num and _tight(text, toks[i - 1], t)
        if (
            after_num
            and fold_ru(t.text) in _forms("год", "NOUN", "sing")
            and regex.fullmatch(r"1\d{3}|20\d\d", toks[i - 1].text)
        ):
            continue  # a year, not a period
        if after_num and any(t.text in g for g in W.DATE_UNIT_LITERALS):
            found.append(("lit", t.start, t.end, t.text))
        elif (hit := _date_word(text, toks, i)) is not None:
            found.append(("word", i, *hit))
    rng.shuffle(found)
    for f in found[:6]:
        if f[0] in ("sign", "lit"):
            group = next(g for g in W.DATE_UNIT_LITERALS if f[3] in g)
            return _make(
                "date_unit", text, [(f[1], f[2], rng.choice([x for x in group if x != f[3]]))]
            )
        _, i, p, alts, pos = f
        t = toks[i]
        if pos == ("ADVB",):
            return _make(
                "date_unit", text, [(t.start, t.end, _style(t.text, rng.choice(alts), text))]
            )
        rng.shuffle(alts)
        if pos == ("NOUN",) and p.tag.number == "sing":
            alts.sort(
                key=lambda a: _lemma(a, pos) is None or _lemma(a, pos).tag.gender != p.tag.gender
            )
        count = None
        if (
            i > 0
            and toks[i - 1].num
            and _tight(text, toks[i - 1], t)
            and regex.fullmatch(r"\d+", toks[i - 1].text)
        ):
            count = int(toks[i - 1].text[-6:])
            old = _lemma(p.normal_form, pos)
            try:
                agreed = old.make_agree_with_number(count) if old is not None else None
            except (ValueError, KeyError):
                agreed = None
            if agreed is None or fold_ru(agreed.word) != fold_ru(t.text):
                count = None
        for alt in alts:
            base = _lemma(alt, pos)
            if base is None:
                continue
            form = None
            if count is not None:
                try:
                    form = base.make_agree_with_number(count)
                except (ValueError, KeyError):
                    form = None
            form = form or _inflect_parse(base, p.tag)
            if form is None or fold_ru(form.word) == fold_ru(t.text):
                continue
            edits = [(t.start, t.end, _style(t.text, form.word, text))]
            if pos == ("NOUN",) and form.tag.gender != p.tag.gender:
                edits += _reagree_left(text, toks, i, form)
            return _make("date_unit", text, edits)
    return None
