"""The ``name`` check: Latin-script names of the source that the translation lacks (copied,
transliterated or translated), and capitalised Cyrillic names of the translation that nothing
in the source explains.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import regex

from xlscore.checks import name_words as W
from xlscore.checks.common import ROMAN, _sentence_initial
from xlscore.checks.known_names import KNOWN_NAMES
from xlscore.checks.translit import (
    _first_letters,
    _plain_latin,
    _segments,
    _spelt,
    name_matches,
)
from xlscore.finding import Finding
from xlscore.text.morph import fold_ru, is_known, parses
from xlscore.text.words import Word, compiled, split_words


class _RuText:
    """The translation's words, prepared for name look-ups (its Cyrillic words and acronyms
    only when a look-up first needs them)."""

    def __init__(self, translation: str):
        self.translation = translation
        self.lower = fold_ru(translation)
        self.words = [fold_ru(w.text) for w in split_words(translation, letters=True)]
        self.spaced = "".join(" " + w for w in self.words)  # each word after a space

    @functools.cached_property
    def by_first(self) -> dict[str, list[str]]:
        """Its Cyrillic words, their parts and the parts joined, by first letter."""
        words = split_words(self.translation, joiners="-‑'’", letters=True)
        by_first: dict[str, list[str]] = {}
        for w in {p for word in words for p in _cyrillic_parts(word.text)} - {""}:
            by_first.setdefault(w[0], []).append(w)
        return by_first

    @functools.cached_property
    def caps_cyr(self) -> bool:
        """It has a Cyrillic acronym."""
        return bool(_CAPS_CYR.search(self.translation))

    def has_stem(self, stem: str) -> bool:
        """A word starts with the stem (consecutive words for a stem with spaces)."""
        parts = stem.split()
        n = len(parts)
        return (
            " " + parts[0] in self.spaced
            if n == 1
            else any(
                all(self.words[i + k].startswith(parts[k]) for k in range(n))
                for i in range(len(self.words) - n + 1)
            )
        ) or ("-" in stem and stem in self.lower)

    def transliterated(self, name: str) -> bool:
        """A word of the translation transliterates the name."""
        return any(
            name_matches(name, w) for f in _name_firsts(name) for w in self.by_first.get(f, ())
        )

    def copied(self, name: str) -> bool:
        """The name appears as it is."""
        return fold_ru(name) in self.lower


_CYRILLIC = regex.compile(r"\p{Cyrillic}+")


_CAPS_CYR = regex.compile(r"(?<![\p{L}])\p{Lu}[\p{Lu}&&\p{Cyrillic}]+(?![\p{L}])")


@functools.lru_cache(maxsize=100_000)
def _name_firsts(name: str) -> frozenset[str]:
    """The Cyrillic letters a transliteration of a Latin name may start with."""
    spelt = _spelt(name) or ""
    return frozenset(_first_letters(_segments(_plain_latin(name)))) | set(spelt[:1])


@functools.lru_cache(maxsize=100_000)
def _cyrillic_parts(word: str) -> tuple[str, ...]:
    """A word's folded Cyrillic parts between hyphens and apostrophes, and them joined."""
    parts = [p for p in compiled(r"[-‑'’]").split(fold_ru(word)) if _CYRILLIC.fullmatch(p)]
    return (*parts, "".join(parts))


_LATIN = regex.compile(r"\p{Latin}[\p{Latin}\p{M}'’]*")
_DOTTED = regex.compile(r"(?<![\p{L}.])(?:\p{Lu}\.){2,}(?![\p{L}])")
_CONTRACTION = regex.compile(r"['’](?:s|m|ve|ll|d|re)$|['’]$")
_NEGATED = regex.compile(r"n['’]t$", regex.I)
_ROMAN = regex.compile(r"^(?=[IVXLC]{2,}$)" + ROMAN + "$")
_QUOTE_SPAN = regex.compile(r"[\"“«„]([^\"”»“«„]{1,80})[\"”»“]")


