"""Agreement among candidate translations of one source (a minimum-Bayes-risk style signal).

When several engines translate the same source, a candidate that shares much with the others
is more often right than one that stands apart. This module measures that on the Russian side
only, as each candidate's mean similarity to every other candidate: BERTScore F1 over word
vectors of the Russian encoder (:func:`consensus_bertscore`, what :class:`xlscore.XLScorer`
blends into its score) or sacreBLEU's sentence chrF (:func:`consensus_chrf`, character n-gram
F-score, model-free, measured in ``experiments/beyond.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import sacrebleu
import torch

from xlscore.metric.bertscore import f_measure


def consensus_chrf(candidates: Sequence[str]) -> list[float]:
    """For each candidate, its mean sentence chrF (sacreBLEU's) against every *other*
    candidate (0..100).

    Identical candidates count as agreeing with each other (an engine duplicated twice is
    counted twice) and get exactly the same value. With fewer than two candidates there is
    nothing to agree with and every value is 0."""
    n = len(candidates)
    if n < 2:
        return [0.0] * n
    times = Counter(candidates)
    value = {}
    for c in times:  # each distinct text once: its own copy counted out
        chrf = {d: sacrebleu.sentence_chrf(c, [d]).score for d in times}
        value[c] = (sum(times[d] * chrf[d] for d in times) - chrf[c]) / (n - 1)
    return [value[c] for c in candidates]


def consensus_bertscore(vectors: Sequence[torch.Tensor]) -> list[float]:
    """For each candidate (a ``[n_words, dim]`` tensor of word vectors), its mean BERTScore F1
    (greedy cosine matching) against every other candidate. A candidate with no words matches
    nothing (F1 0). Fewer than two candidates: every value is 0."""
    return consensus_bertscore_groups([vectors])[0]


def _distinct(vectors: Sequence[torch.Tensor]) -> tuple[list[torch.Tensor], list[int]]:
    """The distinct tensors (equal shape and values) and, for each input, its index there."""
    uniq: list[torch.Tensor] = []
    where = []
    for v in vectors:
        k = next(
            (u for u, w in enumerate(uniq) if w.shape == v.shape and torch.equal(w, v)), len(uniq)
        )
        if k == len(uniq):
            uniq.append(v)
        where.append(k)
    return uniq, where


def consensus_bertscore_groups(groups: Sequence[Sequence[torch.Tensor]]) -> list[list[float]]:
    """:func:`consensus_bertscore` for many groups of candidates. Per group, one similarity
    matrix over all the distinct candidates' words gives every pair's greedy matches at once:
    the best match of each word within each other candidate, averaged per candidate, is the
    precision of one against the other and the recall of the other against the one.
    Identical candidates (equal vectors) are computed once, so they get exactly the same
    value, and count as agreeing with each other."""
    out = []
    for vecs in groups:
        n = len(vecs)
        if n < 2:
            out.append([0.0] * n)
            continue
        uniq, where = _distinct(vecs)
        sizes = torch.tensor([len(v) for v in uniq])
        if not int(sizes.sum()):
            out.append([0.0] * n)
            continue
        m = len(uniq)
        words = torch.nn.functional.normalize(torch.cat([v.float() for v in uniq]), dim=-1)
        owner = torch.repeat_interleave(torch.arange(m), sizes)
        sim = words @ words.T  # [N, N]
        best = torch.full((len(words), m), float("-inf")).scatter_reduce(
            1, owner.expand(len(words), -1), sim, "amax"
        )  # [N word, m candidate]
        has = sizes > 0
        best = best.masked_fill(~has[None, :], 0.0)
        p = torch.zeros(m, m).index_add_(0, owner, best) / sizes.clamp(min=1)[:, None]
        f = torch.where(has[:, None] & has[None, :], f_measure(p, p.T), 0.0).double()
        times = torch.bincount(torch.tensor(where), minlength=m).double()
        # every other candidate, twins included: each distinct one times its copies, less self
        total = (f * times[None, :]).sum(1) - f.diagonal()
        out.append([float(total[k]) / (n - 1) for k in where])
    return out
