"""The quality estimator's mechanics on a tiny random model: fit, predict, save, load,
checkpoints, refusals. (The shipped estimator on the real pack: test_default_estimator.py.)"""
import json

import numpy as np
import pytest
import torch

from xlscore import InputError, ModelError, XLScoreError
from xlscore.estimator import QualityEstimator
from xlscore.judgments import Judgment
from xlscore.training import Recipe

WORDS_EN = ["the cat", "a cat sat", "the mat", "x b", "the cats sat on a mat"]
WORDS_RU = ["кусок", "неровно сложенный", "что-то", "кусок бумаги", "сложенный кусок"]


def _data():
    news = [Judgment(f"n:d{i % 2}:{i}", f"s{k}", WORDS_EN[i], WORDS_RU[(i + k) % 5],
                     float(-k - (i % 2))) for i in range(5) for k in range(3)]
    single = [Judgment(f"q:{i}:{i}", "mt", WORDS_EN[i], WORDS_RU[i], float(i)) for i in range(5)]
    return [news, single]


RECIPE = Recipe(epochs=2, batch_size=4, lr=1e-3, delta_rank=2, seed=1)


@pytest.fixture(scope="module")
def trained(unigram_dir):
    return QualityEstimator(str(unigram_dir), recipe=RECIPE, precision="fp32").fit(_data())


def test_fit_predicts_finite_scores_and_saves_a_small_file(trained, tmp_path):
    pred = trained.predict(WORDS_EN, WORDS_RU)
    assert pred.shape == (5,) and np.isfinite(pred).all()
    assert trained.log.steps >= 2 and len(trained.log.epoch_loss) == 2
    path = trained.save(tmp_path / "tiny.safetensors")
    assert trained.signature().startswith("est:tiny#") and trained.signature().endswith("@fp32")
    assert len(trained.digest) == 64
    again = QualityEstimator.load(path, precision="fp32")
    assert again.digest == trained.digest and again.name == "tiny"
    assert np.allclose(again.predict(WORDS_EN, WORDS_RU), pred, atol=1e-6)
    assert again.meta["recipe"]["delta_rank"] == 2 and len(again.meta["data"]) == 2


def test_predictions_do_not_depend_on_order_neighbours_or_duplicates(trained):
    src, mt = WORDS_EN * 3, [WORDS_RU[(i * 2) % 5] for i in range(15)]
    ref = trained.predict(src, mt)
    perm = np.random.default_rng(0).permutation(15)
    got = trained.predict([src[i] for i in perm], [mt[i] for i in perm])
    assert np.array_equal(got, ref[perm])
    assert np.array_equal(trained.predict(src[3:5], mt[3:5]), ref[3:5])
    # the same pair, however it is spaced or composed, gets one score
    spaced = trained.predict(["  the  cat "], ["кусок\u200b"])
    assert spaced[0] == pytest.approx(trained.predict(["the cat"], ["кусок"])[0], abs=1e-6)


def test_bf16_is_close_to_fp32(trained):
    fp32 = trained.predict(WORDS_EN, WORDS_RU)
    trained.precision = "bf16"
    try:
        bf16 = trained.predict(WORDS_EN, WORDS_RU)
    finally:
        trained.precision = "fp32"
    assert np.abs(bf16 - fp32).max() < 0.05


