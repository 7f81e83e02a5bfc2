"""The signature record (issue 85): one ``Signature`` that formats itself, parses back and says
which parts differ, what the results, the batch files' metadata and ``--resume`` all read."""

from __future__ import annotations

import pytest
from conftest import offline_scorer

from xlscore.signature import Signature


@pytest.mark.parametrize(
    "options",
    [{}, {"fields": "all"}, {"fields": "score"}, {"consensus": None}, {"estimator": None}],
    ids=["default", "all", "score", "no-consensus", "no-estimator"],
)
def test_a_scorers_signature_parses_back_to_itself(options):
    line = offline_scorer(**options).signature()
    sig = Signature.parse(line)
    assert sig.format() == line and Signature.parse(sig.format()) == sig
    assert sig.parts[0] == ("xlscore", sig.value("xlscore")) and sig.value("fields")
    assert [k for k, _ in sig.parts] == [p.partition(":")[0] for p in line.split("|")]


def test_the_engine_set_is_the_last_part_when_the_consensus_read_one():
    scorer = offline_scorer()
    line = scorer.signature(["a b c"], {"x": ["а"], "y": ["б"], "z": ["в"]})
    sig = Signature.parse(line)
    assert sig.parts[-1][0] == "engines" and sig.value("engines").startswith("3#")
    assert sig.without(["engines"]).format() == offline_scorer().signature()


def test_parts_compare_by_key_and_value():
    a = Signature.parse("xlscore:0.1.0|est:m#1@fp32|cons:chrF*2>=3|fields:score")
    b = Signature.parse("xlscore:0.1.0|est:m#2@fp32|fields:score|sim:e5")
    assert a.differing(b) == ["est", "cons"] and b.differing(a) == ["est", "sim"]
    assert a.differing(a) == [] and a.value("cons") == "chrF*2>=3" and a.value("sim") is None
    assert a.with_part("engines", "3#ab").format().endswith("|engines:3#ab")
    # a value may hold a colon (a formula naming an encoder): only the first one splits
    assert Signature.parse("est:m+0.1*sim:e5@9").value("est") == "m+0.1*sim:e5@9"


@pytest.mark.parametrize("key", ["", "a b", "a|b", "a:b"])
def test_a_key_that_would_not_parse_back_is_refused(key):
    with pytest.raises(ValueError, match="not a signature key"):
        Signature(((key, "v"),))


def test_resuming_over_a_file_whose_first_line_is_not_a_header_says_so(tmp_path):
    from xlscore.errors import InputError
    from xlscore.io.writers import check_resumable

    path = tmp_path / "out.tsv"
    path.write_text(":odd |header\nrow\n", encoding="utf-8")
    with pytest.raises(InputError, match="not an xlscore header"):
        check_resumable(path, "inputs:1 format:tsv chunk:8 fields:score")
