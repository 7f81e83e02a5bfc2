"""The command line end to end on data/demo: in this process through ``xlscore.cli.main.main``
(:func:`conftest.run_cli`, the packs loaded once per session), and through the installed
console script in a subprocess for what only a real process shows (the entry point, a closed
pipe, exit statuses, nothing else on standard error)."""

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import DEMO, ROOT, read_demo, run_cli
from test_docs import FP32, fenced_blocks, first_unprinted, same_printed_line

from xlscore.checks import COUNTED, counted, find_mismatches
from xlscore.estimator.model import read_metadata, shipped

#: the default estimator as signatures name it
EST = f"est:{shipped().name}#{shipped().sha256[:8]}"

SRC = str(DEMO / "source.en")
ENGINES = [str(DEMO / f"engine{k}.ru") for k in range(1, 5)]


def command() -> list[str]:
    """The ``xlscore`` console script of this environment."""
    exe = shutil.which("xlscore", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "xlscore.cli.main"]


def xlscore(*args, stdin=None):
    """Run the ``xlscore`` console script in a subprocess; returns the completed process."""
    return subprocess.run(
        command() + [str(a) for a in args], input=stdin, capture_output=True, text=True, timeout=900
    )


def cli(*args, stdin=None):
    """``xlscore ARGS`` in this process (:func:`conftest.run_cli`): a completed process."""
    return run_cli(*args, stdin=stdin)


def ok(r):
    assert r.returncode == 0, r.stderr
    return r


#: what may precede an error on stderr: the start-up lines (said before a model loads)
STATUS = re.compile(r"xlscore: (loading the models\.\.\.|models loaded in [0-9.]+ s)")


def one_error_line(stderr: str) -> bool:
    """An error is one line (``xlscore: error: ...``), after at most the start-up lines."""
    lines = stderr.splitlines()
    return (
        len(lines) >= 1
        and lines[-1].startswith("xlscore: error: ")
        and all(STATUS.fullmatch(x) for x in lines[:-1])
        and "Traceback" not in stderr
    )


@pytest.fixture(scope="module")
def tiny_models(wordpiece_dir, unigram_dir):
    """Options for the paper's method on the tiny random encoders (with Müller's dictionary):
    for what does not depend on the real models (options, formats, input handling)."""
    return ["--en-model", wordpiece_dir, "--ru-model", unigram_dir, "--estimator", "none"]


# ------------------------------------------------------------------ score
@pytest.fixture(scope="module")
def scored_tsv(tmp_path_factory):
    """The default scorer on the four engines, in chunks of 16 pairs (four segments: three
    chunks, so that a resumed run skips whole chunks and restarts inside one)."""
    out = tmp_path_factory.mktemp("score") / "all.tsv"
    r = ok(
        cli(
            "score",
            "-s",
            SRC,
            *[arg for e in ENGINES for arg in ("-t", e)],
            "--format",
            "tsv",
            "-o",
            out,
            "--chunk-size",
            "16",
            "--fields",
            "all",
        )
    )
    return out, r


def test_score_tsv_has_every_segment(scored_tsv):
    out, r = scored_tsv
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith(f"# xlscore:0.1.0|{EST}@") and " inputs:" in lines[0]
    data = list(csv.DictReader(lines[1:], delimiter="\t"))
    assert len(data) == 12 * 4 and all(x["segment"].isdigit() for x in data)
    assert [x["engine"] for x in data[:4]] == ["engine1", "engine2", "engine3", "engine4"]
    # the full signature, with the map's digest, last on stderr (not with --quiet)
    assert "align:corpus#" in r.stderr.splitlines()[-1]
    # the default (issue 61): the estimator's prediction, pulled towards the floor by the share
    # of foreign words, minus b per finding of the precise checks (the shipped file's weight),
    # the four engines' consensus blended in at the file's weight; no similarity in the score,
    # but computed as a field beside it (--fields all)
    from xlscore.checks.degenerate import degeneracy
    from xlscore.estimator.model import FLOOR
    from xlscore.scoring.consensus import blend
    from xlscore.text.words import normalize_text

    meta = read_metadata(shipped().path)
    b, w = meta["check_weight"], meta["consensus_weight"]
    assert "similarity_weight" not in meta and f"|cons:chrF*{w:g}>=3|" in lines[0]
    assert "*sim" not in lines[0].split("|")[1] and f"-{b:g}*checks<=4-degenerate|" in lines[0]
    assert "|sim:pack:e5-small@9#" in lines[0]
    sources = Path(SRC).read_text(encoding="utf-8").splitlines()
    outputs = {Path(e).stem: Path(e).read_text(encoding="utf-8").splitlines() for e in ENGINES}
    found = exact = 0
    by: dict[str, list[dict]] = {}
    for x in data:
        by.setdefault(x["segment"], []).append(x)
    for seg, group in by.items():
        k = int(seg) - 1
        own = []
        for x in group:
            n = counted(find_mismatches(sources[k], outputs[x["engine"]][k], COUNTED))
            found += n
            # degenerate output (a far too short translation) is pulled towards the floor
            d = degeneracy(normalize_text(sources[k]), normalize_text(outputs[x["engine"]][k]))
            est = float(x["estimate"])
            own.append(est - d.share * (est - FLOOR) - b * n)
            assert x["consensus"] != "" and -1 <= float(x["similarity"]) <= 1
        if not any(x["foreign_words"] for x in group):  # nothing pulls one towards the floor
            exact += len(group)
            want = blend(own, [float(x["consensus"]) * 100 for x in group], w)
            assert [float(x["score"]) for x in group] == pytest.approx(want, abs=2e-4)
    assert exact > 30
    assert found > 0  # the checks' term was exercised
    assert any(x["unmatched_source"] for x in data)


