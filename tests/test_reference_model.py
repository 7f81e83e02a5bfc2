"""The reference model's experiment (issue 84): which text is each row's reference, the rows
it never trains on, and the neural consensus built from the candidates of a source."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from xlscore.io.judgments import Judgment
from xlscore.scoring.consensus import Voters

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

import reference_model as rm
import teacher_student as ts


def _j(seg: str, system: str, text: str, human: bool = False, ref: str = "") -> Judgment:
    return Judgment(seg, system, f"source {seg}", text, -1.0, reference=ref, is_human=human)


def test_a_file_reference_is_used_and_its_own_copy_leaves():
    rows = [
        _j("s:1", "a", "перевод один", ref="эталон"),
        _j("s:1", "ref.A", "эталон", True, "эталон"),
    ]
    out = rm.referenced(rows)
    assert [(r.system, r.source) for r in out] == [("a", "эталон")]


def test_the_first_human_translation_by_name_is_the_reference_and_leaves_the_candidates():
    rows = [
        _j("s:1", "mt", "машинный"),
        _j("s:1", "Human-B.0", "второй", True),
        _j("s:1", "Human-A.0", "первый", True),
        _j("s:2", "mt", "без эталона"),  # no human translation: no reference, left out
    ]
    out = rm.referenced(rows)
    assert [(r.system, r.source) for r in out] == [("mt", "первый"), ("Human-B.0", "первый")]
    assert all(r.reference == "" for r in out)


class _Set:
    def __init__(self, rows):
        self.rows = tuple(rows)
        self.kind = "systems"


class _Data:
    """What the experiment reads of a :class:`rule.SetData`: its rows, groups and voters."""

    def __init__(self, texts: list[str], engines: list[str], copies=None):
        self.set = _Set([_j("s:1", e, t) for t, e in zip(texts, engines)])
        self.groups = [np.arange(len(texts))]
        self.voters = [Voters.of(texts, engines, copies)]


def test_every_ordered_pair_of_distinct_voters_is_scored_once():
    d = _Data(["a", "b", "c"], ["x", "y", "z"])
    pairs = rm.voter_pairs(d)
    assert len(pairs) == 6 and len(set(pairs)) == 6
    assert all(ref != cand for ref, cand in pairs)


def test_the_neural_agreement_is_the_mean_score_against_the_other_voters():
    d = _Data(["a", "b", "c"], ["x", "y", "z"])
    score = {("b", "a"): 1.0, ("c", "a"): 3.0, ("a", "b"): 0.0, ("c", "b"): 0.0,
             ("a", "c"): 5.0, ("b", "c"): 7.0}  # fmt: skip
    known = {json.dumps(k): v for k, v in score.items()}
    assert rm.neural_agreement(d, known).tolist() == [2.0, 0.0, 6.0]


def test_copies_of_one_engine_are_one_voter_in_the_neural_consensus():
    texts = ["один и тот же текст", "один и тот же текст", "другой", "третий"]
    engines = ["x", "x-copy", "y", "z"]
    d = _Data(texts, engines, copies={"x": "x", "x-copy": "x"})
    assert len(d.voters[0].texts) == 3
    known = {json.dumps(p): float(len(p[0])) for p in rm.voter_pairs(d)}
    agree = rm.neural_agreement(d, known)
    assert agree[0] == agree[1]  # the copies share their voter's agreement
    assert len(rm.voter_pairs(d)) == 6


def test_the_blend_moves_scores_by_the_agreement_within_a_source():
    d = _Data(["a", "b", "c"], ["x", "y", "z"])
    alone = np.array([0.0, 1.0, 2.0])
    out = rm.with_agreement(d, alone, np.array([3.0, 2.0, 1.0]), 2.0)
    assert np.argsort(out).tolist() == [2, 1, 0]  # the agreement outweighs the estimate
    assert rm.with_agreement(d, alone, np.array([3.0, 2.0, 1.0]), 0.0).tolist() == alone.tolist()


def _general(path: Path, rows: list[tuple[str, str, str, str, str]]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("seg_id\tdomain\tsystem\tsource\ttranslation\treference\n")
        fh.writelines("\t".join(r) + "\n" for r in rows)


def test_the_labelled_pool_keeps_whole_sources_and_leaves_out_long_or_empty_sides(tmp_path):
    long = "x" * ts.MAX_CHARS
    _general(
        tmp_path / ts.GENERAL,
        [
            ("wmt22:1", "", "a", "Hello.", "Привет.", "Здравствуйте."),
            ("wmt22:1", "", "b", "Hello.", "Алло.", "Здравствуйте."),
            ("wmt22:2", "", "a", "Long.", long, "Длинно."),
            ("wmt22:3", "", "a", "Empty.", " ", "Пусто."),
        ],
    )
    got = ts.general_rows(tmp_path, 10)
    assert [(r["seg_id"], r["system"]) for r in got] == [("wmt22:1", "a"), ("wmt22:1", "b")]
    assert [r["seg_id"] for r in ts.general_rows(tmp_path, 1)] == ["wmt22:1", "wmt22:1"]


def test_labels_are_read_back_as_one_set_of_judgments_grouped_by_source(tmp_path):
    f = tmp_path / "labels.jsonl"
    f.write_text(
        "\n".join(
            json.dumps({"seg_id": "wmt23:4", "system": s, "source": "Hi.", "translation": t,
                        "reference": "Привет.", "domain": "", "label": v})
            for s, t, v in (("a", "Привет.", 0.5), ("b", "Пока.", -1.0))
        ) + "\n"
    )  # fmt: skip
    rows = ts.read_labels(f)
    assert [(r.seg_id, r.human, r.source, r.kind) for r in rows] == [
        ("general:wmt23:4", 0.5, "Hi.", "teacher"),
        ("general:wmt23:4", -1.0, "Hi.", "teacher"),
    ]
    assert all(r.reference == "" for r in rows)  # the student never reads the reference


@pytest.mark.parametrize("pair", rm.RELEASES)
def test_no_release_the_model_trains_on_is_a_set_it_reads(pair):
    assert pair != ("en-de", "newstest2021")  # its sources are en-ru newstest's


def test_variant_a_trains_on_from_the_students_encoder_with_a_new_head(tmp_path, unigram_dir):
    """``teacher_student.start_from``: the student's encoder weights, exactly; the sentence
    head is not taken (``fit`` starts a new one), and a model that did not start from it
    differs."""
    import torch

    from xlscore.estimator.model import QualityEstimator
    from xlscore.training import fit
    from xlscore.training.loop import Recipe

    recipe = Recipe(
        epochs=1, batch_size=4, lr=1e-2, delta_rank=0, seed=1, synthetic=0.0, word_weight=0.0
    )
    rows = [
        Judgment(f"n:{i}", f"s{k}", f"the cat {i}", "кусок" * (k + 1), float(k))
        for i in range(4)
        for k in range(3)
    ]
    student = fit(QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32"), [rows])
    path = student.save(tmp_path / "student.safetensors")
    fresh = QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32")
    ts.start_from(fresh, path)
    theirs = QualityEstimator.load(path, dtype="fp32").model.state_dict()
    mine = fresh.model.state_dict()
    encoder = [k for k in mine if k.startswith("encoder.")]
    assert encoder and all(torch.equal(mine[k], theirs[k]) for k in encoder)
    head = [k for k in mine if k.startswith("head.")]
    assert head and not all(torch.equal(mine[k], theirs[k]) for k in head)
    plain = QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32").model.state_dict()
    assert not all(torch.equal(plain[k], theirs[k]) for k in encoder)


def test_variant_a_needs_the_fold_whose_human_rows_it_learns(monkeypatch, capsys):
    monkeypatch.setattr(
        sys, "argv", ["teacher_student.py", "train", "--data-dir", ".", "--after", "tsc1"]
    )
    with pytest.raises(SystemExit) as stop:
        ts.main()
    assert stop.value.code == 2 and "--after needs --human FOLD" in capsys.readouterr().err
