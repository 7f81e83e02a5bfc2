"""Reading files of pairs in work units and writing part files (no Ray needed)."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from xlscore import ProcrustesAligner
from xlscore.errors import InputError
from xlscore.io.pairfiles import PairColumns, discover, plan_units, read_unit
from xlscore.io.partfiles import finished_units, unit_table, write_part
from xlscore.results import ScoreResult

ROWS = [
    {"source": f"The cat sat {i}.", "translation": f"Кот сидел {i}.", "engine": "A"}
    for i in range(7)
]


def write_formats(folder):
    folder.mkdir(exist_ok=True)
    (folder / "a.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8"
    )
    (folder / "b.tsv").write_text(
        "source\ttranslation\n" + "".join(f"{r['source']}\t{r['translation']}\n" for r in ROWS),
        encoding="utf-8",
    )
    pq.write_table(
        pa.Table.from_pylist([{**r, "id": f"p{i}"} for i, r in enumerate(ROWS)]),
        folder / "c.parquet",
        row_group_size=3,
    )
    return folder


def read_all(units, **kw):
    out = []
    for u in units:
        rows = read_unit(u, **kw)
        out += list(zip(rows.ids, rows.engines, rows.sources, rows.translations, rows.problems))
    return out


def test_units_cover_every_row_once_in_every_format(tmp_path):
    folder = write_formats(tmp_path / "in")
    files = discover([folder])
    assert [f.name for f in files] == ["a.jsonl", "b.tsv", "c.parquet"]
    for per in (1, 3, 100):
        units = plan_units(files, rows_per_file=per)
        assert [u.index for u in units] == list(range(len(units)))
        got = read_all(units)
        assert len(got) == 21 and all(p is None for *_, p in got)
        assert [g[2] for g in got] == [r["source"] for r in ROWS] * 3
    got = read_all(plan_units(files, rows_per_file=3))
    # ids: FILE:LINE for text files (the TSV's header is line 1), the id column when present
    assert got[0][0] == f"{folder / 'a.jsonl'}:1" and got[7][0] == f"{folder / 'b.tsv'}:2"
    assert got[20][0] == "p6" and got[0][1] == "A" and got[7][1] is None


def test_bad_rows_are_flagged_with_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = [
        json.dumps({"source": "a", "translation": "б"}, ensure_ascii=False).encode(),
        b'{"source": "a", "translation": "\xff"}',
        b'{"source": "a"',
        json.dumps({"source": "a"}).encode(),
        json.dumps({"source": "a", "translation": 3}).encode(),
        json.dumps({"source": "a", "translation": "  "}).encode(),
        b"[1, 2]",
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    got = read_all(plan_units([path], rows_per_file=4))
    problems = [p for *_, p in got]
    assert problems[0] is None
    assert problems[1].startswith(f"{path}, line 2: invalid UTF-8")
    assert "line 3: invalid JSON" in problems[2]
    assert "line 4: no field 'translation'" in problems[3]
    assert "line 5: field 'translation' is int" in problems[4]
    assert "line 6: empty 'translation'" in problems[5]
    assert "line 7: a JSON line must be an object" in problems[6]
    assert read_all(plan_units([path]), allow_empty=True)[5][4] is None
    tsv = tmp_path / "bad.tsv"
    tsv.write_text("source\ttranslation\na\tб\nonly one field\na\tб\x00\n", encoding="utf-8")
    rows = read_all(plan_units([tsv]))
    assert "line 3: 1 fields where the header has 2" in rows[1][4]
    assert "line 4: byte 0x00 at character 4: the file looks like UTF-16" in rows[2][4]
    # a UTF-16 file is refused whole, with or without its byte-order mark
    for name, data in (("a.tsv", "source\ttranslation\n".encode("utf-16-le")),
                       ("b.tsv", "source\ttranslation\n".encode("utf-16"))):  # fmt: skip
        (tmp_path / name).write_bytes(data)
        with pytest.raises(InputError, match=f"{name}, line 1: .*UTF-16"):
            plan_units([tmp_path / name])


def test_whole_file_problems_are_errors_before_any_work(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        discover([tmp_path / "missing.jsonl"])
    (tmp_path / "x.csv").write_text("a,b\n")
    with pytest.raises(InputError, match="unknown format"):
        discover([tmp_path / "x.csv"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no \.parquet, \.jsonl or \.tsv file"):
        discover([tmp_path / "empty"])
    tsv = tmp_path / "cols.tsv"
    tsv.write_text("src\ttgt\na\tб\n", encoding="utf-8")
    with pytest.raises(
        InputError,
        match=r"cols.tsv, line 1: no column 'source' \(there are: "
        r"src, tgt\)",
    ):
        plan_units([tsv])
    assert (
        len(
            read_all(
                plan_units([tsv], PairColumns("src", "tgt")), columns=PairColumns("src", "tgt")
            )
        )
        == 1
    )
    pq.write_table(pa.table({"text": ["a"]}), tmp_path / "p.parquet")
    with pytest.raises(InputError, match=r"p\.parquet: no column 'source'"):
        plan_units([tmp_path / "p.parquet"])
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    with pytest.raises(InputError, match=r"junk\.parquet: cannot read as Parquet"):
        plan_units([tmp_path / "junk.parquet"])
    (tmp_path / "notjson.jsonl").write_text("source\ttranslation\n")
    with pytest.raises(InputError, match="line 1: the first line is not valid JSON"):
        plan_units([tmp_path / "notjson.jsonl"])


def test_part_files_are_recognised_by_job_and_row_count(tmp_path):
    folder = write_formats(tmp_path / "in")
    units = plan_units(discover([folder]), rows_per_file=4)
    out = tmp_path / "out"
    out.mkdir()
    rows = read_unit(units[0])
    table = unit_table(
        rows,
        {
            0: ScoreResult(
                score=0.5,
                estimate=0.5,
                precision=0.1,
                recall=0.2,
                f1=0.15,
                n_anchors=1,
                anchors=(("cat", "кот"),),
            ).to_dict()
        },
        False,
    )
    assert table.column("score").to_pylist() == [0.5, None, None, None]
    path = write_part(out, units[0], table, signature="sig", job="job1")
    assert pq.read_schema(path).metadata[b"xlscore.scoring.signature"] == b"sig"
    (out / ".part-000001.parquet.123.tmp").write_bytes(b"half")
    assert finished_units(out, "job1", units) == {0}
    assert finished_units(out, "job2", units) == set()
    assert not list(out.glob(".part-*"))


def test_map_statistics_of_parts_add_up_to_the_whole_to_the_last_bit():
    """However a corpus is cut and in whatever order its parts are added, its statistics and
    its map are the same bits (the grid of alignment.GRID_BITS); totals far beyond int64's
    range carry over instead of wrapping."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(60, 8)), rng.normal(size=(60, 8))
    whole = ProcrustesAligner().fit(X, Y)
    for cut, order in [(25, 1), (7, -1), (1, -1)]:
        parts = [
            ProcrustesAligner().add_pairs(X[a : a + cut], Y[a : a + cut]).statistics()
            for a in range(0, 60, cut)
        ][::order]
        merged = ProcrustesAligner()
        for s in [*parts, ProcrustesAligner().statistics()]:  # an empty part adds nothing
            merged.merge(s)
        merged.solve()
        assert merged.n_pairs_ == 60
        for key, value in whole.statistics().items():
            assert np.array_equal(merged.statistics()[key], value), key
        assert np.array_equal(merged.W_, whole.W_)
    big = ProcrustesAligner().add_pairs(np.ones((50, 8)), np.ones((50, 8)))
    for _ in range(30):  # 50 * 2**30 pairs: their cross products' total passes 2**63 steps
        big.merge(big.statistics())
    high, low = big.statistics()["cross"]
    step = round(2**20 / 8**0.5)  # a unit vector of eight equal components, on the grid
    assert {int(h) * 2**32 + int(lo) for h, lo in zip(high.flat, low.flat)} == {
        50 * 2**30 * step * step
    }
    fifty = ProcrustesAligner().add_pairs(np.ones((50, 8)), np.ones((50, 8))).statistics()
    assert big.n_pairs_ == 50 * 2**30 and big.statistics()["scale"] == fifty["scale"] * 2**30
