"""No command writes over its inputs (issue 71, point 1): every output path that is one of the
command's inputs (the same path, a symbolic link to it, a hard link) is refused before any
model loads, with one line naming both; the input is left as it was. Each test failed before
the fix."""

import os
import shutil

import pytest
from conftest import DEMO, run_cli

SRC = DEMO / "source.en"
ENGINES = [DEMO / f"engine{k}.ru" for k in (1, 2)]


@pytest.fixture
def nothing_loads(monkeypatch):
    """Any model, scorer or Ray start fails the test: a refusal comes before all of them."""
    from xlscore.batch import distributed
    from xlscore.encoders.encoder import Encoder
    from xlscore.estimator.model import QualityEstimator
    from xlscore.scoring.scorer import XLScorer

    def never(*a, **k):
        raise AssertionError("a model loaded (or Ray started) for a run that must be refused")

    monkeypatch.setattr(XLScorer, "__init__", never)
    monkeypatch.setattr(QualityEstimator, "__init__", never)
    monkeypatch.setattr(Encoder, "embed_words", never)
    monkeypatch.setattr(distributed, "_import_ray", never)


@pytest.fixture
def corpus(tmp_path):
    """Copies of the demo's source and two engines (a run that is not refused destroys them)."""
    src = tmp_path / "source.en"
    shutil.copy(SRC, src)
    mts = []
    for e in ENGINES:
        shutil.copy(e, tmp_path / e.name)
        mts.append(tmp_path / e.name)
    return src, mts


def refused(r, output, victim, before: bytes, named=None) -> None:
    """Exit status 2, one error line naming the output and the input (``named``, default
    ``victim``), the file ``victim`` unchanged."""
    assert r.returncode == 2, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("xlscore: error: "), r.stderr
    named = victim if named is None else named
    assert str(output) in lines[0] and str(named) in lines[0] and "input" in lines[0], r.stderr
    assert victim.read_bytes() == before


def _io(src, mts):
    return ["-s", src, *[a for m in mts for a in ("-t", m)]]


@pytest.mark.parametrize("which", ["translations", "source"])
def test_score_refuses_an_output_that_is_an_input(corpus, nothing_loads, which):
    src, mts = corpus
    victim = mts[1] if which == "translations" else src
    before = victim.read_bytes()
    refused(run_cli("score", *_io(src, mts), "-o", victim), victim, victim, before)
    # the same file under another spelling
    other = victim.parent / "." / victim.name
    refused(run_cli("score", *_io(src, mts), "-o", other, "-q"), other, victim, before)


def test_score_refuses_a_link_to_an_input(corpus, nothing_loads, tmp_path):
    src, mts = corpus
    before = mts[0].read_bytes()
    soft, hard = tmp_path / "soft.tsv", tmp_path / "out" / "hard.tsv"
    soft.symlink_to(mts[0])
    hard.parent.mkdir()
    os.link(mts[0], hard)
    for link in (soft, hard):
        r = run_cli("score", *_io(src, mts), "--format", "tsv", "-o", link)
        refused(r, link, mts[0], before)
    assert "symbolic link" in run_cli("score", *_io(src, mts), "-o", soft).stderr
    assert "hard link" in run_cli("score", *_io(src, mts), "-o", hard).stderr


@pytest.mark.parametrize("command", ["rank", "report"])
def test_rank_and_report_refuse_an_output_that_is_an_input(corpus, nothing_loads, command):
    src, mts = corpus
    before = mts[1].read_bytes()
    refused(run_cli(command, *_io(src, mts), "-o", mts[1]), mts[1], mts[1], before)


