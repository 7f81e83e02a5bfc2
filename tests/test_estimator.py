"""The quality estimator's mechanics on a tiny random model: fit, predict, save, load,
checkpoints, refusals. (The shipped estimator on the real pack: test_default_estimator.py.)"""

import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from xlscore import InputError, ModelError, XLScoreError
from xlscore.estimator.model import QualityEstimator, read_metadata
from xlscore.io.judgments import Judgment
from xlscore.training import fit
from xlscore.training.loop import Recipe

WORDS_EN = ["the cat", "a cat sat", "the mat", "x b", "the cats sat on a mat"]
WORDS_RU = ["кусок", "неровно сложенный", "что-то", "кусок бумаги", "сложенный кусок"]


def _data():
    news = [
        Judgment(
            f"n:d{i % 2}:{i}", f"s{k}", WORDS_EN[i], WORDS_RU[(i + k) % 5], float(-k - (i % 2))
        )
        for i in range(5)
        for k in range(3)
    ]
    single = [Judgment(f"q:{i}:{i}", "mt", WORDS_EN[i], WORDS_RU[i], float(i)) for i in range(5)]
    return [news, single]


# the sentence head alone (the extended model below has the alignment features and word head)
RECIPE = Recipe(
    epochs=2,
    batch_size=4,
    lr=1e-3,
    delta_rank=2,
    seed=1,
    synthetic=0.0,
    word_weight=0.0,
)


@pytest.fixture(scope="module")
def trained(unigram_dir):
    return fit(QualityEstimator(str(unigram_dir), recipe=RECIPE, dtype="fp32"), _data())


def test_fit_predicts_finite_scores_and_saves_a_small_file(trained, tmp_path):
    pred = trained.predict(WORDS_EN, WORDS_RU)
    assert pred.shape == (5,) and np.isfinite(pred).all()
    assert trained.log.steps >= 2 and len(trained.log.epoch_loss) == 2
    path = trained.save(tmp_path / "tiny.safetensors")
    assert trained.signature().startswith("est:tiny#") and trained.signature().endswith("@fp32")
    assert len(trained.digest) == 64
    again = QualityEstimator.load(path, dtype="fp32")
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
    trained.dtype = "bf16"
    try:
        bf16 = trained.predict(WORDS_EN, WORDS_RU)
    finally:
        trained.dtype = "fp32"
    assert np.abs(bf16 - fp32).max() < 0.05


