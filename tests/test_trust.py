"""What a user loses time and trust on (issue 62): a resume that redoes finished work, a score
below the floor, two runs writing one file, findings the text output hides, ties broken by
argument order, long lines, UTF-16 of the other byte order, and the small messages. Each test
failed before its fix."""

import json
import math
import re
import shlex
import warnings
from pathlib import Path

import pytest
from conftest import DEMO, offline_scorer, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from xlscore.errors import LongInputWarning
from xlscore.evaluation.compare import compare_engines
from xlscore.io.outputs import output_lock
from xlscore.results import ScoreResult
from xlscore.scoring.blend import CHECK_CAP, estimator_score
from xlscore.scoring.consensus import blend

SRC = str(DEMO / "source.en")
ENGINES = [str(DEMO / f"engine{k}.ru") for k in range(1, 5)]
SOURCES = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()
TRANSLATIONS = {
    f"e{k}": (DEMO / f"engine{k}.ru").read_text(encoding="utf-8").splitlines() for k in (1, 2, 3)
}


@pytest.fixture(scope="module")
def default():
    """The offline default (estimator, checks, consensus) on the session's models."""
    return offline_scorer(fields=("score", "evidence"))


# ---------------------------------------------------------------- 1. resume
@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_a_resumed_run_computes_no_finished_chunk_and_counts_only_new_pairs(default, monkeypatch):
    """Chunks of 6 pairs (2 segments of 3 engines): resuming at segment 12 of 12 runs the
    checks and the estimator on nothing; resuming at segment 5 computes the chunks from
    segment 4 on and tells the bar of the pairs after segment 5 only."""
    runs, passes = [], []
    real_run, real_estimate = default.rule_checks.run, default.final.estimator.estimate
    monkeypatch.setattr(default.rule_checks, "run", lambda c: runs.append(len(c)) or real_run(c))
    monkeypatch.setattr(
        default.final.estimator,
        "estimate",
        lambda *a, **k: passes.append(len(a[0])) or real_estimate(*a, **k),
    )
    told: list[int] = []
    done = list(
        default.iter_score(SOURCES, TRANSLATIONS, chunk_size=6, start=12, on_pairs=told.append)
    )
    assert done == [] and runs == [] and passes == [] and told == []
    resumed = list(
        default.iter_score(SOURCES, TRANSLATIONS, chunk_size=6, start=5, on_pairs=told.append)
    )
    assert [i for i, _ in resumed] == list(range(5, 12))
    assert sum(runs) == sum(passes) == (12 - 4) * 3  # from the chunk that holds segment 5
    assert sum(told) == (12 - 5) * 3
    whole = list(default.iter_score(SOURCES, TRANSLATIONS, chunk_size=6))
    for i, by in resumed:
        assert {e: r.score for e, r in by.items()} == {e: r.score for e, r in whole[i][1].items()}


