"""The ``degenerate`` check: output that is not a translation of its source at all.

A quality estimator trained on human judgments of real machine translation has seen little
garbage, and can score it as typical (issue 71: ``и и и ...`` twenty times scored above a
correct translation). These rules find what a model's training data lacks; each measures how
much of the translation is degenerate, a **share** from 0 to 1:

* ``repetition``: a word or a run of up to :data:`MAX_UNIT` words repeated back to back
  (:data:`MIN_COPIES` times or more; a source that repeats itself as often excuses it); the
  share is the words in the copies after the first.
* ``no letters``: a translation without a letter for a source with words (``...!!!???``);
  the share is 1.
* ``keyboard mash``: Cyrillic words no dictionary knows that run along a keyboard row
  (``фывапр``), have no vowel, or hold a letter three times in a row; the share is theirs of
  the translation's words, counted from :data:`MIN_MASH` on.
* ``length``: a translation far too short or far too long for its source, by letters
  (outside :data:`SHORT` .. :data:`LONG` times the source's, where real MT almost never lies:
  0.01% and 99.99% of 19,992 en-ru news translations of sources of 20 letters or more); the
  share grows with the distance (``Да.`` for a sentence of 80 letters: 0.93).

The pair's share (:attr:`Degeneracy.share`, the kinds combined as independent pulls) pulls the
estimator's score towards the floor as the share of foreign words does
(:func:`xlscore.scoring.blend.estimator_score`), and from :data:`FLAG_SHARE` on the translation is
flagged ``degenerate``: it is ranked last and takes no part in the candidates' consensus, as
an empty or untranslated one. The findings say what was found; they cost the score nothing
beyond that pull (``Finding.counts`` marks them as costing points).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from xlscore.finding import Finding
from xlscore.text.words import Word, split_words

#: the longest run of words a repetition is looked for in
MAX_UNIT = 6
#: copies back to back that make a repetition (a single word: one more)
MIN_COPIES = 3
#: letters of the source from which a translation can be too short
MIN_LETTERS = 30
#: a translation with fewer than this many letters per letter of its source is too short ...
SHORT = 0.35
#: ... and one with more than this many (plus :data:`LONG_SLACK`) too long
LONG = 3.0
LONG_SLACK = 30
#: mash words from which keyboard mash is reported
MIN_MASH = 2
#: from this share on a translation is flagged ``degenerate``
FLAG_SHARE = 0.5

_VOWELS = frozenset("аеёиоуыэюяaeiouy")
_ROWS = ("йцукенгшщзхъ", "фывапролджэ", "ячсмитьбю", "qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS = frozenset(
    pair for row in _ROWS for a, b in itertools.pairwise(row) for pair in (a + b, b + a)
)


@dataclass(frozen=True)
class Degeneracy:
    """How degenerate a translation is: ``share`` (0..1, the kinds combined) and the findings
    that say where and why (``check`` ``"degenerate"``)."""

    share: float
    findings: tuple[Finding, ...]

    @property
    def flagged(self) -> bool:
        """Whether the translation is flagged ``degenerate`` (:data:`FLAG_SHARE`)."""
        return self.share >= FLAG_SHARE


NONE = Degeneracy(0.0, ())


@lru_cache(maxsize=65_536)
def degeneracy(source: str, translation: str) -> Degeneracy:
    """The degeneracy of ``translation`` as a translation of ``source`` (both normalised:
    :func:`xlscore.text.words.normalize_text`; spans refer to them). Never raises.

    Args:
        source: the English source.
        translation: the translation.

    Returns:
        Its share and findings; :data:`NONE` for a sound translation or an empty side (an
        empty translation is flagged ``empty`` elsewhere).
    """
    if not source.strip() or not translation.strip():
        return NONE
    src = split_words(source, letters=True)
    tr = split_words(translation, letters=True)
    found = [
        f
        for f in (
            _repetition(src, tr, translation),
            _no_letters(src, tr, translation),
            _mash(source, tr),
            _length(src, tr, translation),
        )
        if f is not None
    ]
    if not found:
        return NONE
    findings = tuple(replace(f, share=share) for f, share in found)
    return Degeneracy(degenerate_share(findings), findings)


def degenerate_share(findings: Iterable[Finding]) -> float:
    """The share of a translation its ``degenerate`` findings cover, each kind an independent
    pull (``1 - prod(1 - share)``, in one order whatever the findings' order): what the blend
    reads from a pair's findings, which carry their shares, instead of checking again."""
    kept = 1.0
    for share in sorted(f.share for f in findings if f.check == "degenerate" and f.share):
        kept *= 1.0 - share
    return 1.0 - kept


def _check_degenerate(source: str, translation: str) -> list[Finding]:
    """The registry's view of :func:`degeneracy`: its findings."""
    return list(degeneracy(source, translation).findings)


def _finding(message: str, span: tuple[int, int] | None) -> Finding:
    return Finding("degenerate", message, span, None, counts=True)


def _tandem(words: list[str]) -> tuple[int, int, int]:
    """The longest run of back-to-back copies in ``words``: ``(start, unit, copies)``, the
    run covering ``words[start : start + unit * copies]`` (``copies`` 1: none)."""
    best = (0, 1, 1)
    n = len(words)
    for unit in range(1, MAX_UNIT + 1):
        i = 0
        while i + 2 * unit <= n:
            copies = 1
            while words[i + copies * unit : i + (copies + 1) * unit] == words[i : i + unit]:
                copies += 1
            if copies > 1 and copies * unit > best[1] * best[2]:
                best = (i, unit, copies)
            i += max(1, (copies - 1) * unit) if copies > 1 else 1
    return best


def _repetition(src: list[Word], tr: list[Word], text: str) -> tuple[Finding, float] | None:
    """Words repeated back to back, more often than the source repeats itself."""
    words = [w.text.lower() for w in tr]
    start, unit, copies = _tandem(words)
    if copies < MIN_COPIES + (unit == 1):
        return None
    if _tandem([w.text.lower() for w in src])[2] >= copies:
        return None
    share = (copies - 1) * unit / len(words)
    repeated = " ".join(w.text for w in tr[start : start + unit])
    first, last = tr[start + unit], tr[start + unit * copies - 1]
    return (
        _finding(
            f"repetition: '{repeated}' {copies} times in a row, {share:.0%} of the "
            "translation's words",
            (first.start, last.end),
        ),
        share,
    )


def _no_letters(src: list[Word], tr: list[Word], text: str) -> tuple[Finding, float] | None:
    """No letter at all for a source with words."""
    if tr or not any(len(w.text) > 1 for w in src):
        return None
    return _finding("no letters: the translation has no words, its source has", (0, len(text))), 1.0


@lru_cache(maxsize=100_000)
def _is_mash(word: str) -> bool:
    """A Cyrillic word of four letters or more that no dictionary knows and that runs along a
    keyboard row, has no vowel, or holds a letter three times in a row."""
    w = word.lower()
    if len(w) < 4 or word.isupper() or not any("а" <= c <= "я" or c == "ё" for c in w):
        return False
    from xlscore.text.morph import is_known

    if is_known(w):
        return False
    along = sum(a + b in _NEIGHBOURS for a, b in itertools.pairwise(w)) / (len(w) - 1)
    tripled = any(a == b == c for a, b, c in zip(w, w[1:], w[2:]))
    return along >= 0.6 or not _VOWELS.intersection(w) or tripled


def _mash(source: str, tr: list[Word]) -> tuple[Finding, float] | None:
    """Keyboard mash among the translation's words (words of the source excepted)."""
    if not tr:
        return None
    in_source = source.lower()
    mash = [w for w in tr if _is_mash(w.text) and w.text.lower() not in in_source]
    if len(mash) < MIN_MASH and len(mash) < len(tr):
        return None
    share = len(mash) / len(tr)
    shown = ", ".join(f"'{w.text}'" for w in mash[:3]) + (", ..." if len(mash) > 3 else "")
    return (
        _finding(
            f"keyboard mash: {len(mash)} of {len(tr)} words are no words ({shown})",
            (mash[0].start, mash[-1].end),
        ),
        share,
    )


def _letters(words: list[Word]) -> int:
    return sum(len(w.text) for w in words)


def _length(src: list[Word], tr: list[Word], text: str) -> tuple[Finding, float] | None:
    """A translation far too short or far too long for its source, by letters."""
    ls, lt = _letters(src), _letters(tr)
    if not lt:
        return None
    if ls >= MIN_LETTERS and lt < SHORT * ls:
        share = 1.0 - lt / (SHORT * ls)
        return (
            _finding(f"too short: {lt} letters for a source of {ls} (an omission?)", None),
            share,
        )
    most = LONG * ls + LONG_SLACK
    if lt > most:
        share = 1.0 - most / lt
        return (
            _finding(f"too long: {lt} letters for a source of {ls} (an addition?)", None),
            share,
        )
    return None
