"""Degenerate output (issue 71, point 4): repetition, no letters, keyboard mash, far too short or
long. The rule on the tagged set (data/degenerate/degenerate.tsv), its cost in the score and in
the text output, and the empty translation's estimate."""

import csv

import pytest
from conftest import ROOT, offline_scorer, run_cli

from xlscore.checks import find_mismatches
from xlscore.checks.degenerate import FLAG_SHARE, degeneracy
from xlscore.text.words import normalize_text

SET = ROOT / "data" / "degenerate" / "degenerate.tsv"
#: the finding's message starts with the kind's words
KIND_WORDS = {
    "repetition": "repetition",
    "no_letters": "no letters",
    "mash": "keyboard mash",
    "too_short": "too short",
    "too_long": "too long",
}


def _rows() -> list[dict]:
    with open(SET, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


ROWS = _rows()
BAD = [r for r in ROWS if r["kind"] != "sound"]
SOUND = [r for r in ROWS if r["kind"] == "sound"]


@pytest.fixture(scope="module")
def alone():
    """The offline default, one translation at a time (no consensus)."""
    return offline_scorer(consensus=False, fields=("score", "evidence"))


def test_the_set_has_every_kind_and_sound_translations_beside_them():
    assert {r["kind"] for r in BAD} == set(KIND_WORDS)
    assert all(sum(r["kind"] == k for r in BAD) >= 5 for k in KIND_WORDS)
    assert len(SOUND) >= 10


@pytest.mark.parametrize("row", BAD, ids=lambda r: f"{r['kind']}:{r['bad'][:20]}")
def test_each_degenerate_output_is_found_as_its_kind(row):
    d = degeneracy(normalize_text(row["source"]), normalize_text(row["bad"]))
    assert d.share > 0.25
    assert any(f.message.startswith(KIND_WORDS[row["kind"]]) for f in d.findings), d.findings
    assert all(f.check == "degenerate" and f.counts for f in d.findings)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['kind']}:{r['good'][:20]}")
def test_sound_translations_raise_no_finding(row):
    """The false alarms the rules must not make: a short answer, a repetition the source makes,
    acronyms, names, numbers, and every good translation beside a bad one."""
    assert degeneracy(normalize_text(row["source"]), normalize_text(row["good"])).share == 0.0
    assert not [f for f in find_mismatches(row["source"], row["good"]) if f.check == "degenerate"]


def test_the_rule_is_order_free_and_never_raises():
    for text in ["", " ", "и", "и и и и", "!!!", "а" * 5000, "и " * 5000, "\x00\x01"]:
        d = degeneracy("A source sentence of a fair length, for the length rule.", text)
        assert 0.0 <= d.share <= 1.0


def test_garbage_scores_below_every_correct_translation_of_the_set(alone):
    """The user's case: scored one at a time, ``и и и ...`` (x20) got +0.076, above a correct
    translation in the same run. Now every degenerate output of the set scores below every
    good translation of the set, and those above half degenerate are flagged."""
    good = alone.score([r["source"] for r in BAD], [r["good"] for r in BAD])
    bad = alone.score([r["source"] for r in BAD], [r["bad"] for r in BAD])
    lowest_good = min(r.score for r in good)
    for row, r in zip(BAD, bad):
        assert r.score < lowest_good, (row["bad"], r.score, lowest_good)
        share = degeneracy(normalize_text(row["source"]), normalize_text(row["bad"])).share
        assert ("degenerate" in r.flags) == (share >= FLAG_SHARE)
        assert r.check_cost is not None and r.check_cost > 0
        assert r.estimate is not None and r.score < r.estimate  # the estimate stays the model's
    assert not any("degenerate" in r.flags for r in good)


def test_the_empty_translations_estimate_is_the_floor(alone):
    r = alone.score(["The museum will not open on Monday."], [""])[0]
    assert r.estimate == alone.estimator.floor and r.score == alone.final.floor
    assert r.flags == ("empty",)


def test_the_text_output_shows_the_finding_and_what_it_took(tmp_path):
    src, mt = tmp_path / "s.en", tmp_path / "t.ru"
    src.write_text(BAD[0]["source"] + "\n" + BAD[0]["source"] + "\n", encoding="utf-8")
    mt.write_text(BAD[0]["bad"] + "\n" + BAD[0]["good"] + "\n", encoding="utf-8")
    run = run_cli("score", "-s", src, "-t", mt, "-q")
    assert run.returncode == 0, run.stderr
    rows = {x.split()[0]: x for x in run.stdout.splitlines() if not x.startswith("#")}
    assert "checks -" in rows["1"] and "repetition: 'и' 20 times in a row" in rows["1"]
    assert "degenerate" in rows["1"] and "checks" not in rows["2"]
