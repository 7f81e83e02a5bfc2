"""BERTScore arithmetic against a hand-computed example."""

import math

import pytest
import torch

from xlscore.metric.bertscore import cosine_matrix, greedy_match, idf_weights, pad, rescale

CAND = torch.tensor([[1.0, 0.0], [0.0, 2.0]])  # cos with REF rows:
REF = torch.tensor([[3.0, 0.0], [1.0, 1.0], [0.0, -1.0]])  # [[1, .7071, 0], [0, .7071, -1]]
S = 1 / math.sqrt(2)


def single(cand, ref, cw=None, rw=None):
    c, cm = pad([cand], cand.shape[1])
    r, rm = pad([ref], ref.shape[1])
    out = greedy_match(
        c, cm, r, rm, None if cw is None else cw[None], None if rw is None else rw[None]
    )
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


def test_batch_equals_singles_and_empty_sides_score_zero():
    torch.manual_seed(0)
    pairs = [(torch.randn(n, 5), torch.randn(m, 5)) for n, m in [(3, 4), (1, 7), (6, 2)]]
    pairs.append((torch.zeros(0, 5), torch.randn(3, 5)))
    c, cm = pad([p[0] for p in pairs], 5)
    r, rm = pad([p[1] for p in pairs], 5)
    bp, br, bf = greedy_match(c, cm, r, rm)
    for k, (cand, ref) in enumerate(pairs[:3]):
        p, rr, f = single(cand, ref)
        assert (float(bp[k]), float(br[k]), float(bf[k])) == pytest.approx((p, rr, f), abs=1e-6)
    assert (float(bp[3]), float(br[3]), float(bf[3])) == (0.0, 0.0, 0.0)


def test_zero_idf_weights_fall_back_to_equal_weights():
    plain = single(CAND, REF)
    zero = single(CAND, REF, torch.zeros(2), torch.zeros(3))
    assert zero == pytest.approx(plain)
