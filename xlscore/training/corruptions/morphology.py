"""pymorphy3 analysis shared by the kinds: parsing a word, inflecting a lemma into the form of
another word, the case a noun is likely in given what precedes it, agreement of adjectives
with their noun, and where a noun group ends.

Two tables are kept by hand because pymorphy3 cannot give them. ``_LOC2``: the nouns whose
second locative is the usual one after ``в``/``на`` (``в году``, ``на берегу``); pymorphy3's
dictionary has a second locative for about 200 nouns (``дому``, ``миру``, ``меху`` too) but
not which of them is the usual form, and trying it for every such noun would change the
generated training data. ``_PREP_CASES``: the cases each preposition governs, which
pymorphy3 does not record. The rare cases (``loc2``, ``gen2``, ``voct``…) are folded into
the main ones with pymorphy3's own ``RARE_CASES`` table.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from xlscore.text.morph import fold_ru, parses
from xlscore.training.corruptions.tokens import _LATIN, Tok, _cyr, _style, _tight

_PROPER = ("Name", "Surn", "Patr", "Geox", "Orgn", "Trad")


def _parses(word: str) -> tuple:
    """pymorphy3's analyses of a lower-case word (none for non-Cyrillic or huge words)."""
    if not word or len(word) > 40 or not _cyr(word):
        return ()
    return tuple(p.analysis for p in parses(word))


def _parse_all(word: str) -> tuple:
    return _parses(word.lower())


def _first(word: str):
    p = _parse_all(word)
    return p[0] if p else None


def _pos(word: str) -> str | None:
    p = _first(word)
    return str(p.tag.POS) if p is not None and p.tag.POS else None


def _has(word: str, pos: str, case: str | None = None) -> Any:
    """The first analysis of ``word`` with this part of speech (and case), or None."""
    for p in _parse_all(word):
        if pos == p.tag.POS and (case is None or p.tag.case == case):
            return p
    return None


def _proper(word: str) -> bool:
    p = _first(word)
    return p is not None and any(g in p.tag for g in _PROPER)


@lru_cache(maxsize=20_000)
def _lemma(lemma: str, pos: tuple[str, ...] = (), has: str = "") -> Any:
    """An analysis of a dictionary form with the given part of speech (and grammeme)."""
    best = None
    for p in _parses(lemma.lower()):
        if fold_ru(p.normal_form) != fold_ru(lemma) or (pos and p.tag.POS not in pos):
            continue
        if not has or has in p.tag:
            return p
        best = best or p
    return best


@lru_cache(maxsize=64)
def _forms(lemma: str, pos: str, grammeme: str) -> frozenset[str]:
    """Every form of the dictionary word ``lemma`` (part of speech ``pos``) that has
    ``grammeme``, lower case with ``ё`` as ``е`` (``год``, ``sing``: год, года, году, …)."""
    p = _lemma(lemma, (pos,))
    if p is None:
        return frozenset()
    return frozenset(fold_ru(f.word) for f in p.lexeme if grammeme in f.tag)


_FORMS = ("INFN", "GRND", "PRTF", "PRTS", "ADJS", "ADJF", "COMP", "VERB", "NUMR")


# nouns whose locative after в/на is the second one (в году, на берегу)
_LOC2 = (
    "год",
    "век",
    "час",
    "лес",
    "сад",
    "берег",
    "мост",
    "порт",
    "аэропорт",
    "угол",
    "пол",
    "снег",
    "край",
    "бой",
    "ряд",
    "крым",
    "шкаф",
    "цех",
    "тыл",
    "плен",
    "верх",
    "низ",
    "круг",
    "пруд",
    "луг",
    "дым",
    "лед",
    "рай",
    "долг",
    "вид",
    "борт",
    "счет",
)


def _case(tag) -> str | None:
    """The case of a tag, second genitive/locative counted as the first (pymorphy3's
    ``RARE_CASES``: also the vocative as the nominative)."""
    return tag.RARE_CASES.get(str(tag.case), str(tag.case)) if tag.case else None


def _wanted(tag, noun_gender: bool = False) -> tuple[list[str], list[str]]:
    """Grammemes to copy from ``tag``: those a form must have, and those it should."""
    pos = str(tag.POS) if tag.POS else ""
    req: list[str] = [pos] if pos in _FORMS else []
    opt: list[str] = []
    req += [str(g) for g in (_case(tag), tag.number, tag.tense, tag.person) if g]
    if tag.gender:
        if pos in ("VERB", "ADJF", "ADJS", "PRTF", "PRTS") or noun_gender:
            req.append(str(tag.gender))
        elif pos != "NOUN":
            opt.append(str(tag.gender))
    if _case(tag) == "accs" and tag.animacy and pos != "NOUN":
        opt.append(str(tag.animacy))
    opt += [str(g) for g in (tag.mood, tag.voice, tag.involvement) if g]
    return req, opt


