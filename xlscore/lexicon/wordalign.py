"""Word alignment in a multilingual encoder's space: anchor pairs without a dictionary.

The source's and the translation's words are embedded by the same multilingual encoder
(``pack:e5-small``), so a word and its translation lie close together without any map. Two
words align when each is the other's most similar word (a mutual best match) and their cosine
similarity reaches a floor; a second round repeats the matching among the words left over
(the idea of SimAlign's *itermax*, Jalili Sabet et al. 2020), so that a word whose best match
was taken by a closer pair can still find its own. The pairs found stand in for the
dictionary's anchors (:mod:`xlscore.lexicon.anchor_pairs`): the paper's Procrustes map and
anchors-only BERTScore are then computed from them as from dictionary anchors.

Measured against Müller's dictionary anchors on the Russian words it has an entry for
(at tag research-2026-11, ``experiments/alignment_anchors.py``; docs/record.md): the
floor trades little precision for much recall (precision 0.52 to 0.59 from no floor to 0.85,
recall 0.75 to 0.34); :data:`ALIGN_FLOOR` is the best harmonic mean on the WMT22 dev set.
On the first 2,000 newstest2021 pairs, which played no part in the choice: precision 0.538,
recall 0.718. (The dictionary misses synonyms, so agreeing with it understates the
alignment's precision.)
"""

from __future__ import annotations

import torch

from xlscore.encoders.bertscore import cosine_matrix

#: least cosine similarity of an aligned word pair (chosen on the WMT22 dev set)
ALIGN_FLOOR = 0.6
#: matching rounds: the first over all words, the next ones over the words left over
ALIGN_ROUNDS = 2


def mutual_best(
    sim: torch.Tensor, floor: float = ALIGN_FLOOR, rounds: int = ALIGN_ROUNDS
) -> list[tuple[int, int]]:
    """Pairs ``(row, column)`` of ``sim`` (``[rows, columns]`` cosine similarities) where each
    is the other's best among the rows and columns still free, at least ``floor``; ``rounds``
    rounds, each over what the previous ones left. Sorted by row."""
    if sim.ndim != 2:
        raise ValueError(f"expected a [rows, columns] matrix, got shape {tuple(sim.shape)}")
    pairs: list[tuple[int, int]] = []
    if sim.numel() == 0:
        return pairs
    live = sim.detach().to(torch.float64).clone()
    blocked = float("-inf")
    for _ in range(rounds):
        best_col = live.argmax(dim=1)
        best_row = live.argmax(dim=0)
        found = [
            (i, int(j))
            for i, j in enumerate(best_col.tolist())
            if int(best_row[j]) == i and live[i, j] >= floor
        ]
        if not found:
            break
        for i, j in found:
            live[i, :] = blocked
            live[:, j] = blocked
        pairs.extend(found)
    return sorted(pairs)


def align(
    src: torch.Tensor, mt: torch.Tensor, floor: float = ALIGN_FLOOR, rounds: int = ALIGN_ROUNDS
) -> list[tuple[int, int]]:
    """Aligned ``(source word, translation word)`` positions of two sentences' word vectors
    (``[n_src, dim]`` and ``[n_mt, dim]``, one multilingual space)."""
    return mutual_best(cosine_matrix(src.float(), mt.float()), floor, rounds)