def test_the_tsv_is_one_table_that_pandas_reads_with_its_types(scored_tsv):
    """Issue 71: the system scores were rows of the segments' table, so pandas read `segment`
    and `check_cost` as strings. The file is the signature's line and one table of segments,
    every column of its type (docs/cli.md's recipe); the system scores are its means by
    engine."""
    import pandas as pd

    out, _ = scored_tsv
    df = pd.read_csv(out, sep="\t", skiprows=1, quoting=csv.QUOTE_NONE)
    assert len(df) == 12 * 4 and list(df.columns[:3]) == ["segment", "engine", "score"]
    assert pd.api.types.is_integer_dtype(df["segment"])
    for column in ("score", "estimate", "check_cost", "consensus", "f1", "n_anchors"):
        assert pd.api.types.is_numeric_dtype(df[column]), (column, df[column].dtype)
    assert sorted(df.groupby("engine")["score"].mean().index) == [Path(e).stem for e in ENGINES]
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\n") and text.splitlines()[-1].split("\t")[0] == "12"


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_consensus_enters_with_three_engines_and_turns_off(tiny_models):
    """The paper's score (no estimator) with consensus: three engines scored together get
    the blend of their own score and their agreement; two do not; --no-consensus turns it
    off and the signature says which."""
    from xlscore.scoring.consensus import blend
    from xlscore.scoring.scorer import PAPER_CONSENSUS_WEIGHT

    def run(n: int, *extra: str) -> tuple[str, list[dict]]:
        out = ok(
            cli(
                "score",
                "-s",
                SRC,
                *[arg for e in ENGINES[:n] for arg in ("-t", e)],
                "--format",
                "tsv",
                "--quiet",
                "--estimator",
                "none",
                *extra,
                *tiny_models,
            )
        )
        lines = out.stdout.splitlines()
        return lines[0], list(csv.DictReader(lines[1:], delimiter="\t"))

    sig, rows = run(3, "--consensus")
    assert "|est:no|" in sig and "|cons:chrF*1>=3|" in sig
    by: dict[str, list[dict]] = {}
    for x in rows:
        by.setdefault(x["segment"], []).append(x)
    for group in by.values():
        own = [float(x["f1"]) for x in group]  # the tiny models flag nothing as foreign
        want = blend(own, [float(x["consensus"]) for x in group], PAPER_CONSENSUS_WEIGHT)
        assert [float(x["score"]) for x in group] == pytest.approx(want, abs=2e-6)
    _, two = run(2, "--consensus")  # two engines: too few for a consensus
    assert two and all(x["consensus"] == "" and x["score"] == x["f1"] for x in two)
    sig, off = run(3, "--no-consensus")
    assert "|cons:no|" in sig and all(x["consensus"] == "" for x in off)


def test_score_text_and_json_agree_with_tsv(scored_tsv, tmp_path):
    out, _ = scored_tsv
    # (F1 does not depend on the estimator; compare it across the runs)
    tsv = {
        (int(x["segment"]), x["engine"]): float(x["f1"])
        for x in csv.DictReader(out.read_text(encoding="utf-8").splitlines()[1:], delimiter="\t")
    }
    r = ok(
        cli("score", "-s", SRC, "-t", ENGINES[0], "-t", ENGINES[1], "--fields", "all", "--quiet")
    )
    text = [ln.split() for ln in r.stdout.splitlines() if ln.strip()[:1].isdigit()]
    assert len(text) == 24
    # a corpus map fitted on two engines differs a little from one fitted on four
    assert all(abs(float(f[3]) - tsv[(int(f[0]), f[1])]) < 0.05 for f in text)
    assert "# system score engine1:" in r.stdout
    j = tmp_path / "x.jsonl"
    ok(
        cli(
            "score",
            "-s",
            SRC,
            "-t",
            ENGINES[0],
            "--format",
            "json",
            "-o",
            j,
            "--quiet",
            "--alignment",
            "dictionary",
        )
    )
    objs = [json.loads(x) for x in j.read_text(encoding="utf-8").splitlines()]
    assert "xlscore" in objs[0] and objs[-1]["system"] == "engine1"
    assert {
        "segment",
        "engine",
        "score",
        "f1",
        "precision",
        "recall",
        "consensus",
        "n_anchors",
        "anchors",
        "flags",
        "estimate",
        "unmatched_source",
        "foreign_words",
        "numbers_missing",
        "numbers_added",
    } <= set(objs[1])
    assert len(objs) == 1 + 12 + 1


