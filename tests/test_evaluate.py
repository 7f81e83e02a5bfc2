"""Correlation statistics against small hand-checked cases (ties included)."""

import math

import numpy as np
import pytest
from scipy import stats

from xlscore import InputError
from xlscore.evaluation.agreement import (
    agreement,
    bootstrap_mean_difference,
    compare,
    per_segment,
    read_judgments,
)

# five segments, three systems A B C; s3 has equal human scores (skipped), s4 a human tie,
# s5 a metric that cannot tell the systems apart
SEGS = [s for s in ("s1", "s2", "s3", "s4", "s5") for _ in range(3)]
SYSTEMS = ["A", "B", "C"] * 5
HUMAN = [3, 2, 1, 1, 2, 3, 0, 0, 0, 0, 0, -5, 1, 2, 3]
METRIC = [0.9, 0.5, 0.1, 0.9, 0.5, 0.1, 0.2, 0.2, 0.9, 0.3, 0.2, 0.1, 0.5, 0.5, 0.5]


def test_per_segment_by_hand():
    k, values, skipped = per_segment(SEGS, HUMAN, METRIC, "kendall")
    tie = 2 / math.sqrt(2 * 3)  # tau-b with one tied human pair
    assert skipped == 1
    assert values == pytest.approx([1, -1, tie, 0])
    assert k == pytest.approx((1 - 1 + tie + 0) / 4)
    _rho, values, _ = per_segment(SEGS, HUMAN, METRIC, "spearman")
    assert values == pytest.approx([1, -1, 1.5 / math.sqrt(1.5 * 2), 0])  # average ranks


def test_full_report_by_hand():
    a = agreement(SEGS, SYSTEMS, HUMAN, METRIC, n_boot=200)
    assert (a.n_segments, a.n_skipped, a.n_systems) == (4, 1, 3)
    assert a["seg_kendall"].value == pytest.approx((1 - 1 + 2 / math.sqrt(6)) / 4)
    assert a["pairwise_accuracy"].value == pytest.approx(5 / 11)  # metric ties are misses
    assert a["global_kendall"].value == pytest.approx(stats.kendalltau(METRIC, HUMAN).statistic)
    # system means: human A 1.0, B 1.2, C 0.4; metric A .56, B .38, C .34
    assert a["sys_kendall"].value == pytest.approx(1 / 3)
    assert a["sys_spearman"].value == pytest.approx(0.5)
    assert a["sys_pearson"].value == pytest.approx(
        np.corrcoef([0.56, 0.38, 0.34], [1.0, 1.2, 0.4])[0, 1]
    )
    assert a["sys_pairwise_accuracy"].value == pytest.approx(2 / 3)


def test_bootstrap_intervals_are_reproducible_and_contain_the_estimate():
    rng = np.random.default_rng(0)
    segs = [f"s{i}" for i in range(60) for _ in range(5)]
    systems = [f"m{j}" for _ in range(60) for j in range(5)]
    human = rng.normal(size=300)
    metric = human + rng.normal(scale=1.0, size=300)
    a = agreement(segs, systems, human, metric, n_boot=300, seed=3)
    b = agreement(segs, systems, human, metric, n_boot=300, seed=3)
    for key, est in a.estimates.items():
        assert est == b.estimates[key]
    for key in ("seg_kendall", "seg_spearman", "global_kendall", "pairwise_accuracy"):
        assert a[key].low <= a[key].value <= a[key].high
        assert a[key].low > 0  # a clearly positive correlation


def test_paired_comparison():
    rng = np.random.default_rng(1)
    segs = [f"s{i}" for i in range(80) for _ in range(4)]
    systems = [f"m{j}" for _ in range(80) for j in range(4)]
    human = rng.normal(size=320)
    good = agreement(segs, systems, human, human + rng.normal(scale=0.3, size=320), n_boot=0)
    noise = agreement(segs, systems, human, rng.normal(size=320), n_boot=0)
    c = compare(good, noise, "seg_kendall", n_boot=300)
    assert c.delta.value > 0.5 and c.delta.low > 0 and c.p_value < 0.01
    same = compare(good, good, "seg_kendall", n_boot=100)
    assert same.delta.value == 0 and same.p_value == 1.0
    other = agreement(segs[:-4], systems[:-4], human[:-4], human[:-4], n_boot=0)
    with pytest.raises(ValueError, match="same segments"):
        compare(good, other)


def test_bootstrap_mean_difference():
    a = [0.5, 0.6, 0.7, 0.2]
    est, p = bootstrap_mean_difference(a, [x - 0.1 for x in a], n_boot=200)
    assert est.value == pytest.approx(0.1) and est.low == pytest.approx(0.1) and p == 0.0
    est, p = bootstrap_mean_difference(a, a, n_boot=200)
    assert est.value == 0 and p == 1.0


def test_non_finite_metric_scores_are_refused():
    with pytest.raises(InputError, match=r"metric score nan .* is not finite"):
        agreement(SEGS, SYSTEMS, HUMAN, [*METRIC[:-1], float("nan")], n_boot=0)
    with pytest.raises(InputError, match=r"human score inf .* is not finite"):
        agreement(SEGS, SYSTEMS, [*HUMAN[:-1], float("inf")], METRIC, n_boot=0)


def test_read_judgments(tmp_path):
    p = tmp_path / "j.tsv"
    p.write_text(
        "seg_id\tsystem\tsource\ttranslation\thuman_score\treference\tis_human_translation\n"
        "newstest2021:doc1:1\tsysA\tHi.\tПривет.\t-1.0\tПривет!\t0\n"
        "newstest2021:doc1:1\tref-B\tHi.\tЗдравствуй.\t0\tПривет!\t1\n",
        encoding="utf-8",
    )
    rows = read_judgments(p)
    assert len(rows) == 1 and rows[0].human == -1.0 and rows[0].doc == "doc1"
    both = read_judgments(p, include_human=True)
    assert [r.is_human for r in both] == [False, True]
    bad = tmp_path / "bad.tsv"
    bad.write_text(
        "seg_id\tsystem\tsource\ttranslation\thuman_score\nx\ty\ta\tb\tlots\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="line 2: human_score 'lots' is not a finite number"):
        read_judgments(bad)
    bad.write_text(
        "seg_id\tsystem\tsource\ttranslation\thuman_score\nx\ty\ta\tb\tnan\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="line 2: human_score 'nan' is not a finite number"):
        read_judgments(bad)
    bad.write_text("seg_id\tsystem\tsource\n", encoding="utf-8")
    with pytest.raises(InputError, match="no column 'translation'"):
        read_judgments(bad)
