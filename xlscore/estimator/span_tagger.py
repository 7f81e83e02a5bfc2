"""Error spans from the word head joined with what is known to be precise (issue 63).

The word head alone tags too much on good translations and less well than a one-line rule
(every word with a Latin letter is an error, in a Russian translation). :class:`SpanTagger`
reads both: for each word of the translation it takes the head's error probability
(:class:`~xlscore.estimator.spans.WordError`) and a few facts about the word (:data:`FEATURES`:
Latin letters, a Latin word copied from the source, a run of Latin words, a check finding that
points at it, ...), and gives a calibrated probability that the word is part of an error, a
logistic combination fitted on held-out word predictions of the raters' sets
(``tools/span_tagger.py``). Words at or above ``threshold`` form spans; a span shorter
than ``min_chars`` letters or digits is dropped (a lone comma is no error a reviewer can check).

The tagger is stored in the estimator file's metadata (``span_tagger``), as the score formula
is (:mod:`xlscore.estimator.formula`); a file without it decodes the head's probabilities at
its recipe's threshold, as before.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import NamedTuple

import numpy as np
import regex

from xlscore.errors import ModelError
from xlscore.estimator.spans import WordError
from xlscore.results import ErrorSpan
from xlscore.text.scripts import has_latin
from xlscore.text.words import Word, split_words

#: the facts read for each word, in the order of :attr:`SpanTagger.weights`
FEATURES = (
    "head",  # the logit of the word head's error probability
    "major",  # the head's share of a major error among its error probability
    "neighbour",  # the larger head logit of the words before and after
    "latin",  # the word has a Latin letter
    "copied",  # ... and is a word of the source (left untranslated)
    "latin_run",  # ... and is in a run of three or more Latin words (a foreign passage)
    "capital",  # ... and starts with a capital letter (a name kept in its spelling)
    "finding",  # a rule check's finding points at it (a number, a name, a negation)
    "digit",  # the word has a digit
    "no_letter",  # the word has no letter or digit (punctuation, symbols)
)

_INK = regex.compile(r"[\p{L}\p{N}]")
_SOURCE_WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}'’\-.]*")
#: a head probability is clipped to [EPS, 1 - EPS] before its logit
EPS = 1e-4
#: Latin words in a row that make a foreign passage
RUN = 3


class Pointer(NamedTuple):
    """A character span of the translation a rule check's finding points at; ``counts``:
    the finding is one that costs points in the score (a check that measured precise on MT,
    e.g. a number the source lacks, or degenerate output), so its words are an error span
    whatever the head says."""

    start: int
    end: int
    counts: bool


def pointed_spans(source: str, translation: str) -> list[Pointer]:
    """What the rule checks' findings point at in ``translation`` (every check, whatever the
    scorer's fields: the spans do not depend on what else is computed)."""
    from xlscore.checks import find_mismatches

    return [Pointer(*f.span, f.counts) for f in find_mismatches(source, translation) if f.span]


@functools.lru_cache(maxsize=4096)
def _source_words(source: str) -> frozenset[str]:
    """The source's words, case-folded (once per source, for all its translations)."""
    return frozenset(w.group().casefold() for w in _SOURCE_WORD.finditer(source))


@functools.lru_cache(maxsize=1 << 17)
def _word_flags(word: str) -> tuple[bool, bool, bool]:
    """Whether a word has a Latin letter, has a digit, and has neither a letter nor a digit
    (once per distinct word of the corpus)."""
    return (
        has_latin(word),
        any(map(str.isdigit, word)),
        _INK.search(word) is None,
    )


def word_features(
    source: str,
    translation: str,
    head: Sequence[WordError],
    pointed: Sequence[Pointer] | None = None,
) -> tuple[list[Word], np.ndarray, np.ndarray]:
    """The words of ``translation`` and their :data:`FEATURES`.

    Args:
        source: the English source (normalised, as the model read it).
        translation: the translation, normalised; ``head`` and ``pointed`` are offsets into it.
        head: the word head's errors (:func:`xlscore.estimator.spans.word_errors`); a word the
            head did not reach gets the probability 0.
        pointed: what the rule checks' findings point at (default: :func:`pointed_spans`).

    Returns:
        The words (:func:`xlscore.text.words.split_words`), a ``[words, features]`` array and
        whether a counted finding points at each word.
    """
    words = split_words(translation)
    x = np.zeros((len(words), len(FEATURES)), dtype=np.float64)
    marked = np.zeros(len(words), dtype=bool)
    if not words:
        return words, x, marked
    if pointed is None:
        pointed = pointed_spans(source, translation)
    source_words = _source_words(source)
    probs = np.zeros(len(words))
    major = np.zeros(len(words))
    k = 0
    for e in sorted(head, key=lambda e: e.start):
        while k < len(words) and words[k].end <= e.start:
            k += 1
        j = k
        while j < len(words) and words[j].start < e.end:
            if e.probability >= probs[j]:
                probs[j] = e.probability
                total = e.minor + e.major
                major[j] = e.major / total if total > 0 else 0.0
            j += 1
    clipped = np.clip(probs, EPS, 1.0 - EPS)
    logits = np.log(clipped / (1.0 - clipped))
    flags = [_word_flags(w.text) for w in words]  # (Latin letter, digit, no letter or digit)
    latin = np.array([f[0] for f in flags])
    run = np.zeros(len(words), dtype=bool)
    start = 0
    for is_latin, group in groupby(latin):
        n = len(list(group))
        run[start : start + n] = is_latin and n >= RUN
        start += n
    x[:, 0] = logits
    x[:, 1] = major
    # the stronger of each word's neighbours (a word at an end is its own other neighbour)
    before = np.concatenate([logits[:1], logits[:-1]])
    after = np.concatenate([logits[1:], logits[-1:]])
    x[:, 2] = np.maximum(before, after)
    for i in np.flatnonzero(latin).tolist():
        text = words[i].text
        x[i, 3] = 1.0
        x[i, 4] = float(text.strip("'’-.").casefold() in source_words)
        x[i, 5] = float(run[i])
        x[i, 6] = float(text[:1].isupper())
    starts = np.array([w.start for w in words])
    ends = np.array([w.end for w in words])
    for q in pointed:
        at = (q.start < ends) & (starts < q.end)
        x[at, 7] = 1.0
        if q.counts:
            marked |= at
    x[:, 8] = [f[1] for f in flags]
    x[:, 9] = [f[2] for f in flags]
    return words, x, marked


