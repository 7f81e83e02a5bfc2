"""The ship gate's arithmetic: is a candidate estimator significantly worse than a reference
on real machine translation, or worse on any category of the challenge set?

A **figure** is one agreement statistic of one model on one validation set, computed from the
predictions of a model that never saw that set (a leave-one-dataset-out fold). Two models'
figures on the same rows are compared by a **paired bootstrap**: the same resampled
segments for both, 1,000 times; the candidate is *significantly worse* when the 95% interval
of its difference to the reference lies wholly below zero. The statistics:

* ``seg_kendall``, ``sys_kendall``: per-segment Kendall tau-b averaged over sources, and
  Kendall over the systems' mean scores (several systems per source; segments resampled);
* ``spearman``: Spearman over all translations (one system per source, the QE statistic);
* ``word_mcc``: Matthews correlation of BAD/OK tags over every token of the set (the WMT word
  QE statistic), the predicted tags being the tokens a predicted error span overlaps.

The challenge set has no intervals (its pairs were written to test one skill each): a category
where the candidate ranks fewer pairs right than the reference fails the gate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xlscore.evaluation.agreement import Estimate, _resamples, agreement, compare

#: the real-MT statistics the gate knows
STATISTICS = ("seg_kendall", "sys_kendall", "spearman", "word_mcc")
#: how each statistic is read off :func:`xlscore.evaluation.agreement.agreement`
_AGREEMENT_KEY = {
    "seg_kendall": "seg_kendall",
    "sys_kendall": "sys_kendall",
    "spearman": "global_spearman",
}


@dataclass(frozen=True)
class Check:
    """One comparison of the candidate with a reference: the candidate's figure, the
    reference's, their difference (candidate minus reference, with its 95% interval) and
    whether the candidate is significantly worse."""

    statistic: str
    candidate: Estimate
    reference: Estimate
    delta: Estimate

    @property
    def worse(self) -> bool:
        """The 95% interval of the difference lies wholly below zero."""
        return self.delta.high < 0


def _estimate(boots: np.ndarray, point: float) -> Estimate:
    lo, hi = np.percentile(boots, [2.5, 97.5]) if len(boots) else (math.nan, math.nan)
    return Estimate(float(point), float(lo), float(hi))


def compare_scores(
    statistic: str,
    seg_ids: Sequence[str],
    systems: Sequence[str],
    human: Sequence[float],
    candidate: Sequence[float],
    reference: Sequence[float],
    *,
    n_boot: int = 1000,
) -> Check:
    """Paired bootstrap of a sentence-level statistic (``seg_kendall``, ``sys_kendall`` or
    ``spearman``) of two models' scores of the same translations."""
    if statistic not in _AGREEMENT_KEY:
        raise ValueError(f"unknown sentence-level statistic {statistic!r}")
    key = _AGREEMENT_KEY[statistic]
    a = agreement(seg_ids, systems, human, candidate, n_boot=n_boot)
    b = agreement(seg_ids, systems, human, reference, n_boot=n_boot)
    d = compare(a, b, key, n_boot=n_boot)
    return Check(statistic, a[key], b[key], d.delta)


def token_counts(predicted: Sequence[Sequence[bool]], gold: Sequence[Sequence[bool]]) -> np.ndarray:
    """Per segment, the counts ``[tp, fp, fn, tn]`` of BAD (True) tags over its tokens."""
    out = np.zeros((len(gold), 4), dtype=np.int64)
    for i, (p, g) in enumerate(zip(predicted, gold)):
        if len(p) != len(g):
            raise ValueError(f"segment {i}: {len(p)} predicted tags for {len(g)} tokens")
        pa, ga = np.asarray(p, bool), np.asarray(g, bool)
        out[i] = [(pa & ga).sum(), (pa & ~ga).sum(), (~pa & ga).sum(), (~pa & ~ga).sum()]
    return out


def mcc_of_counts(counts: np.ndarray) -> np.ndarray:
    """MCC from summed ``[..., 4]`` counts ``tp, fp, fn, tn`` (0 where a side has one class)."""
    tp, fp, fn, tn = (counts[..., k].astype(float) for k in range(4))
    den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (tp * tn - fp * fn) / np.where(den > 0, den, 1), 0.0)


def compare_tags(
    gold: Sequence[Sequence[bool]],
    candidate: Sequence[Sequence[bool]],
    reference: Sequence[Sequence[bool]],
    *,
    n_boot: int = 1000,
    seed: int = 1,
) -> Check:
    """Paired bootstrap (segments resampled) of the word-level MCC of two taggers."""
    a, b = token_counts(candidate, gold), token_counts(reference, gold)
    rows = _resamples(len(gold), n_boot, seed)
    ma, mb = mcc_of_counts(a[rows].sum(1)), mcc_of_counts(b[rows].sum(1))
    pa, pb = float(mcc_of_counts(a.sum(0))), float(mcc_of_counts(b.sum(0)))
    return Check("word_mcc", _estimate(ma, pa), _estimate(mb, pb), _estimate(ma - mb, pa - pb))


def challenge_regressions(
    candidate: Mapping[str, int], reference: Mapping[str, int]
) -> dict[str, tuple[int, int]]:
    """The challenge categories where the candidate wins fewer pairs than the reference:
    ``{category: (candidate wins, reference wins)}``. A category the candidate lacks counts
    as 0 wins."""
    return {k: (candidate.get(k, 0), v) for k, v in reference.items() if candidate.get(k, 0) < v}
