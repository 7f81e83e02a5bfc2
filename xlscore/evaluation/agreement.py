"""Agreement between metric scores and human judgments (scipy.stats underneath).

Scores come as parallel sequences: segment id, system, human score, metric score (higher is
better for both). The statistics:

* **per-segment** Spearman rho and Kendall tau-b between metric and human scores over the
  systems of each segment, averaged over segments (the paper's protocol); segments whose human
  scores are all equal are skipped and counted; a segment where the metric gives every
  system the same score counts as 0;
* **global** segment-level Kendall tau-b and Spearman over all (segment, system) items
  pooled (for one translation per source, Spearman is the standard QE statistic);
* **pairwise accuracy**: of the pairs of systems of a segment whose human scores differ, the
  share the metric orders the same way (a metric tie counts as a miss);
* **system level**: Pearson, Spearman and Kendall over the systems' mean scores, and the
  system-level pairwise accuracy (Kocmi et al., 2021);
* 95% **bootstrap** confidence intervals by resampling segments with replacement, and a
  **paired bootstrap** test of whether one metric agrees better than another (the same
  resampled segments for both).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from xlscore.errors import InputError
from xlscore.io.judgments import Judgment, read_judgments

__all__ = [
    "Agreement",
    "Interval",
    "Judgment",
    "MetricComparison",
    "agreement",
    "bootstrap_mean_difference",
    "compare",
    "per_segment",
    "read_judgments",
]


def per_segment(
    seg_ids: Sequence[str], human: Sequence[float], metric: Sequence[float], method: str = "kendall"
) -> tuple[float, list[float], int]:
    """Mean over segments of the rank correlation (``"kendall"`` tau-b or ``"spearman"``)
    between metric and human scores of each segment's translations. Returns the mean, the
    per-segment values and the number of segments skipped (all human scores equal)."""
    if method not in ("kendall", "spearman"):
        raise ValueError(f"unknown method {method!r}")
    seen: dict[str, int] = {}
    systems = []
    for s in seg_ids:
        systems.append(str(seen.get(s, 0)))
        seen[s] = seen.get(s, 0) + 1
    t = _arrange(seg_ids, systems, human, metric)
    values = t.seg_kendall if method == "kendall" else t.seg_spearman
    used = ~np.isnan(values)
    mean = float(values[used].mean()) if used.any() else float("nan")
    return mean, values[used].tolist(), int((~used).sum())


# ------------------------------------------------------------------ the full report
STATISTICS = (
    "seg_kendall",
    "seg_spearman",
    "global_kendall",
    "global_spearman",
    "pairwise_accuracy",
    "sys_pearson",
    "sys_spearman",
    "sys_kendall",
    "sys_pairwise_accuracy",
)
LABELS = {
    "seg_kendall": "per-segment Kendall",
    "seg_spearman": "per-segment Spearman",
    "global_kendall": "global Kendall",
    "global_spearman": "global Spearman",
    "pairwise_accuracy": "pairwise accuracy",
    "sys_pearson": "system Pearson",
    "sys_spearman": "system Spearman",
    "sys_kendall": "system Kendall",
    "sys_pairwise_accuracy": "system pairwise accuracy",
}


@dataclass(frozen=True)
class Interval:
    """A statistic with its 95% bootstrap interval."""

    value: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.value:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"


@dataclass
class _Table:
    """Scores arranged by segment, for fast resampling."""

    segments: list[str]
    systems: list[str]
    human: np.ndarray  # [n_segments, n_systems], NaN where missing
    metric: np.ndarray
    seg_kendall: np.ndarray = field(init=False)  # NaN where skipped
    seg_spearman: np.ndarray = field(init=False)
    agree: np.ndarray = field(init=False)  # pairs ordered like the humans
    pairs: np.ndarray = field(init=False)  # pairs with different human scores

    def __post_init__(self) -> None:
        n = len(self.segments)
        self.seg_kendall, self.seg_spearman = np.full(n, np.nan), np.full(n, np.nan)
        self.agree, self.pairs = np.zeros(n), np.zeros(n)
        for k in range(n):
            ok = ~np.isnan(self.human[k]) & ~np.isnan(self.metric[k])
            h, m = self.human[k][ok], self.metric[k][ok]
            if len(h) < 2 or np.all(h == h[0]):
                continue
            self.seg_kendall[k] = _corr(m, h, "kendall")
            self.seg_spearman[k] = _corr(m, h, "spearman")
            self.agree[k], self.pairs[k] = _pair_agreement(h, m)


def _pair_agreement(h: np.ndarray, m: np.ndarray) -> tuple[int, int]:
    """Of the pairs with different human scores, how many the metric orders the same way
    (a metric tie is a miss), and how many there are."""
    dh = np.sign(h[:, None] - h[None, :])
    dm = np.sign(m[:, None] - m[None, :])
    upper = np.triu(np.ones_like(dh, dtype=bool), 1) & (dh != 0)
    return int((upper & (dh == dm)).sum()), int(upper.sum())


def _corr(m: np.ndarray, h: np.ndarray, method: str) -> float:
    if np.all(m == m[0]):
        return 0.0
    if method == "kendall":
        v = stats.kendalltau(m, h, variant="b").statistic
    elif method == "spearman":
        v = stats.spearmanr(m, h).statistic
    else:
        v = stats.pearsonr(m, h).statistic
    return 0.0 if math.isnan(v) else float(v)


def _arrange(
    seg_ids: Sequence[str], systems: Sequence[str], human: Sequence[float], metric: Sequence[float]
) -> _Table:
    if not (len(seg_ids) == len(systems) == len(human) == len(metric)):
        raise ValueError("seg_ids, systems, human and metric must have the same length")
    segs = list(dict.fromkeys(seg_ids))
    syss = list(dict.fromkeys(systems))
    si = {s: i for i, s in enumerate(segs)}
    yi = {s: i for i, s in enumerate(syss)}
    h = np.full((len(segs), len(syss)), np.nan)
    m = np.full((len(segs), len(syss)), np.nan)
    seen = set()
    for s, y, hv, mv in zip(seg_ids, systems, human, metric):
        for what, v in (("metric", mv), ("human", hv)):
            if not math.isfinite(float(v)):
                raise InputError(f"{what} score {v!r} for segment {s}, system {y} is not finite")
        if (s, y) in seen:
            raise InputError(f"segment {s} has two scores for system {y}")
        seen.add((s, y))
        h[si[s], yi[y]], m[si[s], yi[y]] = float(hv), float(mv)
    return _Table(segs, syss, h, m)


def _statistics(t: _Table, rows: np.ndarray) -> dict[str, float]:
    """Every statistic over the segments ``rows`` (indices, repeats allowed)."""
    out: dict[str, float] = {}
    k, sp = t.seg_kendall[rows], t.seg_spearman[rows]
    used = ~np.isnan(k)
    out["seg_kendall"] = float(k[used].mean()) if used.any() else float("nan")
    out["seg_spearman"] = float(sp[used].mean()) if used.any() else float("nan")
    h, m = t.human[rows].ravel(), t.metric[rows].ravel()
    ok = ~np.isnan(h) & ~np.isnan(m)
    out["global_kendall"] = _corr(m[ok], h[ok], "kendall") if ok.sum() > 1 else float("nan")
    out["global_spearman"] = _corr(m[ok], h[ok], "spearman") if ok.sum() > 1 else float("nan")
    pairs = t.pairs[rows].sum()
    out["pairwise_accuracy"] = float(t.agree[rows].sum() / pairs) if pairs else float("nan")
    with np.errstate(invalid="ignore"):
        hs = np.nanmean(t.human[rows], axis=0)
        ms = np.nanmean(t.metric[rows], axis=0)
    good = ~np.isnan(hs) & ~np.isnan(ms)
    hs, ms = hs[good], ms[good]
    if len(hs) >= 3 and not np.all(hs == hs[0]):
        out["sys_pearson"] = _corr(ms, hs, "pearson")
        out["sys_spearman"] = _corr(ms, hs, "spearman")
        out["sys_kendall"] = _corr(ms, hs, "kendall")
        agree, pairs = _pair_agreement(hs, ms)
        out["sys_pairwise_accuracy"] = agree / pairs
    else:
        for key in ("sys_pearson", "sys_spearman", "sys_kendall", "sys_pairwise_accuracy"):
            out[key] = float("nan")
    return out


def _resamples(n_segments: int, n_boot: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n_segments, size=(n_boot, n_segments))


@dataclass
class Agreement:
    """Every statistic of one metric against the human scores, with 95% bootstrap intervals.

    ``n_segments``: segments used by the per-segment statistics; ``n_skipped``: segments whose
    human scores are all equal; ``per_segment_kendall`` / ``per_segment_spearman``: the values
    behind the means (for distributions).
    """

    estimates: dict[str, Interval]
    n_segments: int
    n_skipped: int
    n_systems: int
    per_segment_kendall: list[float]
    per_segment_spearman: list[float]
    _table: _Table = field(repr=False)

    def __getitem__(self, key: str) -> Interval:
        return self.estimates[key]


def agreement(
    seg_ids: Sequence[str],
    systems: Sequence[str],
    human: Sequence[float],
    metric: Sequence[float],
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> Agreement:
    """All statistics of ``metric`` against ``human`` with 95% bootstrap intervals (segments
    resampled with replacement, ``n_boot`` times, fixed ``seed``)."""
    t = _arrange(seg_ids, systems, human, metric)
    n = len(t.segments)
    point = _statistics(t, np.arange(n))
    boots = [_statistics(t, rows) for rows in _resamples(n, n_boot, seed)] if n_boot else []
    est = {}
    for key in STATISTICS:
        vals = np.array([b[key] for b in boots], dtype=float)
        vals = vals[~np.isnan(vals)]
        lo, hi = np.percentile(vals, [2.5, 97.5]) if len(vals) else (np.nan, np.nan)
        est[key] = Interval(point[key], float(lo), float(hi))
    used = ~np.isnan(t.seg_kendall)
    return Agreement(
        est,
        int(used.sum()),
        int((~used).sum()),
        len(t.systems),
        t.seg_kendall[used].tolist(),
        t.seg_spearman[used].tolist(),
        t,
    )


@dataclass(frozen=True)
class MetricComparison:
    """Paired bootstrap comparison of two metrics on one statistic: ``delta`` = A - B with its
    95% interval, and ``p_value`` = share of resamples in which A does not beat B."""

    statistic: str
    delta: Interval
    p_value: float


def compare(
    a: Agreement, b: Agreement, statistic: str = "seg_kendall", *, n_boot: int = 1000, seed: int = 1
) -> MetricComparison:
    """Does metric ``a`` agree with humans better than ``b``? Both must come from the same
    segments and systems; the same resampled segments are used for both."""
    ta, tb = a._table, b._table
    if (
        ta.segments != tb.segments
        or ta.systems != tb.systems
        or not np.array_equal(np.isnan(ta.human), np.isnan(tb.human))
    ):
        raise ValueError("the two metrics were not evaluated on the same segments and systems")
    n = len(ta.segments)
    deltas = []
    for rows in _resamples(n, n_boot, seed):
        da, db = _statistics(ta, rows)[statistic], _statistics(tb, rows)[statistic]
        if not (math.isnan(da) or math.isnan(db)):
            deltas.append(da - db)
    d = np.array(deltas)
    point = a[statistic].value - b[statistic].value
    lo, hi = np.percentile(d, [2.5, 97.5]) if len(d) else (np.nan, np.nan)
    p = float((d <= 0).mean()) if len(d) else float("nan")
    return MetricComparison(statistic, Interval(point, float(lo), float(hi)), p)


def bootstrap_mean_difference(
    a: Sequence[float], b: Sequence[float], *, n_boot: int = 1000, seed: int = 0
) -> tuple[Interval, float]:
    """Paired bootstrap over segments of the mean difference ``a - b`` of two systems' scores
    (e.g. two MT engines under one metric). Returns the difference with its 95% interval, and
    the two-sided p-value of "no difference" (twice the smaller tail, at most 1)."""
    x = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if len(x) == 0:
        raise ValueError("no segments to compare")
    idx = _resamples(len(x), n_boot, seed)
    means = x[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    p = min(1.0, 2 * min((means <= 0).mean(), (means >= 0).mean()))
    return Interval(float(x.mean()), float(lo), float(hi)), float(p)
