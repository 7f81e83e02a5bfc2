"""The challenge set: the correct translation against corrupted ones, per phenomenon, kept
from regressing below what the current default measures (experiments/challenge.py)."""
import pytest

from conftest import ROOT
from xlscore import InputError, XLScorer
from xlscore.challenge import read_challenge, run_challenge

CHALLENGE = ROOT / "data" / "challenge" / "challenge.tsv"
PHENOMENA = ("untranslated", "wrong_language", "addition", "omission", "negation", "number",
             "named_entity")
# What was measured when these tests were written (experiments/results/challenge.md); a change
# that lowers any of them is a regression to look at. The paper's method: two encoders,
# anchors, Müller dictionary. named_entity was 7/10 in float32, but four of those wins are by
# less than 0.0006 in F1 and two by 0.0002 or less, under bfloat16 rounding: at the default
# precision (bfloat16 on processors with bf16 units) one of them becomes a tie (6/10).
PAPER_FLOOR = {"untranslated": 10, "wrong_language": 8, "addition": 8, "omission": 4,
               "negation": 8, "number": 7, "named_entity": 6}
# The default (the shipped quality estimator). It is weak on minimal pairs — a changed number
# or name barely moves a sentence-level model trained on a few thousand judgments (README) —
# but untranslated and wrong-language output must keep ranking below the correct translation.
DEFAULT_FLOOR = {"untranslated": 10, "wrong_language": 8, "addition": 8, "omission": 5,
                 "negation": 5, "number": 0, "named_entity": 3}


def test_challenge_file_is_complete():
    cases = read_challenge(CHALLENGE)
    assert len(cases) == 70
    assert {c.phenomenon for c in cases} == set(PHENOMENA)
    assert all(c.good != c.bad for c in cases)
    assert all(c.bad == c.source for c in cases if c.phenomenon == "untranslated")


@pytest.mark.parametrize("estimator, floor", [("default", DEFAULT_FLOOR), (None, PAPER_FLOOR)],
                         ids=["default", "paper"])
def test_scores_do_not_regress_on_the_challenge_set(estimator, floor):
    table = run_challenge(XLScorer.offline(estimator=estimator), read_challenge(CHALLENGE))
    assert list(table) == list(PHENOMENA)
    for ph, (wins, total) in table.items():
        assert total == 10
        assert wins >= floor[ph], f"{ph}: {wins}/{total}, was {floor[ph]}/10"


@pytest.mark.parametrize("text, message", [
    ("case\tphenomenon\tsource\tgood\n", "line 1: no column 'bad'"),
    ("case\tphenomenon\tsource\tgood\tbad\n1\tx\ta\t\tb\n", "line 2: empty segment"),
    ("case\tphenomenon\tsource\tgood\tbad\n", "no rows"),
])
def test_bad_challenge_files_are_named(tmp_path, text, message):
    path = tmp_path / "c.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_challenge(path)
