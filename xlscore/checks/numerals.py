"""Numbers written as words: English number words (``three``, ``twenty-five``, ``a hundred``,
``first``, ``half``) and Russian ones in any case (``трёх``, ``двести``, ``первого``).
"""

from __future__ import annotations

import functools

import regex

from xlscore.checks import number_words as W
from xlscore.checks.common import _sentence_initial
from xlscore.checks.quantities import _key, _near_unit, _Qty
from xlscore.text.morph import fold_ru, lemma, parses
from xlscore.text.words import compiled, split_words

_EN_NUMBER_WORDS = frozenset((*W.EN_UNITS, *W.EN_ORDINALS, *W.EN_SCALES, *W.EN_SPECIAL))


def _can_follow(prev: tuple[str, float], v: float) -> bool:
    """Whether a number word of value ``v`` continues a run ending in ``prev``: a unit after
    a ten (twenty-five), anything smaller after a hundred or a scale."""
    kind, p = prev
    if kind == "scale":
        return True
    if p >= 100 and p % 100 == 0:
        return v < 100
    return 20 <= p < 100 and p % 10 == 0 and v < 10


def _combine(seq: list[tuple[str, float]]) -> float:
    """Value of a run of number words: units add, ``hundred`` multiplies, bigger scales close a
    group (``two hundred and fifty thousand`` = 250000)."""
    total, cur = 0.0, 0.0
    for kind, v in seq:
        if kind == "scale" and v == 100:
            cur = (cur or 1) * 100
        elif kind == "scale":
            total += (cur or 1) * v
            cur = 0
        else:
            cur += v
    return total + cur


_EN_COMPOUND = regex.compile(
    r"(two|three|four|five|six|seven|eight|nine|ten)(?:" + "|".join(W.EN_NUMBER_COMPOUND) + r")"
)


