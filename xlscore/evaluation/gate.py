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

The challenge set is a floor, not a comparison (issue 51; :func:`floor_checks`): the score
must rank :data:`FLOOR_OVERALL` of all its minimal pairs right, and :data:`FLOOR_CATEGORY` of
each category's. (Issue 33's pairwise sign test against the reference, by which earlier
candidates were refused, is at tag research-2026-11.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xlscore.evaluation.agreement import Interval, _resamples, agreement, compare

#: the challenge set as a floor (issue 51): the share of all pairs, and of each category's,
#: the score must rank right
FLOOR_OVERALL = 0.8
FLOOR_CATEGORY = 0.5

#: the real-MT statistics the gate knows
STATISTICS = ("seg_kendall", "sys_kendall", "spearman", "word_mcc")
#: how each statistic is read off :func:`xlscore.evaluation.agreement.agreement`
_AGREEMENT_KEY = {
    "seg_kendall": "seg_kendall",
    "sys_kendall": "sys_kendall",
    "spearman": "global_spearman",
}


#: how far below what ships a candidate's 95% lower bound may reach on a judged set
MARGIN = 0.01


@dataclass(frozen=True)
class Check:
    """One comparison of the candidate with a reference: the candidate's figure, the
    reference's, their difference (candidate minus reference, with its 95% interval) and
    whether the candidate is significantly worse."""

    statistic: str
    candidate: Interval
    reference: Interval
    delta: Interval

    @property
    def worse(self) -> bool:
        """The 95% interval of the difference lies wholly below zero."""
        return self.delta.high < 0

    def below(self, margin: float = MARGIN) -> bool:
        """The 95% interval of the difference reaches below ``-margin``: the candidate is not
        shown to be within ``margin`` of the reference (the ship gate's test since issue 83;
        a candidate equal to the reference is never below)."""
        return self.delta.low < -margin


def _interval(boots: np.ndarray, point: float) -> Interval:
    lo, hi = np.percentile(boots, [2.5, 97.5]) if len(boots) else (math.nan, math.nan)
    return Interval(float(point), float(lo), float(hi))


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


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis (ties share their mean rank)."""
    from scipy.stats import rankdata

    return rankdata(x, axis=-1)


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(-1, keepdims=True)
    b = b - b.mean(-1, keepdims=True)
    den = np.sqrt((a * a).sum(-1) * (b * b).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a * b).sum(-1) / np.where(den > 0, den, 1), 0.0)


def _grouped(
    groups: Sequence[str], human: Sequence[float], metrics: Sequence[Sequence[float]], rows
) -> np.ndarray:
    """Per metric, the mean over groups of Spearman with ``human``, for each index array of
    ``rows(group_indices)`` (shape ``[n_boot, n]``, or ``[1, n]`` for the point)."""
    g = np.asarray(groups)
    h = np.asarray(human, dtype=float)
    ms = [np.asarray(m, dtype=float) for m in metrics]
    out = []
    for name in dict.fromkeys(groups):
        idx = rows(np.flatnonzero(g == name))
        hr = _ranks(h[idx])
        out.append([_row_pearson(_ranks(m[idx]), hr) for m in ms])
    return np.mean(np.array(out), axis=0)  # [n_metrics, n_boot]


def grouped_spearman(
    groups: Sequence[str], human: Sequence[float], metric: Sequence[float]
) -> float:
    """Spearman between metric and human scores within each group (e.g. a language pair of a
    single-translation set), averaged over the groups; one group: plain Spearman."""
    return float(_grouped(groups, human, [metric], lambda ix: ix[None, :])[0, 0])


def compare_grouped_spearman(
    groups: Sequence[str],
    human: Sequence[float],
    candidate: Sequence[float],
    reference: Sequence[float],
    *,
    n_boot: int = 1000,
    seed: int = 1,
) -> Check:
    """Paired bootstrap of :func:`grouped_spearman` for two metrics on the same translations
    (rows resampled within each group, the same resamples for both)."""
    rng = np.random.default_rng(seed)
    draw = lambda ix: ix[rng.integers(0, len(ix), size=(n_boot, len(ix)))]
    boots = _grouped(groups, human, [candidate, reference], draw)
    point = _grouped(groups, human, [candidate, reference], lambda ix: ix[None, :])[:, 0]
    return Check(
        "spearman",
        _interval(boots[0], point[0]),
        _interval(boots[1], point[1]),
        _interval(boots[0] - boots[1], point[0] - point[1]),
    )


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
    return Check("word_mcc", _interval(ma, pa), _interval(mb, pb), _interval(ma - mb, pa - pb))


@dataclass(frozen=True)
class FloorCheck:
    """The challenge set as a floor: pairs ranked right in a category (or ``all``) of
    ``total``, and the fewest allowed."""

    category: str
    won: int
    total: int
    floor: int

    @property
    def fails(self) -> bool:
        """Fewer pairs ranked right than the floor."""
        return self.won < self.floor


def floor_checks(won: Mapping[str, Sequence[bool]]) -> list[FloorCheck]:
    """One check per category (at least :data:`FLOOR_CATEGORY` of its pairs right), then
    ``all`` (at least :data:`FLOOR_OVERALL` of every pair)."""
    out = [
        FloorCheck(cat, int(sum(w)), len(w), math.ceil(FLOOR_CATEGORY * len(w) - 1e-9))
        for cat, w in won.items()
    ]
    n = sum(len(w) for w in won.values())
    total = sum(int(sum(w)) for w in won.values())
    out.append(FloorCheck("all", total, n, math.ceil(FLOOR_OVERALL * n - 1e-9)))
    return out