@pytest.mark.parametrize("fmt", ["text", "tsv", "json"])
def test_the_command_line_resumes_a_finished_file_without_loading_a_model(
    tmp_path, monkeypatch, fmt
):
    """Issue 71: a finished file (every segment, and the system scores) is left as it is with
    no model loaded and no bar (it showed "1030541 pair/s"); a setting the options give that
    differs from the file's is still refused, before any model loads."""
    files = []
    for path in (SRC, *ENGINES[:2]):  # four segments of two engines: quick to score
        files.append(tmp_path / path.rsplit("/", 1)[-1])
        lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
        files[-1].write_text("".join(lines[:4]), encoding="utf-8")
    out = tmp_path / f"all.{fmt}"
    args = ["score", "-s", files[0], "-t", files[1], "-t", files[2], "--format", fmt]
    args += ["-o", out, "--chunk-size", "2"]
    assert run_cli(*args, "--quiet").returncode == 0
    whole = out.read_bytes()
    from xlscore.cli import score as score_command

    def never(*a, **k):
        raise AssertionError("the models loaded to resume a finished file")

    monkeypatch.setattr(score_command, "load_scorer", never)
    r = run_cli(*args, "--resume")
    assert r.returncode == 0, r.stderr
    assert f"{out} already holds all 4 segments: nothing left to score" in r.stderr
    assert "loading the models" not in r.stderr and "pair/s" not in r.stderr
    assert r.stderr.splitlines()[-1].startswith("xlscore: xlscore:0.1.0|est:")
    assert out.read_bytes() == whole
    for other, said in (
        (["--no-consensus"], "cons: "),
        (["--fields", "all", "--variant", "all"], "fields: score+evidence in the file, all now"),
    ):
        r = run_cli(*args, "--resume", *other)
        assert r.returncode == 2 and "cannot resume" in r.stderr and said in r.stderr
    # settings that act on no number the file holds (the paper's, without its columns): the
    # same signature, so accepted (issue 74)
    r = run_cli(*args, "--resume", "--variant", "all", "--idf", "--rescale")
    assert r.returncode == 0 and "nothing left to score" in r.stderr, r.stderr
    assert out.read_bytes() == whole
    # the same file less its last system score is not finished: the models load to end it
    if fmt != "tsv":
        out.write_bytes(whole[: whole.rstrip(b"\n").rindex(b"\n") + 1])
        with pytest.raises(AssertionError, match="the models loaded"):
            run_cli(*args, "--resume")


def test_a_resumed_bar_counts_only_new_pairs_in_its_rate(capsys):
    """The bar of a run resumed at segment 3 of 4 starts at 9 of 12 pairs, which its rate does
    not count (counted, they gave a rate of thousands of pairs a second)."""
    from xlscore.cli.engine_files import PairProgress

    bar = PairProgress(4, 3, quiet=False, start=3)
    bar.close()
    shown = capsys.readouterr().err
    assert "9/12" in shown
    assert not [x for x in re.findall(r"([0-9.]+)pair/s", shown) if float(x) > 0], shown


# ---------------------------------------------------------------- 2. the floor
def test_sixty_numbers_against_one_sentence_score_above_the_floor(default):
    """The user's case: a long source with 60 numbers, a one-sentence translation. The checks
    take at most CHECK_CAP findings' worth; the score stays above -4, and the engines' group
    with the consensus keeps it there too."""
    source = "Figures: " + ", ".join(str(100 + 7 * k) for k in range(60)) + "."
    bad = "Цифры приведены ниже."
    good = "Цифры: " + ", ".join(str(100 + 7 * k) for k in range(60)) + "."
    alone = default.score([source], [bad])[0]
    assert sum(f.counts for f in alone.findings) >= 60
    assert alone.check_cost == pytest.approx(CHECK_CAP * 0.25)
    assert alone.score >= -4.0 and alone.score == pytest.approx(
        max(-4.0, alone.estimate - CHECK_CAP * 0.25)
    )
    ranked = default.rank(source, [good, bad, good + " ", bad + "!"])
    assert all(r.result.score >= -4.0 for r in ranked)
    empty = offline_scorer(fields=("score",)).score([source], [""])[0]
    assert empty.score == -4.0  # the floor: an empty output never ranks above a real one


scores = st.floats(-6, 3, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(
    estimate=scores,
    foreign=st.floats(0, 1),
    similarity=st.floats(-1, 1),
    weight=st.sampled_from([0.0, 0.5, 2.0]),
    findings=st.integers(0, 500),
    check_weight=st.sampled_from([0.0, 0.25, 1.0]),
)
def test_every_score_is_at_least_the_floor(
    estimate, foreign, similarity, weight, findings, check_weight
):
    """The formula over hostile parts: any estimate (even below the floor), all of the text
    foreign, hundreds of findings: never below ``floor - 2 * weight``, the empty score."""
    s = estimator_score(
        estimate,
        foreign=foreign,
        similarity=similarity,
        weight=weight,
        floor=-4.0,
        findings=findings,
        check_weight=check_weight,
    )
    assert math.isfinite(s) and s >= -4.0 - 2 * weight


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(scores, st.floats(0, 100)), min_size=3, max_size=14))
def test_the_consensus_takes_no_score_below_the_floor(group):
    """Any group of scores at or above the floor, any agreement: blended, then held at the
    floor as ScoreBlend.blend_consensus holds it."""
    own = [max(-4.0, s) for s, _ in group]
    blended = blend(own, [a for _, a in group], 2.0)
    held = [max(b, min(o, -4.0)) for b, o in zip(blended, own)]
    assert all(h >= -4.0 for h in held)


