"""Agreement among candidate translations of one source (a minimum-Bayes-risk style signal).

When several engines translate the same source, a candidate that shares much with the others
is more often right than one that stands apart. This module measures that on the Russian side
only, as each candidate's mean similarity to every other candidate: BERTScore F1 over word
vectors of the Russian encoder (:func:`consensus_bertscore`, what :class:`xlscore.XLScorer`
blends into its score) or character n-gram F-score (:func:`consensus_chrf`, chrF as in
Popović 2015, model-free, measured in ``experiments/beyond.py``).
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import torch

from .bertscore import f_measure

CHRF_ORDER = 6
CHRF_BETA = 2.0


def char_ngrams(text: str, order: int = CHRF_ORDER) -> list[Counter]:
    """Character n-gram counts of ``text`` for n = 1..``order``, spaces removed."""
    chars = "".join(text.split())
    return [Counter(chars[i:i + n] for i in range(len(chars) - n + 1))
            for n in range(1, order + 1)]


def chrf_from_ngrams(hyp: list[Counter], ref: list[Counter], beta: float = CHRF_BETA) -> float:
    """chrF (0..100) from n-gram counts: precision and recall averaged over the orders that
    the hypothesis and reference both have, then combined as an F-beta score."""
    precisions, recalls = [], []
    for h, r in zip(hyp, ref):
        nh, nr = sum(h.values()), sum(r.values())
        if not nh or not nr:
            continue
        match = sum((h & r).values())
        precisions.append(match / nh)
        recalls.append(match / nr)
    if not precisions:
        return 0.0
    p, r = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    if p + r == 0:
        return 0.0
    b2 = beta * beta
    return 100.0 * (1 + b2) * p * r / (b2 * p + r)


def chrf(hypothesis: str, reference: str) -> float:
    """Sentence chrF (character 6-grams, beta 2) of ``hypothesis`` against ``reference``."""
    return chrf_from_ngrams(char_ngrams(hypothesis), char_ngrams(reference))


def consensus_chrf(candidates: Sequence[str]) -> list[float]:
    """For each candidate, its mean chrF against every *other* candidate (0..100).

    Identical candidates count as agreeing with each other (an engine duplicated twice is
    counted twice). With fewer than two candidates there is nothing to agree with and every
    value is 0."""
    n = len(candidates)
    if n < 2:
        return [0.0] * n
    grams = {c: char_ngrams(c) for c in set(candidates)}
    pair: dict[tuple[str, str], float] = {}
    out = []
    for i, c in enumerate(candidates):
        total = 0.0
        for j, d in enumerate(candidates):
            if i != j:
                if (c, d) not in pair:
                    pair[(c, d)] = chrf_from_ngrams(grams[c], grams[d])
                total += pair[(c, d)]
        out.append(total / (n - 1))
    return out


def consensus_bertscore(vectors: Sequence[torch.Tensor]) -> list[float]:
    """For each candidate (a ``[n_words, dim]`` tensor of word vectors), its mean BERTScore F1
    (greedy cosine matching) against every other candidate. A candidate with no words matches
    nothing (F1 0). Fewer than two candidates: every value is 0."""
    return consensus_bertscore_groups([vectors])[0]


def consensus_bertscore_groups(groups: Sequence[Sequence[torch.Tensor]]) -> list[list[float]]:
    """:func:`consensus_bertscore` for many groups of candidates. Per group, one similarity
    matrix over all the candidates' words gives every pair's greedy matches at once: the best
    match of each word within each other candidate, averaged per candidate, is the precision
    of one against the other and the recall of the other against the one."""
    out = []
    for vecs in groups:
        n = len(vecs)
        if n < 2:
            out.append([0.0] * n)
            continue
        sizes = torch.tensor([len(v) for v in vecs])
        if not int(sizes.sum()):
            out.append([0.0] * n)
            continue
        words = torch.nn.functional.normalize(torch.cat([v.float() for v in vecs]), dim=-1)
        owner = torch.repeat_interleave(torch.arange(n), sizes)
        sim = words @ words.T                                        # [N, N]
        best = torch.full((len(words), n), float("-inf")).scatter_reduce(
            1, owner.expand(len(words), -1), sim, "amax")            # [N word, n candidate]
        has = sizes > 0
        best = best.masked_fill(~has[None, :], 0.0)
        p = torch.zeros(n, n).index_add_(0, owner, best) / sizes.clamp(min=1)[:, None]
        f = f_measure(p, p.T)
        f = torch.where(has[:, None] & has[None, :], f, 0.0).fill_diagonal_(0.0)
        out.append((f.sum(1) / (n - 1)).tolist())
    return out
