"""Numbers written with symbols: digits (with their separators, times, scales, suffixes and
ranges), tokens that mix letters and digits (``COVID-19``), and Roman numerals.
"""

from __future__ import annotations

import regex

from xlscore.checks import number_words as W
from xlscore.checks.common import ROMAN
from xlscore.checks.quantities import _key, _near_unit, _Qty
from xlscore.text.morph import fold_ru
from xlscore.text.words import compiled, split_words

_DIGITS = regex.compile(r"[0-9]+")
_GROUP_NEXT = regex.compile(r"([.,]|[ \u00a0\u2009\u202f])([0-9]+)")
_TIME_NEXT = regex.compile(r": ?([0-5][0-9])(?![0-9])")
_AMPM = regex.compile(r"\s?([AaPp])\.?\s?[Mm](?![\p{L}])\.?")
_ORD_SUFFIX = regex.compile(r"(?:st|nd|rd|th|ST|ND|RD|TH)(?![\p{L}])")
_DECADE_SUFFIX = regex.compile(r"['’]?s(?![\p{L}])")
_ADJ_SCALE = regex.compile(r"(bn|mn|mln|bln|tn|trn|[mbkMBK])(?![\p{L}])")
_WORD_SCALE = regex.compile(
    r"[ \u00a0\u2009\u202f]?(thousand|million|billion|trillion|hundred|mln|bn|mn|bln|тыс|млн|"
    r"млрд|трлн|тысяч\p{L}*|миллион\p{L}*|миллиард\p{L}*|триллион\p{L}*)(?![\p{L}])\.?",
    regex.I,
)
_RU_SUFFIX = regex.compile(r"[-‑–]?(\p{Cyrillic}{1,4})(?![\p{L}])")
_NUMERIC_PART = regex.compile(
    r"[0-9]+(?:st|nd|rd|th|s|am|pm|bn|mn|mln|m|b|k|tn|km|kg|cm|mm|mg|ml|l|g|mph|ft|lb|lbs|oz|"
    r"kw|mw|gw|kwh|gb|mb|tb|hz|ghz|mhz|x|h|hr|hrs|min|mins|sec|secs|yo|yrs|pc|pts?|mi|sq|in|"
    r"f|c|thousand|million|billion|trillion|\p{Cyrillic}+)?",
    regex.I,
)


def _group_values(groups: list[tuple[str, str]], lang: str) -> set[float]:
    """The values a digit string split at separators means in its language: English writes
    ``1,250`` for 1250 and ``3.5`` for 3.5, Russian ``1 250`` (or ``1250``) and ``3,5``; a
    point in Russian (``3.5``, ``1.250``) and a lone comma in English keep both readings, and
    every part of ``22.07.2020`` counts."""
    head = groups[0][1]
    if len(groups) == 1:
        return {_key(int(head))}
    seps = [s for s, _ in groups[1:]]
    tails = [g for _, g in groups[1:]]
    whole = int(head + "".join(tails))
    if len(set(seps)) == 1:
        sep = seps[0]
        if sep not in ".,":
            return {_key(whole)}
        grouped = {_key(whole)} if len(head) <= 3 and all(len(t) == 3 for t in tails) else set()
        decimal = {_key(float(f"{head}.{tails[0]}"))} if len(groups) == 2 else set()
        if decimal and (lang, sep) in (("en", "."), ("ru", ",")):
            return decimal  # the language's own decimal mark
        if grouped and (lang, sep) == ("en", ","):
            return grouped  # English thousands
        return grouped | decimal or {_key(int(g)) for _, g in groups}
    last = seps[-1]
    if last in ".," and all(s != last for s in seps[:-1]) and all(len(t) == 3 for t in tails[:-1]):
        return {_key(float(head + "".join(tails[:-1]) + "." + tails[-1]))}
    return {_key(int(g)) for _, g in groups}


def calqued_thousands(groups: list[tuple[str, str]], lang: str) -> float | None:
    """The value a Russian ``1,250`` has in English (1250), where a Russian reader sees 1.25:
    English thousands grouping carried into Russian (``None``: not such a number)."""
    if lang != "ru" or len(groups) != 2 or groups[1][0] != ",":
        return None
    head, tail = groups[0][1], groups[1][1]
    return _key(int(head + tail)) if len(head) <= 3 and len(tail) == 3 else None


def _time_values(h: int, m: int) -> set:
    """Values a clock time matches: itself on a 12-hour dial, and its hour / hour.minutes."""
    vals: set = {("t", h % 12, m)}
    if m == 0:
        vals |= {_key(h), _key(h % 12 or 12), _key(h % 12 + 12)}
    else:
        vals |= {_key(h + m / 100), _key(h % 12 + m / 100), _key(h % 12 + 12 + m / 100)}
    return vals


