"""Consensus among candidates: the leave-one-out mean, by chrF and by BERTScore."""

import pytest
import sacrebleu

from xlscore.metric.consensus import consensus_chrf


def test_consensus_is_mean_against_the_others():
    cands = [
        "Кот сидит на ковре.",
        "Кошка сидит на ковре.",
        "Собака лежит у двери.",
        "Кот сидит на ковре.",
    ]
    got = consensus_chrf(cands)
    for i, c in enumerate(cands):
        others = [sacrebleu.sentence_chrf(c, [d]).score for j, d in enumerate(cands) if j != i]
        assert got[i] == pytest.approx(sum(others) / len(others))
    # the odd one out agrees least; the duplicated candidate agrees most
    assert min(range(4), key=got.__getitem__) == 2
    assert got[0] == got[3] > got[1]


def test_consensus_needs_two_candidates():
    assert consensus_chrf([]) == []
    assert consensus_chrf(["Один."]) == [0.0]


def test_bertscore_consensus_equals_pairwise_bertscore():
    import torch

    from xlscore.metric.consensus import consensus_bertscore, consensus_bertscore_groups

    g = torch.Generator().manual_seed(0)
    groups = [
        [torch.randn(int(n), 8, generator=g) for n in sizes]
        for sizes in ([3, 5, 2, 7], [4], [], [6, 1, 3], [2, 0, 4])
    ]
    many = consensus_bertscore_groups(groups)
    assert [len(m) for m in many] == [4, 1, 0, 3, 3]
    assert many[1] == [0.0]
    from xlscore.metric.bertscore import score_pairs

    for vecs, got in zip(groups, many):
        assert got == pytest.approx(consensus_bertscore(vecs), abs=1e-6)
        n = len(vecs)
        if n > 1:  # independently: BERTScore of every ordered pair, one pair at a time
            pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
            f1 = score_pairs([vecs[i] for i, _ in pairs], [vecs[j] for _, j in pairs])[2]
            want = f1.reshape(n, n - 1).mean(1).tolist()
            assert got == pytest.approx(want, abs=1e-6)
    # symmetric pairs computed once give the same as both directions
    a, b = groups[0][0], groups[0][1]
    assert consensus_bertscore([a, b]) == pytest.approx(consensus_bertscore([b, a])[::-1], abs=1e-6)
    # a candidate with no words matches nothing
    assert many[4][1] == 0.0
    # identical candidates get exactly the same value, and count as agreeing with each other
    twin = [groups[0][0], groups[0][1], groups[0][0].clone(), groups[0][2]]
    got = consensus_bertscore(twin)
    assert got[0] == got[2] and got[0] == pytest.approx(
        (1.0 + sum(consensus_bertscore([twin[0], t])[0] for t in (twin[1], twin[3]))) / 3, abs=1e-6
    )
