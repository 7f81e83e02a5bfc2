"""Issue 85: scoring a corpus gives one record (COMET's ``Prediction`` is the model): each
segment's results by engine, the system scores, the signature and, when asked, the engines
compared; ``xlscore score`` and ``xlscore rank`` only format it."""

from __future__ import annotations

import json
import math

import pytest
from conftest import offline_scorer, run_cli

from xlscore.scoring.corpus_result import CorpusResult
from xlscore.system_score import SystemScore, SystemScores

SOURCES = [
    "The museum will not open on Monday.",
    "Two dogs bark at 5 pm.",
    "She bought three apples.",
]
ENGINES = {
    "good": [
        "Музей не откроется в понедельник.",
        "Две собаки лают в 5 вечера.",
        "Она купила три яблока.",
    ],
    "wrong": [
        "Музей откроется в понедельник.",
        "Две собаки лают в 7 вечера.",
        "Она купила пять яблок.",
    ],
    "empty": ["", "Две собаки лают.", "Она купила яблоки."],
}


@pytest.fixture(scope="module")
def scorer():
    return offline_scorer(dtype="fp32")


@pytest.fixture(scope="module")
def result(scorer):
    return scorer.score_corpus(SOURCES, ENGINES)


def test_the_record_holds_every_result_and_each_engines_system_score(scorer, result):
    assert result.engines == list(ENGINES)
    assert len(result.segments) == len(SOURCES)
    for engine in ENGINES:
        scores = [r.score for r in result.results(engine)]
        system = result.systems[engine]
        assert system.segments == len(SOURCES)
        assert system.mean == pytest.approx(sum(scores) / len(scores), abs=1e-12)
    # the same pairs as iter_score gives them, and the signature of the run
    again = [by for _, by in scorer.iter_score(SOURCES, ENGINES)]
    assert [{e: r.score for e, r in by.items()} for by in again] == [
        {e: r.score for e, r in by.items()} for by in result.segments
    ]
    assert result.signature == scorer.signature(SOURCES, ENGINES)
    assert "|engines:3#" in result.signature
    assert result.systems["empty"].empty == 1 and result.systems["empty"].empty_cost > 0
    assert result.systems["wrong"].checked >= 2  # the negation and the numbers
    with pytest.raises(KeyError, match="no engine 'other'"):
        result.results("other")


def test_the_engines_compared_come_from_the_record(result):
    comparison = result.compare(n_boot=200)
    assert {e.engine for e in comparison.engines} == set(ENGINES)
    assert comparison.engines[0].mean == max(s.mean for s in result.systems.values())
    assert len(comparison.pairs) == 3 and comparison.n_boot == 200


def test_the_command_lines_system_scores_are_the_records(tmp_path, result):
    """``xlscore score --format json`` writes the record's system scores (JSON keeps every
    digit), and ``xlscore rank`` the record's comparison."""
    src = tmp_path / "src.en"
    src.write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    args = ["-s", str(src), "--allow-empty"]
    for engine, lines in ENGINES.items():
        path = tmp_path / f"{engine}.ru"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        args += ["-t", str(path)]
    done = run_cli("score", *args, "--format", "json", "--quiet", "--dtype", "fp32")
    assert done.returncode == 0, done.stderr
    records = [json.loads(x) for x in done.stdout.splitlines()]
    systems = {d["system"]: d for d in records if d["type"] == "system"}
    for engine, system in result.systems.items():
        got = systems[engine]
        assert got["score"] == system.mean and got["segments"] == system.segments
        assert (got["empty"], got["checked"]) == (system.empty, system.checked)
        assert got["empty_cost"] == pytest.approx(system.empty_cost, abs=1e-12)
    ranked = run_cli("rank", *args, "--format", "json", "--quiet", "--dtype", "fp32")
    assert ranked.returncode == 0, ranked.stderr
    table = json.loads(ranked.stdout)["engines"]
    assert [e["engine"] for e in table] == [e.engine for e in result.compare().engines]


def test_system_scores_count_empty_and_checked_segments():
    systems = SystemScores(["a", "b"])
    for score, cost, empty in [(0.5, 0.0, False), (-1.0, None, True), (0.2, 0.3, False)]:
        systems.add("a", score, cost, empty)
    got = systems.result()
    a = got["a"]
    assert a.mean == pytest.approx((0.5 - 1.0 + 0.2) / 3)
    assert (a.segments, a.empty, a.checked) == (3, 1, 1)
    assert a.empty_cost == pytest.approx(0.35 - a.mean)
    assert a.check_cost == pytest.approx(0.1)
    assert "1 empty, scored at the floor" in a.notes()
    assert "the checks took points in 1 segment:" in a.notes()
    assert math.isnan(got["b"].mean) and got["b"].segments == 0
    assert SystemScore("c", 0.1, 2).notes() == ""


def test_an_empty_corpus_keeps_its_engines():
    empty = CorpusResult.of([], "sig", ["a", "b"])
    assert empty.engines == ["a", "b"] and empty.results("a") == []
    assert all(s.segments == 0 and math.isnan(s.mean) for s in empty.systems.values())