def _mixed_tokens(text: str, lang: str) -> tuple[list[_Qty], list[tuple[int, int]]]:
    """Tokens that mix letters and digits as one name (``COVID-19``, ``G7``, ``MP3``, ``Су-35``):
    they match as the whole token, or as their digits."""
    out: list[_Qty] = []
    taken: list[tuple[int, int]] = []
    for m in split_words(text, joiners="-‑"):
        tok = m.text
        if not any(c.isdigit() for c in tok) or not any(c.isalpha() for c in tok):
            continue
        if m.start > 0 and text[m.start - 1] in ":.,":
            continue  # 02:00GMT: the time, then a word
        parts = compiled(r"[-‑]").split(tok)
        letters_first = (
            not any(c.isdigit() for c in parts[0]) and any(c.isdigit() for c in parts[1])
            if len(parts) > 1
            else False
        )
        mixed = letters_first or any(
            any(c.isdigit() for c in part)
            and any(c.isalpha() for c in part)
            and not _NUMERIC_PART.fullmatch(part)
            for part in parts
        )
        if not mixed:
            continue
        digits = _DIGITS.findall(tok)
        vals: set = {("tok", compiled(r"[-‑]").sub("", fold_ru(tok)))}
        vals |= {_key(int(d)) for d in digits if len(d) <= 15}
        for d in digits:
            if len(d) == 4 and int(d[:2]) < 24 and int(d[2:]) < 60:
                vals |= _time_values(int(d[:2]), int(d[2:]))
        # the digits belong to a name: a missing source token is the name check's business
        out.append(_Qty(frozenset(vals), (m.start, m.end), lang == "en"))
        taken.append((m.start, m.end))
    return out, taken


def _digit_groups(text: str, m: regex.Match) -> tuple[list[tuple[str, str]], int]:
    """The digit groups of the number that starts with the match ``m`` (``(separator,
    digits)`` each: a point or a comma always joins the next group, another separator only
    groups of three after a first group of at most three) and where they end."""
    s = m.start()
    groups = [("", m.group())]
    e = m.end()
    while True:
        g = _GROUP_NEXT.match(text, e)
        if not g:
            break
        sep, dig = g.group(1), g.group(2)
        if sep in ".,":
            groups.append((sep, dig))
            e = g.end()
            continue
        if (
            len(dig) == 3
            and len(groups[0][1]) <= 3
            and all(gs == sep and len(gd) == 3 for gs, gd in groups[1:])
            and not compiled(r"[0-9][ \u00a0\u2009\u202f]$").search(text[max(0, s - 2) : s])
        ):
            groups.append((sep, dig))
            e = g.end()
            continue
        break
    return groups, e


def _with_suffix(
    text: str, s: int, e: int, groups: list[tuple[str, str]], vals: set, lang: str
) -> tuple[set, int]:
    """A number's values (``vals``, of the digits from ``s`` to ``e``) read with what
    follows it: a time, am/pm, an ordinal or decade suffix, a scale (``5m``, ``5 млн``) or
    a Russian case ending; and where the number then ends."""
    time = _TIME_NEXT.match(text, e) if len(groups) == 1 and len(groups[0][1]) <= 2 else None
    if time and int(groups[0][1]) <= 24:
        vals = _time_values(int(groups[0][1]), int(time.group(1)))
        e = time.end()
    ampm = _AMPM.match(text, e) if lang == "en" else None
    if ampm and not time:
        h = int(groups[0][1])
        mins = int(groups[1][1]) if len(groups) == 2 and len(groups[1][1]) == 2 else 0
        if h <= 12:
            pm = ampm.group(1).lower() == "p"
            vals = _time_values(h + (12 if pm and h < 12 else 0), mins)
            e = ampm.end()
    elif (o := _ORD_SUFFIX.match(text, e)) and lang == "en":
        e = o.end()
    elif (d := _DECADE_SUFFIX.match(text, e)) and lang == "en":
        v = int(groups[0][1]) if len(groups) == 1 else None
        if v is not None and v % 10 == 0:
            vals |= {_key(v % 100)} if v >= 1000 else {_key(1900 + v), _key(2000 + v)}
        e = d.end()
    else:
        currency = s > 0 and text[s - 1] in W.CURRENCY
        adj = _ADJ_SCALE.match(text, e) if lang == "en" else None
        word = _WORD_SCALE.match(text, e)
        if adj:
            scale = W.SCALE_SUFFIX.get(adj.group(1).lower())
            if scale and (currency or len(adj.group(1)) > 1):
                vals = {_key(v * scale) for v in vals if isinstance(v, float)}
            elif scale:  # a bare 5m / 5k: million or metres / kilometres
                vals |= {_key(v * scale) for v in vals if isinstance(v, float)}
            e = adj.end()
        elif word:
            w = fold_ru(word.group(1))
            scale = W.SCALE_SUFFIX.get(w)
            if scale is None:
                scale = next((v for p, v in W.RU_SCALE_PREFIX if w.startswith(p)), None)
            if scale is not None:
                vals = {_key(v * scale) for v in vals if isinstance(v, float)}
                e = word.end()
        elif lang == "ru" and (r := _RU_SUFFIX.match(text, e)):
            suf = r.group(1).lower()
            v = int(groups[0][1]) if len(groups) == 1 else None
            if v is not None and v % 10 == 0 and suf in ("х", "е", "ые", "ых", "ым"):
                vals |= {_key(v % 100)} if v >= 1000 else {_key(1900 + v), _key(2000 + v)}
            e = r.end()
    return vals, e


