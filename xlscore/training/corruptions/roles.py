"""The ``role_swap`` kind: who does what to whom. Subject and direct object swapped, the two
places of ``из X в Y``, or two numbers or named entities of one kind.

The pairs of prepositions of a direction (``из``/``в``, ``с``/``на``, ``от``/``до``) and the
case the second one governs are kept by hand because pymorphy3 does not record what case a
preposition governs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import regex

from xlscore.text.morph import fold_ru
from xlscore.training.corruptions.base import Corruption, Edit, _kind, _make
from xlscore.training.corruptions.lexical import _entity
from xlscore.training.corruptions.morphology import (
    _PROPER,
    _first,
    _group_end,
    _group_form,
    _has,
    _inflect_parse,
    _parse_all,
    _pos,
    _proper,
)
from xlscore.training.corruptions.tokens import (
    Tok,
    _sentence_start,
    _style,
    _tight,
    _title,
    _tokens,
)

# role_swap -----------------------------------------------------------------------------


def _case_of_group(toks: list[Tok], i: int, g: int, case: str) -> list | None:
    """Analyses of the words of a noun group, all in ``case``, or None."""
    out = []
    for t in toks[i:g]:
        if t.num:
            return None
        p = (
            _has(t.text, "NOUN", case)
            if _has(t.text, "NOUN")
            else next((q for q in _parse_all(t.text) if q.tag.case == case), None)
        )
        if p is None:
            return None
        out.append(p)
    return out if any(p.tag.POS == "NOUN" for p in out) else None


def _regroup(
    text: str, toks: list[Tok], i: int, g: int, parses: list, case: str, at_start: bool
) -> str | None:
    """The noun group ``toks[i:g]`` (with ``parses``) put into ``case``, as text."""
    head = next(p for p in parses if p.tag.POS == "NOUN")
    words = []
    for t, p in zip(toks[i:g], parses):
        form = _group_form(p, head, case)
        if form is None:
            return None
        proper = any(x in p.tag for x in _PROPER) or (
            t.text[:1].isupper() and not _sentence_start(text, t.start)
        )
        words.append(_title(form.word) if proper else form.word)
    out = " ".join(words)
    out = _style("", out, text)
    return out[:1].upper() + out[1:] if at_start else out


def _subject_object(text: str, toks: list[Tok]) -> list[list[Edit]]:
    out = []
    for v, t in enumerate(toks):
        vp = _first(t.text)
        if t.num or vp is None or vp.tag.POS != "VERB" or "tran" not in vp.tag or v == 0:
            continue
        left = v - 1 if fold_ru(toks[v - 1].text) != "не" else v - 2
        if left < 0 or not _tight(text, toks[left], toks[left + 1]):
            continue
        hp = _has(toks[left].text, "NOUN", "nomn")
        if (
            hp is None
            or (vp.tag.number and hp.tag.number != vp.tag.number)
            or (
                vp.tag.number == "sing"
                and vp.tag.gender
                and hp.tag.gender != vp.tag.gender
                and vp.tag.tense == "past"
            )
        ):
            continue
        s = left
        while (
            s > 0
            and _tight(text, toks[s - 1], toks[s])
            and (
                _has(toks[s - 1].text, "ADJF", "nomn")
                or _has(toks[s - 1].text, "PRTF", "nomn")
                or (_proper(toks[s - 1].text) and _has(toks[s - 1].text, "NOUN", "nomn"))
            )
        ):
            s -= 1
        if s > 0 and _pos(toks[s - 1].text) == "PREP":
            continue
        if v + 1 >= len(toks) or not _tight(text, t, toks[v + 1]):
            continue
        g = _group_end(text, toks, v + 1, tail=False)
        if g is None:
            continue
        subj = _case_of_group(toks, s, left + 1, "nomn")
        obj = _case_of_group(toks, v + 1, g, "accs")
        if subj is None or obj is None:
            continue
        start = _sentence_start(text, toks[s].start)
        new_subj = _regroup(text, toks, v + 1, g, obj, "nomn", start)
        new_obj = _regroup(text, toks, s, left + 1, subj, "accs", False)
        if new_subj is None or new_obj is None:
            continue
        edits = [
            (toks[s].start, toks[left].end, new_subj),
            (toks[v + 1].start, toks[g - 1].end, new_obj),
        ]
        obj_head = next(p for p in obj if p.tag.POS == "NOUN")
        if vp.tag.number:
            want = {obj_head.tag.number or "sing"}
            if (
                vp.tag.tense == "past"
                and "sing" in want
                and obj_head.tag.gender in ("masc", "femn", "neut")
            ):
                want.add(obj_head.tag.gender)
            form = vp.inflect(want)
            if form is not None and form.word != t.text.lower():
                edits.append((t.start, t.end, _style(t.text, form.word, text)))
        out.append(edits)
    return out


_DIRECTIONS = {
    "из": [("в", "accs"), ("во", "accs")],
    "с": [("на", "accs"), ("по", "accs")],
    "со": [("на", "accs")],
    "от": [("до", "gent"), ("к", "datv")],
}


def _from_to(text: str, toks: list[Tok]) -> list[list[Edit]]:
    out = []
    for i, t in enumerate(toks):
        low = fold_ru(t.text)
        if low not in _DIRECTIONS or i + 1 >= len(toks) or not _tight(text, t, toks[i + 1]):
            continue
        g1: int | None
        g1 = i + 2 if toks[i + 1].num else _group_end(text, toks, i + 1, tail=False)
        if g1 is None or g1 + 1 >= len(toks) or not _tight(text, toks[g1 - 1], toks[g1]):
            continue
        p2 = fold_ru(toks[g1].text)
        case2 = dict(_DIRECTIONS[low]).get(p2)
        if case2 is None or not _tight(text, toks[g1], toks[g1 + 1]):
            continue
        a = (toks[i + 1].start, toks[g1 - 1].end)
        if toks[i + 1].num and toks[g1 + 1].num:
            if toks[i + 1].text != toks[g1 + 1].text:
                out.append(
                    [
                        (a[0], a[1], toks[g1 + 1].text),
                        (toks[g1 + 1].start, toks[g1 + 1].end, toks[i + 1].text),
                    ]
                )
            continue
        g2 = _group_end(text, toks, g1 + 1, tail=False)
        if g2 is None:
            continue
        one = _case_of_group(toks, i + 1, g1, "gent")
        two = _case_of_group(toks, g1 + 1, g2, case2)
        if one is None or two is None:
            continue
        new1 = _regroup(text, toks, g1 + 1, g2, two, "gent", False)
        new2 = _regroup(text, toks, i + 1, g1, one, case2, False)
        if new1 and new2 and fold_ru(new1) != fold_ru(text[a[0] : a[1]]):
            out.append([(a[0], a[1], new1), (toks[g1 + 1].start, toks[g2 - 1].end, new2)])
    return out


def _sentence_ids(text: str, toks: list[Tok]) -> list[int]:
    ends = [m.end() for m in regex.finditer(r"[.!?…]+(?=\s|$)", text)]
    out, k = [], 0
    for t in toks:
        while k < len(ends) and ends[k] <= t.start:
            k += 1
        out.append(k)
    return out


def _pairs_of_kind(text: str, toks: list[Tok]) -> list[list[Edit]]:
    """Two numbers, or two named entities of one kind, in one sentence, swapped."""
    out: list[list[Edit]] = []
    sid = _sentence_ids(text, toks)
    index = {t: i for i, t in enumerate(toks)}

    def near(a: int, b: int) -> bool:
        return sid[a] == sid[b] and b - a <= 20

    nums = [t for t in toks if t.num]
    for x in range(len(nums)):
        for y in range(x + 1, len(nums)):
            if len(out) >= 40 or not near(index[nums[x]], index[nums[y]]):
                continue
            if nums[x].text != nums[y].text:
                out.append(
                    [
                        (nums[x].start, nums[x].end, nums[y].text),
                        (nums[y].start, nums[y].end, nums[x].text),
                    ]
                )
    ents = [(i, e) for i in range(len(toks)) if (e := _entity(toks, i, text)) is not None]
    for x in range(len(ents)):
        for y in range(x + 1, len(ents)):
            (i, (c1, p1)), (j, (c2, p2)) = ents[x], ents[y]
            ti, tj = toks[i], toks[j]
            if (
                c1 != c2
                or fold_ru(ti.text) == fold_ru(tj.text)
                or j == i + 1
                or not near(i, j)
                or len(out) >= 80
            ):
                continue
            if p1 is None or p2 is None:
                if p1 is None and p2 is None:
                    out.append([(ti.start, ti.end, tj.text), (tj.start, tj.end, ti.text)])
                continue
            if fold_ru(p1.normal_form) == fold_ru(p2.normal_form):
                continue
            f1 = _inflect_parse(p2, p1.tag, noun_gender=c1 == "Surn")
            f2 = _inflect_parse(p1, p2.tag, noun_gender=c1 == "Surn")
            if f1 is not None and f2 is not None:
                out.append(
                    [
                        (ti.start, ti.end, _style(ti.text, _title(f1.word), text)),
                        (tj.start, tj.end, _style(tj.text, _title(f2.word), text)),
                    ]
                )
    return out


@_kind
def role_swap(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> Corruption | None:
    """Swap who does what to whom: subject and direct object (re-inflected, the verb
    re-agreed), the two places of ``из X в Y``/``с X на Y``/``от X до Y``, or two numbers or
    named entities of one kind. Spans cover both places."""
    toks = _tokens(text)
    options = [
        o
        for o in (_subject_object(text, toks), _from_to(text, toks), _pairs_of_kind(text, toks))
        if o
    ]
    if not options:
        return None
    edits = rng.choice(rng.choice(options))
    return _make("role_swap", text, edits)
