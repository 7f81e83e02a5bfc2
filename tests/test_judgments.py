"""Reading judged data in the three WMT layouts."""

import pytest

from xlscore import InputError
from xlscore.io.judgments import read_judgments


def test_qe_tsv_has_one_machine_translation_per_source(tmp_path):
    p = tmp_path / "qe.tsv"
    p.write_text(
        "seg_id\tsource\ttranslation\tmqm_score\tz_score\n"
        "wmt22dev:0:0\tHi.\tПривет.\t100\t0.5\n"
        "wmt22dev:3:1\tBye.\tПока.\t-20.5\t-1.2\n",
        encoding="utf-8",
    )
    rows = read_judgments(p)
    assert [(r.system, r.human, r.doc) for r in rows] == [("mt", 100.0, "0"), ("mt", -20.5, "3")]


def test_a_file_without_a_score_column_is_refused(tmp_path):
    p = tmp_path / "x.tsv"
    p.write_text("seg_id\tsource\ttranslation\tz\nx:1:1\ta\tb\t1\n", encoding="utf-8")
    with pytest.raises(
        InputError, match=r"x\.tsv, line 1: no score column: need one of human_score, mqm_score"
    ):
        read_judgments(p)


def _hter(folder, src, mt, hter, pe=None):
    for ext, lines in (("src", src), ("mt", mt), ("hter", hter), ("pe", pe)):
        if lines is not None:
            (folder / f"train.{ext}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "train"


def test_hter_files_give_minus_hter_and_post_edits_as_human_translations(tmp_path):
    prefix = _hter(
        tmp_path,
        ["open file .", "save ."],
        ["откройте файл .", "сохранить ."],
        ["0.25", "0"],
        ["откройте файл .", "сохраните ."],
    )
    mt_only = read_judgments(prefix)
    assert [(r.human, r.system, r.seg_id) for r in mt_only] == [
        (-0.25, "mt", "train:0:1"),
        (-0.0, "mt", "train:0:2"),
    ]
    both = read_judgments(prefix, include_human=True)
    # the first post-edit equals its MT (HTER would be 0 and the pair a duplicate): left out
    edits = [r for r in both if r.is_human]
    assert [(r.translation, r.human, r.seg_id) for r in edits] == [
        ("сохраните .", 0.0, "train:0:2")
    ]


def test_hter_files_must_be_parallel_and_numeric(tmp_path):
    prefix = _hter(tmp_path, ["a", "b"], ["а", "б"], ["0.1"])
    with pytest.raises(InputError, match=r"train.hter: 1 lines, but .*train.src has 2"):
        read_judgments(prefix)
    _hter(tmp_path, ["a", "b"], ["а", "б"], ["0.1", "much"])
    with pytest.raises(
        InputError, match=r"train\.hter, line 2: HTER 'much' is not a finite number"
    ):
        read_judgments(prefix)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(InputError, match=r"nothing\.tsv: no such file"):
        read_judgments(tmp_path / "nothing.tsv")