def _latin_words(text: str) -> list[Word]:
    """The Latin-script words of ``text`` (apostrophes joining: ``Putin's``, ``O'Neill``)."""
    return [w for w in split_words(text, joiners="'’", letters=True) if _LATIN.fullmatch(w.text)]


def _capitalised(text: str) -> list[Word]:
    """Capitalised words (hyphens joining: ``Ростов-на-Дону``), not straight after a digit."""
    return [
        w
        for w in split_words(text, joiners="-‑", letters=True)
        if w.text[0].isupper() and not (w.start and text[w.start - 1].isdigit())
    ]


_KNOWN_LOWER = {k.lower(): k for k in KNOWN_NAMES if not k.isupper()}


class _Name(NamedTuple):
    text: str
    start: int
    end: int
    kind: str  # "cap", "acronym" or "camel"
    initial: bool  # may start a sentence


@functools.lru_cache(maxsize=4096)
def _source_names(source: str) -> tuple[tuple[_Name, ...], bool]:
    """Capitalised words of the source, and whether it is written in title case (a
    headline, where capitals say nothing); found once for all the source's translations."""
    quoted = [
        (m.start(1), m.end(1)) for m in _QUOTE_SPAN.finditer(source) if len(m.group(1).split()) <= 6
    ]
    dotted = [(m.group().replace(".", ""), m.start(), m.end()) for m in _DOTTED.finditer(source)]
    raw = [
        (w.text, w.start, w.end)
        for w in _latin_words(source)
        if not any(a <= w.start < b for _, a, b in dotted)
    ]
    raw = sorted(raw + dotted, key=lambda r: r[1])
    caps = [(s, e) for t, s, e in raw if len(t) >= 2 and t.isupper()]
    content = [
        t
        for t, _, _ in raw
        if len(t) >= 3
        and not t.isupper()
        and t.lower() not in ("the", "and", "for", "from", "with", "into", "over")
    ]
    title = len(content) >= 2 and sum(t[0].isupper() for t in content) >= 0.7 * len(content)
    names: list[_Name] = []
    for tok, s, e in raw:
        if _NEGATED.search(tok):
            continue
        base = _CONTRACTION.sub("", tok)
        letters = base.replace("'", "").replace("’", "")
        if len(letters) < 2 or not letters[0].isupper():
            continue
        if letters.isupper():
            if _ROMAN.match(letters):
                continue
            in_run = any(
                (0 <= s - b <= 3 or 0 <= a - e <= 3)
                and a != s
                and not compiled(r"\p{L}").search(source[min(b, e) : max(a, s)])
                for a, b in caps
            )
            text, kind = (letters.title(), "cap") if in_run else (letters, "acronym")
        elif len(letters) >= 3 and letters[-1] == "s" and letters[:-1].isupper():
            text, kind = letters[:-1], "acronym"  # MPs
        elif any(c.isupper() for c in letters[1:]):
            text, kind = letters, "camel"
        elif not any(a <= s < b for a, b in quoted):
            text, kind = letters, "cap"
        else:
            continue
        names.append(_Name(text, s, s + len(base), kind, _sentence_initial(source, s)))
    return tuple(names), title


def _runs(spans: list[tuple[int, int]], text: str) -> list[list[int]]:
    """Indexes of consecutive words (capitalised ones, at ``spans``) joined by a space or a
    hyphen, run by run."""
    runs: list[list[int]] = []
    for k, (start, _) in enumerate(spans):
        if runs and text[spans[k - 1][1] : start] in (" ", "-", "‑", "\u00a0"):
            runs[-1].append(k)
        else:
            runs.append([k])
    return runs


def _institutional(runs: list[list[_Name]], source: str) -> set[int]:
    """Indexes of the runs that name an institution, which Russian translates word by word:
    a run that ends in ``Institute``, ``School``, ``Party``... (``National Cancer Institute``),
    or runs joined by ``of``/``for`` after such a word (``Centers for Disease Control``,
    ``University of Michigan``)."""
    out: set[int] = set()
    i = 0
    while i < len(runs):
        group = [i]
        while group[-1] + 1 < len(runs):
            gap = source[runs[group[-1]][-1].end : runs[group[-1] + 1][0].start].strip().lower()
            if gap not in W.NAME_CONNECTORS:
                break
            group.append(group[-1] + 1)
        ends = any(runs[k][-1].text.lower() in W.INSTITUTION_WORDS for k in group)
        heads = len(group) > 1 and runs[group[0]][0].text.lower() in W.INSTITUTION_WORDS
        if ends or heads:
            out.update(group)
        i = group[-1] + 1
    return out