def _digit_quantities(text: str, lang: str) -> tuple[list[_Qty], list[tuple[int, int]]]:
    """Numbers written with digits, with their separators, scales and suffixes."""
    out, taken = _mixed_tokens(text, lang)
    pos = 0
    prev_end = -10
    prev_year = False
    for m in _DIGITS.finditer(text):
        s = m.start()
        if s < pos or any(a <= s < b for a, b in taken):
            continue
        if s > 0 and (text[s - 1].isalpha()):
            continue
        groups, e = _digit_groups(text, m)
        if len(groups[0][1]) > 15:
            pos = e
            continue
        vals: set = _group_values(groups, lang)
        calque = calqued_thousands(groups, lang)
        optional = False
        vals, e = _with_suffix(text, s, e, groups, vals, lang)
        if s > 0 and text[s - 1] in "'’" and len(groups) == 1 and len(groups[0][1]) == 2:
            vals |= {_key(1900 + int(groups[0][1])), _key(2000 + int(groups[0][1]))}
        # 2010-15: the short end of a range of years
        if (
            prev_year
            and s - prev_end <= 1
            and text[prev_end:s] in "-–—‑"
            and len(groups) == 1
            and len(groups[0][1]) == 2
        ):
            century = next((int(v) // 100 * 100 for v in out[-1].values if isinstance(v, float)), 0)
            vals.add(_key(century + int(groups[0][1])))
        prev_year = len(groups) == 1 and len(groups[0][1]) == 4
        # slashed numbers (24/7, 3/4, 7/22/2020): matched when possible, never reported
        if (e < len(text) and text[e] == "/") or (s > 0 and text[s - 1] == "/"):
            optional = True
        if _near_unit(text, s, e, lang):
            optional = optional or lang == "en"
            vals.add(("unit", lang))
        alt = frozenset() if calque is None else frozenset({calque})
        out.append(_Qty(frozenset(vals), (s, e), optional, alt))
        taken.append((s, e))
        pos = e
        prev_end = e
    return out, taken


_ROMAN_NUMBER = regex.compile(
    r"(?<![\p{L}\p{N}])(?=[IVXLC]{2,}(?![\p{L}\p{N}]))" + ROMAN + r"(?![\p{L}\p{N}])"
)
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _roman_value(numeral: str) -> int:
    """The value of a valid Roman numeral: a letter before a greater one subtracts."""
    v = [_ROMAN_VALUES[c] for c in numeral]
    return sum(-a if a < b else a for a, b in zip(v, [*v[1:], 0]))


_ROMAN_CONTEXT = regex.compile(r"\s*(?:век|century|centuries|съезд|congress)", regex.I)


def _roman_quantities(text: str, taken: list[tuple[int, int]]) -> list[_Qty]:
    """Roman numerals of two letters or more after a word (``World War II``, ``Елизавета
    II``) or before ``century``/``век`` (``XIX века``)."""
    out = []
    for m in _ROMAN_NUMBER.finditer(text):
        if not m.group() or any(a <= m.start() < b for a, b in taken):
            continue
        before = compiled(r"\p{L}\s+$").search(text[max(0, m.start() - 3) : m.start()])
        if before or _ROMAN_CONTEXT.match(text, m.end()):
            out.append(_Qty(frozenset({_key(_roman_value(m.group()))}), m.span(), False))
    return out