# ---------------------------------------------------------------- 3. one writer per file
def test_a_second_writer_of_the_same_output_is_refused_at_once(tmp_path, monkeypatch):
    out = tmp_path / "scores.jsonl"
    from xlscore.cli import score as score_command

    def never(*a, **k):
        raise AssertionError("the models loaded for a run that cannot write")

    monkeypatch.setattr(score_command, "load_scorer", never)
    with output_lock(out):
        for extra in ([], ["--resume"]):
            r = run_cli("score", "-s", SRC, "-t", ENGINES[0], "-o", out, "--format", "json", *extra)
            assert r.returncode == 2
            assert str(out) in r.stderr and "is being written by process" in r.stderr
    # released: the next run takes it
    with output_lock(out):
        pass


# ---------------------------------------------------------------- 4. the findings shown
def test_the_text_output_shows_what_the_checks_took_and_the_summary_counts_it(tmp_path):
    src, mt = tmp_path / "s.en", tmp_path / "t.ru"
    src.write_text(
        "The price rose by 250 dollars.\nIt is not cheap.\nThe cat sat on the mat.\n",
        encoding="utf-8",
    )
    mt.write_text(
        "Цена выросла на 520 долларов.\nЭто дёшево.\nКот сидел на коврике.\n", encoding="utf-8"
    )
    out = tmp_path / "out.txt"
    r = run_cli("score", "-s", src, "-t", mt, "-o", out, "--quiet", "--chunk-size", "1")
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    rows = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert "checks -0.50: 250 in the source, not in the translation; 520 in the" in rows[0]
    assert "checks -0.25: negation 'not' in the source, none in the translation" in rows[1]
    assert "checks" not in rows[2]
    assert "the checks took points in 2 segments: -0.2500 of this mean" in text
    # resumed after the first segment: the summary still counts the first segment's findings
    lines = text.splitlines(keepends=True)
    out.write_text("".join(lines[:3]), encoding="utf-8")
    r = run_cli("score", "-s", src, "-t", mt, "-o", out, "--quiet", "--chunk-size", "1", "--resume")
    assert r.returncode == 0, r.stderr
    assert out.read_text(encoding="utf-8") == text


# ---------------------------------------------------------------- 5. ties
def test_exact_ties_share_their_rank_whatever_the_order_of_the_engines():
    def res(score: float) -> ScoreResult:
        return ScoreResult(score=score)

    segments = [(0.5, 0.2, 0.1), (0.1, 0.3, 0.7), (0.2, 0.2, -0.4)]
    a = [{"one": res(x), "two": res(y), "copy": res(x)} for x, y, _ in segments]
    b = [{"copy": res(x), "two": res(y), "one": res(x)} for x, y, _ in segments]
    first, second = compare_engines(a, n_boot=50), compare_engines(b, n_boot=50)
    assert [e.engine for e in first.engines] == [e.engine for e in second.engines]
    by = {e.engine: e for e in first.engines}
    assert (by["one"].wins, by["one"].mean_rank) == (by["copy"].wins, by["copy"].mean_rank)
    assert by["one"].wins == 2 and by["one"].mean_rank == pytest.approx(4 / 3)
    assert first.segments[2].ranks == {"one": 1, "copy": 1, "two": 1}