def _missing(name: str, span: tuple[int, int]) -> Finding:
    """A finding for a source name at ``span`` that the translation lacks."""
    return Finding("name", f"{name} in the source, not in the translation", None, span)


def _known_match(key: str, ru: _RuText) -> bool:
    """A name of the table appears translated, copied or transliterated."""
    return (
        any(ru.has_stem(stem) for stem in KNOWN_NAMES[key])
        or ru.copied(key)
        or ru.transliterated(key)
    )


def _check_names(source: str, translation: str) -> list[Finding]:
    """Source names the translation lacks, and translation names the source lacks."""
    names, title = _source_names(source)
    ru = _RuText(translation)
    out: list[Finding] = []
    runs = [[names[k] for k in run] for run in _runs([(n.start, n.end) for n in names], source)]
    institutional = _institutional(runs, source)
    for run_index, run in enumerate(runs):
        texts = [n.text for n in run]
        done: set[int] = set()
        missing: list[_Name] = []
        key: str | None  # a known name: a phrase below, then one word's table entry
        matched_any = False
        # phrases the table knows (United States, White House), longest first
        for size in range(min(4, len(run)), 1, -1):
            for i in range(len(run) - size + 1):
                key = " ".join(texts[i : i + size])
                if key not in KNOWN_NAMES or any(i + k in done for k in range(size)):
                    continue
                done.update(range(i, i + size))
                if _known_match(key, ru):
                    matched_any = True
                else:
                    out.append(_missing(key, (run[i].start, run[i + size - 1].end)))
        joined = len(run) > 1 and ru.transliterated("".join(texts))
        for idx, n in enumerate(run):
            if idx in done:
                continue
            key = (
                _KNOWN_LOWER.get(n.text.lower())
                if n.kind != "acronym"
                else (n.text if n.text in KNOWN_NAMES else None)
            )
            if key is not None:
                if n.initial or (title and n.kind == "cap"):
                    continue
                if _known_match(key, ru):
                    matched_any = True
                elif not (n.kind == "acronym" and ru.caps_cyr):
                    out.append(_missing(key, (n.start, n.end)))
                continue
            low = n.text.lower()
            if low in W.NOT_NAMES or (
                n.kind == "cap" and (n.initial or title or source[n.start : n.end].isupper())
            ):
                continue
            if n.kind == "cap" and len(low) >= 6 and low.endswith(W.COMMON_SUFFIXES):
                continue  # Intelligence, Medical: common words, translated
            tail = compiled(r"['’]").split(source[n.start : n.end])[-1]
            if joined or any(
                ru.copied(t) or ru.transliterated(t) for t in {n.text, tail} if len(t) >= 2
            ):
                matched_any = True
                continue
            if run_index in institutional:
                continue
            if n.kind == "acronym" and ru.caps_cyr:
                continue  # a translated acronym (ВОЗ, ФБР): cannot tell which
            missing.append(n)
        if matched_any and len(run) > 1:
            continue  # Kim Jong Un -> Ким Чен Ын: one part found, the rest may differ
        out.extend(_missing(n.text, (n.start, n.end)) for n in missing)
    out.extend(_added_names(source, translation))
    return out


@functools.lru_cache(maxsize=256)
def _ru_text(translation: str) -> _RuText:
    """The prepared translation (the evidence asks about several names of one pair)."""
    return _RuText(translation)


