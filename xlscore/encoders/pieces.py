"""From sub-word pieces to words: the records a sentence goes through the encoder in
(:class:`WordVectors`, what callers get: the words, their character spans and one vector
each), the distinct normalised sentences of a batch, and each sentence's piece-to-word
averaging (words cut once, by :func:`xlscore.text.words.split_words`, with offsets).
"""

from __future__ import annotations

import bisect
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from xlscore.errors import UnembeddedWordWarning
from xlscore.text.words import Word, normalize_text, split_words


@dataclass(frozen=True)
class WordVectors:
    """Word vectors of one sentence.

    ``words[i]`` is the word as it appears in ``text`` (the normalised sentence) at
    ``spans[i]``; ``vectors[i]`` is the mean of its pieces' vectors. Words that received no
    piece are listed in ``dropped`` and have no row.
    """

    text: str
    words: list[str]
    spans: list[tuple[int, int]]
    vectors: torch.Tensor
    dropped: list[str] = field(default_factory=list)
    windows: int = 1

    def __len__(self) -> int:
        return len(self.words)


@dataclass
class SentenceItem:
    """A unique normalised sentence on its way through the encoder."""

    text: str
    index: int  # first position in the caller's list (for messages)
    ids: list[int]  # content piece ids (prefix excluded)
    spans: list[tuple[int, int]]  # content piece spans in ``text``
    prefix_ids: list[int]
    windows: list[tuple[int, int]] = field(default_factory=list)
    pieces: dict[int, torch.Tensor] = field(default_factory=dict)  # by layer
    pooled: dict[int, torch.Tensor] = field(default_factory=dict)  # token sums, by layer
    n_tokens: int = 0
    full: dict[int, torch.Tensor] = field(default_factory=dict)  # every token, by layer


#: words x pieces above which the piece-to-word matrix is sparse (a text of tens of thousands
#: of characters; a sentence stays dense, and its word vectors bit for bit what they were)
DENSE_CELLS = 1 << 22


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
    if len(words) * n_p > DENSE_CELLS:
        return _sparse_piece_word_matrix(spans, bounds)
    hit = (
        (spans[None, :, 0] < spans[None, :, 1])  # an empty span overlaps nothing
        & (spans[None, :, 0] < bounds[:, 1:2])
        & (bounds[:, 0:1] < spans[None, :, 1])
    )
    counts = hit.sum(axis=1)
    missing = np.flatnonzero(counts == 0).tolist()
    keep = counts > 0
    m = hit[keep].astype(np.float32) / counts[keep, None].astype(np.float32)
    return torch.from_numpy(m), missing


def _sparse_piece_word_matrix(
    spans: np.ndarray, bounds: np.ndarray
) -> tuple[torch.Tensor, list[int]]:
    """:func:`piece_word_matrix` of a very long text as a sparse matrix: words are sorted and
    do not overlap, so the words a piece overlaps are one run of them, found by binary search
    (memory linear in the text, where the dense matrix is words x pieces)."""
    nonempty = np.flatnonzero(spans[:, 0] < spans[:, 1])
    first = np.searchsorted(bounds[:, 1], spans[nonempty, 0], side="right")
    last = np.searchsorted(bounds[:, 0], spans[nonempty, 1], side="left")
    width = np.maximum(last - first, 0)
    rows = np.repeat(first, width) + (
        np.arange(width.sum()) - np.repeat(np.cumsum(width) - width, width)
    )
    cols = np.repeat(nonempty, width)
    counts = np.bincount(rows, minlength=len(bounds))
    missing = np.flatnonzero(counts == 0).tolist()
    renumber = np.cumsum(counts > 0) - 1
    values = (1.0 / counts[rows]).astype(np.float32)
    m = torch.sparse_coo_tensor(
        torch.from_numpy(np.stack([renumber[rows], cols])),
        torch.from_numpy(values),
        (int((counts > 0).sum()), len(spans)),
        check_invariants=True,
    ).coalesce()
    return m, missing


def unique_texts(
    sentences: Sequence[str], normalised: bool = False
) -> tuple[list[str], list[int], list[int]]:
    """The distinct normalised sentences, the input position where each first occurs, and the
    distinct sentence of each input (``normalised``: the sentences are normalised already, by
    :func:`xlscore.text.pairs.distinct_pairs`)."""
    texts = list(sentences) if normalised else [normalize_text(s) for s in sentences]
    keys: dict[str, int] = {}
    order = [keys.setdefault(t, len(keys)) for t in texts]
    first: dict[int, int] = {}
    for i, k in enumerate(order):
        first.setdefault(k, i)
    return list(keys), [first[k] for k in range(len(keys))], order


def unreached_words(piece_spans: Sequence[tuple[int, int]], words: Sequence[Word]) -> list[int]:
    """The indices of the words no piece overlaps: the words :func:`piece_word_matrix` leaves
    out, found without the matrix (for what needs the words and not their vectors)."""
    reached = bytearray(len(words))
    starts = [w.start for w in words]
    for a, b in piece_spans:
        if a < b:  # the words overlapping a..b are one run: from the last starting before b
            k = bisect.bisect_left(starts, b) - 1
            while k >= 0 and words[k].end > a:
                reached[k] = 1
                k -= 1
    return [i for i, r in enumerate(reached) if not r]


def pieces_to_words(item: SentenceItem) -> tuple[torch.Tensor, list[Word], list[str]]:
    """A sentence's piece-to-word averaging matrix, its words that received a piece and the
    texts of those that did not (with a warning)."""
    words = split_words(item.text)
    matrix, missing = piece_word_matrix(item.spans, words)
    return (matrix, *_kept(item, words, missing))


def reached_words(item: SentenceItem) -> tuple[list[Word], list[str]]:
    """:func:`pieces_to_words` without the matrix: the words that received a piece and the
    texts of those that did not (with a warning)."""
    words = split_words(item.text)
    return _kept(item, words, unreached_words(item.spans, words))


def _kept(
    item: SentenceItem, words: list[Word], missing: list[int]
) -> tuple[list[Word], list[str]]:
    """The words not ``missing`` and the texts of those that are (warned of)."""
    dropped = [words[i].text for i in missing]
    if dropped:
        warnings.warn(
            f"sentence {item.index + 1}: no sub-word piece for "
            f"{', '.join(map(repr, dropped))}; left out",
            UnembeddedWordWarning,
            stacklevel=5,
        )
    lost = set(missing)
    return [w for i, w in enumerate(words) if i not in lost], dropped


def word_vectors(
    item: SentenceItem, keep: list, dropped: list[str], vectors: torch.Tensor, windows: int = 1
) -> WordVectors:
    """A sentence's :class:`WordVectors`: its words that received a piece (``keep``, from
    :func:`pieces_to_words`) with their spans, one row of ``vectors`` each."""
    return WordVectors(
        item.text,
        [w.text for w in keep],
        [(w.start, w.end) for w in keep],
        vectors,
        dropped,
        windows,
    )