# ---------------------------------------------------------------- 6. long inputs
def test_a_long_pair_is_cut_for_the_estimator_and_the_warning_names_segment_and_engine(default):
    long_source = " ".join(SOURCES) * 3
    long_translation = " ".join(TRANSLATIONS["e1"]) * 3
    sources = [SOURCES[0], long_source]
    engines = {"a": [TRANSLATIONS["e1"][0], long_translation], "b": TRANSLATIONS["e2"][:2]}
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = list(default.iter_score(sources, engines))
    said = [str(w.message) for w in seen if issubclass(w.category, LongInputWarning)]
    assert any("segment 2, engine a" in s and "were cut" in s for s in said), said
    assert all(math.isfinite(r.score) for _, by in out for r in by.values())


def test_the_estimators_cut_is_the_tokenizers_longest_first(default_estimator):
    """xlscore cuts a long pair itself (the tokenizer's own truncation takes gigabytes on a
    100 kB line); the pieces kept are those the tokenizer keeps, on pairs of every shape."""
    import random

    from xlscore.estimator.crossencoder import encode_pairs

    tok = default_estimator.tokenizer
    words = " ".join(SOURCES).split() + " ".join(TRANSLATIONS["e1"]).split()
    rng = random.Random(0)
    for _ in range(120):
        s = " ".join(rng.choice(words) for _ in range(rng.randint(0, 90)))
        t = " ".join(rng.choice(words) for _ in range(rng.randint(0, 90)))
        n = rng.choice([16, 17, 40, 63, 100])
        want = tok(["query: " + s], ["passage: " + t], truncation="longest_first", max_length=n)
        got = encode_pairs(tok, "query: ", [(s, t)], n, False, "passage: ")[0]
        assert got.ids == want["input_ids"][0], (len(s), len(t), n)


def test_long_text_word_matrix_is_sparse_and_the_same():
    import torch

    from xlscore.encoders import pieces
    from xlscore.text.words import split_words

    text = "Hello, wonderful world of tiny pieces; it's 2024! " * 5
    words = split_words(text)
    spans = [(0, 0)] + [(i, min(i + 3, len(text))) for i in range(0, len(text), 3)] + [(0, 0)]
    dense, lost = pieces.piece_word_matrix(spans, words)
    sparse, lost2 = pieces._sparse_piece_word_matrix(
        torch.tensor(spans).numpy(), torch.tensor([(w.start, w.end) for w in words]).numpy()
    )
    assert lost == lost2 and sparse.is_sparse
    assert torch.allclose(dense, sparse.to_dense())


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *"ab йё ,.",
                *("\u00ad", "\u200b", "\u0301", "\r\n", "\t", "\u00a0", "e\u0301"),
                *("\u0438\u0306", "😀", "\u200d", "\x00", "\u1100\u1161"),
            ]
        ),
        max_size=40,
    )
)
def test_spans_move_between_a_text_and_its_normalised_form_in_one_pass(parts):
    """The linear map (difflib took minutes on a 100 kB line): every word of the normalised
    text moves into the text as given onto characters that normalise back to it, and back."""
    from xlscore.text.words import (
        _normalised_map,
        move_span,
        normalize_text,
        offset_map,
        split_words,
    )

    given_text = "".join(parts)
    norm = normalize_text(given_text)
    assert _normalised_map(given_text) is not None
    there, back = offset_map(norm, given_text), offset_map(given_text, norm)
    for w in split_words(norm):
        a, b = move_span(there, w.start, w.end)
        assert normalize_text(given_text[a:b]) == w.text
        assert norm[slice(*move_span(back, a, b))] == w.text


# ---------------------------------------------------------------- 7, 8. messages
@pytest.mark.parametrize("order", ["UTF-16BE", "UTF-16LE", "UTF-16"])
def test_utf16_is_named_by_its_byte_order_and_the_hint_names_the_file(tmp_path, order):
    """Without a byte-order mark, the order is told from the bytes; with one (``UTF-16``),
    iconv reads it. The command converts the file itself (issue 71: it said ``FILE``),
    shell-quoted."""
    path = tmp_path / "my src's.en"
    path.write_bytes("Hello\nМир\n".encode(order.lower().replace("utf-", "utf_")))
    r = run_cli("score", "-s", path, "-t", path)
    quoted, converted = shlex.quote(str(path)), shlex.quote(f"{path}.utf8")
    assert r.returncode == 2, r.stderr
    assert f"`iconv -f {order} -t UTF-8 {quoted} > {converted}`" in r.stderr, r.stderr


