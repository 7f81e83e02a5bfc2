"""Compressed weight deltas: low-rank factors, int8 rows, the round trip."""

import pytest
import torch

from xlscore.estimator import delta


def test_low_rank_is_exact_for_a_matrix_of_that_rank():
    g = torch.Generator().manual_seed(0)
    m = torch.randn(40, 3, generator=g) @ torch.randn(3, 30, generator=g)
    a, b = delta.low_rank(m, 3)
    assert a.shape == (40, 3) and b.shape == (3, 30)
    assert torch.allclose(a @ b, m, atol=1e-5)
    a1, b1 = delta.low_rank(m, 1)
    assert (m - a1 @ b1).norm() > 0.1 * m.norm()  # rank 1 cannot hold a rank-3 matrix


def test_int8_rows_round_trip_within_half_a_step():
    x = torch.tensor([[0.5, -1.0, 0.25], [0.0, 0.0, 0.0], [3.0, 2.0, -0.001]])
    q, scale = delta.quantize_rows(x)
    assert q.dtype == torch.int8 and scale.shape == (3, 1)
    back = delta.dequantize_rows(q, scale)
    assert torch.all((back - x).abs() <= scale / 2 + 1e-7)
    assert torch.equal(back[1], torch.zeros(3))


def _states():
    g = torch.Generator().manual_seed(1)
    base = {
        "w": torch.randn(64, 48, generator=g),
        "b": torch.randn(64, generator=g),
        "small": torch.randn(4, 4, generator=g),
    }
    change = torch.randn(64, 2, generator=g) @ torch.randn(2, 48, generator=g) * 0.01
    tuned = {
        "w": base["w"] + change,
        "b": base["b"] + 0.01,
        "small": base["small"] * 1.1,
        "head": torch.randn(1, 64, generator=g),
    }
    return base, tuned


@pytest.mark.parametrize(("bits", "tol"), [(16, 1e-3), (8, 2e-2)])
def test_compress_then_expand_gives_the_tuned_weights(bits, tol):
    base, tuned = _states()
    d = delta.compress(base, tuned, rank=4, bits=bits)
    assert {"w.lr_a", "w.lr_b", "b.delta", "small.delta", "head"} <= set(d)
    assert d["w.lr_a"].dtype == (torch.int8 if bits == 8 else torch.float16)
    back = delta.expand(base, d)
    assert set(back) == set(tuned)
    for k in tuned:  # error relative to the size of the change
        change = tuned[k] - base[k] if k in base else tuned[k]
        assert (back[k] - tuned[k]).norm() <= tol * change.norm(), k
    full = sum(v.numel() for k, v in tuned.items() if k != "head") * 2
    assert delta.delta_bytes(d) < full


def test_rank_zero_stores_every_change_whole():
    base, tuned = _states()
    d = delta.compress(base, tuned, rank=0)
    assert "w.delta" in d and "w.lr_a" not in d
    assert torch.allclose(delta.expand(base, d)["w"], tuned["w"], atol=1e-3)
    with pytest.raises(ValueError, match="bits must be 8 or 16, not 4"):
        delta.compress(base, tuned, rank=2, bits=4)