def name_rendered(name: str, translation: str) -> bool:
    """Whether a capitalised source word (``Macron``, ``Brazil``, ``Geneva``) appears in the
    translation copied, transliterated (``Макрон``, ``Бразилии``) or as one of the name's known
    translations (``Женеве``): what the name check accepts, for one word, wherever it stands
    in its sentence."""
    if len(name) < 2 or not name[:1].isupper():
        return False
    ru = _ru_text(translation)
    key = _KNOWN_LOWER.get(name.lower()) or (name if name in KNOWN_NAMES else None)
    if key is not None and _known_match(key, ru):
        return True
    return ru.copied(name) or ru.transliterated(name)


@functools.lru_cache(maxsize=100_000)
def _name_like_ru(word: str) -> bool:
    """Whether a capitalised Cyrillic word looks like a name: unknown to pymorphy3, or parsed
    first as a first name, surname, place or organisation."""
    low = fold_ru(word)
    if not is_known(low):
        return True
    first = parses(low)[:1]
    return bool(first and first[0].grammemes & {"Name", "Surn", "Patr", "Geox", "Orgn", "Trad"})


def _tagged_name(word: str) -> bool:
    """pymorphy3 knows the word as a name, surname, place or organisation (ООН, США)."""
    first = parses(fold_ru(word))[:1]
    return bool(first and first[0].grammemes & {"Name", "Surn", "Geox", "Orgn"})


_ORDER = {key: i for i, key in enumerate(KNOWN_NAMES)}  # the table's order
_PHRASES = [key for key in KNOWN_NAMES if " " in key]  # matched as phrases in the source


@functools.lru_cache(maxsize=4096)
def _source_words_and_stems(source: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The source's Latin words (and their parts after an apostrophe) and the Russian stems
    of the known names it holds, found once for all its translations."""
    src_words = {_CONTRACTION.sub("", w.text) for w in _latin_words(source)}
    src_words |= {m.group().replace(".", "") for m in _DOTTED.finditer(source)}
    src_words |= {compiled(r"['’]").split(w)[-1] for w in src_words}
    src_words = {w for w in src_words if len(w) >= 2}
    keys = src_words | {_KNOWN_LOWER.get(w.lower(), "") for w in src_words}
    found = {k for k in keys if k in KNOWN_NAMES} | {k for k in _PHRASES if k in source}
    stems = [st for key in sorted(found, key=_ORDER.__getitem__) for st in KNOWN_NAMES[key]]
    stems += ["сша"] if "$" in source else []
    return frozenset(src_words), tuple(stems)


def _added_names(source: str, translation: str) -> list[Finding]:
    """Capitalised Cyrillic names of the translation that nothing in the source explains."""
    src_words, stems = _source_words_and_stems(source)
    caps = _capitalised(translation)
    status: list[bool | None] = []  # None: not a candidate, True: explained, False: not
    for m in caps:
        word = m.text
        parts = [p for p in compiled(r"[-‑]").split(word) if p]
        if (
            not compiled(r"\p{Cyrillic}+(?:[-‑]\p{Cyrillic}+)*").fullmatch(word)
            or (len(parts) > 1 and not _name_like_ru(word))
            or not any(
                len(p) >= 3 and _name_like_ru(p) and (not p.isupper() or _tagged_name(p))
                for p in parts
            )
        ):
            status.append(None)
            continue
        low = fold_ru(word)
        low_parts = [fold_ru(p) for p in parts]
        explained = any(st in low for st in stems if " " not in st)
        if not explained:
            explained = all(
                len(lp) < 3 or any(name_matches(sw, lp) for sw in src_words) for lp in low_parts
            )
        if not explained and len(parts) > 1:
            explained = any(name_matches(sw, low) for sw in src_words)
        status.append(explained)
    # a name of several words is explained when one of its words is (Ким Чен Ына)
    run_ok = list(status)
    for run in _runs([(m.start, m.end) for m in caps], translation):
        if any(status[k] for k in run):
            for k in run:
                run_ok[k] = True
    out: list[Finding] = []
    for i, m in enumerate(caps):
        if run_ok[i] is not False or _sentence_initial(translation, m.start):
            continue
        if fold_ru(m.text).startswith(W.RU_NAME_PREFIXES):
            continue
        out.append(Finding("name", f"{m.text}: name not in the source", (m.start, m.end), None))
    return out
