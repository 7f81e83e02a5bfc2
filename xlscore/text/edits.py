"""Character edit distance (Levenshtein: insertions, deletions and substitutions of one
character each) and the test of two texts being within a few edits of each other, which is
how the consensus tells a near-copy of an engine from another engine
(:func:`xlscore.metric.consensus.alike`).

:func:`edit_distance` is the bit-parallel algorithm of Myers (1999, "A fast bit-vector
algorithm for approximate string matching based on dynamic programming"), in the form
Hyyrö (2003) gives for the distance between two whole strings: one column of the dynamic
programme per character of the longer text, held in the bits of Python integers.
:func:`within` first strips the common prefix and suffix and rejects by length and by
Ukkonen's q-gram lemma (1992: two texts ``k`` edits apart share at least
``max(len) - q + 1 - k * q`` of their q-grams), so that most pairs of different texts are
refused without the distance.
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


def within(
    a: str,
    b: str,
    k: int,
    grams_a: Counter[str] | None = None,
    grams_b: Counter[str] | None = None,
) -> bool:
    """Whether ``a`` and ``b`` are at most ``k`` character edits apart (``grams_*``: their
    :func:`grams`, when the caller has them for several comparisons)."""
    if abs(len(a) - len(b)) > k:
        return False
    if a == b:
        return True
    longer = max(len(a), len(b))
    if longer - Q + 1 - k * Q > 0:
        shared = (grams_a or grams(a)) & (grams_b or grams(b))
        if sum(shared.values()) < longer - Q + 1 - k * Q:
            return False
    head = len(os.path.commonprefix([a, b]))  # noqa: RUF071 (characters, as wanted)
    a, b = a[head:], b[head:]
    tail = len(os.path.commonprefix([a[::-1], b[::-1]]))  # noqa: RUF071
    return edit_distance(a[: len(a) - tail], b[: len(b) - tail]) <= k
