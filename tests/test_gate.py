"""The ship gate's arithmetic: paired bootstrap checks that can fail, and the challenge rule."""

import numpy as np
import pytest

from xlscore.evaluation.gate import (
    challenge_regressions,
    compare_scores,
    compare_tags,
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


def test_a_challenge_category_below_the_reference_fails():
    ref = {"number": 17, "negation": 15, "role_swap": 13}
    assert challenge_regressions({"number": 17, "negation": 15, "role_swap": 13}, ref) == {}
    assert challenge_regressions({"number": 17, "negation": 16, "role_swap": 12}, ref) == {
        "role_swap": (12, 13)
    }
    assert challenge_regressions({"number": 17}, ref) == {
        "negation": (0, 15),
        "role_swap": (0, 13),
    }
