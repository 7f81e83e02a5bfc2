"""Word-level evidence behind a score, for a reader who wants to see why a translation scored
low: source content words that no translation word answers (possible omissions), translation
words that are not Russian (untranslated or another language; names and acronyms excepted),
and numbers that appear on one side only.

It is read off the anchors (:mod:`xlscore.lexicon.anchor_pairs`), so it is only as good as the
dictionary: a source word translated by a synonym the dictionary does not list shows as unmatched.
A name written in Cyrillic (``Macron`` -> ``Макрон``, ``Geneva`` -> ``Женеве``) is no anchor
but is not listed either: the name check's matching finds it
(:func:`~xlscore.checks.names.name_rendered`).
How often a correct translation's words are listed: ``experiments/results/evidence-words.md``.
Treat the lists as places to look, not as verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

from xlscore.checks.names import name_rendered
from xlscore.finding import Finding
from xlscore.lexicon.anchor_pairs import AnchorSet
from xlscore.results import Evidence, Span
from xlscore.text.scripts import WORD_CACHE, has_latin, has_letter

#: numbers on one side only, as written and where: ``(numbers, spans)`` for the source's the
#: translation lacks, then for the translation's the source lacks
Numbers = tuple[tuple[tuple[str, ...], tuple[Span, ...]], tuple[tuple[str, ...], tuple[Span, ...]]]

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


class SpannedWords(Protocol):
    """A text's words and their spans (as :class:`~xlscore.encoders.pieces.WordVectors`)."""

    @property
    def words(self) -> list[str]: ...

    @property
    def spans(self) -> list[tuple[int, int]]: ...


@lru_cache(maxsize=WORD_CACHE)
def _content_word(word: str) -> bool:
    """A source word whose lack of an anchor is evidence: one with a letter, not a function
    word."""
    return has_letter(word) and word.casefold() not in FUNCTION_WORDS


def _rendered_name(word: str, translation: str) -> bool:
    """A capitalised Latin source word that the translation renders as a name
    (:func:`xlscore.checks.names.name_rendered`)."""
    return word[:1].isupper() and has_latin(word) and name_rendered(word, translation)


def gather(
    source: SpannedWords, translation: SpannedWords, anchors: AnchorSet, numbers: Numbers
) -> Evidence:
    """The evidence of one pair from its words and anchors; ``numbers``: the source's numbers
    the translation lacks and the translation's the source lacks, as the number check reads
    them (:func:`number_evidence`)."""
    matched = set(anchors.en)
    unmatched = [j for j, w in enumerate(source.words) if j not in matched and _content_word(w)]
    if any(source.words[j][:1].isupper() for j in unmatched):
        # a name rendered in Cyrillic (Macron -> Макрон, Geneva -> Женеве) is no anchor, as
        # the anchors pair only names copied as they are: the name check's matching says so
        text = " ".join(translation.words)
        unmatched = [j for j in unmatched if not _rendered_name(source.words[j], text)]
    (missing, missing_at), (added, added_at) = numbers
    return Evidence(
        tuple(source.words[j] for j in unmatched),
        tuple(translation.words[i] for i in anchors.foreign_at),
        missing,
        added,
        tuple(source.spans[j] for j in unmatched),
        tuple(translation.spans[i] for i in anchors.foreign_at),
        missing_at,
        added_at,
    )


def number_evidence(source: str, translation: str, findings: Sequence[Finding]) -> Numbers:
    """The numbers of the source whose value the translation lacks and those of the
    translation the source lacks, as written: the number check's findings (each side read in
    its own language, so English ``1,250`` is Russian ``1 250``).

    Args:
        source: the source the findings' source spans point into.
        translation: the translation their spans point into.
        findings: the pair's findings (only the number check's are read).

    Returns:
        The source's numbers the translation lacks and the translation's the source lacks,
        each as ``(numbers, spans)``.
    """
    found = [f for f in findings if f.check == "number"]
    missing = tuple(f.source_span for f in found if f.span is None and f.source_span)
    added = tuple(f.span for f in found if f.span is not None)
    return (
        (tuple(source[a:b] for a, b in missing), missing),
        (tuple(translation[a:b] for a, b in added), added),
    )