def test_an_interrupted_training_resumes_to_the_same_model(unigram_dir, tmp_path, monkeypatch):
    import xlscore.training as training

    whole = QualityEstimator(str(unigram_dir), recipe=RECIPE, precision="fp32").fit(_data())
    real, calls = training.batch_loss, {"n": 0}

    def dies_on_the_fifth(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    ckpt = tmp_path / "run.ckpt"
    monkeypatch.setattr(training, "batch_loss", dies_on_the_fifth)
    with pytest.raises(KeyboardInterrupt):
        QualityEstimator(str(unigram_dir), recipe=RECIPE, precision="fp32").fit(
            _data(), checkpoint=ckpt, checkpoint_every=2)
    from safetensors import safe_open

    with safe_open(str(ckpt), framework="pt") as fh:
        assert json.loads(fh.metadata()["xlscore_checkpoint"])["step"] == 4
    assert list(tmp_path.iterdir()) == [ckpt]               # one file, no half-written rest
    monkeypatch.setattr(training, "batch_loss", real)
    resumed = QualityEstimator(str(unigram_dir), recipe=RECIPE, precision="fp32").fit(
        _data(), checkpoint=ckpt, checkpoint_every=2)
    assert np.allclose(resumed.predict(WORDS_EN, WORDS_RU), whole.predict(WORDS_EN, WORDS_RU),
                       atol=1e-5)
    # the record saved in the file is the uninterrupted run's too
    assert resumed.meta["training"]["steps"] == whole.meta["training"]["steps"]
    assert np.allclose(resumed.meta["training"]["epoch_loss"],
                       whole.meta["training"]["epoch_loss"], atol=1e-5)
    with pytest.raises(XLScoreError, match="already trained"):
        resumed.fit(_data())
    (tmp_path / "bad.ckpt").write_bytes(b"\x00" * 64)
    with pytest.raises(XLScoreError, match="checkpoint .*bad.ckpt cannot be read"):
        QualityEstimator(str(unigram_dir), recipe=RECIPE).fit(_data(),
                                                              checkpoint=tmp_path / "bad.ckpt")
    other = Recipe(epochs=2, batch_size=4, lr=2e-3, delta_rank=2, seed=1)
    with pytest.raises(XLScoreError, match="written for other data or settings"):
        QualityEstimator(str(unigram_dir), recipe=other).fit(_data(), checkpoint=ckpt)


def test_a_seed_soup_is_the_average_of_its_members(unigram_dir, tmp_path):
    from dataclasses import replace

    from xlscore.training import remove_checkpoint

    one = replace(RECIPE, delta_rank=0)
    members = [QualityEstimator(str(unigram_dir), recipe=replace(one, seed=s),
                                precision="fp32").fit(_data()) for s in (1, 2)]
    ckpt = tmp_path / "soup.ckpt"
    soup = QualityEstimator(str(unigram_dir), recipe=replace(one, seeds=2),
                            precision="fp32").fit(_data(), checkpoint=ckpt)
    assert soup.log.steps == sum(m.log.steps for m in members)
    params = [dict(m.model.named_parameters()) for m in members]
    for k, p in soup.model.named_parameters():
        if not k.startswith("encoder.embeddings."):
            want = (params[0][k] + params[1][k]) / 2
            assert torch.allclose(p, want, atol=2e-3), k
    assert sorted(p.name for p in tmp_path.iterdir()) == ["soup.ckpt.seed1", "soup.ckpt.seed2"]
    remove_checkpoint(ckpt)
    assert list(tmp_path.iterdir()) == []


def test_loading_refuses_what_it_cannot_trust(trained, tmp_path, wordpiece_dir, monkeypatch):
    path = trained.save(tmp_path / "t.safetensors")
    with pytest.raises(ModelError, match="does not exist"):
        QualityEstimator.load(tmp_path / "none.safetensors")
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(path))
    save_file(tensors, str(tmp_path / "plain.safetensors"))
    with pytest.raises(ModelError, match="not an xlscore estimator file"):
        QualityEstimator.load(tmp_path / "plain.safetensors")
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as fh:
        meta = json.loads(fh.metadata()["xlscore_estimator"])
    meta["base"] = str(wordpiece_dir)
    save_file(tensors, str(tmp_path / "other.safetensors"),
              metadata={"xlscore_estimator": json.dumps(meta)})
    with pytest.raises(ModelError, match="was trained on .* with fingerprint"):
        QualityEstimator.load(tmp_path / "other.safetensors")
    meta["base"] = str(trained.base)
    save_file({k: v for k, v in tensors.items() if not k.startswith("head.")},
              str(tmp_path / "headless.safetensors"),
              metadata={"xlscore_estimator": json.dumps(meta)})
    with pytest.raises(ModelError, match="lacks head.weight, head.bias"):
        QualityEstimator.load(tmp_path / "headless.safetensors")
    (tmp_path / "junk.safetensors").write_bytes(b"\x00" * 40)
    with pytest.raises(ModelError, match="cannot read estimator file"):
        QualityEstimator.load(tmp_path / "junk.safetensors")
    import xlscore.estimator as est

    fake = est.ShippedEstimator("fake", str(path), "0" * 64, str(trained.base))
    monkeypatch.setattr(est, "SHIPPED", (fake,))
    with pytest.raises(ModelError, match="is damaged: SHA-256"):
        QualityEstimator.load("fake")
    with pytest.raises(ModelError, match="unknown estimator 'nope'; shipped: fake"):
        QualityEstimator.load("nope")


def test_bad_calls_are_refused(trained, unigram_dir):
    with pytest.raises(XLScoreError, match="not trained"):
        QualityEstimator(str(unigram_dir)).predict(["a"], ["б"])
    with pytest.raises(TypeError):
        trained.predict("the cat", "кусок")
    with pytest.raises(InputError, match="2 sources but 1 translations"):
        trained.predict(["a", "b"], ["а"])
    with pytest.raises(InputError, match="segment 2: translation is int"):
        trained.predict(["a", "b"], ["а", 3])
    with pytest.raises(XLScoreError, match="not trained"):
        QualityEstimator(str(unigram_dir)).save("x.safetensors")
    with pytest.raises(XLScoreError, match="unknown precision"):
        QualityEstimator(str(unigram_dir), precision="int3")
    with pytest.raises(TypeError):
        QualityEstimator(str(unigram_dir)).fit(_data()[0])
    assert trained.predict([], []).shape == (0,)


def test_a_pair_longer_than_the_model_is_cut_with_a_warning(trained):
    from xlscore.errors import LongInputWarning

    long = " ".join(["кусок бумаги"] * 60)
    with pytest.warns(LongInputWarning, match=r"1 pair\(s\) longer than 64 pieces .*segments 2"):
        pred = trained.predict(["the cat", "the cat"], ["кусок", long])
    assert np.isfinite(pred).all()
    torch.manual_seed(0)