def _group_form(p, head, case: str, number: str | None = None):
    """The word with parse ``p`` of a noun group headed by the noun parse ``head``, put into
    ``case`` (and ``number``, else its own): the other words agree with the head in gender
    (singular) and animacy (accusative); None if pymorphy3 has no such form."""
    want = {case, number or p.tag.number or "sing"}
    if p.tag.POS != "NOUN":
        if "sing" in want and p.tag.gender:
            want.add(p.tag.gender)
        if case == "accs":
            want.add(head.tag.animacy or "inan")
    return p.inflect(want) or p.inflect(want - {"anim", "inan"})


def _inflect_parse(base, like, noun_gender: bool = False):
    """``base`` put into the form of ``like`` (a tag): the grammemes it must have, then as
    many of those it should have as possible; None if there is no such form."""
    if base is None:
        return None
    req, opt = _wanted(like, noun_gender)
    tries = [req]
    if "loct" in req and fold_ru(base.normal_form) in _LOC2:  # в году, на берегу
        tries.insert(0, ["loc2" if g == "loct" else g for g in req])
    for r in tries:
        for k in range(len(opt), -1, -1):
            try:
                p = base.inflect(set(r + opt[:k]))
            except (ValueError, KeyError):
                p = None
            if p is not None and (like.POS not in _FORMS or p.tag.POS == like.POS):
                return p
    return None


def _inflect(
    lemma: str, pos: tuple[str, ...], like, has: str = "", noun_gender: bool = False
) -> str | None:
    p = _inflect_parse(_lemma(lemma, pos, has), like, noun_gender)
    return p.word if p is not None else None


_PREP_CASES: dict[str, tuple[str, ...]] = {}
for _preps, _cs in (
    ("в во на о об обо", ("loct", "accs")),
    ("при", ("loct",)),
    (
        "из из-за из-под от до без для у около после кроме вокруг против среди вместо "
        "возле мимо ради вдоль вне внутри сверх насчёт насчет ввиду",
        ("gent",),
    ),
    ("к ко по благодаря согласно вопреки навстречу", ("datv",)),
    ("с со", ("ablt", "gent")),
    ("за под подо", ("ablt", "accs")),
    ("над надо перед передо между", ("ablt",)),
    ("через про сквозь включая", ("accs",)),
):
    for _p in _preps.split():
        _PREP_CASES[_p] = _cs


def _expected_cases(text: str, toks: list[Tok], i: int) -> tuple[str, ...]:
    """Cases a noun at ``toks[i]`` is likely in, judged by what precedes its group."""
    j = i
    while (
        j > 0
        and _tight(text, toks[j - 1], toks[j])
        and (toks[j - 1].num or _pos(toks[j - 1].text) in ("ADJF", "PRTF", "NUMR"))
    ):
        j -= 1
    counted = j < i and (toks[j].num or _pos(toks[j].text) == "NUMR")
    cases: tuple[str, ...] = ("nomn", "accs")
    if j > 0 and _tight(text, toks[j - 1], toks[j]):
        before = fold_ru(toks[j - 1].text)
        if before in _PREP_CASES and _pos(before) == "PREP":
            cases = _PREP_CASES[before]
        elif _pos(toks[j - 1].text) == "NOUN":
            cases = ("gent",)
    if counted and ("accs" in cases or ":" in toks[j].text):
        cases = ("gent", *cases)  # пять лет, в 7:45 утра
    return cases


def _noun_parses(text: str, toks: list[Tok], i: int, lemma: str | None = None) -> list:
    """The noun analyses of ``toks[i]`` (of ``lemma`` if given), likeliest in context first."""
    parses = [
        p
        for p in _parse_all(toks[i].text)
        if p.tag.POS == "NOUN" and (lemma is None or p.normal_form == lemma)
    ]
    cases = _expected_cases(text, toks, i)
    adjs = (
        [a for a in _parse_all(toks[i - 1].text) if a.tag.POS in ("ADJF", "PRTF")]
        if i > 0 and _tight(text, toks[i - 1], toks[i])
        else []
    )

    def agrees(p) -> bool:
        return any(
            _case(a.tag) == _case(p.tag)
            and a.tag.number == p.tag.number
            and (p.tag.number == "plur" or a.tag.gender == p.tag.gender)
            for a in adjs
        )

    def rank(p) -> tuple[bool, bool, int]:
        c = _case(p.tag)
        return (bool(adjs) and not agrees(p), c not in cases, cases.index(c) if c in cases else 0)

    return sorted(parses, key=rank)


