"""Character edit distance (Levenshtein: insertions, deletions and substitutions of one
character each) and the test of two texts being within a few edits of each other, which is
how the consensus tells a near-copy of an engine from another engine
(:func:`xlscore.scoring.consensus.alike`).

:func:`edit_distance` is the bit-parallel algorithm of Myers (1999, "A fast bit-vector
algorithm for approximate string matching based on dynamic programming"), in the form
Hyyrö (2003) gives for the distance between two whole strings: one column of the dynamic
programme per character of the longer text, held in the bits of Python integers.
:func:`within` rejects by length, strips the common prefix and suffix, and then, for a few
edits (at most :data:`FEW`), tries the three edits of the first character that differs
(string comparisons only); for more, it rejects by Ukkonen's q-gram lemma (1992: two texts
``k`` edits apart share at least ``max(len) - q + 1 - k * q`` of their q-grams) before the
distance. Most pairs of different texts are refused without the distance.
"""

from __future__ import annotations

import os
from collections import Counter

#: the q-grams of the q-gram filter
Q = 3


def edit_distance(a: str, b: str) -> int:
    """The Levenshtein distance between ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    peq: dict[str, int] = {}
    for i, ch in enumerate(b):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    mask, high = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for ch in a:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & mask
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv
    return score


def grams(text: str) -> Counter[str]:
    """The text's q-grams (:data:`Q` characters), counted: what :func:`within` compares."""
    return Counter(text[i : i + Q] for i in range(len(text) - Q + 1))


#: up to this many edits, :func:`within` tries the edits themselves (at most 3**FEW string
#: comparisons); beyond, the q-gram filter and the distance
FEW = 3


def within(a: str, b: str, k: int) -> bool:
    """Whether ``a`` and ``b`` are at most ``k`` character edits apart."""
    if abs(len(a) - len(b)) > k:
        return False
    head = len(os.path.commonprefix([a, b]))  # noqa: RUF071 (characters, as wanted)
    a, b = a[head:], b[head:]
    tail = len(os.path.commonprefix([a[::-1], b[::-1]]))  # noqa: RUF071
    a, b = a[: len(a) - tail], b[: len(b) - tail]
    if not a or not b:
        return max(len(a), len(b)) <= k
    if k <= FEW:  # the first characters differ: substitute one, or drop one from either side
        return k > 0 and any(
            within(x, y, k - 1) for x, y in ((a[1:], b[1:]), (a[1:], b), (a, b[1:]))
        )
    longer = max(len(a), len(b))
    if sum((grams(a) & grams(b)).values()) < longer - Q + 1 - k * Q:
        return False
    return edit_distance(a, b) <= k
