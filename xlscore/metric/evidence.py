"""Word-level evidence behind a score, for a reader who wants to see why a translation scored
low: source content words that no translation word answers (possible omissions), translation
words that are not Russian (untranslated or another language; names and acronyms excepted),
and numbers that appear on one side only.

It is read off the anchors (:mod:`xlscore.metric.anchors`), so it is only as good as the dictionary:
a source word translated by a synonym the dictionary does not list shows as unmatched. Treat
the lists as places to look, not as verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xlscore.metric.anchors import AnchorSet

#: English words that carry grammar rather than content: never reported as omitted
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "nor",
        "so",
        "yet",
        "if",
        "then",
        "than",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "off",
        "on",
        "onto",
        "out",
        "over",
        "to",
        "up",
        "upon",
        "with",
        "within",
        "without",
        "about",
        "above",
        "across",
        "after",
        "against",
        "along",
        "among",
        "around",
        "before",
        "behind",
        "below",
        "beneath",
        "beside",
        "besides",
        "between",
        "beyond",
        "during",
        "except",
        "inside",
        "near",
        "since",
        "through",
        "throughout",
        "till",
        "toward",
        "towards",
        "under",
        "underneath",
        "until",
        "via",
        "i",
        "me",
        "my",
        "mine",
        "myself",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "he",
        "him",
        "his",
        "himself",
        "she",
        "her",
        "hers",
        "herself",
        "it",
        "its",
        "itself",
        "we",
        "us",
        "our",
        "ours",
        "ourselves",
        "they",
        "them",
        "their",
        "theirs",
        "themselves",
        "this",
        "that",
        "these",
        "those",
        "who",
        "whom",
        "whose",
        "which",
        "what",
        "whatever",
        "whoever",
        "whichever",
        "am",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "having",
        "do",
        "does",
        "did",
        "doing",
        "done",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "ought",
        "not",
        "no",
        "n't",
        "'s",
        "'re",
        "'ve",
        "'d",
        "'ll",
        "there",
        "here",
        "where",
        "when",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "either",
        "neither",
        "every",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "only",
        "own",
        "same",
        "too",
        "very",
        "just",
        "also",
        "even",
        "ever",
        "still",
        "already",
        "again",
        "once",
    ]
)


@dataclass(frozen=True)
class Evidence:
    """What the words of one pair show.

    ``unmatched_source``: source content words (not function words) with no anchor, in source
    order; ``foreign_words``: translation words counted as foreign; ``numbers_missing`` /
    ``numbers_added``: numbers of the source whose value the translation lacks and the other
    way round, as written (each side read in its own language: English ``1,250`` is Russian
    ``1 250``, English ``3.5`` Russian ``3,5``).
    """

    unmatched_source: tuple[str, ...] = ()
    foreign_words: tuple[str, ...] = ()
    numbers_missing: tuple[str, ...] = ()
    numbers_added: tuple[str, ...] = ()


def gather(
    source_words: Sequence[str],
    translation_words: Sequence[str],
    anchors: AnchorSet,
    numbers: tuple[Sequence[str], Sequence[str]] = ((), ()),
) -> Evidence:
    """The evidence of one pair from its words and anchors; ``numbers``: the source's numbers
    the translation lacks and the translation's the source lacks, as the number check reads
    them (:func:`number_evidence`)."""
    matched = set(anchors.en)
    unmatched = tuple(
        w
        for j, w in enumerate(source_words)
        if j not in matched and any(c.isalpha() for c in w) and w.casefold() not in FUNCTION_WORDS
    )
    return Evidence(
        unmatched,
        tuple(translation_words[i] for i in anchors.foreign_at),
        tuple(numbers[0]),
        tuple(numbers[1]),
    )


def number_evidence(source: str, translation: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The numbers of the source whose value the translation lacks and those of the
    translation the source lacks, as written: the number check's findings (each side read in
    its own language, so English ``1,250`` is Russian ``1 250``)."""
    from xlscore.estimator.checks import find_mismatches

    found = find_mismatches(source, translation, ("number",))
    missing = tuple(
        source[slice(*f.source_span)] for f in found if f.span is None and f.source_span
    )
    added = tuple(translation[slice(*f.span)] for f in found if f.span is not None)
    return missing, added
