"""The plain recipe of issue 61 and the heads that learn on its frozen states: z targets,
batches bucketed by length, the translation's marker, and a heads-only fit that leaves the
encoder and the sentence head exactly as they were."""

import random
from dataclasses import replace

import numpy as np
import pytest
from test_estimator import _marked

from xlscore import XLScoreError
from xlscore.estimator.crossencoder import SPECIAL, TRANSLATION, encode_pairs
from xlscore.estimator.model import QualityEstimator
from xlscore.estimator.recipe import PLAIN, PLAIN_HEADS, RECIPES
from xlscore.training import fit
from xlscore.training.loop import Recipe, make_examples, plan_length_batches, set_targets

TINY = {"epochs": 2, "batch_size": 4, "lr": 1e-3, "head_lr": 1e-3, "delta_rank": 2, "seed": 1,
        "head_hidden": 8, "freeze_layers": 1, "max_length": 64}  # fmt: skip


def test_z_targets_are_standardised_per_set_and_clipped():
    v = [0.0, -1.0, -2.0, -3.0, -100.0]
    z = set_targets(v, "z")
    assert z.max() <= 4 and z.min() >= -4 and z[0] > z[1] > z[2] > z[3] > z[4]
    full = (np.array(v) - np.mean(v)) / np.std(v)
    assert z[:4] == pytest.approx(full[:4])
    many = [0.0] * 99 + [-1000.0]
    assert set_targets(many, "z")[-1] == -4.0  # an outlier is clipped, not a scale of its own
    assert set_targets([1.0, 1.0], "z").tolist() == [0.0, 0.0]
    assert set_targets(v, "normal") == pytest.approx(
        make_examples_targets([v], Recipe(targets="normal"))
    )


def make_examples_targets(sets, recipe):
    from xlscore.io.judgments import Judgment

    rows = [[Judgment(f"q:{i}:{i}", "mt", "a", "б", h) for i, h in enumerate(s)] for s in sets]
    return [e.target for e in make_examples(rows, recipe)]


def test_da_rows_are_regression_targets_on_their_own_scale():
    news, single, da = _marked()
    ex = make_examples([news, single, da], PLAIN)
    assert all(e.weight == 1.0 for e in ex)  # DA in the squared error too (da_regression)
    for d in range(3):
        t = np.array([e.target for e in ex if e.dataset == d])
        assert abs(t.mean()) < 1e-9 and (t.std() == pytest.approx(1.0) or t.std() == 0)


def test_length_batches_hold_every_example_once_and_similar_lengths():
    rng = random.Random(0)
    lengths = [rng.randrange(5, 200) for _ in range(1000)]
    batches = plan_length_batches(lengths, 16, random.Random(1))
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(1000)) and all(len(b) <= 16 for b in batches)
    spread = np.mean([max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches])
    assert spread < 40  # unsorted batches of 16 would spread over about 170 pieces
    again = plan_length_batches(lengths, 16, random.Random(1))
    assert again == batches and plan_length_batches(lengths, 16, random.Random(2)) != batches


def test_the_translation_marker_is_special_and_offsets_stay_in_the_translation(unigram_dir):
    from xlscore.encoders.models import load_pretrained

    _, tok, _ = load_pretrained(str(unigram_dir))
    pair = [("the cat", "кусок бумаги")]
    [bare] = encode_pairs(tok, "", pair, None)
    [marked] = encode_pairs(tok, "", pair, None, translation_prefix="passage: ")
    assert len(marked) > len(bare)
    assert marked.translation_offsets() == bare.translation_offsets()
    extra = len(marked) - len(bare)
    first = marked.side.index(TRANSLATION)
    assert marked.side[first - extra : first] == [SPECIAL] * extra


def test_the_named_recipes_are_the_issues():
    assert RECIPES["plain"] is PLAIN and RECIPES["plain-heads"] is PLAIN_HEADS
    assert (PLAIN.targets, PLAIN.batching, PLAIN.translation_prefix) == ("z", "length", "passage: ")
    assert (PLAIN.freeze_layers, PLAIN.head_hidden, PLAIN.max_length) == (4, 384, 160)
    assert (PLAIN.lr, PLAIN.head_lr, PLAIN.warmup) == (3e-5, 3e-4, 0.05)
    assert not (PLAIN.word_weight or PLAIN.meaning_weight or PLAIN.synthetic)
    assert PLAIN_HEADS.heads_only and PLAIN_HEADS.word_weight and PLAIN_HEADS.meaning_weight
    with pytest.raises(XLScoreError, match="heads_only trains"):
        replace(PLAIN, heads_only=True)
    with pytest.raises(XLScoreError, match="batching"):
        Recipe(batching="random")


@pytest.fixture(scope="module")
def plain(unigram_dir):
    recipe = replace(PLAIN, **TINY)
    return fit(QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32"), _marked()[:2])


def test_heads_learn_on_frozen_states_and_the_sentence_score_stays(plain, unigram_dir, tmp_path):
    recipe = replace(PLAIN_HEADS, **TINY, synthetic=0.0, meaning_weight=0.0)
    with pytest.raises(XLScoreError, match="give the fitted model as start"):
        fit(QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32"), _marked())
    heads = fit(
        QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32"), _marked(), start=plain
    )
    body = dict(plain.model.state_dict())
    for k, v in heads.model.state_dict().items():
        if k in body:  # the encoder and the sentence head: exactly the start's
            assert v.equal(body[k]), k
    assert any(k.startswith("word.") for k in heads.model.state_dict())
    src, mt = [r.source for r in _marked()[0]], [r.translation for r in _marked()[0]]
    assert np.array_equal(heads.predict(src, mt), plain.predict(src, mt))
    est = heads.estimate(src, mt)
    assert all(0 <= w.probability <= 1 for e in est for w in e.words)
    again = QualityEstimator.load(heads.save(tmp_path / "heads.safetensors"), dtype="fp32")
    assert np.array_equal(again.predict(src, mt), heads.predict(src, mt))
    assert again.meta["start"]["name"] == plain.name
    with pytest.raises(XLScoreError, match="only a recipe with heads_only"):
        fit(
            QualityEstimator(str(unigram_dir), recipe=replace(PLAIN, **TINY), dtype="fp32"),
            _marked(),
            start=plain,
        )