def test_a_warning_while_the_bar_is_drawn_starts_on_its_own_line(capsys):
    """Issue 71: the cut warning was printed onto the progress bar's line."""
    from xlscore.cli.engine_files import PairProgress
    from xlscore.cli.main import _one_line_warning

    bar = PairProgress(4, 3, quiet=False)
    bar.advance(5)
    bar.bar.refresh()
    said = "segment 2, engine a: 700 pieces were cut"
    _one_line_warning(LongInputWarning(said), LongInputWarning, "estimator.py", 1)
    bar.advance(4)
    bar.close()
    err = capsys.readouterr().err
    lines = [x for x in re.split(r"[\r\n]", err) if "xlscore: warning:" in x]
    assert lines == [f"xlscore: warning: {said}"], err
    assert err.rstrip("\n").rsplit("\r", 1)[-1].startswith("scoring")  # the bar drawn again


def test_interrupted_names_resume_and_a_mismatched_resume_is_refused_before_loading(
    tmp_path, monkeypatch
):
    from xlscore.cli import score as score_command

    out = tmp_path / "o.jsonl"
    out.write_text(json.dumps({"xlscore": "xlscore:0.1.0 inputs:0 format:json chunk:1"}) + "\n")

    def never(*a, **k):
        raise AssertionError("loaded the models")

    monkeypatch.setattr(score_command, "load_scorer", never)
    r = run_cli("score", "-s", SRC, "-t", ENGINES[0], "-o", out, "--format", "json", "--resume")
    assert r.returncode == 2 and "the input files or engine names differ" in r.stderr

    def stop(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(score_command, "load_scorer", stop)
    r = run_cli("score", "-s", SRC, "-t", ENGINES[0], "-o", tmp_path / "new.jsonl")
    assert r.returncode == 130
    assert "the same command with --resume continues" in r.stderr and "new.jsonl" in r.stderr


def test_the_signature_names_only_the_settings_that_acted():
    """Issue 74: without the paper's columns its words, idf, rescaling and map change no
    number, so neither the signature nor the settings ``--resume`` checks name them; with
    the columns they do."""
    from xlscore.cli.main import build_parser
    from xlscore.cli.options import settings_before_loading
    from xlscore.signature import PAPER_ONLY, signature_of

    def before(*extra: str) -> str:
        return settings_before_loading(
            build_parser().parse_args(["score", "-s", "a", "-t", "b", *extra])
        )

    plain = before()
    assert "variant:" not in plain and "idf:" not in plain and "rescale:" not in plain
    assert before("--variant", "all", "--idf", "--rescale", "--alignment", "corpus") == plain
    paper = before("--fields", "all")
    assert "variant:anchors" in paper and "idf:no" in paper and "rescale:no" in paper
    assert before("--fields", "all", "--variant", "all") != paper
    encoder = {"model": "m", "layer": 9, "fingerprint": "0123456789", "dtype": "fp32"}
    d = {
        "version": "0.1.0", "en": None, "ru": encoder, "variant": "anchors", "idf": False,
        "rescale": False, "consensus": "chrF*1>=3", "baseline": None, "lexicon": "lex",
        "words": "w", "translator": "dictionary", "alignment": "corpus", "similarity": None,
    }  # fmt: skip
    without = signature_of({**d, "fields": ["score", "evidence"]}, None)
    assert not [k for k, _ in without.parts if k in PAPER_ONLY]
    with_paper = signature_of({**d, "fields": ["score", "evidence", "paper"]}, None)
    assert {k for k, _ in with_paper.parts} >= set(PAPER_ONLY)