def word_runs(p: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """The runs of consecutive words whose probability in ``p`` reaches ``threshold``, as
    ``(first, last)`` word indices: the words one span covers."""
    runs: list[tuple[int, int]] = []
    k = 0
    while k < len(p):
        if p[k] < threshold:
            k += 1
            continue
        j = k
        while j + 1 < len(p) and p[j + 1] >= threshold:
            j += 1
        runs.append((k, j))
        k = j + 1
    return runs


@dataclass(frozen=True)
class SpanTagger:
    """A logistic combination of :data:`FEATURES` and the threshold at which a word is an error.

    Attributes:
        weights: one per :data:`FEATURES`.
        bias: the intercept.
        threshold: a word whose probability reaches it is in a span.
        min_chars: spans with fewer letters and digits are dropped.
    """

    weights: tuple[float, ...]
    bias: float
    threshold: float
    min_chars: int = 1

    def __post_init__(self) -> None:
        values = (*self.weights, self.bias, self.threshold)
        if len(self.weights) != len(FEATURES) or not all(math.isfinite(v) for v in values):
            raise ValueError(f"a span tagger needs {len(FEATURES)} finite weights and a bias")
        if not 0 < self.threshold < 1 or self.min_chars < 0:
            raise ValueError("the threshold is a probability in (0, 1), min_chars at least 0")

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Each word's error probability from its features (``[words, features]``)."""
        z = np.asarray(x, dtype=np.float64) @ np.asarray(self.weights) + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def spans(
        self,
        source: str,
        translation: str,
        head: Sequence[WordError],
        pointed: Sequence[Pointer] | None = None,
    ) -> tuple[ErrorSpan, ...]:
        """The error spans of ``translation`` (normalised; offsets into it): consecutive words
        at or above the threshold merged, with the largest probability of their words and
        the severity the head gives them (major when a check points into the span); a word a
        counted finding points at (a number the source lacks) is always in one."""
        return self.decode(translation, *word_features(source, translation, head, pointed))

    def decode(
        self, translation: str, words: Sequence[Word], x: np.ndarray, marked: np.ndarray
    ) -> tuple[ErrorSpan, ...]:
        """:meth:`spans` from what :func:`word_features` gave; a word a counted finding
        points at is in a span (at least at the threshold's probability)."""
        if not words:
            return ()
        p = self.probabilities(x)
        p = np.where(marked, np.maximum(p, self.threshold), p)
        out: list[ErrorSpan] = []
        for k, j in word_runs(p, self.threshold):
            a, b = words[k].start, words[j].end
            text = translation[a:b]
            if len(_INK.findall(text)) >= self.min_chars:
                major = x[k : j + 1, 1].mean() >= 0.5 or x[k : j + 1, 7].any()
                prob = round(float(p[k : j + 1].max()), 4)
                out.append(ErrorSpan(a, b, text, "major" if major else "minor", prob))
        return tuple(out)

    def to_meta(self) -> dict:
        """The metadata entry an estimator file stores (``span_tagger``)."""
        return {
            "features": list(FEATURES),
            "weights": [float(w) for w in self.weights],
            "bias": float(self.bias),
            "threshold": float(self.threshold),
            "min_chars": int(self.min_chars),
        }

    @classmethod
    def from_meta(
        cls, meta: Mapping | None, path: str | os.PathLike | None = None
    ) -> SpanTagger | None:
        """The tagger a file's metadata stores (``None`` when it has none).

        Raises:
            ModelError: the entry is malformed or names other features than this version's.
        """
        if meta is None:
            return None
        where = f"estimator file {path}" if path is not None else "estimator metadata"
        try:
            if list(meta["features"]) != list(FEATURES):
                raise ModelError(
                    f"{where}: its span tagger reads features {list(meta['features'])}, this "
                    f"version computes {list(FEATURES)}; update xlscore or the file"
                )
            return cls(
                tuple(float(w) for w in meta["weights"]),
                float(meta["bias"]),
                float(meta["threshold"]),
                int(meta["min_chars"]),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"{where} has a malformed span_tagger: {err}") from None

    def signature(self) -> str:
        """How this tagger signs the spans, e.g. ``tagger>=0.3,2ch``."""
        return f"tagger>={self.threshold:g}" + (
            f",{self.min_chars}ch" if self.min_chars > 1 else ""
        )
