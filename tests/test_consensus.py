"""Consensus among candidates: chrF against sacreBLEU's, and the leave-one-out mean."""
import random

import pytest
import sacrebleu

from xlscore.consensus import chrf, consensus_chrf


def _random_text(rng: random.Random) -> str:
    alphabet = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя abc123.,"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))


def test_chrf_equals_sacrebleu_sentence_chrf():
    rng = random.Random(1)
    for _ in range(300):
        h, r = _random_text(rng), _random_text(rng)
        assert chrf(h, r) == pytest.approx(sacrebleu.sentence_chrf(h, [r]).score, abs=1e-9)


def test_consensus_is_mean_against_the_others():
    cands = ["Кот сидит на ковре.", "Кошка сидит на ковре.", "Собака лежит у двери.", "Кот сидит на ковре."]
    got = consensus_chrf(cands)
    for i, c in enumerate(cands):
        others = [chrf(c, d) for j, d in enumerate(cands) if j != i]
        assert got[i] == pytest.approx(sum(others) / len(others))
    # the odd one out agrees least; the duplicated candidate agrees most
    assert min(range(4), key=got.__getitem__) == 2
    assert got[0] == got[3] > got[1]


def test_consensus_needs_two_candidates():
    assert consensus_chrf([]) == []
    assert consensus_chrf(["Один."]) == [0.0]


def test_bertscore_consensus_equals_pairwise_bertscore():
    import torch

    from xlscore.consensus import consensus_bertscore, consensus_bertscore_groups

    g = torch.Generator().manual_seed(0)
    groups = [[torch.randn(int(n), 8, generator=g) for n in sizes]
              for sizes in ([3, 5, 2, 7], [4], [], [6, 1, 3], [2, 0, 4])]
    many = consensus_bertscore_groups(groups)
    assert [len(m) for m in many] == [4, 1, 0, 3, 3]
    assert many[1] == [0.0]
    from xlscore.bertscore import score_pairs

    for vecs, got in zip(groups, many):
        assert got == pytest.approx(consensus_bertscore(vecs), abs=1e-6)
        n = len(vecs)
        if n > 1:   # independently: BERTScore of every ordered pair, one pair at a time
            pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
            f1 = score_pairs([vecs[i] for i, _ in pairs], [vecs[j] for _, j in pairs])[2]
            want = f1.reshape(n, n - 1).mean(1).tolist()
            assert got == pytest.approx(want, abs=1e-6)
    # symmetric pairs computed once give the same as both directions
    a, b = groups[0][0], groups[0][1]
    assert consensus_bertscore([a, b]) == pytest.approx(consensus_bertscore([b, a])[::-1], abs=1e-6)
    # a candidate with no words matches nothing
    assert many[4][1] == 0.0
