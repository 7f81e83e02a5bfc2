"""Words: one definition for every tokenizer, and the merge of sub-word pieces into words.

A *word* is a maximal run of letters, digits and combining marks, or a single other visible
character (punctuation, a symbol, an emoji) with the marks that follow it. Whitespace, control
characters and the zero-width space separate words; format characters (soft hyphen,
zero-width joiners) are dropped, so ``сло\u00adво`` is one word. Text is put in Unicode NFC
first, so a decomposed ``й`` or ``ё`` gives the same word as a composed one.

Pieces reach words through the fast tokenizer's character offsets: a piece belongs to every word
its character span overlaps (a piece that straddles two words goes to both), and a word vector
is the mean of its pieces' vectors. This treats WordPiece (``##``) and SentencePiece (``▁``)
vocabularies alike.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import regex
import torch

# letters, digits and marks form runs; any other visible character is a word of its own,
# with the marks that follow it (an emoji's variation selector, say)
_WORD = regex.compile(r"[\p{L}\p{N}\p{M}]+|[^\p{L}\p{N}\p{M}\p{Z}\p{C}\s]\p{M}*")
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


def split_words(text: str) -> list[Word]:
    """Split already-normalised ``text`` into words with their character spans."""
    return [Word(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]


def piece_word_matrix(
    piece_spans: Sequence[tuple[int, int]], words: Sequence[Word]
) -> tuple[torch.Tensor, list[int]]:
    """Averaging matrix ``M`` of shape ``[n_words_kept, n_pieces]`` so that ``M @ H`` gives
    word vectors from piece vectors ``H``, and the indices of the words that got no piece
    (these are left out of ``M``'s rows).

    Piece ``j`` contributes to word ``i`` when their character spans overlap; empty spans
    (special tokens, a bare ``▁``) contribute to nothing.
    """
    n_p = len(piece_spans)
    spans = np.asarray(piece_spans, dtype=np.int64).reshape(n_p, 2)
    bounds = np.asarray([(w.start, w.end) for w in words], dtype=np.int64).reshape(len(words), 2)
    hit = (spans[None, :, 0] < bounds[:, 1:2]) & (bounds[:, 0:1] < spans[None, :, 1])
    counts = hit.sum(axis=1)
    missing = np.flatnonzero(counts == 0).tolist()
    keep = counts > 0
    m = hit[keep].astype(np.float32) / counts[keep, None].astype(np.float32)
    return torch.from_numpy(m), missing


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


def move_span(where: OffsetMap, start: int, end: int) -> tuple[int, int]:
    """The span ``start:end`` of one text in the other (``where``: :func:`offset_map`); an
    empty span (a position) stays empty, and a span of characters the other text lacks
    becomes empty."""
    a = where.starts[start]
    return (a, a) if end <= start else (min(a, where.ends[end]), where.ends[end])
