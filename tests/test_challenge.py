"""The challenge set: the correct translation against corrupted ones, per phenomenon, kept
from regressing below what the current default measures (tools/challenge.py)."""

from collections import Counter

import pytest
from conftest import ROOT, offline_scorer

from xlscore import InputError
from xlscore.evaluation.challenge import read_challenge, run_challenge

CHALLENGE = ROOT / "data" / "challenge" / "challenge.tsv"
# the categories, in the file's order, with their numbers of pairs
PHENOMENA = {
    "untranslated": 10,
    "wrong_language": 10,
    "number": 17,
    "negation": 15,
    "named_entity": 15,
    "omission": 20,
    "addition": 20,
    "spelled_number": 12,
    "antonym": 20,
    "untranslated_fragment": 12,
    "role_swap": 13,
    "date_unit": 14,
}
# What was measured when these tests were written (experiments/results/challenge.md), the lower
# of float32 and bfloat16 where they differ (close calls flip with the rounding: the anchors'
# role_swap 10 and 8; named_entity 9 in float32, 8 in bfloat16 on a Xeon with AVX512-BF16 and
# no AMX, whose bf16 kernels round otherwise than AMX's: 72335e5 gives the same); a change
# that lowers any of them is a regression to look at. The paper's method: two encoders,
# anchors, Müller.
PAPER_FLOOR = {
    "untranslated": 10,
    "wrong_language": 10,
    "number": 11,
    "negation": 13,
    "named_entity": 8,
    "omission": 10,
    "addition": 12,
    "spelled_number": 9,
    "antonym": 14,
    "untranslated_fragment": 11,
    "role_swap": 8,
    "date_unit": 11,
}
# The default: the shipped estimator (issue 51: no similarity in its score, so the errors that
# keep every word are caught less often than by the previous default's 172/178 — the challenge
# set is a floor now, at least half of each category and 80% of all, tools/gate.py).
# Issue 61's rule on ten sets took the meaning head's 0.005 out of the score: one antonym and
# one role swap fewer (161/178, experiments/results/gate.md).
DEFAULT_FLOOR = {
    "untranslated": 10,
    "wrong_language": 10,
    "number": 17,
    "negation": 15,
    "named_entity": 15,
    "omission": 19,
    "addition": 18,
    "spelled_number": 12,
    "antonym": 13,
    "untranslated_fragment": 12,
    "role_swap": 9,
    "date_unit": 11,
}
# flawed translations with a predicted error span on the error (39 of 178 measured with the span
# tagger of issue 63, chosen to stay quiet on error-free MT; the word head alone at 0.7 gave 89),
# and at most this many correct ones with any span (0 measured; 24 before); two pairs of slack
DEFAULT_SPANS = (37, 2)


def test_challenge_file_is_complete():
    cases = read_challenge(CHALLENGE)
    assert Counter(c.phenomenon for c in cases) == PHENOMENA
    assert all(n >= 10 for n in PHENOMENA.values())
    assert all(c.good != c.bad for c in cases)
    assert all(c.bad == c.source for c in cases if c.phenomenon == "untranslated")
    assert len({(c.source, c.good, c.bad) for c in cases}) == len(cases)


@pytest.mark.parametrize(
    ("estimator", "floor"),
    [
        pytest.param("default", DEFAULT_FLOOR, id="default"),
        # the paper's preset (MiniLM, the corpus map): 33 s, the full run only
        pytest.param(None, PAPER_FLOOR, id="paper", marks=pytest.mark.slow),
    ],
)
def test_scores_do_not_regress_on_the_challenge_set(estimator, floor):
    table = run_challenge(offline_scorer(estimator=estimator), read_challenge(CHALLENGE))
    assert list(table) == list(PHENOMENA)
    for ph, row in table.items():
        assert row.total == PHENOMENA[ph]
        assert row.wins >= floor[ph], f"{ph}: {row.wins}/{row.total}, was {floor[ph]}"
    if estimator is not None:
        on_error = sum(r.on_error for r in table.values())
        good_flagged = sum(r.good_flagged for r in table.values())
        assert on_error >= DEFAULT_SPANS[0] and good_flagged <= DEFAULT_SPANS[1], (
            on_error,
            good_flagged,
        )
    else:
        assert not any(r.on_error or r.good_flagged for r in table.values())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("case\tphenomenon\tsource\tgood\n", "line 1: no column 'bad'"),
        ("case\tphenomenon\tsource\tgood\tbad\n1\tx\ta\t\tb\n", "line 2: empty segment"),
        ("case\tphenomenon\tsource\tgood\tbad\n", "no rows"),
    ],
)
def test_bad_challenge_files_are_named(tmp_path, text, message):
    path = tmp_path / "c.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_challenge(path)