def _free_words(text: str, taken: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """The words of ``text`` (with their spans) that start outside the ``taken`` spans."""
    return [
        w for w in split_words(text, letters=True) if not any(a <= w.start < b for a, b in taken)
    ]


def _en_number_run(
    text: str, words: list[tuple[str, int, int]], i: int, art: bool
) -> tuple[list[tuple[str, float]], int, int, bool]:
    """The number words that make one number from ``words[i]`` on (``art``: it is the article
    of ``a hundred``): their kinds and values, the index after them, where they end, and
    whether they make a fraction (``two-fifths``, ``a third``)."""
    e = words[i][2]
    seq: list[tuple[str, float]] = []
    j = i
    end = e
    fraction = False
    while j < len(words):
        wj, sj, ej = words[j]
        lj = wj.lower()
        if j > i:
            gap = text[words[j - 1][2] : sj]
            after_scale = gap.strip() == "and" and seq and seq[-1][0] == "scale"
            if gap.strip(" -‑") and not after_scale:
                break
            if gap.strip() == "and" and lj not in W.EN_UNITS:
                break
        if j == i and art:
            seq.append(("unit", 1))
        elif lj in W.EN_UNITS:
            v = W.EN_UNITS[lj]
            if seq and not _can_follow(seq[-1], v):
                break
            seq.append(("unit", v))
        elif lj in W.EN_ORDINALS:
            v = W.EN_ORDINALS[lj]
            if seq and seq[-1][0] == "unit" and seq[-1][1] < 10:
                if v <= 2:
                    break  # two first-half shots
                fraction = True  # one-third, two-fifths
            elif seq and not _can_follow(seq[-1], v):
                break
            if j == i and i > 0 and words[i - 1][0].lower() in ("a", "one", "final", "last"):
                fraction = True
            seq.append(("ord", v))
            end = ej
            j += 1
            break
        elif lj in W.EN_SCALES:
            seq.append(("scale", W.EN_SCALES[lj]))
        elif lj == "dozen" and seq:
            seq.append(("scale", 12))
        else:
            break
        end = ej
        j += 1
    return seq, j, end, fraction


def _en_word_quantities(text: str, taken: list[tuple[int, int]]) -> list[_Qty]:
    """English number words: ``three``, ``twenty-five``, ``a hundred``, ``first``, ``half``."""
    words = _free_words(text, taken)
    out: list[_Qty] = []
    i = 0
    while i < len(words):
        w, s, e = words[i]
        lw = w.lower()
        art = (
            lw in ("a", "an")
            and i + 1 < len(words)
            and words[i + 1][0].lower()
            in ("hundred", "thousand", "million", "billion", "trillion", "dozen")
        )
        if not (art or lw in _EN_NUMBER_WORDS):
            compound = _EN_COMPOUND.fullmatch(lw)
            if compound:  # foursomes, twofold: may absorb a Russian number word
                out.append(_Qty(frozenset({_key(W.EN_UNITS[compound.group(1)])}), (s, e), True))
            i += 1
            continue
        if lw in W.EN_SPECIAL and not art:
            v, opt = W.EN_SPECIAL[lw]
            prev = words[i - 1][0].lower() if i else ""
            vals = {_key(v)}
            if lw == "half" and prev in ("one", "a"):
                opt = True
                if compiled(r"and an?\s+$").search(text[max(0, s - 8) : s]):
                    vals |= {_key(1.5)} | {
                        _key(x + 0.5) for q in out[-1:] for x in q.values if isinstance(x, float)
                    }
            if lw == "dozen":
                vals.add(_key(10))  # a dozen -> десяток
                opt = prev in ("few", "several", "many", "some")
            out.append(_Qty(frozenset(vals), (s, e), opt))
            i += 1
            continue
        seq, j, end, fraction = _en_number_run(text, words, i, art)
        if seq:
            value = _combine(seq)
            optional = fraction or (
                j == i + 1 and (lw in W.EN_OPTIONAL_VALUES or lw in W.EN_SCALES)
            )
            if w[0].isupper() and not _sentence_initial(text, s):
                optional = True  # a name: Four Corners, Channel Four
            optional = optional or _near_unit(text, s, end, "en")
            out.append(_Qty(frozenset({_key(value)}), (s, end), optional))
        i = max(j, i + 1)
    return out


@functools.lru_cache(maxsize=100_000)
def _ru_number_word(word: str) -> tuple[str, float, bool] | None:
    """(kind, value, optional) of a lower-case Russian number word, or None."""
    if word in W.RU_OPTIONAL:
        return ("unit", W.RU_OPTIONAL[word], True)
    for p in [p for p in parses(word) if "Abbr" not in p.grammemes][:3]:
        nf = p.normal
        if nf in W.RU_SCALES and p.pos == "NOUN":
            return ("scale", W.RU_SCALES[nf], False)
        if nf in W.RU_OPTIONAL:
            return ("unit", W.RU_OPTIONAL[nf], True)
        if nf in W.RU_NUMBERS and (
            "NUMR" in p.grammemes or "Anum" in p.grammemes or nf in ("половина", "ноль", "нуль")
        ):
            kind = "ord" if "Anum" in p.grammemes else "unit"
            return (kind, W.RU_NUMBERS[nf], False)
        if p.pos in ("NUMR", "ADJF", "NOUN", "ADVB", "VERB", "PRTF"):
            break
    if word.startswith("пол") and len(word) > 5:
        rest = word[3:].lstrip("-")
        for stem, v in W.RU_SCALE_PREFIX:
            if rest.startswith(stem):
                return ("unit", 0.5 * v, True)
    for stem, v in W.RU_NUMBER_STEMS:
        if (
            word.startswith(stem)
            and len(word) >= len(stem) + 3
            and not word.startswith(W.RU_NUMBER_STEM_EXCEPTIONS)
        ):
            return ("unit", v, True)
    return None


def _ru_word_quantities(text: str, taken: list[tuple[int, int]]) -> list[_Qty]:
    """Russian number words in any case: ``три``, ``трёх``, ``двести``, ``первого``."""
    words = _free_words(text, taken)
    out: list[_Qty] = []
    i = 0
    while i < len(words):
        info = _ru_number_word(fold_ru(words[i][0]))
        if info is None:
            i += 1
            continue
        seq = [info]
        j = i + 1
        while j < len(words) and text[words[j - 1][2] : words[j][1]].strip(" -") == "":
            nxt = _ru_number_word(fold_ru(words[j][0]))
            if nxt is None or seq[-1][2] or seq[-1][0] == "ord" or (nxt[2] and nxt[1] != 1):
                break
            if nxt[0] != "scale" and not _can_follow(seq[-1][:2], nxt[1]):
                break
            seq.append(nxt)
            j += 1
        s, e = words[i][1], words[j - 1][2]
        value = _combine([(k, v) for k, v, _ in seq])
        optional = len(seq) == 1 and (seq[0][2] or seq[0][0] == "scale" or value == 1)
        vals: set = {_key(value)}
        if len(seq) == 1:
            vals |= {_key(x) for x in W.RU_EXTRA_VALUES.get(lemma(words[i][0]), ())}
        if _near_unit(text, s, e, "ru"):
            vals.add(("unit", "ru"))
        out.append(_Qty(frozenset(vals), (s, e), optional))
        i = j
    return out
