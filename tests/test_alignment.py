"""Procrustes alignment: recovery, streaming, priors, saving and loading."""

import json
import warnings

import numpy as np
import pytest
import torch

from xlscore import AlignmentMismatchError, InputError, ProcrustesAligner
from xlscore.paper.alignment import IllPosedAlignmentWarning


def random_orthonormal(rows, cols, seed):
    """A rows x cols matrix with orthonormal rows (rows <= cols) or columns (rows >= cols)."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((max(rows, cols), min(rows, cols))))
    return q.T if rows < cols else q


@pytest.mark.parametrize("normalize", [False, True])
def test_recovers_a_random_orthogonal_map(normalize):
    rng = np.random.default_rng(0)
    q = random_orthonormal(32, 32, 1)
    x = rng.standard_normal((500, 32))
    a = ProcrustesAligner(normalize=normalize).fit(x, x @ q)
    assert np.abs(a.W_ - q).max() < 1e-5
    assert np.allclose(a.transform(torch.tensor(x)).numpy(), x @ q, atol=1e-5)


@pytest.mark.parametrize(("d_ru", "d_en"), [(16, 24), (24, 16)])
def test_recovers_a_semi_orthogonal_map_when_dimensions_differ(d_ru, d_en):
    rng = np.random.default_rng(2)
    q = random_orthonormal(d_ru, d_en, 3)
    if d_ru < d_en:  # Russian space embeds into the English one
        x = rng.standard_normal((400, d_ru))
        y = x @ q
    else:  # Russian data lives in a d_en-dimensional subspace
        y = rng.standard_normal((400, d_en))
        x = y @ q.T
    a = ProcrustesAligner(normalize=True).fit(x, y)
    assert a.W_.shape == (d_ru, d_en)
    assert np.abs(a.W_ - q).max() < 1e-5


def test_streamed_fit_equals_one_shot_fit():
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((1000, 20)), rng.standard_normal((1000, 20))
    one = ProcrustesAligner(center=True).fit(x, y)
    streamed = ProcrustesAligner(center=True)
    for i in range(0, 1000, 137):
        streamed.partial_fit(x[i : i + 137], y[i : i + 137])
    assert streamed.n_pairs_ == 1000
    assert np.allclose(one.W_, streamed.W_, atol=1e-10)
    assert np.allclose(one.mean_x_, streamed.mean_x_) and np.allclose(one.mean_y_, streamed.mean_y_)


def test_centring_makes_the_map_affine():
    rng = np.random.default_rng(5)
    q = random_orthonormal(12, 12, 6)
    x = rng.standard_normal((300, 12)) + 3.0
    y = (x - x.mean(0)) @ q + 7.0
    a = ProcrustesAligner(center=True, normalize=False).fit(x, y)
    assert np.allclose(a.transform(torch.tensor(x)).numpy(), y, atol=1e-6)
    plain = ProcrustesAligner(center=False, normalize=False).fit(x, y)
    assert not np.allclose(plain.transform(torch.tensor(x)).numpy(), y, atol=1e-2)


def test_few_pairs_without_prior_warn_and_are_not_reliable():
    rng = np.random.default_rng(7)
    with pytest.warns(IllPosedAlignmentWarning, match="5 anchor pairs, fewer than the 16"):
        a = ProcrustesAligner().fit(rng.standard_normal((5, 16)), rng.standard_normal((5, 16)))
    assert not a.reliable


def test_prior_regularises_small_fits_and_yields_to_data():
    rng = np.random.default_rng(8)
    prior = ProcrustesAligner.identity(16)
    truth = random_orthonormal(16, 16, 9)
    x = rng.standard_normal((4000, 16))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        none = ProcrustesAligner(prior=prior).fit(np.zeros((0, 16)), np.zeros((0, 16)))
        few = ProcrustesAligner(prior=prior).fit(x[:3], x[:3] @ truth)
        many = ProcrustesAligner(prior=prior).fit(x, x @ truth)
    assert np.allclose(none.W_, np.eye(16))
    assert np.linalg.norm(few.W_ - np.eye(16)) < np.linalg.norm(few.W_ - truth)
    assert np.abs(many.W_ - truth).max() < 0.05
    assert few.reliable and many.reliable


def _described(aligner):
    aligner.meta = {
        "kind": "corpus",
        "lexicon": "tsv:x",
        "encoders": {
            "en": {"model": "en", "layer": 3, "dim": 8, "fingerprint": "aaa"},
            "ru": {"model": "ru", "layer": 2, "dim": 8, "fingerprint": "bbb"},
        },
    }
    return aligner


def test_save_and_load_round_trip(tmp_path):
    rng = np.random.default_rng(10)
    a = _described(
        ProcrustesAligner(center=True).fit(
            rng.standard_normal((50, 8)), rng.standard_normal((50, 8))
        )
    )
    path = a.save(tmp_path / "map.npz")
    b = ProcrustesAligner.load(path, expect=a.meta["encoders"])
    assert np.array_equal(a.W_, b.W_) and b.center and b.n_pairs_ == 50
    assert b.meta["lexicon"] == "tsv:x" and b.digest == a.digest
    x = torch.randn(3, 8, dtype=torch.float64)
    assert torch.allclose(a.transform(x), b.transform(x))
    b.partial_fit(rng.standard_normal((10, 8)), rng.standard_normal((10, 8)))  # keeps learning
    assert b.n_pairs_ == 60


def test_loading_for_other_encoders_is_an_error(tmp_path):
    a = _described(ProcrustesAligner().fit(np.eye(8), np.eye(8)))
    path = a.save(tmp_path / "map.npz")
    other = json.loads(json.dumps(a.meta["encoders"]))
    other["ru"]["fingerprint"] = "zzz"
    with pytest.raises(AlignmentMismatchError, match="fitted for ru encoder ru layer 2"):
        ProcrustesAligner.load(path, expect=other)
    other = json.loads(json.dumps(a.meta["encoders"]))
    other["en"]["layer"] = 4
    with pytest.raises(AlignmentMismatchError, match="en encoder"):
        ProcrustesAligner.load(path, expect=other)


def test_loading_garbage_or_pickles_is_refused(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="not a saved xlscore alignment"):
        ProcrustesAligner.load(bad)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, W=np.array([{"evil": 1}], dtype=object), meta=np.array("{}"))
    with pytest.raises(InputError, match="not a saved xlscore alignment"):
        ProcrustesAligner.load(pickled)
    with pytest.raises(InputError, match="no such alignment file"):
        ProcrustesAligner.load(tmp_path / "missing.npz")


def test_mismatched_pair_counts_are_input_errors():
    with pytest.raises(InputError, match="3 Russian vectors but 2 English"):
        ProcrustesAligner().fit(np.zeros((3, 4)), np.zeros((2, 4)))


def test_truncated_file_and_digest(tmp_path):
    a = ProcrustesAligner(center=True).fit(np.eye(8), np.eye(8))
    path = a.save(tmp_path / "m.npz")
    data = path.read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="not a saved xlscore alignment"):
        ProcrustesAligner.load(cut)
    b = ProcrustesAligner(center=False).fit(np.eye(8), np.eye(8))
    assert np.allclose(a.W_, b.W_) and a.digest != b.digest


def test_each_translation_is_mapped_the_same_whatever_is_mapped_with_it():
    """The paper's scorer maps each translation's word vectors by a product of its own: a
    product over many translations rounds some rows otherwise (its height picks the kernel)."""
    from xlscore.encoders.pieces import WordVectors
    from xlscore.paper.paper_scorer import map_vectors

    g = torch.Generator().manual_seed(0)
    a = ProcrustesAligner().fit(
        torch.randn(800, 384, generator=g), torch.randn(800, 384, generator=g)
    )
    sizes = torch.randint(0, 40, (300,), generator=g).tolist()
    mt = [WordVectors("", ["w"] * n, [(0, 1)] * n, torch.randn(n, 384, generator=g)) for n in sizes]
    together = map_vectors(mt, a)
    backwards = map_vectors(mt[::-1], a)[::-1]
    for k, wv in enumerate(mt):
        alone = map_vectors([wv], a)[0]
        assert torch.equal(alone, together[k]) and torch.equal(alone, backwards[k])
        assert alone.shape == (sizes[k], 384)
