"""The ship gate's arithmetic: paired bootstrap checks that can fail, and the challenge floor."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from xlscore.evaluation.gate import (
    compare_grouped_spearman,
    compare_scores,
    compare_tags,
    floor_checks,
    grouped_spearman,
    mcc_of_counts,
    token_counts,
)


def _many_systems(seed=0, n_seg=60, n_sys=6):
    rng = np.random.default_rng(seed)
    seg = [f"s{i}" for i in range(n_seg) for _ in range(n_sys)]
    sys_ = [f"sys{k}" for _ in range(n_seg) for k in range(n_sys)]
    quality = np.repeat(rng.normal(size=(1, n_sys)), n_seg, 0).ravel()
    human = quality + rng.normal(scale=0.5, size=len(seg))
    return seg, sys_, human, rng


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
@pytest.mark.parametrize("statistic", ["seg_kendall", "sys_kendall", "spearman"])
def test_a_candidate_that_ignores_quality_is_significantly_worse(statistic):
    seg, sys_, human, rng = _many_systems()
    good = human + rng.normal(scale=0.3, size=len(human))
    noise = rng.normal(size=len(human))
    check = compare_scores(statistic, seg, sys_, human, noise, good, n_boot=200)
    assert check.worse and check.delta.value < 0
    assert check.candidate.value < check.reference.value
    # the other way round, the better model is not "worse"
    assert not compare_scores(statistic, seg, sys_, human, good, noise, n_boot=200).worse


def test_the_same_predictions_are_never_worse():
    seg, sys_, human, rng = _many_systems(1)
    pred = human + rng.normal(size=len(human))
    check = compare_scores("seg_kendall", seg, sys_, human, pred, pred.copy(), n_boot=100)
    assert check.delta.value == 0 and not check.worse and not check.below()
    with pytest.raises(ValueError, match="unknown sentence-level statistic"):
        compare_scores("word_mcc", seg, sys_, human, pred, pred, n_boot=10)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_the_gate_margin_refuses_what_may_be_worse_than_what_ships():
    """Issue 83: a candidate passes only when its 95% lower bound stays within 0.01 of what
    ships; one a little noisier than what ships is refused, one rounded by 1e-4 is not."""
    seg, sys_, human, rng = _many_systems(2, n_seg=120)
    ships = human + rng.normal(scale=0.8, size=len(human))
    noisier = ships + rng.normal(scale=0.6, size=len(human))
    rounded = ships + rng.normal(scale=1e-4, size=len(human))
    assert compare_scores("seg_kendall", seg, sys_, human, noisier, ships, n_boot=200).below()
    close = compare_scores("seg_kendall", seg, sys_, human, rounded, ships, n_boot=200)
    assert not close.below() and close.delta.low > -0.01


def test_word_mcc_from_counts_matches_the_definition():
    gold = [[True, False, False], [False, True]]
    pred = [[True, True, False], [False, False]]
    counts = token_counts(pred, gold)
    assert counts.tolist() == [[1, 1, 0, 1], [0, 0, 1, 1]]
    tp, fp, fn, tn = 1, 1, 1, 2
    expected = (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert float(mcc_of_counts(counts.sum(0))) == pytest.approx(expected)
    assert float(mcc_of_counts(np.array([0, 0, 3, 5]))) == 0.0  # nothing predicted BAD
    with pytest.raises(ValueError, match="segment 0: 2 predicted tags for 3 tokens"):
        token_counts([[True, False]], [[True, False, False]])


def test_a_tagger_that_misses_the_errors_is_significantly_worse():
    rng = np.random.default_rng(0)
    gold = [list(rng.random(12) < 0.2) for _ in range(300)]
    close = [[g if rng.random() < 0.9 else not g for g in row] for row in gold]
    blind = [[bool(rng.random() < 0.2) for _ in row] for row in gold]
    check = compare_tags(gold, blind, close, n_boot=200)
    assert check.worse and check.candidate.value < 0.2 < check.reference.value
    assert not compare_tags(gold, close, blind, n_boot=200).worse


def test_grouped_spearman_is_the_mean_of_each_groups_spearman():
    rng = np.random.default_rng(3)
    human = rng.normal(size=90)
    metric = human + rng.normal(size=90)
    metric[:5] = metric[0]  # ties get average ranks, as scipy's
    groups = ["de"] * 30 + ["zh"] * 60
    expected = (spearmanr(human[:30], metric[:30])[0] + spearmanr(human[30:], metric[30:])[0]) / 2
    assert grouped_spearman(groups, human, metric) == pytest.approx(expected)
    one = grouped_spearman(["x"] * 90, human, metric)
    assert one == pytest.approx(spearmanr(human, metric)[0])


def test_a_single_translation_metric_that_ignores_one_group_is_significantly_worse():
    rng = np.random.default_rng(4)
    human = rng.normal(size=400)
    groups = ["a"] * 200 + ["b"] * 200
    good = human + rng.normal(scale=0.5, size=400)
    half = good.copy()
    half[200:] = rng.normal(size=200)  # knows nothing of group b
    check = compare_grouped_spearman(groups, human, half, good, n_boot=200)
    assert check.worse and check.delta.value < -0.2
    assert check.candidate.value == pytest.approx(grouped_spearman(groups, human, half))
    assert not compare_grouped_spearman(groups, human, good, half, n_boot=200).worse
    same = compare_grouped_spearman(groups, human, good, good.copy(), n_boot=50)
    assert same.delta.value == 0 and not same.worse


def _outcomes(wins: int, total: int) -> list[bool]:
    return [True] * wins + [False] * (total - wins)


def test_the_challenge_floor_is_half_of_each_category_and_four_fifths_of_all():
    won = {"antonym": _outcomes(10, 20), "role_swap": _outcomes(7, 13), "number": _outcomes(17, 17)}
    checks = floor_checks(won)
    assert [(c.category, c.won, c.total, c.floor) for c in checks] == [
        ("antonym", 10, 20, 10),
        ("role_swap", 7, 13, 7),
        ("number", 17, 17, 9),
        ("all", 34, 50, 40),
    ]
    assert [c.fails for c in checks] == [False, False, False, True]
    # one pair fewer than half of a category fails it; the whole set at 80% passes
    low = floor_checks({"antonym": _outcomes(9, 20), "number": _outcomes(40, 40)})
    assert [c.fails for c in low] == [True, False, False]
    assert low[-1].won == 49 and low[-1].floor == 48