def test_report_refuses_to_write_over_its_saved_scores(corpus, nothing_loads, tmp_path):
    src, mts = corpus
    import json

    from xlscore.cli.engine_files import inputs_digest
    from xlscore.results import ScoreResult

    sources = src.read_text(encoding="utf-8").splitlines()
    engines = {m.stem: m.read_text(encoding="utf-8").splitlines() for m in mts}
    head = f"xlscore:0.1.0 inputs:{inputs_digest(sources, engines)} format:json chunk:1"
    rows = [{"xlscore": head}] + [
        {"segment": i, "engine": e, **ScoreResult(score=0.1).to_dict()}
        for i in range(1, len(sources) + 1)
        for e in engines
    ]
    saved = tmp_path / "scores.jsonl"
    saved.write_text("".join(json.dumps(x) + "\n" for x in rows), encoding="utf-8")
    before = saved.read_bytes()
    r = run_cli("report", *_io(src, mts), "--from", saved, "-o", saved)
    refused(r, saved, saved, before)


def test_fit_embed_and_train_refuse_an_output_that_is_an_input(corpus, nothing_loads, tmp_path):
    src, mts = corpus
    before = src.read_bytes()
    refused(run_cli("fit", *_io(src, mts), "--save", src), src, src, before)
    lines = tmp_path / "lines.npz"  # embed -o adds .npz to a name without it
    lines.write_text("one line\n", encoding="utf-8")
    refused(run_cli("embed", lines, "-o", lines), lines, lines, lines.read_bytes())
    data = tmp_path / "judged.tsv"
    data.write_text(
        "seg_id\tsystem\tsource\ttranslation\thuman_score\n1\ta\tHello.\tПривет.\t1\n",
        encoding="utf-8",
    )
    judged = data.read_bytes()
    refused(run_cli("train", "--data", data, "-o", data), data, data, judged)
    out = tmp_path / "est.safetensors"
    r = run_cli("train", "--data", data, "-o", out, "--checkpoint", data)
    refused(r, data, data, judged)
    # the checkpoint is removed once the estimator is saved: the same file is refused
    r = run_cli("train", "--data", data, "-o", out, "--checkpoint", out)
    assert r.returncode == 2 and "--checkpoint" in r.stderr and str(out) in r.stderr


def test_batch_refuses_an_output_folder_that_holds_or_is_an_input(tmp_path, nothing_loads):
    folder = tmp_path / "pairs"
    folder.mkdir()
    pairs = folder / "pairs.jsonl"
    pairs.write_text('{"source": "Hello.", "translation": "Привет."}\n', encoding="utf-8")
    before = pairs.read_bytes()
    for inputs, out in (
        ([folder], folder),  # the input folder itself
        ([pairs], folder),  # a folder that holds an input file
        ([pairs], pairs),  # an input file
        ([folder], folder / "scores"),  # inside an input folder: read as input the next run
    ):
        r = run_cli("batch", *inputs, "-o", out)
        refused(r, out, pairs, before, named=inputs[0])
    assert sorted(p.name for p in folder.iterdir()) == ["pairs.jsonl"]
    # a folder the input folder's files skip (a leading _) is fine as far as this check goes
    from xlscore.io.outputs import check_output_folder

    check_output_folder(folder / "_scores", [folder], [pairs])


@pytest.mark.parametrize("command", ["score", "rank", "report"])
def test_an_output_over_the_file_standard_input_reads_is_refused(corpus, command):
    """Issue 82, point 3: ``-s -`` with standard input redirected from a file, and ``-o`` that
    file (or a link to it): refused before anything loads, the file as it was. A real
    process, as a shell runs it: only there is standard input a file."""
    import subprocess
    import sys

    src, mts = corpus
    before = src.read_bytes()
    link = src.parent / "link.en"
    link.symlink_to(src)
    for output in (src, link):
        with open(src, "rb") as stdin:
            r = subprocess.run(
                [sys.executable, "-m", "xlscore.cli.main", command, "-s", "-"]
                + [a for m in mts for a in ("-t", str(m))]
                + ["-o", str(output)],
                stdin=stdin,
                capture_output=True,
                text=True,
                timeout=120,
            )
        refused(r, output, src, before, named="standard input reads this file")
        assert "torch" not in r.stderr  # refused before any model (or torch) loaded