def test_an_interrupted_training_resumes_to_the_same_model(unigram_dir, tmp_path, monkeypatch):
    import xlscore.training.loop as training

    whole = fit(QualityEstimator(str(unigram_dir), recipe=RECIPE, dtype="fp32"), _data())
    real, calls = training.batch_loss, {"n": 0}

    def dies_on_the_fifth(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    ckpt = tmp_path / "run.ckpt"
    monkeypatch.setattr(training, "batch_loss", dies_on_the_fifth)
    with pytest.raises(KeyboardInterrupt):
        fit(
            QualityEstimator(str(unigram_dir), recipe=RECIPE, dtype="fp32"),
            _data(),
            checkpoint=ckpt,
            checkpoint_every=2,
        )
    from safetensors import safe_open

    with safe_open(str(ckpt), framework="pt") as fh:
        assert json.loads(fh.metadata()["xlscore_checkpoint"])["step"] == 4
    assert list(tmp_path.iterdir()) == [ckpt]  # one file, no half-written rest
    monkeypatch.setattr(training, "batch_loss", real)
    resumed = fit(
        QualityEstimator(str(unigram_dir), recipe=RECIPE, dtype="fp32"),
        _data(),
        checkpoint=ckpt,
        checkpoint_every=2,
    )
    assert np.allclose(
        resumed.predict(WORDS_EN, WORDS_RU), whole.predict(WORDS_EN, WORDS_RU), atol=1e-5
    )
    # the record saved in the file is the uninterrupted run's too
    assert resumed.meta["training"]["steps"] == whole.meta["training"]["steps"]
    assert np.allclose(
        resumed.meta["training"]["epoch_loss"], whole.meta["training"]["epoch_loss"], atol=1e-5
    )
    with pytest.raises(XLScoreError, match="already trained"):
        fit(resumed, _data())
    (tmp_path / "bad.ckpt").write_bytes(b"\x00" * 64)
    with pytest.raises(XLScoreError, match=r"checkpoint .*bad\.ckpt cannot be read"):
        fit(
            QualityEstimator(str(unigram_dir), recipe=RECIPE),
            _data(),
            checkpoint=tmp_path / "bad.ckpt",
        )
    other = replace(RECIPE, lr=2e-3)
    with pytest.raises(XLScoreError, match="written for other data or settings"):
        fit(QualityEstimator(str(unigram_dir), recipe=other), _data(), checkpoint=ckpt)


def test_a_seed_soup_is_the_average_of_its_members(unigram_dir, tmp_path):

    from xlscore.training.loop import remove_checkpoint

    one = replace(RECIPE, delta_rank=0)
    members = [
        fit(QualityEstimator(str(unigram_dir), recipe=replace(one, seed=s), dtype="fp32"), _data())
        for s in (1, 2)
    ]
    ckpt = tmp_path / "soup.ckpt"
    soup = fit(
        QualityEstimator(str(unigram_dir), recipe=replace(one, seeds=2), dtype="fp32"),
        _data(),
        checkpoint=ckpt,
    )
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
    with pytest.raises(ModelError, match="not an xlscore estimator file"):
        read_metadata(tmp_path / "plain.safetensors")
    assert read_metadata(path)["recipe"]["lr"] == trained.recipe.lr
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as fh:
        meta = json.loads(fh.metadata()["xlscore_estimator"])
    meta["base"] = str(wordpiece_dir)
    save_file(
        tensors,
        str(tmp_path / "other.safetensors"),
        metadata={"xlscore_estimator": json.dumps(meta)},
    )
    with pytest.raises(ModelError, match=r"was trained on .* with fingerprint"):
        QualityEstimator.load(tmp_path / "other.safetensors")
    meta["base"] = str(trained.base)
    save_file(
        {k: v for k, v in tensors.items() if not k.startswith("head.")},
        str(tmp_path / "headless.safetensors"),
        metadata={"xlscore_estimator": json.dumps(meta)},
    )
    with pytest.raises(ModelError, match=r"lacks head\.weight, head\.bias"):
        QualityEstimator.load(tmp_path / "headless.safetensors")
    (tmp_path / "junk.safetensors").write_bytes(b"\x00" * 40)
    with pytest.raises(ModelError, match="cannot read estimator file"):
        QualityEstimator.load(tmp_path / "junk.safetensors")
    import xlscore.estimator.model as est

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
    with pytest.raises(XLScoreError, match="unknown dtype"):
        QualityEstimator(str(unigram_dir), dtype="int3")
    with pytest.raises(TypeError):
        fit(QualityEstimator(str(unigram_dir)), _data()[0])
    assert trained.predict([], []).shape == (0,)


def test_a_pair_longer_than_the_model_is_cut_with_a_warning(trained):
    from xlscore.errors import LongInputWarning

    long = " ".join(["кусок бумаги"] * 60)
    cut = r"1 pair\(s\) longer than the 64 pieces .*\(pair 2\)"
    with pytest.warns(LongInputWarning, match=cut):
        pred = trained.predict(["the cat", "the cat"], ["кусок", long])
    assert np.isfinite(pred).all()
    torch.manual_seed(0)


# ---------------------------------------------------------------------- adequacy and word head
EXTENDED = Recipe(
    epochs=3,
    batch_size=4,
    lr=1e-3,
    head_lr=1e-2,
    delta_rank=2,
    seed=1,
    word_weight=1.0,
    synthetic=0.5,
    synthetic_margin=0.5,
    span_threshold=0.3,
)


def _marked():
    """The tiny data with error marks on every other news row (the first half of the
    translation, or none), and a DA set (ranking pairs only)."""
    from xlscore.io.judgments import ErrorMark

    news, single = _data()
    news = [
        replace(r, errors=(ErrorMark(0, len(r.translation) // 2, "major"),) if i % 2 else ())
        for i, r in enumerate(news)
    ]
    da = [
        Judgment(
            f"da:x:{i}",
            f"s{k}",
            WORDS_EN[i],
            WORDS_RU[(i + 2 * k) % 5],
            0.0,
            kind="da",
            raw=100.0 - 30 * k,
        )
        for i in range(5)
        for k in range(3)
    ]
    return [news, single, da]


@pytest.fixture(scope="module")
def extended(unigram_dir):
    return fit(QualityEstimator(str(unigram_dir), recipe=EXTENDED, dtype="fp32"), _marked())


def test_the_extended_model_reports_parts_words_and_spans(extended, tmp_path):
    src, mt = WORDS_EN, WORDS_RU
    res = extended.estimate(src, mt)
    pred = extended.predict(src, mt)
    assert np.array_equal(pred, [e.score for e in res])
    for e, text in zip(res, mt):
        assert e.base + e.adequacy == pytest.approx(e.score, abs=1e-5)
        assert e.words and all(0 <= w.probability <= 1 for w in e.words)
        assert all(
            text[s.start : s.end] == s.text
            and s.severity in ("minor", "major")
            and s.probability >= EXTENDED.span_threshold
            for s in e.error_spans
        )
    # trained, the adequacy layer is no longer the zero it starts from
    assert any(abs(e.adequacy) > 0 for e in res)
    again = QualityEstimator.load(extended.save(tmp_path / "ext.safetensors"), dtype="fp32")
    assert again.model.use_words
    assert np.allclose(again.predict(src, mt), pred, atol=1e-6)
    assert [e.error_spans for e in again.estimate(src, mt)] == [e.error_spans for e in res]


def test_extended_predictions_do_not_depend_on_company_or_order(extended):
    src, mt = WORDS_EN * 2, [WORDS_RU[(i * 3) % 5] for i in range(10)]
    ref = extended.estimate(src, mt)
    perm = np.random.default_rng(1).permutation(10)
    got = extended.estimate([src[i] for i in perm], [mt[i] for i in perm])
    assert [g.score for g in got] == [ref[i].score for i in perm]
    assert [g.words for g in got] == [ref[i].words for i in perm]
    assert extended.estimate(src[:1], mt[:1])[0] == ref[0]


def test_spans_point_into_the_translation_as_given(extended):
    given = "  кусок\u00a0\u00a0бумаги\u00ad "
    [e] = extended.estimate(["the cat"], [given])
    assert [given[w.start : w.end] for w in e.words] == ["кусок", "бумаги"]
    assert all(given[s.start : s.end] == s.text for s in e.error_spans)


def _saved_with(trained, path, **weights):
    """``trained`` saved to ``path`` with ``weights`` set (and then put back as they were),
    loaded again from the file in float32."""
    before = {k: getattr(trained, k) for k in weights}
    for k, v in weights.items():
        setattr(trained, k, v)
    try:
        saved = trained.save(path)
    finally:
        for k, v in before.items():
            setattr(trained, k, v)
    return QualityEstimator.load(saved, dtype="fp32")


def _museum_lexicon(tmp_path):
    """A one-word dictionary (музей: museum), enough for the scorer's anchors."""
    from xlscore import Lexicon

    (tmp_path / "lex.tsv").write_text("музей\tmuseum\n", encoding="utf-8")
    return Lexicon.from_tsv(tmp_path / "lex.tsv")


def test_a_similarity_weight_blends_the_multilingual_f1_into_the_score(
    trained, tmp_path, e5, minilm
):
    from xlscore import XLScorer

    src = ["The museum opens at 9.", "Sales rose by 5%.", "The museum opens at 9."]
    mt = ["Музей открывается в 9.", "Продажи упали на 5%.", "The museum opens at 9."]
    est = _saved_with(trained, tmp_path / "sim.safetensors", similarity_weight=2.5)
    assert est.similarity_weight == 2.5 and est.describe()["similarity_weight"] == 2.5
    assert est.separate_similarity and not trained.separate_similarity
    lexicon = _museum_lexicon(tmp_path)
    scorer = XLScorer.offline(en_model=minilm, ru_model=e5, lexicon=lexicon, estimator=est)
    res = scorer.score(src, mt)
    # the similarity is exactly the multilingual all-words score of the paper's method
    plain = XLScorer.offline(multilingual=e5, lexicon=lexicon, variant="all", estimator=None)
    want = [r.score for r in plain.score(src, mt)]
    assert [r.similarity for r in res] == pytest.approx(want, abs=1e-6)
    assert all(
        r.score == pytest.approx(r.estimate - 2.5 * (1 - r.similarity), abs=1e-9) for r in res
    )
    assert res[2].similarity < res[0].similarity  # untranslated: the foreign penalty
    assert "+2.5*sim:pack:e5-small@9" in scorer.signature()
    assert scorer.similarity.encoder() is e5  # the Russian encoder is reused
    d = res[0].to_dict()
    assert d["similarity"] == res[0].similarity
    assert type(res[0]).from_dict(d) == res[0]
    # an estimator without the weight leaves the score alone: the similarity is a field beside
    # it (computed when asked for, here with every field), not a part of it
    fields = "score,evidence,paper"
    bare = XLScorer.offline(
        en_model=minilm, ru_model=e5, lexicon=lexicon, estimator=trained, fields=fields
    )
    lean = bare.score(src, mt)
    assert all(r.similarity is None for r in lean)
    assert "sim:" not in bare.signature()
    full = XLScorer.offline(
        en_model=minilm, ru_model=e5, lexicon=lexicon, estimator=trained, fields="all"
    )
    beside = full.score(src, mt)
    assert [r.similarity for r in beside] == pytest.approx(want, abs=1e-6)
    assert [r.score for r in beside] == [r.score for r in lean]
    assert "*sim" not in full.signature() and "|sim:pack:e5-small@9#" in full.signature()


def test_a_file_that_reads_its_similarity_from_its_own_pass_is_refused(trained, tmp_path):
    """``similarity_depth`` (the refused one-pass rtf9's mechanism) left the package; such a
    file is refused with a line naming the tag that still reads it."""
    path = trained.save(tmp_path / "t.safetensors")
    _rewritten(path, tmp_path / "pass.safetensors", similarity_weight=1, similarity_depth=9)
    with pytest.raises(ModelError, match="no longer does; git tag research-2026-11"):
        QualityEstimator.load(tmp_path / "pass.safetensors")


def test_the_score_formula_is_one_function_for_numbers_and_arrays():
    from xlscore.scoring.blend import estimator_score

    # no similarity weight: the estimate pulled towards the floor by the foreign share
    assert estimator_score(1.0, foreign=0.25, similarity=None, weight=0.0, floor=-4.0) == -0.25
    assert estimator_score(1.0, foreign=0.0, similarity=0.2, weight=0.0, floor=-4.0) == 1.0
    # a weight: the similarity's shortfall from 1, weighted; the foreign share is in it
    assert estimator_score(1.0, foreign=0.5, similarity=0.8, weight=2.0, floor=-4.0) == (
        pytest.approx(0.6)
    )
    got = estimator_score(
        np.array([1.0, 0.0]),
        foreign=np.array([0.0, 0.5]),
        similarity=np.array([1.0, 0.5]),
        weight=2.0,
        floor=-4.0,
    )
    assert got.tolist() == [1.0, -1.0]
    with pytest.raises(XLScoreError, match="needs the similarity"):
        estimator_score(1.0, foreign=0.0, similarity=None, weight=1.0, floor=-4.0)
    # a check weight: so much less per reliable finding, after either of the above
    assert estimator_score(
        1.0, foreign=0.5, similarity=0.8, weight=2.0, floor=-4.0, findings=2, check_weight=0.25
    ) == pytest.approx(0.1)
    assert estimator_score(
        np.array([1.0, 1.0]),
        foreign=np.zeros(2),
        similarity=None,
        weight=0.0,
        floor=-4.0,
        findings=np.array([0, 3]),
        check_weight=0.5,
    ).tolist() == [1.0, -0.5]
    with pytest.raises(XLScoreError, match="needs the checks' findings"):
        estimator_score(1.0, foreign=0.0, similarity=None, weight=0.0, floor=-4.0, check_weight=1)


def test_a_check_weight_costs_each_reliable_finding_in_the_score(trained, tmp_path, e5, minilm):
    from xlscore import XLScorer
    from xlscore.checks import COUNTED, counted, find_mismatches

    src = ["Sales rose by 5% in 2020.", "He did not come.", "The museum opens at 9."]
    mt = ["Продажи выросли на 7% в 2021 году.", "Он пришёл.", "Музей открывается в 9."]
    found = [counted(find_mismatches(s, t, COUNTED)) for s, t in zip(src, mt)]
    assert found[0] >= 2 and found[1] == 1 and found[2] == 0
    est = _saved_with(trained, tmp_path / "chk.safetensors", check_weight=0.75)
    assert est.check_weight == 0.75 and est.describe()["check_weight"] == 0.75
    lexicon = _museum_lexicon(tmp_path)
    scorer = XLScorer.offline(en_model=minilm, ru_model=e5, lexicon=lexicon, estimator=est)
    res = scorer.score(src, mt)
    bare = XLScorer.offline(en_model=minilm, ru_model=e5, lexicon=lexicon, estimator=trained)
    for r, b, n in zip(res, bare.score(src, mt), found):
        assert r.score == pytest.approx(b.score - 0.75 * n, abs=1e-9)
    assert "-0.75*checks" in scorer.signature() and "checks" not in bare.signature()
    _rewritten(est.path, tmp_path / "neg.safetensors", check_weight=-1)
    with pytest.raises(ModelError, match="bad check_weight -1"):
        QualityEstimator.load(tmp_path / "neg.safetensors")


def _rewritten(path, out, *, drop: str | None = None, **meta):
    """A copy of the estimator file ``path`` at ``out`` with ``meta`` put into its metadata
    and the tensors whose names start with ``drop`` left out."""
    from safetensors.torch import load_file, save_file

    tensors = {k: v for k, v in load_file(str(path)).items() if not (drop and k.startswith(drop))}
    save_file(
        tensors, str(out), metadata={"xlscore_estimator": json.dumps(read_metadata(path) | meta)}
    )
    return out


def test_a_bad_similarity_weight_is_refused(trained, tmp_path):
    path = trained.save(tmp_path / "t.safetensors")
    _rewritten(path, tmp_path / "neg.safetensors", similarity_weight=-1)
    with pytest.raises(ModelError, match="bad similarity_weight -1"):
        QualityEstimator.load(tmp_path / "neg.safetensors")


def test_an_uncompressed_model_is_recompressed_as_it_would_ship(unigram_dir, tmp_path):
    est = fit(
        QualityEstimator(str(unigram_dir), recipe=replace(RECIPE, delta_rank=0), dtype="fp32"),
        _data(),
    )
    full = est.predict(WORDS_EN, WORDS_RU)
    big = est.save(tmp_path / "full.safetensors").stat().st_size
    est.recompress(2, 8)
    small = est.save(tmp_path / "small.safetensors")
    assert small.stat().st_size < big and est.meta["recipe"]["delta_rank"] == 2
    again = QualityEstimator.load(small, dtype="fp32")
    assert again.recipe.delta_rank == 2
    assert np.allclose(
        again.predict(WORDS_EN, WORDS_RU), est.predict(WORDS_EN, WORDS_RU), atol=1e-6
    )
    assert not np.array_equal(est.predict(WORDS_EN, WORDS_RU), full)  # rank 2 of 32 loses
    with pytest.raises(XLScoreError, match="not trained"):
        QualityEstimator(str(unigram_dir), recipe=RECIPE).recompress(2, 8)


def test_frozen_layers_and_a_feed_forward_head_survive_saving(unigram_dir, tmp_path):
    recipe = replace(RECIPE, freeze_layers=1, head_hidden=8, da_regression=True)
    est = QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32")
    before = {k: v.detach().clone() for k, v in est.model.named_parameters()}
    fit(est, _data())
    after = dict(est.model.named_parameters())
    frozen = [k for k in before if k.startswith("encoder.encoder.layer.0.")]
    tuned = [k for k in before if k.startswith("encoder.encoder.layer.1.")]
    assert frozen and tuned
    assert all(torch.equal(before[k], after[k]) for k in frozen)
    assert any(not torch.equal(before[k], after[k]) for k in tuned)
    assert {k for k in after if k.startswith("head.")} == {
        "head.0.weight",
        "head.0.bias",
        "head.2.weight",
        "head.2.bias",
    }
    pred = est.predict(WORDS_EN, WORDS_RU)
    path = est.save(tmp_path / "frozen.safetensors")
    again = QualityEstimator.load(path, dtype="fp32")
    assert again.recipe.freeze_layers == 1 and again.recipe.head_hidden == 8
    assert np.allclose(again.predict(WORDS_EN, WORDS_RU), pred, atol=1e-6)


def test_layer_decay_slows_lower_layers_and_a_frozen_start_trains_the_heads_first(unigram_dir):
    from xlscore.training.loop import _param_groups

    est = QualityEstimator(str(unigram_dir), recipe=replace(RECIPE, layer_decay=0.5))
    est._trainable()
    groups = _param_groups(est.model, est.model.head_modules(), est.recipe)
    body = [g for g in groups if g["body"]]
    top = [g["lr"] for g in body]
    assert top == sorted(top, reverse=True) and top[0] == RECIPE.lr
    assert top[1] == pytest.approx(RECIPE.lr * 0.5)
    assert sum(len(g["params"]) for g in groups) == sum(
        p.requires_grad for p in est.model.parameters()
    )
    # all of the first epoch frozen: the encoder keeps its weights, the heads learn
    frozen = QualityEstimator(
        str(unigram_dir), recipe=replace(RECIPE, epochs=1.0, frozen_start=0.99), dtype="fp32"
    )
    before = {k: v.detach().clone() for k, v in frozen.model.named_parameters()}
    fit(frozen, _data())
    after = dict(frozen.model.named_parameters())
    layers = [k for k in before if k.startswith("encoder.encoder.layer.")]
    assert layers and all(torch.equal(before[k], after[k]) for k in layers)
    assert any(not torch.equal(before[k], after[k]) for k in before if k.startswith("head."))


def test_word_evidence_flags_reach_the_word_head_and_survive_saving(unigram_dir, tmp_path):
    from xlscore.estimator.crossencoder import EVIDENCE, word_evidence

    text = "Он открыл Photoshop и файл report."
    flags = word_evidence(
        "He opened Photoshop and the report file.", text, [(0, 2), (10, 19), (27, 33), (0, 0)]
    )
    assert flags == (0, 3, 3, 0)  # Latin letters (bit 0), copied from the source (bit 1)
    assert word_evidence("a b", "кот cat", [(0, 3), (4, 7)]) == (0, 1)
    est = QualityEstimator(
        str(unigram_dir), recipe=replace(EXTENDED, word_evidence=True), dtype="fp32"
    )
    hidden = est.model.encoder.config.hidden_size
    assert est.model.word.in_features == hidden + len(EVIDENCE)
    fit(est, _marked())
    src = ["the cat", "the cat"]
    mt = ["кусок", "кусок cat"]
    res = est.estimate(src, mt)
    assert len(res[1].words) == 2
    # the flags are an input: clearing them changes what the word head says of "cat"
    encoded, _ = est._encode([(src[1], mt[1])], 64)
    ids, mask, side, evidence = est._batch(encoded)
    assert evidence.max().item() == 3  # "cat": a Latin letter, and a word of the source
    with torch.no_grad():
        _, with_flags = est.model(ids, mask, side, evidence)
        _, without = est.model(ids, mask, side, torch.zeros_like(evidence))
    assert not torch.allclose(with_flags, without)
    again = QualityEstimator.load(est.save(tmp_path / "ev.safetensors"), dtype="fp32")
    assert again.recipe.word_evidence and again.model.use_evidence
    assert np.allclose(again.predict(src, mt), est.predict(src, mt), atol=1e-6)


def test_the_meaning_head_learns_from_the_margins_and_blends_in_after_training(
    unigram_dir, tmp_path
):
    recipe = replace(RECIPE, synthetic=0.5, synthetic_weight=0.0, meaning_weight=1.0, head_hidden=8)
    est = fit(QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32"), _data())
    assert est.model.use_meaning and est.meaning_blend == 0.0
    plain = est.estimate(WORDS_EN, WORDS_RU)
    # trained, the head says something, but with no blend the score is the sentence head's
    assert len({round(e.meaning, 6) for e in plain}) > 1
    assert all(e.score == pytest.approx(e.base + e.adequacy, abs=1e-6) for e in plain)
    assert all(e.adequacy == pytest.approx(0.0, abs=1e-6) for e in plain)
    est.meaning_blend = 2.0
    blended = est.estimate(WORDS_EN, WORDS_RU)
    for a, b in zip(plain, blended):
        assert b.meaning == pytest.approx(a.meaning, abs=1e-6)
        assert b.score == pytest.approx(a.score + 2.0 * a.meaning, abs=1e-5)
        assert b.adequacy == pytest.approx(2.0 * a.meaning, abs=1e-5)
    again = QualityEstimator.load(est.save(tmp_path / "m.safetensors"), dtype="fp32")
    assert again.meaning_blend == 2.0 and again.describe()["meaning_blend"] == 2.0
    assert np.allclose(again.predict(WORDS_EN, WORDS_RU), [e.score for e in blended], atol=1e-5)
    with pytest.raises(XLScoreError, match="finite weight"):
        est.meaning_blend = -1.0
    # a file without the meaning head's weights is refused, not filled with random ones
    cut = _rewritten(again.path, tmp_path / "cut.safetensors", drop="meaning.")
    with pytest.raises(ModelError, match=r"lacks meaning\.0\.weight"):
        QualityEstimator.load(cut)


def test_a_blend_needs_a_meaning_head(trained, tmp_path):
    with pytest.raises(XLScoreError, match="no meaning head"):
        trained.meaning_blend = 1.0
    path = trained.save(tmp_path / "t.safetensors")
    odd = _rewritten(path, tmp_path / "odd.safetensors", meaning_blend=1.0)
    with pytest.raises(ModelError, match="meaning_blend but no meaning head"):
        QualityEstimator.load(odd)


def test_the_score_formula_is_one_record_stored_with_the_weights(trained, tmp_path):
    """The formula (issue 53) is read from the file by the scorer, the distillation and the
    gate alike: saved and loaded whole, its bad values refused by file and key, and its part
    of the signature written by the record itself."""
    from xlscore.estimator.formula import ScoreFormula

    f = ScoreFormula(meaning_blend=0.005, check_weight=0.25)
    assert f.to_meta() == {"meaning_blend": 0.005, "check_weight": 0.25}
    assert ScoreFormula.from_meta(f.to_meta()) == f
    assert f.signature(None) == "+0.005*meaning-0.25*checks<=4"
    assert ScoreFormula(similarity_weight=5).signature("e5") == "+5*sim:e5"
    with pytest.raises(XLScoreError, match="check_weight must be a finite weight"):
        ScoreFormula(check_weight=-1)
    trained.formula = ScoreFormula(check_weight=0.5)
    try:
        path = trained.save(tmp_path / "f.safetensors")
    finally:
        trained.formula = ScoreFormula()
    assert QualityEstimator.load(path).formula == ScoreFormula(check_weight=0.5)
    _rewritten(path, tmp_path / "bad.safetensors", similarity_weight=float("nan"))
    with pytest.raises(ModelError, match=r"bad\.safetensors has a bad similarity_weight"):
        QualityEstimator.load(tmp_path / "bad.safetensors")
