"""Kinds that change what is said: ``negation`` (removed or added), ``omission`` (a clause,
phrase or modifier deleted) and ``addition`` (material the source does not have). The kinds
that keep the words but not the translation are in :mod:`.copying`.

The heads of fixed prepositional expressions (``по сравнению с``) are listed by hand as
written, in the case the expression puts them in, because pymorphy3 knows no fixed
expressions; the word tables are in :mod:`xlscore.training.corruptions.words`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Literal

import regex

from xlscore.text.morph import fold_ru
from xlscore.training.corruptions import words as W
from xlscore.training.corruptions.base import (
    Corruption,
    _deletion,
    _kind,
    _make,
    _pool_sentences,
    _well_formed,
)
from xlscore.training.corruptions.morphology import (
    _PROPER,
    _case,
    _first,
    _group_end,
    _has,
    _in_context,
    _inflect,
    _lemma,
    _parse_all,
    _pos,
    _proper,
)
from xlscore.training.corruptions.tokens import (
    Tok,
    _sentence_start,
    _style,
    _tight,
    _tokens,
)

# negation ---------------------------------------------------------------------------

_NEG_PRONOUNS = dict(W.NEGATIVE_PRONOUNS)


def _positive_pronoun(word: str) -> str | None:
    """кто-то for никто (in its case), всегда for никогда, …"""
    low = fold_ru(word)
    for p in _parse_all(word)[:1]:
        nf = fold_ru(p.normal_form)
        if nf in ("никто", "ничто", "никакой") and p.tag.case:
            base = {"никто": "кто", "ничто": "что", "никакой": "какой"}[nf]
            form = _inflect(base, ("NPRO", "ADJF"), p.tag)
            if form:
                return form + "-то"
    return _NEG_PRONOUNS.get(low)


@_kind
def negation(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> Corruption | None:
    """Remove a negation (``не``; ``нет`` becomes ``есть``; ``никто не`` becomes
    ``кто-то``), or put ``не`` before a verb, infinitive or short adjective/participle."""
    toks = _tokens(text)
    removals: list[
        tuple[Literal["del"], int, int] | tuple[Literal["edit"], list[tuple[int, int, str]]]
    ] = []
    pronouns, insertions = [], []
    for i, t in enumerate(toks):
        low = fold_ru(t.text)
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        prev = fold_ru(toks[i - 1].text) if i > 0 else ""
        if low == "не" and nxt is not None and _tight(text, t, nxt):
            removals.append(("del", t.start, nxt.start))
        elif low == "нет" and not t.text.isupper():
            edits = [(t.start, t.end, _style(t.text, "есть", text))]
            n = _has(nxt.text, "NOUN", "gent") if nxt is not None and _tight(text, t, nxt) else None
            if n is not None and nxt is not None:
                form = n.inflect({"nomn", n.tag.number or "sing"})
                if form is not None:
                    edits.append((nxt.start, nxt.end, _style(nxt.text, form.word, text)))
            removals.append(("edit", edits))
        elif low in _NEG_PRONOUNS or any(
            fold_ru(p.normal_form) in ("никто", "ничто", "никакой") for p in _parse_all(t.text)[:1]
        ):
            for j in range(i + 1, min(i + 4, len(toks) - 1)):
                if fold_ru(toks[j].text) == "не" and _tight(text, toks[j], toks[j + 1]):
                    pronouns.append((i, j))
                    break
        elif (
            not t.num
            and prev not in ("не", "ни")
            and i > 0
            and not _sentence_start(text, t.start)
            and t.text[:1].islower()
        ) and _pos(t.text) in ("VERB", "INFN", "ADJS", "PRTS"):
            insertions.append(t)
    choices = [c for c in (removals, pronouns, insertions) if c]
    if not choices:
        return None
    chosen = rng.choice(choices)
    if chosen is insertions:
        t = rng.choice(insertions)
        return _make("negation", text, [(t.start, t.start, "не ")])
    if chosen is pronouns:
        i, j = rng.choice(pronouns)
        new = _positive_pronoun(toks[i].text)
        if new is None:
            return None
        return _make(
            "negation",
            text,
            [
                (toks[i].start, toks[i].end, _style(toks[i].text, new, text)),
                (toks[j].start, toks[j + 1].start, ""),
            ],
        )
    r = rng.choice(removals)
    if r[0] == "del":
        return _deletion("negation", text, r[1], r[2])
    return _make("negation", text, r[1])


# omission -------------------------------------------------------------------------------

# heads of fixed prepositional expressions (по сравнению с, в связи с) and quantity nouns
# that cannot lose their genitive (тысячи туристов)
_FIXED_HEADS = (
    "сравнению",
    "связи",
    "отношению",
    "зависимости",
    "соответствии",
    "помощью",
    "учетом",
    "целью",
    "силу",
    "ходе",
    "течение",
    "рамках",
)
_QUANTITY = (
    "тысяча",
    "миллион",
    "миллиард",
    "триллион",
    "десяток",
    "десятка",
    "сотня",
    "половина",
    "треть",
    "четверть",
    "часть",
    "большинство",
    "ряд",
    "число",
    "количество",
    "множество",
    "группа",
    "сотрудник",
    "член",
    "представитель",
)


def _final_punct(text: str) -> int:
    """Where the sentence-final punctuation (and closing quotes) begins."""
    m = regex.search(r"[.!?…]+[»\"')\]]*\s*$", text)
    return m.start() if m else len(text.rstrip())


def _clause_starter(word: str) -> bool:
    p = _first(word)
    return fold_ru(word) in W.SUBORDINATORS or (
        p is not None and (p.tag.POS in ("GRND", "PRTF") or fold_ru(p.normal_form) == "который")
    )


def _omission_ranges(text: str, toks: list[Tok]) -> list[tuple[int, int]]:
    """Character ranges whose removal drops one meaningful unit."""
    out: list[tuple[int, int]] = []
    end = _final_punct(text)
    commas = [m.start() for m in regex.finditer(r"(?<!\d),|,(?!\d)", text)]
    after = {}
    for c in commas:
        after[c] = next((t for t in toks if t.start > c), None)
    for c1, c2 in itertools.pairwise(commas):
        first = after[c1]
        if first is None or first.start > c2:
            continue
        out.append((c1, c2 + 1) if _clause_starter(first.text) else (c1, c2))
    if commas and commas[-1] < end:
        out.append((commas[-1], end))
    if commas and toks and _clause_starter(toks[0].text):
        out.append((0, commas[0] + 1))
    for i, t in enumerate(toks):
        low = fold_ru(t.text)
        if low in ("и", "но", "а", "однако", "зато") and i > 1:
            start = t.start
            before = text[: t.start].rstrip()
            if before.endswith(","):
                start = len(before) - 1
            stop = next((c for c in commas if c > t.start), end)
            if low == "и" and (g := _group_end(text, toks, i + 1)) is not None:
                stop = min(stop, toks[g - 1].end)
            out.append((start, stop))
        p = _first(t.text)
        if p is None or t.num:
            continue
        if (
            p.tag.POS == "PREP"
            and i + 1 < len(toks)
            and _tight(text, t, toks[i + 1])
            and fold_ru(toks[i + 1].text) not in _FIXED_HEADS
        ):
            g = _group_end(text, toks, i + 1)
            if g is not None:
                out.append((t.start, toks[g - 1].end))
        nxt = toks[i + 1] if i + 1 < len(toks) and _tight(text, t, toks[i + 1]) else None
        if nxt is None or nxt.num:
            continue
        q = _first(nxt.text)
        if q is None:
            continue
        if (p.tag.POS in ("ADJF", "PRTF") and "Apro" not in p.tag and q.tag.POS == "NOUN") or (
            p.tag.POS == "ADVB"
            and q.tag.POS in ("VERB", "INFN", "ADJF", "ADJS", "PRTS")
            and "Ques" not in p.tag
            and low not in ("как", "так", "где", "когда", "тоже")
        ):
            out.append((t.start, t.end))
        elif (
            p.tag.POS == "NOUN"
            and q.tag.POS == "NOUN"
            and _has(nxt.text, "NOUN", "gent")
            and not any(g in q.tag for g in _PROPER)
            and fold_ru(p.normal_form) not in _QUANTITY
        ):
            out.append((nxt.start, nxt.end))
    seen, uniq = set(), []
    for r in out:
        if r not in seen and r[0] < r[1]:
            seen.add(r)
            uniq.append(r)
    return uniq


@_kind
def omission(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> Corruption | None:
    """Delete a meaningful unit: a clause, a prepositional phrase, or a modifier; the rest
    stays well formed. One zero-length span where the material was."""
    toks = _tokens(text)
    if len(toks) < 3:
        return None
    ranges = _omission_ranges(text, toks)
    rng.shuffle(ranges)
    for a, b in ranges:
        c = _deletion("omission", text, a, b)
        if (
            c is not None
            and _well_formed(c.text, text)
            and len(_tokens(c.text)) >= 2
            and len(_tokens(c.text)) < len(toks)
        ):
            return c
    return None


# addition ---------------------------------------------------------------------------


def _phrases(s: str) -> list[str]:
    """Prepositional phrases of a sentence, as written."""
    st = _tokens(s)
    out = []
    for i, t in enumerate(st):
        if (
            _pos(t.text) == "PREP"
            and i + 1 < len(st)
            and _tight(s, t, st[i + 1])
            and fold_ru(st[i + 1].text) not in _FIXED_HEADS
        ):
            g = _group_end(s, st, i + 1)
            if g is not None and 2 <= g - i <= 6:
                out.append(s[t.start : st[g - 1].end])
    return out


def _added_adjective(text: str, toks: list, i: int, rng: random.Random) -> Corruption | None:
    """An adjective the text lacks, agreeing with the noun ``toks[i]``, inserted before it
    (the first of :data:`W.ADDED_ADJECTIVES`, in a random order, that inflects)."""
    like = _in_context(text, toks, i, _first(toks[i].text)).tag
    present = {fold_ru(x.text) for x in toks}
    for adj in rng.sample(W.ADDED_ADJECTIVES, len(W.ADDED_ADJECTIVES)):
        base = _lemma(adj, ("ADJF",))
        want = {"ADJF", _case(like) or "nomn", str(like.number or "sing")}
        if "sing" in want and like.gender in ("masc", "femn", "neut"):
            want.add(str(like.gender))
        if _case(like) == "accs" and like.animacy:
            want.add(str(like.animacy))
        form = (
            None if base is None else (base.inflect(want) or base.inflect(want - {"anim", "inan"}))
        )
        if form is not None and fold_ru(form.word) not in present:
            word = _style("", form.word, text)
            return _make("addition", text, [(toks[i].start, toks[i].start, word + " ")])
    return None


@_kind
def addition(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> Corruption | None:
    """Insert what the source does not say: an adjective before a noun, an adverb before
    a verb, or a phrase of two to six words from a ``pool`` sentence."""
    toks = _tokens(text)
    nouns = [
        i
        for i, t in enumerate(toks)
        if i > 0
        and not t.num
        and _pos(t.text) == "NOUN"
        and not _proper(t.text)
        and not _sentence_start(text, t.start)
        and not toks[i - 1].num
        and _pos(toks[i - 1].text) != "NUMR"
    ]
    verbs = [
        i
        for i, t in enumerate(toks)
        if i > 0
        and not t.num
        and _pos(t.text) in ("VERB", "INFN")
        and not _sentence_start(text, t.start)
    ]
    sents = _pool_sentences(pool, rng, 3)
    options = [o for o, ok in (("adj", nouns), ("adv", verbs), ("pool", sents and toks)) if ok]
    if not options:
        return None
    how = rng.choice(options)
    if how == "adj":
        return _added_adjective(text, toks, rng.choice(nouns), rng)
    if how == "adv":
        i = rng.choice(verbs)
        at = toks[i - 1].start if fold_ru(toks[i - 1].text) == "не" else toks[i].start
        adv = rng.choice(W.ADDED_ADVERBS)
        if any(fold_ru(t.text) == adv for t in toks):
            return None
        return _make("addition", text, [(at, at, adv + " ")])
    phrases = [x for s in sents for x in _phrases(s)]
    if phrases:
        phrase = rng.choice(phrases)
    else:
        st = _tokens(rng.choice(sents))
        if len(st) < 2:
            return None
        n = rng.randint(2, min(6, len(st)))
        k = rng.randrange(0, len(st) - n + 1)
        phrase = " ".join(x.text for x in st[k : k + n])
    head = phrase.split(" ")[0]
    if phrase[:1].isupper() and not _proper(head) and not (len(head) > 1 and head.isupper()):
        phrase = phrase[:1].lower() + phrase[1:]
    if phrase in text:
        return None
    # before a verb, or at the end of a clause
    spots = [
        (toks[i - 1].start if fold_ru(toks[i - 1].text) == "не" else toks[i].start, phrase + " ")
        for i in range(2, len(toks))
        if _tight(text, toks[i - 1], toks[i]) and _pos(toks[i].text) in ("VERB", "INFN")
    ]
    spots += [
        (m.start(), " " + phrase) for m in regex.finditer(r"(?<=\w)(?:,(?!\d)|\s[—–-])", text)
    ]
    spots.append((_final_punct(text), " " + phrase))
    at, new = rng.choice(spots)
    return _make("addition", text, [(at, at, new)])
