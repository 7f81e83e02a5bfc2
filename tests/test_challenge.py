"""The challenge set: the correct translation against corrupted ones, per phenomenon, kept
from regressing below what the current default measures (experiments/challenge.py)."""
import pytest

from conftest import ROOT
from xlscore import InputError, XLScorer
from xlscore.challenge import read_challenge, run_challenge

CHALLENGE = ROOT / "data" / "challenge" / "challenge.tsv"
PHENOMENA = ("untranslated", "wrong_language", "addition", "omission", "negation", "number",
             "named_entity")
# What the default (two encoders, anchors, Müller dictionary) measured when this test was
# written; a change that lowers any of them is a regression to look at.
FLOOR = {"untranslated": 10, "wrong_language": 8, "addition": 8, "omission": 4,
         "negation": 8, "number": 7, "named_entity": 7}


def test_challenge_file_is_complete():
    cases = read_challenge(CHALLENGE)
    assert len(cases) == 70
    assert {c.phenomenon for c in cases} == set(PHENOMENA)
    assert all(c.good != c.bad for c in cases)
    assert all(c.bad == c.source for c in cases if c.phenomenon == "untranslated")


def test_default_does_not_regress_on_the_challenge_set():
    table = run_challenge(XLScorer.offline(), read_challenge(CHALLENGE))
    assert list(table) == list(PHENOMENA)
    for ph, (wins, total) in table.items():
        assert total == 10
        assert wins >= FLOOR[ph], f"{ph}: {wins}/{total}, was {FLOOR[ph]}/10"


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
