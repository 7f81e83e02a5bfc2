"""BERTScore arithmetic against a hand-computed example."""

import math

import pytest
import torch

from xlscore.encoders.bertscore import cosine_matrix, idf_weights, rescale, score_pairs

CAND = torch.tensor([[1.0, 0.0], [0.0, 2.0]])  # cos with REF rows:
REF = torch.tensor([[3.0, 0.0], [1.0, 1.0], [0.0, -1.0]])  # [[1, .7071, 0], [0, .7071, -1]]
S = 1 / math.sqrt(2)


def single(cand, ref, cw=None, rw=None):
    out = score_pairs([cand], [ref], None if cw is None else [cw], None if rw is None else [rw])
    return [float(t[0]) for t in out]


def test_cosine_matrix():
    assert torch.allclose(
        cosine_matrix(CAND, REF), torch.tensor([[1, S, 0], [0, S, -1]]), atol=1e-6
    )


def test_plain_precision_recall_f1():
    p, r, f = single(CAND, REF)
    assert p == pytest.approx((1 + S) / 2)
    assert r == pytest.approx((1 + S + 0) / 3)
    assert f == pytest.approx(2 * p * r / (p + r))


def test_idf_weighted():
    p, r, _f = single(CAND, REF, torch.tensor([2.0, 1.0]), torch.tensor([1.0, 1.0, 2.0]))
    assert p == pytest.approx((2 * 1 + 1 * S) / 3)
    assert r == pytest.approx((1 + S + 2 * 0) / 4)


def test_idf_from_documents():
    idf = idf_weights([["a", "b"], ["A", "c", "c"]])
    assert idf("a") == pytest.approx(math.log(3 / 3))
    assert idf("b") == pytest.approx(math.log(3 / 2))
    assert idf("C") == pytest.approx(math.log(3 / 2))
    assert idf("unseen") == pytest.approx(math.log(3))


def test_rescale():
    assert rescale(0.85, 0.5) == pytest.approx(0.7)
    assert rescale(torch.tensor([0.5, 1.0]), 0.5).tolist() == [0.0, 1.0]


def test_zero_idf_weights_fall_back_to_equal_weights():
    plain = single(CAND, REF)
    zero = single(CAND, REF, torch.zeros(2), torch.zeros(3))
    assert zero == pytest.approx(plain)


def test_a_pairs_scores_do_not_depend_on_what_else_is_scored():
    """Each pair is matched on its own: its three figures are the same bits alone and among
    others in any order; a side with no tokens scores 0."""
    g = torch.Generator().manual_seed(0)
    sizes = [(3, 4), (17, 2), (1, 30), (40, 39), (0, 3), (8, 8)]
    cand = [torch.randn(n, 16, generator=g) for n, _ in sizes]
    ref = [torch.randn(m, 16, generator=g) for _, m in sizes]
    cw = [torch.rand(n, generator=g) for n, _ in sizes]
    rw = [torch.zeros(m) if m == 39 else torch.rand(m, generator=g) for _, m in sizes]
    together = torch.stack(score_pairs(cand, ref, cw, rw))
    back = torch.stack(score_pairs(cand[::-1], ref[::-1], cw[::-1], rw[::-1])).flip(1)
    assert torch.equal(together, back)
    for k in range(len(sizes)):
        alone = torch.stack(score_pairs([cand[k]], [ref[k]], [cw[k]], [rw[k]]))[:, 0]
        assert torch.equal(alone, together[:, k])
        if not sizes[k][0]:  # a side with no tokens scores 0
            assert together[:, k].tolist() == [0.0, 0.0, 0.0]