def test_score_reads_stdin_and_tables(tmp_path, tiny_models):
    table = tmp_path / "pairs.tsv"
    rows = read_demo()[:8]
    table.write_text(
        "src\tmt\n" + "".join(f"{r['source']}\t{r['translation']}\n" for r in rows),
        encoding="utf-8",
    )
    a = ok(
        cli(
            "score",
            "-s",
            table,
            "--src-col",
            "src",
            "-t",
            table,
            "--mt-col",
            "mt",
            "--format",
            "tsv",
            "--quiet",
            "--alignment",
            "dictionary",
            *tiny_models,
        )
    )
    src = tmp_path / "src.txt"
    src.write_text("".join(r["source"] + "\n" for r in rows), encoding="utf-8")
    b = ok(
        cli(
            "score",
            "-s",
            src,
            "-t",
            "-",
            "--format",
            "tsv",
            "--quiet",
            "--alignment",
            "dictionary",
            *tiny_models,
            stdin="".join(r["translation"] + "\n" for r in rows),
        )
    )
    scores_a = [ln.split("\t")[2] for ln in a.stdout.splitlines()[2:10]]
    scores_b = [ln.split("\t")[2] for ln in b.stdout.splitlines()[2:10]]
    assert scores_a == scores_b and len(scores_a) == 8
    assert "\tstdin\t" in b.stdout


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_interrupted_output_resumes_to_the_same_file(scored_tsv, tmp_path):
    full, _ = scored_tsv
    part = tmp_path / "part.tsv"
    text = full.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    part.write_text("".join(lines[: 2 + 4 * 5 + 2]) + lines[2 + 4 * 5 + 2][:9], encoding="utf-8")
    r = ok(
        cli(
            "score",
            "-s",
            SRC,
            *[arg for e in ENGINES for arg in ("-t", e)],
            "--format",
            "tsv",
            "-o",
            part,
            "--resume",
            "--chunk-size",
            "16",
            "--fields",
            "all",
        )
    )
    assert "resuming after segment 5 of 12" in r.stderr
    assert part.read_text(encoding="utf-8") == text


def test_resume_refuses_a_file_from_other_settings(scored_tsv, tmp_path):
    other = tmp_path / "other.tsv"
    shutil.copy(scored_tsv[0], other)
    resume = ["score", "-s", SRC, *[a for e in ENGINES for a in ("-t", e)], "--format", "tsv"]
    resume += ["-o", other, "--resume", "--quiet", "--chunk-size", "16"]
    r = cli(*resume, "--variant", "all", "--fields", "all")
    assert r.returncode == 2 and "cannot resume" in r.stderr
    assert "variant: anchors in the file, all now" in r.stderr  # the setting that differs
    # the fields computed are settings too
    r = cli(*resume)
    assert (
        r.returncode == 2
        and "fields: " in r.stderr
        and " in the file, score+evidence now" in (r.stderr)
    )
    r = cli(*resume[:-6], "-t", ENGINES[0], "-o", other, "--resume", "-q", "--fields", "all")
    assert "the input files or engine names differ" in r.stderr
    # another chunk size: refused before the models load
    r = cli(*resume[:-2], "--fields", "all")
    assert "chunk: 16 in the file, 10000 now" in r.stderr and "loading the models" not in r.stderr


def test_a_start_up_line_and_a_bar_that_counts_pairs_inside_a_chunk():
    from conftest import offline_scorer

    r = ok(cli("score", "-s", SRC, "-t", ENGINES[0], "-t", ENGINES[1], "--fields", "score"))
    lines = r.stderr.replace("\r", "\n").splitlines()
    assert lines[0] == "xlscore: loading the models..."
    assert lines[1].startswith("xlscore: models loaded in ")
    assert any("24/24" in x and "pair" in x for x in lines), r.stderr
    # one chunk of 24 pairs: the estimator's passes report their pairs before the first
    # segment is out, so the bar moves while the chunk is computed
    seen = []
    scorer = offline_scorer(fields=("score",))
    lines_src = Path(SRC).read_text(encoding="utf-8").splitlines()
    mts = {e: Path(e).read_text(encoding="utf-8").splitlines() for e in ENGINES[:2]}
    first = next(iter(scorer.iter_score(lines_src, mts, on_pairs=seen.append)))
    assert first[0] == 0 and seen and sum(seen) == 24 and all(0 < n <= 24 for n in seen)


def test_quiet_prints_nothing_but_warnings_and_errors(tmp_path, tiny_models):
    """Issue 71: with --quiet, score still printed its signature and report the page it
    wrote; the output files and standard output say those."""
    both = ["-s", SRC, "-t", ENGINES[0], "-t", ENGINES[1], *tiny_models]
    r = ok(cli("score", *both, "-q"))
    assert r.stderr == "" and r.stdout.startswith("# xlscore:")
    out = tmp_path / "r.html"
    r = ok(cli("report", *both, "-o", out, "--n-boot", "20", "-q"))
    assert r.stderr == "" and out.stat().st_size > 1000


