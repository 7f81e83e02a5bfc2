"""BERTScore arithmetic (Zhang et al., 2020) as pure tensor functions.

Candidate tokens (here: the translation's words, mapped into the English space) are matched
greedily to reference tokens (the source's words) by cosine similarity:

* precision ``P = sum_i w_i max_j cos(c_i, r_j) / sum_i w_i`` over candidate tokens,
* recall ``R = sum_j v_j max_i cos(c_i, r_j) / sum_j v_j`` over reference tokens,
* ``F1 = 2PR / (P + R)``,

with weights ``w``, ``v`` equal to 1 or to inverse document frequencies
``idf(t) = log((N + 1) / (df(t) + 1))`` over a corpus of ``N`` documents (a token the corpus
never saw gets ``log(N + 1)``); when a side's weights sum to 0 (idf from one document) its
tokens count equally. A side with no tokens (or no anchors) scores 0.

Baseline rescaling maps a score ``x`` to ``(x - b) / (1 - b)``, where ``b`` is the mean score of
unrelated pairs, so that unrelated text lands near 0 (see
:meth:`xlscore.metric.paper.PaperScorer.fit_baseline` for how ``b`` is obtained here).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import overload

import torch

#: pairs per padded batch of the greedy matching (the scorer's default)
PAIRS_PER_BATCH = 256


def cosine_matrix(cand: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """Cosine similarities ``[n, m]`` between rows of ``cand [n, d]`` and ``ref [m, d]``."""
    c = torch.nn.functional.normalize(cand, dim=-1)
    r = torch.nn.functional.normalize(ref, dim=-1)
    return c @ r.transpose(-1, -2)


def f_measure(p: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """Harmonic mean ``2pr/(p+r)``, 0 where ``p + r`` is 0."""
    denom = p + r
    return torch.where(denom != 0, 2 * p * r / torch.where(denom != 0, denom, 1), 0)


def greedy_match(
    cand: torch.Tensor,
    cand_mask: torch.Tensor,
    ref: torch.Tensor,
    ref_mask: torch.Tensor,
    cand_weights: torch.Tensor | None = None,
    ref_weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Precision, recall and F1 for a batch of padded pairs.

    ``cand [B, n, d]`` and ``ref [B, m, d]`` hold token vectors, ``cand_mask [B, n]`` and
    ``ref_mask [B, m]`` say which are real; weights default to 1. Returns three ``[B]`` tensors.
    """
    cand_mask, ref_mask = cand_mask.bool(), ref_mask.bool()
    sim = cosine_matrix(cand, ref)
    valid = cand_mask[:, :, None] & ref_mask[:, None, :]
    sim = sim.masked_fill(~valid, float("-inf"))
    best_for_cand = sim.max(dim=2).values.masked_fill(~cand_mask, 0.0)
    best_for_ref = sim.max(dim=1).values.masked_fill(~ref_mask, 0.0)
    wc = _weights(cand_weights, cand_mask, sim.dtype)
    wr = _weights(ref_weights, ref_mask, sim.dtype)
    # a side with no tokens, or with none on the other side, scores 0
    both = cand_mask.any(1) & ref_mask.any(1)
    best_for_cand = torch.where(both[:, None], best_for_cand, 0.0)
    best_for_ref = torch.where(both[:, None], best_for_ref, 0.0)
    sc, sr = wc.sum(1), wr.sum(1)
    p = torch.where(sc > 0, (best_for_cand * wc).sum(1) / torch.where(sc > 0, sc, 1), 0.0)
    r = torch.where(sr > 0, (best_for_ref * wr).sum(1) / torch.where(sr > 0, sr, 1), 0.0)
    return p, r, f_measure(p, r)


def score_pairs(
    cand: Sequence[torch.Tensor],
    ref: Sequence[torch.Tensor],
    cand_weights: Sequence[torch.Tensor] | None = None,
    ref_weights: Sequence[torch.Tensor] | None = None,
    *,
    batch: int = 256,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`greedy_match` over lists of unpadded ``[n_i, d]`` tensors: pairs are sorted by
    size and padded in batches of ``batch`` pairs of similar size, results come back in input
    order. Returns three ``[len(cand)]`` tensors."""
    n = len(cand)
    dim = next((t.shape[-1] for t in [*cand, *ref] if t.dim() == 2), 1)
    p, r, f = torch.zeros(n), torch.zeros(n), torch.zeros(n)
    order = sorted(range(n), key=lambda i: (len(cand[i]), len(ref[i])))
    for s in range(0, n, batch):
        idx = order[s : s + batch]
        c, cm = pad([cand[i] for i in idx], dim)
        rr, rm = pad([ref[i] for i in idx], dim)
        cw = pad([cand_weights[i][:, None] for i in idx], 1)[0][..., 0] if cand_weights else None
        rw = pad([ref_weights[i][:, None] for i in idx], 1)[0][..., 0] if ref_weights else None
        p[idx], r[idx], f[idx] = greedy_match(c, cm, rr, rm, cw, rw)
    return p, r, f


def _weights(weights: torch.Tensor | None, mask: torch.Tensor, dtype) -> torch.Tensor:
    """Token weights; a side whose given weights sum to 0 (idf from a single document, or
    words every document has) falls back to equal weights rather than scoring 0."""
    ones = mask.to(dtype)
    if weights is None:
        return ones
    w = weights.to(dtype) * ones
    return torch.where((w.sum(1) > 0)[:, None], w, ones)


def pad(tensors: Sequence[torch.Tensor], dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack ``[n_i, dim]`` tensors into ``[B, max n, dim]`` with a ``[B, max n]`` mask (at
    least one column wide, so that reductions over an all-empty batch are defined)."""
    width = max(1, max((len(t) for t in tensors), default=0))
    out = torch.zeros((len(tensors), width, dim))
    mask = torch.zeros((len(tensors), width), dtype=torch.bool)
    for i, t in enumerate(tensors):
        out[i, : len(t)] = t
        mask[i, : len(t)] = True
    return out, mask


def idf_weights(documents: Iterable[Iterable[str]]) -> Callable[[str], float]:
    """Inverse document frequency over ``documents`` (each an iterable of tokens), as a
    function of a token; tokens are compared case-insensitively."""
    df: Counter[str] = Counter()
    n = 0
    for doc in documents:
        n += 1
        df.update({t.casefold() for t in doc})
    table = {t: math.log((n + 1) / (c + 1)) for t, c in df.items()}
    unseen = math.log(n + 1)
    return lambda token: table.get(token.casefold(), unseen)


@overload
def rescale(value: torch.Tensor, baseline: float) -> torch.Tensor: ...
@overload
def rescale(value: float, baseline: float) -> float: ...
def rescale(value: torch.Tensor | float, baseline: float) -> torch.Tensor | float:
    """``(value - baseline) / (1 - baseline)``."""
    return (value - baseline) / (1.0 - baseline)
