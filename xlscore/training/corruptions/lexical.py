"""Kinds that replace a word by another of the same kind: ``named_entity`` (a person, place,
organisation, Latin-script name or acronym), ``antonym`` (a word or preposition by its
opposite) and ``substitution`` (a content word by one from a pool sentence).

The longer forms of prepositions (``со``, ``подо``, ``надо``, ``передо``) are mapped to their
short ones by hand: pymorphy3's normal forms would also map ``безо`` to ``без`` and so make
antonyms the generated training data does not have.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from xlscore.text.morph import fold_ru
from xlscore.training.corruptions import words as W
from xlscore.training.corruptions.base import Corruption, Edit, _kind, _make, _pool_sentences
from xlscore.training.corruptions.morphology import (
    _PROPER,
    _first,
    _group_end,
    _group_form,
    _has,
    _in_context,
    _inflect_parse,
    _lemma,
    _parse_all,
    _pos,
    _reagree_left,
)
from xlscore.training.corruptions.tokens import (
    _LATIN,
    Tok,
    _cyr,
    _sentence_start,
    _style,
    _tight,
    _title,
    _tokens,
)

# named_entity ---------------------------------------------------------------------------


def _entity(toks: list[Tok], i: int, text: str) -> tuple[str, Any] | None:
    """(category, analysis) if ``toks[i]`` looks like (a word of) a named entity."""
    t = toks[i]
    w = t.text
    if t.num or len(w) < 2 or not w[0].isupper():
        return None
    if _LATIN.fullmatch(w):
        return ("latin", None) if w.lower() not in ("i", "a") else None
    if not _cyr(w):
        return None
    if w.isupper():
        return ("abbr", None) if len(w) <= 6 else None
    parses = _parse_all(w)
    for p in parses[:2]:
        for g in ("Name", "Surn", "Geox", "Orgn"):
            if g in p.tag and p.tag.POS == "NOUN":
                if g == "Geox":
                    nf = fold_ru(p.normal_form)
                    if nf in [fold_ru(x) for x in W.COUNTRIES]:
                        return "country", p
                    if nf in [fold_ru(x) for x in W.CITIES]:
                        return "city", p
                return g, p
    if _sentence_start(text, t.start) or not parses:
        return None
    if parses[0].tag.POS == "NOUN":
        return "Orgn", parses[0]
    return None


_BUILT_IN: dict[str, list[str]] = {
    "city": W.CITIES,
    "country": W.COUNTRIES,
    "Geox": W.CITIES + W.COUNTRIES,
    "Surn": W.SURNAMES,
    "Orgn": W.COMPANIES,
    "latin": W.LATIN_NAMES,
    "abbr": W.ABBREVIATIONS,
}


def _entity_alternatives(cat: str, p: Any, pool_sents: list[str]) -> list[str]:
    """Lemmas (or literal words) of entities like ``p`` from the pool, then built in."""
    out: list[str] = []
    for s in pool_sents:
        st = _tokens(s)
        for j in range(len(st)):
            e = _entity(st, j, s)
            if e is None:
                continue
            c, q = e
            same = c == cat or {c, cat} <= {"city", "country", "Geox"}
            if same:
                out.append(st[j].text if q is None else q.normal_form)
    if cat == "Name":
        female = p is not None and p.tag.gender == "femn"
        out += W.FEMALE_NAMES if female else W.MALE_NAMES
    else:
        out += _BUILT_IN.get(cat, [])
    seen, uniq = set(), []
    for x in out:
        if fold_ru(x) not in seen:
            seen.add(fold_ru(x))
            uniq.append(x)
    return uniq


@_kind
def named_entity(
    source: str, text: str, rng: random.Random, pool: Sequence[str]
) -> Corruption | None:
    """Replace a named entity (person, place, organisation, Latin-script name, acronym) by
    another of the same kind, from ``pool`` or a built-in list, in the same case."""
    toks = _tokens(text)
    found = [(i, e) for i in range(len(toks)) if (e := _entity(toks, i, text)) is not None]
    if not found:
        return None
    i, (cat, p) = rng.choice(found)
    p = _in_context(text, toks, i, p)
    t = toks[i]
    present = {fold_ru(x.text) for x in toks}
    if p is not None:
        present.add(fold_ru(p.normal_form))
    alts = [
        a
        for a in _entity_alternatives(cat, p, _pool_sentences(pool, rng, 6))
        if fold_ru(a) not in present
    ]
    rng.shuffle(alts)
    if p is None:
        return _make("named_entity", text, [(t.start, t.end, alts[0])]) if alts else None
    has = "Geox" if cat in ("city", "country") else cat
    same_gender: list[Any] = []
    other: list[Any] = []
    for a in alts:
        base = _lemma(a, ("NOUN",), has)
        if base is None:
            continue
        same = base.tag.gender == p.tag.gender or cat == "Surn"
        (same_gender if same else other).append(base)
    for base in same_gender + other:
        form = _inflect_parse(base, p.tag, noun_gender=cat == "Surn")
        if form is None:
            continue
        word = _style(t.text, _title(form.word), text)
        edits = [(t.start, t.end, word)]
        if form.tag.gender != p.tag.gender:
            edits += _reagree_left(text, toks, i, form)
        return _make("named_entity", text, edits)
    return None


# antonym -----------------------------------------------------------------------------

_VERB_FORMS = ("VERB", "INFN", "GRND", "PRTF", "PRTS")


@lru_cache(maxsize=1)
def _antonyms() -> dict[tuple[str, str], list[str]]:
    """(class, lemma) -> antonym lemmas, both directions, in table order."""
    out: dict[tuple[str, str], list[str]] = {}
    for cls, pairs in (
        ("V", W.ANTONYM_VERBS),
        ("A", W.ANTONYM_ADJECTIVES),
        ("D", W.ANTONYM_ADVERBS),
        ("N", W.ANTONYM_NOUNS),
    ):
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                lst = out.setdefault((cls, fold_ru(x)), [])
                if y not in lst:
                    lst.append(y)
    return out


_CLASS_OF = {
    "VERB": "V",
    "INFN": "V",
    "GRND": "V",
    "PRTF": "V",
    "PRTS": "V",
    "ADJF": "A",
    "ADJS": "A",
    "COMP": "A",
    "ADVB": "D",
    "NOUN": "N",
}
_LEMMA_POS = {"V": ("INFN",), "A": ("ADJF",), "D": ("ADVB", "COMP"), "N": ("NOUN",)}


def _antonym_word(text: str, toks: list[Tok], i: int, rng: random.Random) -> list[Edit] | None:
    t = toks[i]
    table = _antonyms()
    first = _parse_all(t.text)[:1]
    for p in _parse_all(t.text)[:3]:
        if p.score < 0.05 or not first:
            continue
        cls = _CLASS_OF.get(str(p.tag.POS))
        key_word = fold_ru(p.normal_form) if cls != "D" else fold_ru(t.text)
        alts = table.get((cls, key_word)) if cls else None
        if not alts and p.tag.POS == "COMP":
            alts, cls = table.get(("D", fold_ru(t.text))), "D"
        if not alts or cls is None:
            continue
        p = _in_context(text, toks, i, p)
        alts = list(alts)
        rng.shuffle(alts)
        for alt in alts:
            if cls == "D":
                form = alt
            else:
                fp = _inflect_parse(_lemma(alt, _LEMMA_POS[cls]), p.tag)
                if fp is None:
                    continue
                form = fp.word
            edits = [(t.start, t.end, _style(t.text, form, text))]
            if cls == "N" and fp.tag.gender != p.tag.gender:
                edits += _reagree_left(text, toks, i, fp)
            return edits
    return None


_PREPS: dict[str, list[tuple[str, str, str]]] = {}
for (_a, _ca), (_b, _cb) in W.ANTONYM_PREPOSITIONS:
    _PREPS.setdefault(_a, []).append((_ca, _b, _cb))
    _PREPS.setdefault(_b, []).append((_cb, _a, _ca))


def _recase(
    text: str, toks: list[Tok], i: int, g: int, old: str, new: str, number: str | None = None
) -> list[Edit] | None:
    """Edits putting the noun group ``toks[i:g]`` from case ``old`` into ``new`` (and
    ``number`` if given), or None if some word is not in ``old``."""
    head = None
    parses = []
    for t in toks[i:g]:
        if t.num:
            return None
        p = _has(t.text, "NOUN", old)
        if p is None:
            p = next((q for q in _parse_all(t.text) if q.tag.case == old), None)
        if p is None:
            return None
        parses.append(p)
        if p.tag.POS == "NOUN" and head is None:
            head = p
    if head is None:
        return None
    edits = []
    for t, p in zip(toks[i:g], parses):
        form = _group_form(p, head, new, number)
        if form is None:
            return None
        if form.word != t.text.lower():
            word = _title(form.word) if t.text[:1].isupper() else form.word
            edits.append((t.start, t.end, _style("", word, text)))
    return edits


def _antonym_preposition(
    text: str, toks: list[Tok], i: int, rng: random.Random
) -> list[Edit] | None:
    t = toks[i]
    low = fold_ru(t.text)
    low = {"со": "с", "подо": "под", "надо": "над", "передо": "перед"}.get(low, low)
    if (
        low not in _PREPS
        or _pos(t.text) != "PREP"
        or i + 1 >= len(toks)
        or not _tight(text, t, toks[i + 1])
    ):
        return None
    if i > 0 and fold_ru(toks[i - 1].text) in (
        "сравнению",
        "вместе",
        "связи",
        "наряду",
        "согласно",
        "рядом",
        "вплоть",
    ):
        return None
    g = _group_end(text, toks, i + 1, tail=False)
    if g is None:
        return None
    options = list(_PREPS[low])
    rng.shuffle(options)
    for old_case, alt, new_case in options:
        edits = _recase(text, toks, i + 1, g, old_case, new_case)
        if edits is None:
            continue
        return [(t.start, t.end, _style(t.text, alt, text)), *edits]
    return None


@_kind
def antonym(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> Corruption | None:
    """Replace a word (verb, adjective, comparative, adverb, noun, preposition) by its
    antonym, in the same form."""
    toks = _tokens(text)
    order = list(range(len(toks)))
    rng.shuffle(order)
    for i in order:
        if toks[i].num:
            continue
        edits = _antonym_preposition(text, toks, i, rng) or _antonym_word(text, toks, i, rng)
        if edits:
            return _make("antonym", text, edits)
    return None


# substitution ----------------------------------------------------------------------------

_CONTENT = ("NOUN", "ADJF", "VERB", "INFN", "ADVB", "ADJS", "PRTF")
_FUNCTION_ADVERBS = (
    "более",
    "менее",
    "очень",
    "также",
    "тоже",
    "уже",
    "ещё",
    "еще",
    "лишь",
    "почти",
    "только",
    "именно",
    "всего",
    "затем",
    "потом",
    "теперь",
    "сейчас",
    "тогда",
    "поэтому",
    "почему",
    "зачем",
    "когда",
    "где",
    "куда",
    "откуда",
    "здесь",
    "там",
    "туда",
    "сюда",
    "как",
    "так",
    "вновь",
    "снова",
    "пока",
    "совсем",
    "вообще",
    "вместе",
)
_LEMMA_OF = {
    "NOUN": ("NOUN",),
    "ADJF": ("ADJF",),
    "ADJS": ("ADJF",),
    "ADVB": ("ADVB",),
    "VERB": ("INFN",),
    "INFN": ("INFN",),
    "PRTF": ("INFN",),
}


def _content_parse(t: Tok):
    if t.num or len(t.text) <= 3 or not _cyr(t.text):
        return None
    p = _first(t.text)
    if (
        p is None
        or p.tag.POS not in _CONTENT
        or any(g in p.tag for g in _PROPER)
        or "Apro" in p.tag
        or "Prdx" in p.tag
        or fold_ru(t.text) in _FUNCTION_ADVERBS
    ):
        return None
    return p


@_kind
def substitution(
    source: str, text: str, rng: random.Random, pool: Sequence[str]
) -> Corruption | None:
    """Replace a content word by a content word of the same part of speech from a
    ``pool`` sentence (a mistranslation), in the same form."""
    toks = _tokens(text)
    targets = [
        (i, _in_context(text, toks, i, p))
        for i, t in enumerate(toks)
        if (p := _content_parse(t)) is not None
    ]
    sents = _pool_sentences(pool, rng, 6)
    if not targets or not sents:
        return None
    lemmas: list[tuple[str, Any]] = []
    for s in sents:
        for t in _tokens(s):
            q = _content_parse(t)
            if q is not None:
                lemmas.append((q.normal_form, q))
    present = {fold_ru(p.normal_form) for _, p in targets}
    rng.shuffle(targets)
    for i, p in targets[:8]:
        group = _LEMMA_OF[str(p.tag.POS)]
        cands = [
            (lem, q)
            for lem, q in lemmas
            if _LEMMA_OF[str(q.tag.POS)] == group and fold_ru(lem) not in present
        ]
        rng.shuffle(cands)
        if group == ("NOUN",):
            cands.sort(key=lambda c: c[1].tag.gender != p.tag.gender)
        if group == ("INFN",):
            cands = [c for c in cands if c[1].tag.aspect == p.tag.aspect]
        for lem, _q in cands[:6]:
            fp = _inflect_parse(_lemma(lem, group), p.tag)
            if fp is None:
                continue
            t = toks[i]
            edits = [(t.start, t.end, _style(t.text, fp.word, text))]
            if group == ("NOUN",) and fp.tag.gender != p.tag.gender:
                edits += _reagree_left(text, toks, i, fp)
            return _make("substitution", text, edits)
    return None
