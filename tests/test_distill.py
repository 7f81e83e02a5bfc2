"""Distilling an estimator (xlscore.estimator.distill): the student's smaller body, its raw
targets, the teacher's labels and the corrupted pool."""

from dataclasses import replace

import numpy as np
import pytest

from xlscore import ModelError, XLScoreError
from xlscore.estimator.distill import (
    STUDENT,
    Pair,
    student_of,
    teacher_labels,
    with_corruptions,
)
from xlscore.estimator.model import QualityEstimator
from xlscore.estimator.training import Recipe, make_examples
from xlscore.io.judgments import ErrorMark, Judgment

EN = ["the cat", "a cat sat", "the mat", "x b", "the cats sat on a mat", "a mat"]
RU = ["кусок", "неровно сложенный", "что-то", "кусок бумаги", "сложенный кусок", "бумага"]
TINY = replace(
    STUDENT, layers=1, epochs=20, batch_size=4, lr=1e-3, head_lr=1e-2, delta_rank=2, head_hidden=8
)


def _labelled() -> list[Judgment]:
    return [
        Judgment(f"t:{i}:{i}", "mt", EN[i], RU[i], -3.0 + i, errors=(ErrorMark(0, 3, "major"),))
        for i in range(6)
    ]


def test_raw_targets_keep_the_given_scale():
    rows = _labelled()
    raw = make_examples([rows], replace(TINY, targets="raw"))
    assert [e.target for e in raw] == [r.human for r in rows]
    normal = make_examples([rows], replace(TINY, targets="normal"))
    assert [e.target for e in normal] != [r.human for r in rows]
    assert abs(float(np.mean([e.target for e in normal]))) < 1e-9
    with pytest.raises(XLScoreError, match="targets must be one of"):
        Recipe(targets="ranks")
    with pytest.raises(XLScoreError, match="layers must not be negative"):
        Recipe(layers=-1)


def test_a_student_keeps_the_lowest_layers_and_survives_saving(unigram_dir, tmp_path):
    full = QualityEstimator(str(unigram_dir), recipe=replace(TINY, layers=0), dtype="fp32")
    depth = len(full.model.encoder.encoder.layer)
    assert depth >= 2
    student = student_of(0.25, TINY, base=str(unigram_dir), dtype="fp32")
    assert len(student.model.encoder.encoder.layer) == 1
    # its lowest layer is the base's own before training
    a = full.model.encoder.encoder.layer[0].state_dict()
    b = student.model.encoder.encoder.layer[0].state_dict()
    assert all(np.allclose(a[k].numpy(), b[k].numpy()) for k in a)
    student.fit([_labelled()])
    pred = student.predict(EN, RU)
    # trained on the teacher's scale: the predictions move to its mean (-0.5), where normal
    # scores would keep them about 0
    assert np.isfinite(pred).all() and pred.mean() < -0.25
    path = student.save(tmp_path / "student.safetensors")
    again = QualityEstimator.load(path, dtype="fp32")
    assert len(again.model.encoder.encoder.layer) == 1 and again.check_weight == 0.25
    assert again.recipe.layers == 1 and again.recipe.targets == "raw"
    assert np.allclose(again.predict(EN, RU), pred, atol=1e-6)
    with pytest.raises(ModelError, match=f"has {depth} layers; the recipe keeps layer 98"):
        QualityEstimator(str(unigram_dir), recipe=replace(TINY, layers=99))


def test_a_student_recipe_must_be_a_student_s(unigram_dir):
    with pytest.raises(XLScoreError, match="keeps some layers and learns raw targets"):
        student_of(0.0, replace(TINY, targets="normal"), base=str(unigram_dir))
    with pytest.raises(XLScoreError, match="keeps some layers"):
        student_of(0.0, replace(TINY, layers=0), base=str(unigram_dir))


def test_the_pool_adds_corruptions_deterministically():
    pairs = [
        Pair(f"p:{i}", "mt", "He did not sign the agreement in 2020.", f"Он не подписал {i}.")
        for i in range(40)
    ]
    one, two = with_corruptions(pairs, 0.5, seed=3), with_corruptions(pairs, 0.5, seed=3)
    assert one == two and one[:40] == pairs
    extra = one[40:]
    assert 5 <= len(extra) <= 35
    assert all(p.system == "corrupted:mt" and p.translation not in RU for p in extra)
    assert {p.seg_id for p in extra} <= {p.seg_id for p in pairs}


def test_teacher_labels_are_its_scores_without_the_check_term():
    from conftest import offline_scorer

    from xlscore.estimator.checks import reliable_findings

    pairs = [
        Pair("a", "mt", "Sales rose by 5% in 2020.", "Продажи выросли на 7% в 2021 году."),
        Pair("b", "mt", "He did not come.", "Он пришёл."),
        Pair("c", "mt", "The museum opens at 9.", "Музей открывается в 9."),
        Pair("d", "mt", "The museum opens at 9.", ""),
    ]
    scorer = offline_scorer(fields="score")
    results = scorer.score([p.source for p in pairs], [p.translation for p in pairs])
    labels = list(teacher_labels(scorer, pairs))
    assert [i for i, _ in labels] == [0, 1, 2, 3]
    w = scorer.estimator.check_weight
    assert w > 0
    for (_, j), r, p in zip(labels[:3], results, pairs):
        assert j.human == pytest.approx(r.score + w * reliable_findings(p.source, p.translation))
        assert [(e.start, e.end, e.severity) for e in j.errors] == [
            (s.start, s.end, s.severity) for s in r.error_spans
        ]
    assert labels[0][1].human > results[0].score  # the number and year findings came off
    assert labels[3][1].human == results[3].score  # an empty translation: the floor as is
    assert next(iter(teacher_labels(scorer, pairs, start=2)))[0] == 2
    with pytest.raises(XLScoreError, match="score alone"):
        list(teacher_labels(offline_scorer(), pairs))


def test_a_file_written_before_layer_pick_left_loads_and_a_pick_is_refused():
    """``layer_pick`` (the refused student st4i's) left the recipe: the value that meant "not
    used", which the shipped files store, is accepted; any other is refused by name."""
    from dataclasses import asdict

    d = asdict(TINY)
    assert Recipe.from_dict({**d, "layer_pick": ""}) == TINY
    with pytest.raises(XLScoreError, match="layer_pick was a refused experiment's setting"):
        Recipe.from_dict({**d, "layer_pick": "0,4,8,11"})
