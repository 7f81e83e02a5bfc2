"""The ship gate's arithmetic: paired bootstrap checks that can fail, and the challenge rule."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from xlscore.evaluation.gate import (
    by_category,
    challenge_checks,
    compare_grouped_spearman,
    compare_scores,
    compare_tags,
    failing_categories,
    floor_checks,
    grouped_spearman,
    mcc_of_counts,
    sign_test,
    token_counts,
)


def _many_systems(seed=0, n_seg=60, n_sys=6):
    rng = np.random.default_rng(seed)
    seg = [f"s{i}" for i in range(n_seg) for _ in range(n_sys)]
    sys_ = [f"sys{k}" for _ in range(n_seg) for k in range(n_sys)]
    quality = np.repeat(rng.normal(size=(1, n_sys)), n_seg, 0).ravel()
    human = quality + rng.normal(scale=0.5, size=len(seg))
    return seg, sys_, human, rng


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
    assert check.delta.value == 0 and not check.worse
    with pytest.raises(ValueError, match="unknown sentence-level statistic"):
        compare_scores("word_mcc", seg, sys_, human, pred, pred, n_boot=10)


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


def test_the_sign_test_counts_only_the_pairs_the_models_disagree_on():
    assert sign_test(0, 0) == 1.0
    assert sign_test(1, 0) == 0.5
    assert sign_test(3, 0) == 0.125
    assert sign_test(5, 0) == pytest.approx(1 / 32)
    # 6 of 8 discordant pairs against: P(X >= 6), X ~ Bin(8, 1/2) = (28 + 8 + 1) / 256
    assert sign_test(6, 2) == pytest.approx(37 / 256)
    assert sign_test(2, 6) > 0.9


def _outcomes(wins: int, total: int) -> list[bool]:
    return [True] * wins + [False] * (total - wins)


def test_a_challenge_category_fails_when_significantly_worse_or_below_the_floor():
    ref = {
        "number": _outcomes(17, 17),
        "role_swap": _outcomes(13, 13),
        "antonym": _outcomes(18, 20),
    }
    same = challenge_checks(ref, ref)
    assert [c.category for c in same] == ["number", "role_swap", "antonym", "all"]
    assert not any(c.fails for c in same)
    # one pair short in a category: neither significant nor under 8 in 10
    near = dict(ref, role_swap=_outcomes(12, 13))
    (rs,) = [c for c in challenge_checks(near, ref) if c.category == "role_swap"]
    assert (rs.candidate, rs.reference, rs.losses, rs.gains, rs.p) == (12, 13, 1, 0, 0.5)
    assert rs.floor == 11 and not rs.fails
    # three short of 13: not significant (p = 1/8) but under the floor of 11
    low = dict(ref, role_swap=_outcomes(10, 13))
    (rs,) = [c for c in challenge_checks(low, ref) if c.category == "role_swap"]
    assert rs.below_floor and not rs.worse and rs.fails
    # five lost and none gained in a category of 17: p = 1/32, significantly worse
    worse = dict(ref, number=_outcomes(12, 17))
    (nb,) = [c for c in challenge_checks(worse, ref) if c.category == "number"]
    assert nb.worse and nb.p == pytest.approx(1 / 32) and nb.floor == 14
    # gains and losses in one category cancel: the same count, other pairs
    swapped = dict(ref, antonym=[False, True, *([True] * 17), False])
    (an,) = [c for c in challenge_checks(swapped, ref) if c.category == "antonym"]
    assert (an.candidate, an.losses, an.gains) == (18, 1, 1) and not an.fails
    # over the whole set, one pair short in each of five categories is significant
    five = {k: _outcomes(9, 10) for k in "abcde"}
    ten = {k: _outcomes(10, 10) for k in "abcde"}
    checks = challenge_checks(five, ten)
    assert not any(c.fails for c in checks[:-1])
    assert checks[-1].category == "all" and checks[-1].worse and checks[-1].losses == 5
    # a category the candidate lacks is all lost
    (gone,) = [
        c for c in challenge_checks({"number": ref["number"]}, ref) if c.category == "antonym"
    ]
    assert gone.candidate == 0 and gone.fails
    with pytest.raises(ValueError, match="role_swap: 12 candidate outcomes for 13"):
        challenge_checks(dict(ref, role_swap=_outcomes(12, 12)), ref)


def test_outcomes_are_grouped_by_category_in_order():
    got = by_category([True, False, False, True], ["a", "b", "a", "b"])
    assert got == {"a": [True, False], "b": [False, True]}
    with pytest.raises(ValueError, match="3 outcomes for 2 categories"):
        by_category([True, True, False], ["a", "b"])


def test_failing_categories_names_the_checks_that_fail_from_raw_outcomes():
    ref = {"a": [True] * 10, "b": [True] * 10}
    cats = ["a"] * 10 + ["b"] * 10
    assert failing_categories([True] * 20, cats, ref) == set()
    # "a" under 8 in 10; "all": 3 losses and no gains is not significant (p = 1/8)
    assert failing_categories([False] * 3 + [True] * 17, cats, ref) == {"a"}
    # five losses, all in "b": below its floor, and significant there and overall (p = 1/32)
    assert failing_categories([True] * 10 + [False] * 5 + [True] * 5, cats, ref) == {"b", "all"}


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
