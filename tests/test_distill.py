"""Distilling an estimator (xlscore.training.distill): the student's smaller body, its raw
targets, the teacher's labels and the corrupted pool."""

from dataclasses import replace

import numpy as np
import pytest

from xlscore import ModelError, XLScoreError
from xlscore.estimator.model import QualityEstimator
from xlscore.io.judgments import ErrorMark, Judgment
from xlscore.training import fit
from xlscore.training.distill import (
    STUDENT,
    Pair,
    student_of,
    teacher_labels,
    with_corruptions,
)
from xlscore.training.loop import Recipe, make_examples

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
    fit(student, [_labelled()])
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


LABELLED = [
    Pair("a", "mt", "Sales rose by 5% in 2020.", "Продажи выросли на 7% в 2021 году."),
    Pair("b", "mt", "He did not come.", "Он пришёл."),
    Pair("c", "mt", "The museum opens at 9.", "Музей открывается в 9."),
    Pair("d", "mt", "The museum opens at 9.", ""),
    Pair("e", "mt", "The museum opens at nine.", "The museum открывается at nine."),
]


def test_teacher_labels_give_the_teacher_s_score_back_through_the_student_s_formula():
    """A teacher without a similarity weight (the default) labels each pair with its estimate:
    the scorer applies the foreign-word pull and the check term to a student's estimate, so a
    student that learns the label exactly scores as its teacher does."""
    from conftest import offline_scorer

    from xlscore.checks import counted
    from xlscore.scoring.blend import estimator_score

    pairs = LABELLED
    scorer = offline_scorer(fields="score")
    est = scorer.estimator
    assert est.similarity_weight == 0 and est.check_weight > 0
    results = scorer.score([p.source for p in pairs], [p.translation for p in pairs])
    labels = list(teacher_labels(scorer, pairs))
    assert [i for i, _ in labels] == [0, 1, 2, 3, 4]
    for (_, j), r in zip(labels, results):
        assert [(e.start, e.end, e.severity) for e in j.errors] == [
            (s.start, s.end, s.severity) for s in r.error_spans
        ]
        if "empty" in r.flags:
            assert j.human == r.score  # an empty translation: the floor as is
            continue
        assert j.human == r.estimate
        again = estimator_score(
            j.human,
            foreign=r.foreign,
            similarity=None,
            weight=0.0,
            floor=est.floor,
            findings=counted(r.findings),
            check_weight=est.check_weight,
        )
        assert again == pytest.approx(r.score, abs=1e-9)
    assert labels[0][1].human > results[0].score  # the number and year findings came off
    assert results[4].foreign > 0 and labels[4][1].human > results[4].score  # the pull came off
    assert next(iter(teacher_labels(scorer, pairs, start=2)))[0] == 2
    with pytest.raises(XLScoreError, match="score alone"):
        list(teacher_labels(offline_scorer(), pairs))


def test_a_teacher_with_a_similarity_labels_its_score_without_the_check_term():
    """A teacher whose score holds a similarity (the round-4 default, st4-e5s's teacher): the
    student learns that part too, so the label is the score with the check term added back
    (the scorer's results stand in for such a teacher's)."""
    from types import SimpleNamespace

    from conftest import offline_scorer

    from xlscore.checks import counted

    results = offline_scorer(fields="score").score(
        [p.source for p in LABELLED], [p.translation for p in LABELLED]
    )

    class Teacher:
        fields = frozenset({"score"})
        estimator = SimpleNamespace(similarity_weight=5.0, check_weight=0.25)

        def iter_score(self, sources, translations, *, start=0, progress=False):
            for i in range(start, len(results)):
                yield i, {"": results[i]}

    labels = [j.human for _, j in teacher_labels(Teacher(), LABELLED)]
    for label, r in zip(labels, results):
        added = 0.0 if "empty" in r.flags else 0.25 * counted(r.findings)
        assert label == pytest.approx(r.score + added)
    assert labels[0] > results[0].score  # the number and year findings came off


def test_a_file_written_before_layer_pick_left_loads_and_a_pick_is_refused():
    """``layer_pick`` (the refused student st4i's) left the recipe: the value that meant "not
    used", which the shipped files store, is accepted; any other is refused by name."""
    from dataclasses import asdict

    d = asdict(TINY)
    assert Recipe.from_dict({**d, "layer_pick": ""}) == TINY
    with pytest.raises(XLScoreError, match="layer_pick was a refused experiment's setting"):
        Recipe.from_dict({**d, "layer_pick": "0,4,8,11"})