def test_output_is_checked_before_the_models_load_and_write_errors_name_it(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("x", encoding="utf-8")
    for out, problem in (
        (tmp_path, "is a directory, not a file"),
        (a_file / "scores.tsv", "cannot write: "),
    ):
        r = cli("score", "-s", SRC, "-t", ENGINES[0], "-o", out)
        assert r.returncode == 2 and f"{out}: {problem}" in r.stderr, r.stderr
        assert "loading the models" not in r.stderr  # refused before anything loads
    assert not (tmp_path / "new" / "scores.tsv").exists()
    if Path("/dev/full").exists():  # a write that fails after the models have loaded
        r = cli("score", "-s", SRC, "-t", ENGINES[0], "-o", "/dev/full", "-q")
        assert r.returncode == 2
        assert (
            r.stderr.strip() == "xlscore: error: /dev/full: cannot write: No space left on device"
        )


# ------------------------------------------------------------------ rank, fit, evaluate, plot
@pytest.mark.slow
def test_a_closed_pipe_is_not_an_error():
    """``xlscore score ... | head -1``: the reader goes away, xlscore stops quietly with 0."""
    p = subprocess.Popen(
        [*command(), "score", "-s", SRC, "-t", ENGINES[0], "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert p.stdout.readline().startswith(b"# xlscore:")
    p.stdout.close()  # before the rows are written
    err = p.stderr.read()
    assert p.wait(timeout=900) == 0, err
    assert b"Error" not in err and b"Traceback" not in err


def test_rank_prints_a_table_with_significance(tmp_path, tiny_models):
    r = ok(
        cli(
            "rank",
            "-s",
            SRC,
            *[arg for e in ENGINES for arg in ("-t", e)],
            "--segments",
            "--n-boot",
            "200",
            "--quiet",
            "--variant",
            "all",
            *tiny_models,
        )
    )
    out = r.stdout
    assert "Engines ranked by mean score over 12 segments" in out
    assert "Paired bootstrap" in out and out.count(" vs ") == 6
    assert "Per segment (best first):" in out and "signature: xlscore:0.1.0" in out
    j = ok(
        cli(
            "rank",
            "-s",
            SRC,
            "-t",
            ENGINES[0],
            "-t",
            ENGINES[1],
            "--format",
            "json",
            "--n-boot",
            "100",
            "--quiet",
            *tiny_models,
        )
    )
    doc = json.loads(j.stdout)
    assert {e["engine"] for e in doc["engines"]} == {"engine1", "engine2"}
    assert sum(e["wins"] for e in doc["engines"]) == 12 and len(doc["pairs"]) == 1


def test_allow_empty_scores_the_floor_and_says_what_it_costs(tmp_path, tiny_models):
    lines = Path(ENGINES[1]).read_text(encoding="utf-8").splitlines()
    lines[2] = "  "
    blank = tmp_path / "blank.ru"
    blank.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused = cli("score", "-s", SRC, "-t", blank, *tiny_models)
    assert refused.returncode == 2 and "--allow-empty to score blank segments at the floor" in (
        refused.stderr
    )
    # the default: the estimator's floor, and the summary says how much it costs the mean
    out = tmp_path / "scores.jsonl"
    ok(cli("score", "-s", SRC, "-t", blank, "--allow-empty", "--format", "json", "-o", out, "-q"))
    docs = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()[1:]]
    rows, (summary,) = docs[:-1], docs[-1:]
    assert rows[2]["score"] == -4.0 and "empty" in rows[2]["flags"]
    rest = [r["score"] for k, r in enumerate(rows) if k != 2]
    assert summary["empty"] == 1
    assert summary["empty_cost"] == pytest.approx(sum(rest) / 11 - summary["score"], abs=1e-9)
    text = ok(cli("score", "-s", SRC, "-t", blank, "--allow-empty", "-q", *tiny_models)).stdout
    assert "over 12 segments (1 empty, scored at the floor: -" in text
    # the paper's F1: its floor is -1
    row3 = next(x.split() for x in text.splitlines() if x.split()[:2] == ["3", "blank"])
    assert float(row3[2]) == -1.0 and "empty" in row3[-1]
    ranked = ok(cli("rank", "-s", SRC, "-t", blank, "-t", ENGINES[0], "--allow-empty",
                    "--n-boot", "50", "-q", *tiny_models)).stdout  # fmt: skip
    assert "blank: 1 empty segment(s), scored at the floor (the lowest score); without them" in (
        ranked
    )


@pytest.mark.parametrize("fmt", ["text", "tsv", "json"])
def test_a_resumed_file_still_counts_the_empty_segments_done_before(tmp_path, tiny_models, fmt):
    """The summary's empty segments come from the results (their flags), those of a resumed
    file's finished segments read back from it: the file is the uninterrupted run's."""
    lines = Path(ENGINES[1]).read_text(encoding="utf-8").splitlines()
    lines[1] = ""
    blank = tmp_path / "blank.ru"
    blank.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["score", "-s", SRC, "-t", blank, "--allow-empty", "--format", fmt, "-q"]
    args += ["--chunk-size", "4", "--fields", "all", *tiny_models]
    full = tmp_path / f"full.{fmt}"
    ok(cli(*args, "-o", full))
    text = full.read_text(encoding="utf-8")
    # the TSV has no system scores: its empty segments are in its flags column
    assert {"text": "1 empty", "tsv": "\tempty\t", "json": '"empty": 1'}[fmt] in text
    head = {"text": 2, "tsv": 2, "json": 1}[fmt]
    part = tmp_path / f"part.{fmt}"
    part.write_text("".join(text.splitlines(keepends=True)[: head + 6]), encoding="utf-8")
    r = ok(cli(*[a for a in args if a != "-q"], "-o", part, "--resume"))  # -q: says nothing
    assert "resuming after segment 6 of 12" in r.stderr
    assert part.read_text(encoding="utf-8") == text


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_fit_then_score_with_the_saved_map(tmp_path):
    path = tmp_path / "map.npz"
    r = ok(
        cli(
            "fit",
            "-s",
            SRC,
            *[arg for e in ENGINES for arg in ("-t", e)],
            "--save",
            path,
            "--quiet",
        )
    )
    assert "anchor pairs from 12 segments x 4 engine(s)" in r.stdout and path.exists()
    digest = r.stdout.split("digest ")[1].split()[0]
    args = ["score", "-s", SRC, "-t", ENGINES[0], "--alignment", path, "--format", "tsv", "-q"]
    s = ok(cli(*args, "--fields", "all"))  # the map acts on the paper's columns, and signs them
    assert f"align:fixed#{digest}" in s.stdout.splitlines()[0]
    assert "align:" not in ok(cli(*args)).stdout.splitlines()[0]  # without them it acts on none
    bad = cli("score", "-s", SRC, "-t", ENGINES[0], "--alignment", path, "--layer", "4,9")
    assert bad.returncode == 2 and "this alignment was fitted for en encoder" in bad.stderr
    assert one_error_line(bad.stderr), bad.stderr


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_evaluate_on_judged_demo_data(tmp_path, tiny_models):
    data = tmp_path / "judged.tsv"
    rows = read_demo()
    data.write_text(
        "seg_id\tsystem\tsource\ttranslation\thuman_score\n"
        + "".join(
            f"demo:doc{int(r['id']) % 3}:{r['id']}\t{r['quality']}\t{r['source']}\t"
            f"{r['translation']}\t{-int(r['intended_rank'])}\n"
            for r in rows
        ),
        encoding="utf-8",
    )
    r = ok(cli("evaluate", "--data", data, "--n-boot", "100", "--quiet"))
    assert "48 translations, 4 systems, 12 segments" in r.stdout
    assert "per-segment Kendall" in r.stdout and "global Spearman" in r.stdout
    assert "the paper's method (anchor F1)" in r.stdout and EST in r.stdout
    j = ok(
        cli(
            "evaluate",
            "--data",
            data,
            "--n-boot",
            "50",
            "--quiet",
            "--format",
            "json",
            "--estimator",
            "none",
            "--folds",
            "3",
            *tiny_models,
        )
    )
    doc = json.loads(j.stdout)
    assert set(doc["metrics"]) == {"xlscore", "xlscore, map cross-fitted by document"}
    rep = doc["metrics"]["xlscore"]
    assert rep["segments"] == 12 and -1 <= rep["seg_kendall"]["value"] <= 1


def test_train_then_score_with_the_trained_estimator(tmp_path, unigram_dir):
    """The training smoke test: a tiny random model, two tiny judged sets, one epoch."""
    data = tmp_path / "judged.tsv"
    rows = read_demo()
    data.write_text(
        "seg_id\tsystem\tsource\ttranslation\thuman_score\n"
        + "".join(
            f"demo:doc{int(r['id']) % 3}:{r['id']}\t{r['quality']}\t{r['source']}\t"
            f"{r['translation']}\t{-int(r['intended_rank'])}\n"
            for r in rows
        ),
        encoding="utf-8",
    )
    qe = tmp_path / "qe.tsv"
    qe.write_text(
        "seg_id\tsource\ttranslation\tmqm_score\n"
        + "".join(
            f"q:{i}:{i}\t{r['source']}\t{r['translation']}\t{100 - 10 * i}\n"
            for i, r in enumerate(rows[:10])
        ),
        encoding="utf-8",
    )
    out = tmp_path / "models" / "tiny-qe.safetensors"  # a folder that does not exist yet
    t = ok(
        cli(
            "train",
            "--data",
            data,
            "--data",
            qe,
            "-o",
            out,
            "--base",
            unigram_dir,
            "--epochs",
            "1",
            "--delta-rank",
            "2",
            "--meaning-weight",
            "0.5",
            "--meaning-blend",
            "0.25",
            "--check-weight",
            "0.5",
            "--quiet",
        )
    )
    assert "saved" in t.stdout and "est:tiny-qe#" in t.stdout and out.exists()
    from xlscore.estimator.model import read_metadata

    meta = read_metadata(out)
    assert meta["meaning_blend"] == 0.25 and meta["recipe"]["meaning_weight"] == 0.5
    assert meta["check_weight"] == 0.5 and "similarity_weight" not in meta
    assert not list(out.parent.glob("*.ckpt*"))  # the checkpoint is gone once saved
    s = ok(
        cli(
            "score",
            "-s",
            SRC,
            "-t",
            ENGINES[0],
            "--estimator",
            out,
            "--format",
            "tsv",
            "--quiet",
            "--alignment",
            "dictionary",
        )
    )
    assert "|est:tiny-qe#" in s.stdout.splitlines()[0]
    assert "+0.25*meaning-0.5*checks<=4-degenerate|" in s.stdout.splitlines()[0]
    scores = [
        float(x["estimate"]) for x in csv.DictReader(s.stdout.splitlines()[1:], delimiter="\t")
    ]
    assert len(scores) == 12 and len(set(scores)) > 1
    e = ok(
        cli(
            "evaluate",
            "--data",
            qe,
            "--estimator",
            out,
            "--alignment",
            "dictionary",
            "--n-boot",
            "10",
            "--quiet",
        )
    )
    assert "was trained on" in e.stderr and "not how it does on unseen data" in e.stderr
    bad = cli("train", "--data", tmp_path / "none.tsv", "-o", out)
    assert bad.returncode == 2 and "none.tsv: no such file" in bad.stderr
    bad = cli("train", "--data", data, "-o", out, "--epochs", "0")
    assert bad.returncode == 2 and "recipe: epochs must be positive" in bad.stderr
    # (the shipped recipe has a meaning head: a blend is refused only without one)
    bad = cli("train", "--data", data, "-o", out, "--meaning-blend", "1", "--meaning-weight", "0")
    assert bad.returncode == 2 and "--meaning-blend needs a meaning head" in bad.stderr
    marks = tmp_path / "spans.tsv"
    marks.write_text("seg_id\tsystem\ttranslation\tspans\nnone:1:1\tx\tабв\t[]\n", encoding="utf-8")
    bad = cli("train", "--data", data, "-o", out, "--errors", marks)
    assert bad.returncode == 2 and "spans.tsv: no judged translation" in bad.stderr
    marks.write_text("", encoding="utf-8")
    bad = cli("train", "--data", data, "-o", out, "--errors", marks)
    assert bad.returncode == 2 and "spans.tsv: file is empty" in bad.stderr


def test_train_on_a_multi_pair_file_leaving_out_shared_sources(tmp_path, unigram_dir):
    import gzip

    rows = read_demo()
    lines = ["lp\tset\tseg_id\tsystem\tsource\ttranslation\tmqm_score\tenru_source_in"]
    for i, r in enumerate(rows):
        lp = ("en-de", "zh-en")[i % 2]
        shared = "wmt22-enru-mqm-dev" if i % 4 == 0 else ""
        lines.append(
            f"{lp}\tnewstest2021\tnewstest2021:d:{r['id']}\t{r['quality']}\t{r['source']}"
            f"\t{r['translation']}\t{-int(r['intended_rank'])}\t{shared}"
        )
    data = tmp_path / "mqm.tsv.gz"
    data.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8")))
    out = tmp_path / "multi.safetensors"
    args = ["train", "--data", data, "-o", out, "--base", unigram_dir, "--epochs", "1"]
    t = ok(cli(*args, "--delta-rank", "2", "--quiet", "--leave-out", "wmt22-enru-mqm-dev.tsv"))
    # two language pairs: two sets, each on its own scale; a quarter of the rows left out
    kept = len(rows) - len(range(0, len(rows), 4))
    assert f"trained on {kept} judged translations from 2 set(s)" in t.stdout


def test_the_training_defaults_are_the_shipped_recipe_read_from_its_file():
    """``xlscore train``'s recipe options default to the recipe stored in the shipped file
    (issue 64: they had drifted in 9 of 34 fields from the record's own defaults), read when
    training starts (issue 74: the parser reads no model file); a setting given wins."""
    from dataclasses import asdict, replace

    from xlscore.cli.main import build_parser
    from xlscore.cli.options import train_recipe
    from xlscore.estimator.model import read_metadata, shipped
    from xlscore.estimator.recipe import Recipe

    args = build_parser().parse_args(["train", "--data", "x.tsv", "-o", "y.safetensors"])
    stored = read_metadata(shipped().path)["recipe"]
    assert train_recipe(args) == Recipe.from_dict(stored)
    given = build_parser().parse_args(["train", "--data", "x", "-o", "y", "--epochs", "3"])
    assert train_recipe(given) == replace(Recipe.from_dict(stored), epochs=3.0)
    assert asdict(train_recipe(given))["epochs"] == 3.0
    # the file, not the record's defaults, is where they come from (a setting added after the
    # file was written reads its LEGACY value)
    full = asdict(Recipe.from_dict(stored))
    assert {k for k, v in asdict(Recipe()).items() if full[k] != v} >= {
        "freeze_layers",
        "head_hidden",
        "word_evidence",
        "span_threshold",
    }


@pytest.mark.parametrize("argv", [[], ["--help"], ["score", "--help"], ["train", "--help"]])
def test_import_and_help_load_no_torch_and_no_model(argv):
    """Issue 74: ``import xlscore`` and ``xlscore --help`` (any command's) start light: no
    torch, no transformers, no estimator module that reads a model file."""
    code = (
        "import sys\n"
        "import xlscore\n"
        f"argv = {argv!r}\n"
        "if argv:\n"
        "    from xlscore.cli.main import main\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = ('torch', 'transformers', 'safetensors', 'xlscore.estimator.model')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[-1] == "[]"


def test_the_lazy_names_are_the_public_ones():
    """Every name of ``xlscore.__all__`` resolves (loaded on first use), and nothing else."""
    import xlscore

    for name in xlscore.__all__:
        assert getattr(xlscore, name) is not None, name
    assert set(dir(xlscore)) >= set(xlscore.__all__)
    with pytest.raises(AttributeError):
        xlscore.no_such_name  # noqa: B018


@pytest.mark.slow
def test_plot_alignment_writes_a_png(tmp_path):
    out = tmp_path / "fig.png"
    rows = [r for r in read_demo() if r["id"] == "9"]
    ok(
        cli(
            "plot",
            "alignment",
            "-s",
            rows[0]["source"],
            *[arg for r in rows for arg in ("-t", r["translation"])],
            "-o",
            out,
        )
    )
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_lexicon_build_and_lookup():
    r = ok(cli("lexicon", "build"))
    assert "mueller7#" in r.stdout and "Russian->English pairs" in r.stdout
    r = ok(cli("lexicon", "lookup", "дому", "houses"))
    assert "дому: keys дому, дом ->" in r.stdout and "house" in r.stdout
    assert "houses: English keys house, houses" in r.stdout


def test_embed_prints_words_and_saves_vectors(tmp_path):
    out = tmp_path / "v.npz"
    r = ok(cli("embed", ENGINES[0], "--quiet", "-o", out))
    lines = r.stdout.splitlines()
    assert lines[0].startswith("# Encoder('pack:e5-small', layer=")
    assert lines[1] == "1\t9\tИз - за шторма музей откроется в понедельник ."
    data = np.load(out, allow_pickle=False)
    assert data["vectors"].shape == (data["offsets"][-1], 384) and len(data["offsets"]) == 13


def test_help_texts():
    r = ok(xlscore("--help"))
    for cmd in ("score", "rank", "fit", "evaluate", "train", "plot", "lexicon", "embed"):
        assert cmd in r.stdout
    for cmd in ("score", "rank", "fit", "evaluate", "train", "lexicon", "embed"):
        h = ok(cli(cmd, "--help")).stdout
        assert "usage: xlscore " + cmd in h
    assert "--preset" in ok(cli("score", "--help")).stdout
    assert "Figure 3" in ok(cli("plot", "--help")).stdout
    # the command's own description says what the score is today (issue 52)
    about = " ".join(r.stdout.split())
    assert "quality estimator (multilingual e5-small fine-tuned on human judgments" in about
    assert "--preset paper gives Vetrov & Gorn's cross-lingual BERTScore" in about


def test_allow_empty_help_names_the_floor_the_default_gives(default_estimator):
    h = " ".join(ok(cli("score", "--help")).stdout.split())
    assert f"the lowest score ({default_estimator.floor:g} with the default estimator)" in h


def _quoted_command_outputs(doc: Path) -> list[tuple[list[str], str]]:
    """``(lines, the paragraph before them)`` of each ```text block of ``doc`` that quotes
    ``score``'s system scores or ``rank``'s table."""
    return [
        (block.splitlines(), before)
        for block, before in fenced_blocks(doc, "text")
        if any(x.lstrip().startswith(("# system score", "#  engine")) for x in block.splitlines())
    ]


def _pairs_named_significant(doc: Path) -> list[tuple[str, str, str]]:
    """``(engine, engine, p)`` of each "engineA over engineB, p = P" the prose of ``doc`` says."""
    prose = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.S | re.M)
    return re.findall(r"(engine\d) over (engine\d), p = (\d\.\d+)", prose)


def test_quoted_outputs_are_what_the_commands_print():
    """The README's and docs/cli.md's `score` and `rank` outputs on the demo files are the
    real output of the commands run in float32 (`--dtype fp32`, which the docs state next to
    each quote), in order (rows elided with `...` aside): the same text, every figure to one
    unit in its last printed decimal, so that it holds on every CPU (issue 71: bf16 where
    the CPU has it, fp32 on one without, AVX2 or AVX-512 kernels)."""
    engines = [a for e in ENGINES for a in ("-t", e)]
    score = ok(cli("score", "-s", SRC, *engines, "--dtype", "fp32"))  # the signature on stderr
    rank = ok(cli("rank", "-s", SRC, *engines, "--dtype", "fp32", "-q"))
    printed = {
        "xlscore score ... --dtype fp32": (score.stdout + score.stderr).splitlines(),
        "xlscore rank ... --dtype fp32": rank.stdout.splitlines(),
    }
    checked = 0
    for doc in (ROOT / "README.md", ROOT / "docs" / "cli.md"):
        blocks = _quoted_command_outputs(doc)
        assert blocks, f"{doc.name} quotes no output of score or rank"
        for lines, before in blocks:
            assert FP32.search(before), f"{doc.name}: say `--dtype fp32` next to the quote"
            missed = {cmd: first_unprinted(lines, out) for cmd, out in printed.items()}
            assert None in missed.values(), (
                f"{doc.name}: not what the commands print: {missed};"
                " what it prints:\n" + "\n".join("\n".join(out) for out in printed.values())
            )
            checked += sum(1 for x in lines if x.strip() and "..." not in x)
        # what the prose says of the paired tests is what rank prints
        for a, b, p in _pairs_named_significant(doc):
            said = f"  {a} vs {b}  delta"
            line = next((x for x in printed["xlscore rank ... --dtype fp32"] if said in x), "")
            assert same_printed_line(f"{line.partition('p = ')[0]}p = {p} *", line), (
                f"{doc.name}: '{a} over {b}, p = {p}' is not what rank prints: {line!r}"
            )
    assert checked >= 30, checked


# ------------------------------------------------------------------ errors
@pytest.fixture
def bad_files(tmp_path):
    files = {}
    files["latin1"] = tmp_path / "latin1.ru"
    files["latin1"].write_bytes("один\nстрока\n".encode() + "stra\xdfe\n".encode("latin-1"))
    files["short"] = tmp_path / "short.ru"
    files["short"].write_text("одна строка\n" * 11, encoding="utf-8")
    files["empty"] = tmp_path / "empty.ru"
    files["empty"].write_text("", encoding="utf-8")
    files["blank"] = tmp_path / "blank.ru"
    files["blank"].write_text("одна\n   \nтри\n", encoding="utf-8")
    twelve = "".join(f"строка {k}\n" for k in range(12))
    # UTF-16 without a byte-order mark is valid UTF-8 byte for byte (issue 52)
    files["utf16"] = tmp_path / "utf16le.ru"
    files["utf16"].write_bytes(twelve.encode("utf-16-le"))
    files["utf16bom"] = tmp_path / "utf16bom.ru"
    files["utf16bom"].write_bytes(twelve.encode("utf-16"))
    files["control"] = tmp_path / "control.ru"
    files["control"].write_text(twelve.replace("строка 4", "стр\x01ока 4"), encoding="utf-8")
    return files


@pytest.mark.parametrize(
    ("case", "args", "message"),
    [
        ("missing", ["score", "-s", "{tmp}/nope.en", "-t", ENGINES[0]], "nope.en: no such file"),
        (
            "count",
            ["score", "-s", SRC, "-t", "{short}"],
            "short.ru: 11 segments, but the source " + SRC + " has 12",
        ),
        ("empty", ["score", "-s", SRC, "-t", "{empty}"], "empty.ru: file is empty"),
        ("utf8", ["score", "-s", SRC, "-t", "{latin1}"], "latin1.ru, line 3: invalid UTF-8"),
        (
            "utf16",
            ["score", "-s", SRC, "-t", "{utf16}"],
            "utf16le.ru, line 1: byte 0x04 at character 2: the file looks like UTF-16LE (no "
            "byte-order mark); convert it to UTF-8 first, e.g. `iconv -f UTF-16LE",
        ),
        (
            "utf16 bom",
            ["score", "-s", SRC, "-t", "{utf16bom}"],
            "utf16bom.ru, line 1: the file is UTF-16 (it starts with a UTF-16 byte-order mark)",
        ),
        (
            "control",
            ["score", "-s", SRC, "-t", "{control}"],
            "control.ru, line 5: control character U+0001 at character 4: not text",
        ),
        (
            "blank",
            ["rank", "-s", SRC, "-t", "{blank}", "-t", ENGINES[0]],
            "blank.ru, line 2: empty segment",
        ),
        (
            "pack",
            ["score", "-s", SRC, "-t", ENGINES[0], "--en-model", "pack:nope"],
            "unknown pack 'pack:nope'",
        ),
        (
            "model",
            ["score", "-s", SRC, "-t", ENGINES[0], "--ru-model", "{tmp}/no/model"],
            "does not exist",
        ),
        ("resume", ["score", "-s", SRC, "-t", ENGINES[0], "--resume"], "--resume needs --output"),
        ("one engine", ["rank", "-s", SRC, "-t", ENGINES[0]], "at least two translations files"),
        ("layer", ["score", "-s", SRC, "-t", ENGINES[0], "--layer", "a"], "--layer 'a'"),
        (
            "estimator",
            ["score", "-s", SRC, "-t", ENGINES[0], "--estimator", "{tmp}/no.safetensors"],
            "no.safetensors does not exist",
        ),
        (
            "estimator name",
            ["score", "-s", SRC, "-t", ENGINES[0], "--estimator", "nope"],
            "unknown estimator 'nope'",
        ),
    ],
)
def test_errors_are_one_line_with_status_2(case, args, message, bad_files, tmp_path):
    args = [a.format(tmp=tmp_path, **bad_files) for a in args]
    r = cli(*args)
    assert r.returncode == 2, (case, r.stdout, r.stderr)
    assert message in r.stderr, r.stderr
    assert one_error_line(r.stderr), r.stderr
    if case == "model":
        # the console script in a real process: the English pack loads (whatever the
        # libraries print while loading would show here), then the same one line, status 2
        p = xlscore(*args)
        assert (p.returncode, p.stdout, p.stderr) == (2, r.stdout, r.stderr), p.stderr


def test_usage_errors_exit_2():
    r = cli("score", "-s", SRC)
    assert r.returncode == 2 and "the translations are missing: give -t FILE" in r.stderr
    # argparse's own exit, from a real process
    assert xlscore("nonsense").returncode == 2


def test_the_command_line_makes_its_scorer_by_the_preset_call_python_uses(monkeypatch):
    """Issue 74: the options become ``XLScorer.preset(**settings)``, the call Python uses, so
    a preset keeps what the options do not change (``--preset paper --multilingual X`` kept
    the paper's Google translator and no consensus: the CLI's own flattening lost both)."""
    from xlscore.cli.main import build_parser
    from xlscore.cli.options import build_scorer
    from xlscore.scoring.scorer import XLScorer

    made: list = []
    monkeypatch.setattr(
        XLScorer, "__init__", lambda self, paper=None, **kw: made.append((paper, kw))
    )

    def scorer_of(*argv: str):
        build_scorer(build_parser().parse_args(["score", "-s", "a", "-t", "b", *argv]))
        return made[-1]

    paper, kw = scorer_of("--preset", "paper", "--multilingual", "pack:e5-small")
    assert paper.multilingual == "pack:e5-small" and paper.en_model is None
    assert paper.translator == "google" and kw["consensus"] is False and kw["estimator"] is None
    XLScorer.preset("paper", multilingual="pack:e5-small")
    assert made[-1][0] == paper and made[-1][1]["consensus"] is False
    paper, kw = scorer_of("--en-model", "x", "--ru-model", "y")
    assert (paper.en_model, paper.ru_model, paper.multilingual) == ("x", "y", None)
    assert kw["estimator"] == "default" and kw["consensus"] is True
    paper, kw = scorer_of("--estimator", "none", "--no-consensus")
    assert kw["estimator"] is None and kw["consensus"] is False
