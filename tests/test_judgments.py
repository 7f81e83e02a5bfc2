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


# ---------------------------------------------------------------------- other language pairs
def _gz(path, text):
    import gzip

    path.write_bytes(gzip.compress(text.encode("utf-8")))
    return path


def test_multi_pair_mqm_keeps_pair_release_and_shared_sources(tmp_path):
    from xlscore.io.judgments import leave_out_sources, split_sets

    p = _gz(
        tmp_path / "mqm.tsv.gz",
        "lp\tset\tseg_id\tsystem\tsource\ttranslation\tmqm_score\tn_raters\tn_err"
        "\tis_human_translation\tenru_source_in\n"
        "en-de\tnewstest2021\tnewstest2021:d1:1\tA\tHi.\tHallo.\t-1.0\t1\t1\t0"
        "\twmt21-enru-da-newstest2021,wmt21-enru-mqm-newstest2021\n"
        "en-de\tnewstest2021\tnewstest2021:d1:1\tHuman-B\tHi.\tGrüß dich.\t-0.0\t1\t0\t1\t\n"
        "zh-en\tdev2022\tdev2022:zh-en:1\tmt\t你好。\tHello.\t97.5\t1\t1\t0\t\n",
    )
    rows = read_judgments(p, include_human=True)
    assert [(r.lp, r.release, r.kind, r.system, r.is_human) for r in rows] == [
        ("en-de", "newstest2021", "mqm", "A", False),
        ("en-de", "newstest2021", "mqm", "Human-B", True),
        ("zh-en", "dev2022", "qe", "mt", False),  # the dev sets' score is length-normalised
    ]
    assert rows[0].source_in == ("wmt21-enru-da-newstest2021", "wmt21-enru-mqm-newstest2021")
    assert len(read_judgments(p)) == 2  # human translations left out by default
    # one training set per pair, release and kind
    assert [len(s) for s in split_sets(rows)] == [2, 1]
    # testing on the en-ru newstest MQM file drops the row that shares its source
    kept = leave_out_sources(rows, "../data/wmt21-enru-mqm-newstest2021.tsv")
    assert [r.system for r in kept] == ["Human-B", "mt"]


def test_multi_pair_da_word_tags_and_critical_errors(tmp_path):
    da = _gz(
        tmp_path / "da.tsv.gz",
        "lp\tset\tsource\ttranslation\tda_z\tda_mean\tn_ratings\tenru_source_in\n"
        "en-de\ttrain2021\tA cat.\tEine Katze.\t0.5\t80\t3\t\n"
        "km-en\tdev2022\tx\ty\t-0.2\t\t\t\n",
    )
    rows = read_judgments(da)
    assert [(r.kind, r.human, r.raw, r.seg_id) for r in rows] == [
        ("da", 0.5, 80.0, "train2021:en-de:1"),
        ("da", -0.2, None, "dev2022:km-en:2"),
    ]
    word = _gz(
        tmp_path / "word.tsv.gz",
        "lp\tset\tsource\ttranslation\tpost_edit\thter\ttags\teos_tag\tenru_source_in\n"
        "en-de\ttrain2021\tA cat .\tEin Katze .\tEine Katze .\t0.25\tBAD OK OK\tOK\t\n",
    )
    (w,) = read_judgments(word)
    assert (w.kind, w.human) == ("hter", -0.25)
    # post-editing tags are edits, not rated errors: a severity of their own
    assert [(m.start, m.end, m.severity) for m in w.errors] == [(0, 3, "edit")]
    ced = _gz(
        tmp_path / "ced.tsv.gz",
        "lp\tsource\ttranslation\tlabel\tset\tenru_source_in\n"
        "en-de\ta\tb\tOK\tdev2022\t\nen-de\tc\td\tBAD\tdev2022\t\n",
    )
    assert [(r.kind, r.human) for r in read_judgments(ced)] == [("ced", 0.0), ("ced", -1.0)]


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        (
            "lp\tsource\ttranslation\tscore",
            "en-de\ta\tb\t1",
            "line 1: a file with an lp column needs one of the score columns",
        ),
        ("lp\tsource\ttranslation\tda_z", "en-de\ta\tb\tmuch", "line 2: da_z 'much' is not"),
        (
            "lp\tsource\ttranslation\tpost_edit\thter\ttags",
            "en-de\ta b\tc d\tc d\t0\tOK",
            "line 2: 1 tags for 2 words",
        ),
        ("lp\tsource\ttranslation\tlabel", "en-de\ta\tb\tMAYBE", "line 2: label 'MAYBE'"),
        ("lp\tsource\ttranslation\tda_z", "en-de\ta\t0.1", "line 2: 3 fields where the header"),
    ],
)
def test_bad_multi_pair_rows_are_named(tmp_path, header, row, message):
    p = _gz(tmp_path / "x.tsv.gz", f"{header}\n{row}\n")
    with pytest.raises(InputError, match=rf"x\.tsv\.gz, {message}"):
        read_judgments(p)


def test_a_damaged_gzip_file_is_named(tmp_path):
    p = tmp_path / "x.tsv.gz"
    p.write_bytes(b"not gzip at all")
    with pytest.raises(InputError, match=r"x\.tsv\.gz: not a readable gzip file"):
        read_judgments(p)


def test_spans_past_the_translation_are_refused_or_dropped_when_lenient(tmp_path):
    from xlscore.io.error_marks import read_error_marks

    p = tmp_path / "spans.tsv"
    p.write_text(
        "seg_id\tsystem\ttranslation\tspans\n"
        's:1:1\tA\tabc\t[{"start": 0, "end": 1, "severity": "minor"}, '
        '{"start": 1, "end": 9, "severity": "major"}]\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="line 2: an error span ends after the translation"):
        read_error_marks(p)
    with pytest.warns(UserWarning, match="1 error span"):
        marks = read_error_marks(p, lenient=True)
    assert [(m.start, m.end) for m in marks[("s:1:1", "A", "abc")]] == [(0, 1)]


def test_the_en_ru_da_layout_with_an_lp_column_is_not_a_multi_pair_file(tmp_path):
    p = tmp_path / "da.tsv"
    p.write_text(
        "seg_id\tsystem\tsource\ttranslation\thuman_score\traw_da\tis_human_translation"
        "\tmqm_seg_id\tdomain\tlp\n"
        "wmt21da:newstest2021:1\tA\tHi.\tПривет.\t0.3\t71.5\t0\t\tnews\ten-ru\n",
        encoding="utf-8",
    )
    (r,) = read_judgments(p)
    assert (r.kind, r.human, r.raw, r.lp, r.seg_id) == (
        "da",
        0.3,
        71.5,
        "en-ru",
        "wmt21da:newstest2021:1",
    )