def _agreeing(toks: list[Tok], i: int, pos: str = "ADJF", text: str = "") -> Any:
    """The analysis of the adjective-like ``toks[i]`` that agrees with the noun after it
    (or the first one with part of speech ``pos``)."""
    parses = [p for p in _parse_all(toks[i].text) if pos == p.tag.POS]
    if not parses:
        return None
    if i + 1 < len(toks) and not toks[i + 1].num:
        nouns = (
            _noun_parses(text, toks, i + 1)
            if text
            else [q for q in _parse_all(toks[i + 1].text) if q.tag.POS == "NOUN"]
        )
        for q in nouns:
            for p in parses:
                if (
                    _case(q.tag) == _case(p.tag)
                    and q.tag.number == p.tag.number
                    and (p.tag.number == "plur" or q.tag.gender == p.tag.gender)
                ):
                    return p
    return parses[0]


def _in_context(text: str, toks: list[Tok], i: int, p: Any) -> Any:
    """Among the analyses of ``toks[i]`` with the lemma and part of speech of ``p``, the one
    that fits the context best (agreement for adjectives, government for nouns)."""
    if p is None:
        return None
    if p.tag.POS in ("ADJF", "PRTF"):
        q = _agreeing(toks, i, p.tag.POS, text)
        return q if q is not None and q.normal_form == p.normal_form else p
    if p.tag.POS == "NOUN":
        qs = _noun_parses(text, toks, i, p.normal_form)
        return qs[0] if qs else p
    return p


def _reagree_left(text: str, toks: list[Tok], i: int, noun) -> list[tuple[int, int, str]]:
    """Edits that make the adjectives right before ``toks[i]`` agree with ``noun`` (an
    analysis of the new word there)."""
    edits = []
    j = i - 1
    while j >= 0 and _tight(text, toks[j], toks[j + 1]) and not toks[j].num:
        a = _has(toks[j].text, "ADJF", noun.tag.case) or _has(toks[j].text, "PRTF", noun.tag.case)
        if a is None:
            break
        want = {noun.tag.case, noun.tag.number}
        if noun.tag.number == "sing" and noun.tag.gender in ("masc", "femn", "neut"):
            want.add(noun.tag.gender)
        if noun.tag.case == "accs" and noun.tag.animacy:
            want.add(noun.tag.animacy)
        new = a.inflect(want) or a.inflect(want - {"anim", "inan"})
        if new is not None and fold_ru(new.word) != fold_ru(toks[j].text):
            edits.append((toks[j].start, toks[j].end, _style(toks[j].text, new.word, text)))
        j -= 1
    return edits


# --- noun groups ---------------------------------------------------------------------

_MODIFIERS = ("ADJF", "PRTF", "NUMR")


def _group_end(text: str, toks: list[Tok], i: int, tail: bool = True) -> int | None:
    """End (exclusive token index) of the noun group starting at ``toks[i]``: modifiers, a
    head noun, then (``tail``) up to two genitive noun groups; None if there is none."""
    j, n = i, len(toks)
    while j < n and (j == i or _tight(text, toks[j - 1], toks[j])) and j - i < 5:
        t = toks[j]
        p = _first(t.text)
        noun_next = j + 1 < n and _tight(text, t, toks[j + 1]) and _pos(toks[j + 1].text) == "NOUN"
        if t.num or (
            p is not None
            and (
                p.tag.POS in _MODIFIERS
                or (noun_next and (p.tag.POS == "NPRO" or _has(t.text, "ADJF") is not None))
            )
        ):
            j += 1
            continue
        if (p is not None and p.tag.POS == "NOUN") or (
            p is None and (_LATIN.fullmatch(t.text) or t.text.isupper())
        ):
            j += 1
            break
        return None
    else:
        return None
    for _ in range(2 if tail else 0):
        k = j
        while (
            k < n
            and _tight(text, toks[k - 1], toks[k])
            and (_has(toks[k].text, "ADJF", "gent") or _has(toks[k].text, "PRTF", "gent"))
        ):
            k += 1
        if (
            k < n
            and _tight(text, toks[k - 1], toks[k])
            and _pos(toks[k].text) == "NOUN"
            and _has(toks[k].text, "NOUN", "gent")
        ):
            j = k + 1
        else:
            break
    return j
