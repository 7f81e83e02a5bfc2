"""The estimator's fields scored in blocks (xlscore.scoring.blocks): the CPU work in worker
processes gives the results of one process to the last bit, resumes reproduce them, and a worker's
warnings, errors and death reach the caller."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from conftest import offline_scorer, read_demo, run_cli

from xlscore.errors import LongInputWarning, XLScoreError
from xlscore.estimator.prediction import PassOutputs, PassQueue, read_pairs
from xlscore.scoring.blocks import blocks


@pytest.fixture(scope="module")
def scorer():
    return offline_scorer(dtype="fp32")


@pytest.fixture(scope="module")
def corpus():
    rows = read_demo()[:24]
    return [r["source"] for r in rows], [r["translation"] for r in rows]


def _engines(mt: list[str]) -> dict[str, list[str]]:
    """Four engines per source, one a copy of another (which votes once with it), so that
    three voters run the consensus."""
    return {"a": mt, "b": mt[1:] + mt[:1], "c": list(mt), "d": mt[2:] + mt[:2]}


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_workers_give_the_results_of_one_process_to_the_last_bit(scorer, corpus):
    src, mt = corpus
    engines = _engines(mt)
    assert scorer.blocks.runs_in_blocks()
    one = list(scorer.iter_score(src, engines, chunk_size=20))
    for workers in (1, 3):
        assert list(scorer.iter_score(src, engines, chunk_size=20, workers=workers)) == one
    # a consensus ran: the blocks keep each source's engines together
    assert all(r.consensus is not None for _, by in one for r in by.values() if not r.flags)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_a_run_resumed_in_workers_gives_the_uninterrupted_results(scorer, corpus):
    src, mt = corpus
    engines = _engines(mt)
    whole = list(scorer.iter_score(src, engines, chunk_size=20))
    told: list[int] = []
    resumed = list(
        scorer.iter_score(src, engines, chunk_size=20, start=9, workers=2, on_pairs=told.append)
    )
    assert resumed == whole[9:]
    assert sum(told) == len(engines) * (len(src) - 9)  # pairs before the start: not counted


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_workers_are_refused_where_a_model_beside_the_estimator_is_needed(scorer, corpus):
    src, mt = corpus
    everything = offline_scorer(dtype="fp32", fields="all")
    assert not everything.blocks.runs_in_blocks()
    with pytest.raises(XLScoreError, match="the paper's columns"):
        everything.score(src[:2], mt[:2], workers=2)
    for bad in (-1, 1.5, True):
        with pytest.raises(XLScoreError, match="whole number"):
            scorer.score(src[:2], mt[:2], workers=bad)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_a_workers_error_and_warnings_reach_the_caller(scorer, corpus, monkeypatch):
    src, mt = corpus
    check = scorer.rule_checks.run

    def failing(corpus):
        if any("BREAK" in t for t in corpus.texts()[1]):
            raise XLScoreError("broken pair")
        check(corpus)

    monkeypatch.setattr(scorer.rule_checks, "run", failing)
    with pytest.raises(XLScoreError, match="broken pair"):
        scorer.score(src[:4], [*mt[:3], "BREAK"], workers=2)
    # a pair longer than the estimator reads is cut, and the worker's warning is given here
    long_mt = " ".join(["кошка"] * 600)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scorer.score(src[:2], [mt[0], long_mt], workers=1)
    assert any(issubclass(w.category, LongInputWarning) for w in caught)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_a_worker_that_dies_stops_the_run_with_its_exit_code(scorer, corpus, monkeypatch):
    src, mt = corpus
    monkeypatch.setattr(scorer.rule_checks, "run", lambda corpus: os._exit(3))
    with pytest.raises(XLScoreError, match="exit code 3"):
        scorer.score(src[:4], mt[:4], workers=1)


def test_the_pass_queue_fills_passes_from_many_inputs(default_estimator, corpus):
    src, mt = corpus
    est = default_estimator
    whole = read_pairs(est, src, mt)
    ref = PassQueue(est, details=False)
    expected = ref.add_all(whole)
    ref.run(flush=True)
    queue = PassQueue(est, details=False)
    parts = [read_pairs(est, src[k : k + 5], mt[k : k + 5]) for k in range(0, len(src), 5)]
    outs = [queue.add_all(p) for p in parts]
    assert queue.run(flush=False) < len(src)  # only full passes: the rest waits
    assert any(o.waiting for o in outs)
    queue.run(flush=True)
    assert not any(o.waiting for o in outs)
    got = np.concatenate([o.scores[p.order] for o, p in zip(outs, parts)])
    np.testing.assert_allclose(got, expected.scores[whole.order], atol=1e-5)
    assert isinstance(expected, PassOutputs) and not expected.waiting


def test_blocks_keep_segments_whole_and_cover_each_chunk_from_its_start():
    got = blocks(10, 3, start=5, chunk_pairs=12, block_pairs=7)
    # chunks of 4 segments; the one holding segment 5 is computed from its first segment
    assert got == [(4, 6, False), (6, 8, True), (8, 10, True)]
    assert blocks(3, 5, 0, 100, 2) == [(0, 1, False), (1, 2, False), (2, 3, True)]


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_the_command_line_with_workers_writes_the_same_file(tmp_path, corpus):
    src, mt = corpus
    (tmp_path / "src.txt").write_text("\n".join(src[:8]) + "\n", encoding="utf-8")
    (tmp_path / "mt.txt").write_text("\n".join(mt[:8]) + "\n", encoding="utf-8")
    outs = []
    for workers in ("0", "2"):
        out = tmp_path / f"out{workers}.tsv"
        res = run_cli(
            "score", "-s", tmp_path / "src.txt", "-t", tmp_path / "mt.txt", "-q",
            "--dtype", "fp32", "--workers", workers, "-o", out,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    bad = run_cli("score", "-s", tmp_path / "src.txt", "-t", tmp_path / "mt.txt", "--workers", "-1")
    assert bad.returncode == 2 and "--workers" in bad.stderr


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_a_blocks_results_come_out_before_the_next_blocks_are_prepared(scorer, corpus, monkeypatch):
    """In one process the first block is finished and yielded as soon as its passes are read,
    not after every block of the window has been prepared (a killed run keeps what came out)."""
    src, mt = corpus
    prepared: list[int] = []
    run = scorer.rule_checks.run
    monkeypatch.setattr(scorer.rule_checks, "run", lambda c: (prepared.append(len(c)), run(c))[1])
    first = next(iter(scorer.iter_score(src, mt, chunk_size=4)))  # 6 chunks, a block each
    assert first[0] == 0 and prepared == [4]
