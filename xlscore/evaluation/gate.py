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

The challenge set is compared pair by pair (:func:`challenge_checks`): its pairs were written
to test one skill each, so the two models' outcomes on the same pairs are paired. A category, or
the whole set, fails when the candidate is *significantly worse* than the reference (one-sided
exact sign test on the pairs where the two disagree, p < 0.05), and a category also fails when
the candidate ranks fewer than :data:`CATEGORY_FLOOR` of its pairs right (8 in 10, the floor
the held-out minimal pairs are judged by). A category merely one pair short of the reference
is therefore not a failure; the gate's report still shows every count.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xlscore.evaluation.agreement import Estimate, _resamples, agreement, compare

#: the share of a challenge category's pairs a candidate must rank right (the rule of issue 33,
#: kept for the experiments that measured candidates by it)
CATEGORY_FLOOR = 0.8
#: the challenge set as a floor (issue 51): the share of all pairs, and of each category's,
#: the score must rank right
FLOOR_OVERALL = 0.8
FLOOR_CATEGORY = 0.5
#: the significance level of the challenge set's sign tests
ALPHA = 0.05

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
        _estimate(boots[0], point[0]),
        _estimate(boots[1], point[1]),
        _estimate(boots[0] - boots[1], point[0] - point[1]),
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
    return Check("word_mcc", _estimate(ma, pa), _estimate(mb, pb), _estimate(ma - mb, pa - pb))


def sign_test(losses: int, gains: int) -> float:
    """One-sided exact sign test: the chance of at least ``losses`` of the ``losses + gains``
    discordant pairs going against the candidate if either way were equally likely."""
    n = losses + gains
    if n == 0:
        return 1.0
    return sum(math.comb(n, k) for k in range(losses, n + 1)) / 2**n


@dataclass(frozen=True)
class ChallengeCheck:
    """One challenge category (or ``all``): pairs the candidate and the reference rank right of
    ``total``; ``losses``/``gains``: pairs only the reference / only the candidate ranks
    right; ``p``: the sign test of the losses; ``floor``: the fewest wins allowed."""

    category: str
    candidate: int
    reference: int
    total: int
    losses: int
    gains: int
    p: float
    floor: int

    @property
    def worse(self) -> bool:
        """Significantly worse than the reference (p < :data:`ALPHA`)."""
        return self.p < ALPHA

    @property
    def below_floor(self) -> bool:
        """Fewer wins than :data:`CATEGORY_FLOOR` of the pairs (categories only)."""
        return self.candidate < self.floor

    @property
    def fails(self) -> bool:
        """Whether this check fails the gate."""
        return self.worse or self.below_floor


def _check(
    category: str, mine: Sequence[bool], theirs: Sequence[bool], floor: int
) -> ChallengeCheck:
    if len(mine) != len(theirs):
        raise ValueError(
            f"challenge {category}: {len(mine)} candidate outcomes for {len(theirs)} reference ones"
        )
    a, b = np.asarray(mine, bool), np.asarray(theirs, bool)
    losses, gains = int((b & ~a).sum()), int((a & ~b).sum())
    return ChallengeCheck(
        category, int(a.sum()), int(b.sum()), len(a), losses, gains, sign_test(losses, gains), floor
    )


def challenge_checks(
    candidate: Mapping[str, Sequence[bool]], reference: Mapping[str, Sequence[bool]]
) -> list[ChallengeCheck]:
    """The gate's challenge checks: one per category of the reference (a category the
    candidate lacks counts as all lost), then ``all`` over every pair (no floor). Outcomes are
    per pair, in the same order for both models."""
    out, mine_all, theirs_all = [], [], []
    for cat, theirs in reference.items():
        mine = candidate.get(cat, [False] * len(theirs))
        out.append(_check(cat, mine, theirs, math.ceil(CATEGORY_FLOOR * len(theirs) - 1e-9)))
        mine_all += list(mine)
        theirs_all += list(theirs)
    out.append(_check("all", mine_all, theirs_all, 0))
    return out


def by_category(won: Sequence[bool], categories: Sequence[str]) -> dict[str, list[bool]]:
    """Pair outcomes grouped by category, each group in the pairs' order (the shape
    :func:`challenge_checks` takes)."""
    if len(won) != len(categories):
        raise ValueError(f"{len(won)} outcomes for {len(categories)} categories")
    out: dict[str, list[bool]] = {}
    for w, c in zip(won, categories):
        out.setdefault(c, []).append(bool(w))
    return out


def failing_categories(
    won: Sequence[bool], categories: Sequence[str], reference: Mapping[str, Sequence[bool]]
) -> set[str]:
    """The checks of :func:`challenge_checks` (categories, and ``all``) that a candidate fails,
    from its pair outcomes ``won`` in the pairs' order and each pair's category."""
    return {
        c.category for c in challenge_checks(by_category(won, categories), reference) if c.fails
    }


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
