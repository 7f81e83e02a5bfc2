"""Words: the one place xlscore cuts text into words, always with character offsets.

A *word* is a maximal run of letters, digits and combining marks, or a single other visible
character (punctuation, a symbol, an emoji) with the marks that follow it. Whitespace, control
characters and the zero-width space separate words; format characters (soft hyphen,
zero-width joiners) are dropped by :func:`normalize_text`, so ``сло\u00adво`` is one word. Text
is put in Unicode NFC first, so a decomposed ``й`` or ``ё`` gives the same word as a composed
one.

:func:`split_words` is that definition. Its two options give the views the rule checks
need, cut by the same rule: ``letters`` keeps the runs of letters alone (``G7`` gives ``G``;
punctuation is left out), and ``joiners`` keeps runs joined by a hyphen or an apostrophe with
no space around it as one word (``don't``, ``Ростов-на-Дону``, ``COVID-19``). The encoders
merge their sub-word pieces into these words (:mod:`xlscore.encoders.pieces`), the checks read
them, and the report marks them by their offsets.
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache
from typing import NamedTuple

import regex

# letters, digits and marks form runs; any other visible character is a word of its own,
# with the marks that follow it (an emoji's variation selector, say)
_OTHER = r"[^\p{L}\p{N}\p{M}\p{Z}\p{C}\s]\p{M}*"
# format characters (soft hyphen, zero-width joiners, BOM) vanish inside a word; the
# zero-width space and other separators, controls and unassigned code points become spaces
_FORMAT = regex.compile(r"[^\P{Cf}\u200b]+")
_INVISIBLE = regex.compile(r"[\p{Cc}\p{Co}\p{Cs}\p{Cn}\p{Z}\s\u200b]+")


class Word(NamedTuple):
    """A word and its character span ``text[start:end]``."""

    text: str
    start: int
    end: int


def normalize_text(text: str) -> str:
    """NFC; format characters removed (soft hyphens, zero-width joiners); other invisible
    characters and runs of whitespace turned into single spaces; ends stripped.

    Every encoder sees this text, and word spans refer to it.
    """
    text = _FORMAT.sub("", unicodedata.normalize("NFC", text))
    return _INVISIBLE.sub(" ", text).strip()


def split_words(text: str, *, joiners: str = "", letters: bool = False) -> list[Word]:
    """The words of already-normalised ``text`` with their character spans, in order.

    Args:
        text: the text (:func:`normalize_text`: spans refer to it).
        joiners: characters that join the runs on both sides of them into one word when they
            stand between two runs with no space (``"'’"``: ``don't``; ``"-"``: ``Су-35``).
        letters: keep only runs of letters (with their marks): digits cut a run
            (``G7`` -> ``G``), and punctuation and symbols are no words.

    Returns:
        The words; every one is ``text[start:end]``.
    """
    return list(_split(text, joiners, letters))


@lru_cache(maxsize=16_384)
def _split(text: str, joiners: str, letters: bool) -> tuple[Word, ...]:
    """:func:`split_words`, cached: the checks read each text in several views, and the
    sources of several engines' translations are the same text."""
    return tuple(
        Word(m.group(), m.start(), m.end()) for m in _pattern(joiners, letters).finditer(text)
    )


@cache
def compiled(pattern: str) -> regex.Pattern:
    """``regex.compile(pattern)``, cached: the rule checks match the same few dozen patterns
    millions of times, and the ``regex`` module's own cache costs several microseconds a
    look-up."""
    return regex.compile(pattern)


@lru_cache(maxsize=64)
def _pattern(joiners: str, letters: bool) -> regex.Pattern:
    """The compiled pattern of a :func:`split_words` view."""
    run = r"[\p{L}\p{M}]+" if letters else r"[\p{L}\p{N}\p{M}]+"
    if joiners:
        run = rf"{run}(?:[{regex.escape(joiners)}]{run})*"
    return regex.compile(run if letters else rf"{run}|{_OTHER}")


class OffsetMap(NamedTuple):
    """Where the character boundaries of one text fall in another (:func:`offset_map`):
    ``starts[i]`` for a span starting at ``i``, ``ends[i]`` for one ending there."""

    starts: list[int]
    ends: list[int]


def offset_map(a: str, b: str) -> OffsetMap:
    """Boundaries ``0..len(a)`` of ``a`` in ``b``, where ``b`` is ``a`` after small edits (such
    as :func:`normalize_text`): equal stretches map one to one; an edited stretch maps onto its
    replacement as a whole (so a decomposed letter and its composed form match) and its inner
    boundaries proportionally; characters that only ``b`` has are left outside spans (a start
    falls after them, an end before them). Used to move character spans between a text as
    given and the text a model saw (:func:`move_span`)."""
    n = len(a)
    if a == b:
        return OffsetMap(list(range(n + 1)), list(range(n + 1)))
    # the text and its normalised form, the common case: mapped in one linear pass (difflib
    # takes quadratic time, minutes on a 100 kB line)
    if len(b) <= len(a) and (tracked := _normalised_map(a)) is not None and tracked[0] == b:
        return _inverse(tracked[1], tracked[2], n)
    if len(a) <= len(b) and (tracked := _normalised_map(b)) is not None and tracked[0] == a:
        ends = [0, *tracked[2]]
        return OffsetMap([*tracked[1], len(b)], ends)
    import difflib

    starts, ends = [len(b)] * (n + 1), [0] * (n + 1)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if i1 == i2:  # material only b has: belongs to no span
            continue
        for i in range(i1, i2):
            inner = j1 + (i - i1 if tag == "equal" else round((i - i1) * (j2 - j1) / (i2 - i1)))
            starts[i] = inner
            if i > i1:
                ends[i] = inner
        ends[i2] = j2
    return OffsetMap(starts, ends)


def _normalised_map(given: str) -> tuple[str, list[int], list[int]] | None:
    """:func:`normalize_text` of ``given`` with, for each of its characters, the span
    ``[start, end)`` of ``given`` it comes from; ``None`` where this linear tracking does not
    reproduce :func:`normalize_text` (then :func:`offset_map` falls back on difflib).
    Normalisation acts within grapheme clusters (NFC composes a letter with its marks) and on
    runs of invisible characters, so each cluster is normalised on its own and its span
    shared by the characters it becomes."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for m in _CLUSTER.finditer(given):
        cluster, a, b = m.group(), m.start(), m.end()
        nfc = unicodedata.normalize("NFC", cluster)
        if nfc == cluster:  # each character kept where it is, format characters dropped
            pieces = [(ch, a + k, a + k + 1) for k, ch in enumerate(cluster)]
            pieces = [x for x in pieces if not _FORMAT.fullmatch(x[0])]
        else:  # composed: the cluster's span shared out among what it became
            out = _FORMAT.sub("", nfc)
            pieces = [
                (
                    ch,
                    a + (b - a) * k // len(out),
                    max(a + (b - a) * k // len(out) + 1, a + (b - a) * (k + 1) // len(out)),
                )
                for k, ch in enumerate(out)
            ]
        for ch, lo, hi in pieces:
            if _INVISIBLE.fullmatch(ch):
                if not chars or chars[-1] == " ":  # leading, or inside a run: one space
                    if chars:
                        ends[-1] = hi
                    continue
                ch = " "
            chars.append(ch)
            starts.append(lo)
            ends.append(hi)
    if chars and chars[-1] == " ":
        chars.pop(), starts.pop(), ends.pop()
    text = "".join(chars)
    return (text, starts, ends) if text == normalize_text(given) else None


def _inverse(starts: list[int], ends: list[int], n: int) -> OffsetMap:
    """Boundaries ``0..n`` of the text as given in its normalised form, from where each
    normalised character came from (:func:`_normalised_map`): a span starts at the first
    character not wholly before it and ends after the last character that starts before it."""
    out_starts, out_ends = [len(starts)] * (n + 1), [0] * (n + 1)
    j = 0
    for p in range(n + 1):
        while j < len(starts) and ends[j] <= p:
            j += 1
        out_starts[p] = j
    j = 0
    for p in range(n + 1):
        while j < len(starts) and starts[j] < p:
            j += 1
        out_ends[p] = j
    return OffsetMap(out_starts, out_ends)


_CLUSTER = regex.compile(r"\X", regex.DOTALL)


def move_span(where: OffsetMap, start: int, end: int) -> tuple[int, int]:
    """The span ``start:end`` of one text in the other (``where``: :func:`offset_map`); an
    empty span (a position) stays empty, and a span of characters the other text lacks
    becomes empty."""
    a = where.starts[start]
    return (a, a) if end <= start else (min(a, where.ends[end]), where.ends[end])
