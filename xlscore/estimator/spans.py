"""Error spans: where in a translation the estimator's word head sees an error, and how
predicted spans compare with the ones raters marked.

The word head (:mod:`xlscore.estimator.crossencoder`) gives each translation piece the probabilities
of no error, a minor and a major error. :func:`word_errors` gathers them by word (xlscore's
words, :mod:`xlscore.text.words`): a word's error probability is the largest of its pieces'
(``1 - P(no error)``). :func:`decode_spans` keeps the words whose probability reaches a
threshold, merges consecutive ones into a span and gives it the more probable severity.
Offsets refer to the translation as the caller gave it (:func:`move_words` moves them from
the normalised text the model read).

Agreement with raters (:func:`word_mcc`, :func:`span_f1`) is measured as the WMT quality
estimation tasks do: the Matthews correlation of OK/BAD tags over the words of a whole set,
and character-level precision, recall and F1 of the marked characters.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from xlscore.results import ErrorSpan
from xlscore.text.words import move_span, offset_map, split_words


class WordError(NamedTuple):
    """The word head's view of one word of a translation: its characters ``start:end``, the
    probability that it is part of an error (the largest of its pieces') and the summed
    probabilities of a minor and of a major error over its pieces. (A named tuple: tens of
    them per translation are made.)"""

    start: int
    end: int
    probability: float
    minor: float
    major: float


def word_errors(
    text: str, offsets: Sequence[tuple[int, int]], probs: np.ndarray
) -> tuple[WordError, ...]:
    """Each word of ``text`` (the translation the model read) with the error probabilities of
    the pieces overlapping it, from the pieces' character ``offsets`` and class probabilities
    ``probs`` (``[pieces, 3]``: no error, minor, major). Words no piece reaches are left out."""
    rows = np.asarray(probs, dtype=np.float64).reshape(-1, 3).tolist()
    words = split_words(text)
    starts = [w.start for w in words]
    least: list[float | None] = [None] * len(words)  # the least "no error" of its pieces
    minor, major = [0.0] * len(words), [0.0] * len(words)
    for (a, b), (ok, p_minor, p_major) in zip(offsets, rows):
        if a >= b:
            continue  # an empty span reaches no word
        # the words a piece overlaps are one run: from the last starting before its end back
        k = bisect.bisect_left(starts, b) - 1
        while k >= 0 and words[k].end > a:
            low = least[k]
            least[k] = ok if low is None or ok < low else low
            minor[k] += p_minor  # summed in piece order
            major[k] += p_major
            k -= 1
    return tuple(
        WordError(w.start, w.end, 1.0 - low, minor[i], major[i])
        for i, (w, low) in enumerate(zip(words, least))
        if low is not None
    )


def decode_spans(text: str, words: Sequence[WordError], threshold: float) -> tuple[ErrorSpan, ...]:
    """Spans of ``text``: the words (:func:`word_errors`) whose error probability reaches
    ``threshold``, consecutive ones merged; severity the more probable of minor and major."""
    spans: list[list] = []  # [start, end, minor, major, probability, last word]
    position = {w.start: k for k, w in enumerate(split_words(text))}
    for w in words:
        if w.probability < threshold:
            continue
        k = position.get(w.start, -2)
        if spans and spans[-1][5] == k - 1:
            s = spans[-1]
            s[1], s[2], s[3], s[4], s[5] = (
                w.end,
                s[2] + w.minor,
                s[3] + w.major,
                max(s[4], w.probability),
                k,
            )
        else:
            spans.append([w.start, w.end, w.minor, w.major, w.probability, k])
    return tuple(
        ErrorSpan(a, b, text[a:b], "major" if major >= minor else "minor", round(p, 4))
        for a, b, minor, major, p, _ in spans
    )


def move_words(words: Sequence[WordError], seen: str, given: str) -> tuple[WordError, ...]:
    """:func:`word_errors` of ``seen`` (the normalised text) as offsets into ``given``."""
    if seen == given:
        return tuple(words)
    where = offset_map(seen, given)
    return tuple(
        WordError(*move_span(where, w.start, w.end), w.probability, w.minor, w.major) for w in words
    )


def move_spans(spans: Sequence[ErrorSpan], seen: str, given: str) -> tuple[ErrorSpan, ...]:
    """Spans of ``seen`` (the normalised text) as spans of ``given``, their text re-read."""
    if seen == given:
        return tuple(spans)
    where = offset_map(seen, given)
    out = []
    for s in spans:
        a, b = move_span(where, s.start, s.end)
        out.append(ErrorSpan(a, b, given[a:b], s.severity, s.probability))
    return tuple(out)


# ---------------------------------------------------------------------- agreement with raters
def bad_words(text: str, spans: Iterable[tuple[int, int]]) -> list[bool]:
    """For each word of ``text`` (:func:`xlscore.text.words.split_words`), whether a span
    overlaps it (a zero-length span marks the word that ends at or spans its position)."""
    words = split_words(text)
    out = [False] * len(words)
    for a, b in spans:
        for i, w in enumerate(words):
            if (a < w.end and w.start < b) if a < b else (w.start < a <= w.end):
                out[i] = True
    return out


def mcc(predicted: Sequence[bool], gold: Sequence[bool]) -> float:
    """Matthews correlation coefficient of two sequences of BAD (True) / OK tags (0 when a
    side has a single class)."""
    p, g = np.asarray(predicted, bool), np.asarray(gold, bool)
    tp, tn = float((p & g).sum()), float((~p & ~g).sum())
    fp, fn = float((p & ~g).sum()), float((~p & g).sum())
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return (tp * tn - fp * fn) / den if den else 0.0


def word_mcc(
    texts: Sequence[str],
    predicted: Sequence[Iterable[tuple[int, int]]],
    gold: Sequence[Iterable[tuple[int, int]]],
) -> float:
    """MCC of BAD/OK word tags over every word of every text: predicted spans against the
    raters' spans (character offsets into each text)."""
    p, g = [], []
    for text, a, b in zip(texts, predicted, gold):
        p += bad_words(text, a)
        g += bad_words(text, b)
    return mcc(p, g)


def span_f1(
    texts: Sequence[str],
    predicted: Sequence[Iterable[tuple[int, int]]],
    gold: Sequence[Iterable[tuple[int, int]]],
) -> tuple[float, float, float]:
    """Character-level precision, recall and F1 of the predicted spans against the gold
    ones, summed over all texts (whitespace characters not counted)."""
    tp = n_pred = n_gold = 0
    for text, a, b in zip(texts, predicted, gold):
        mark_p = np.zeros(len(text), bool)
        mark_g = np.zeros(len(text), bool)
        for s, e in a:
            mark_p[s:e] = True
        for s, e in b:
            mark_g[s:e] = True
        ink = np.array([not c.isspace() for c in text], bool)
        tp += int((mark_p & mark_g & ink).sum())
        n_pred += int((mark_p & ink).sum())
        n_gold += int((mark_g & ink).sum())
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)
