"""Every finding reported either costs points or says why not (issue 82, point 5): a finding
that does not count carries its rule's measured false alarms and hits (``why_free``, from
``xlscore/checks/measured.tsv``, which ``tools/checks.py`` writes beside its
``checks.md``), in the JSON, in the text output and in the Parquet schema. Each test failed
before ``why_free`` existed."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from xlscore.checks import REGISTRY, find_mismatches
from xlscore.checks.measured import measured
from xlscore.finding import Finding
from xlscore.results import ScoreResult

ROOT = Path(__file__).resolve().parent.parent

PAIRS = [
    (
        "On Monday, Macron attended a service at the cathedral.",
        "В понедельник Байден посетил службу в соборе.",
    ),
    ("The museum opens at 9.", "Музей не открывается в 10."),
    ("The museum does not open at 9.", "Музей открывается в 9."),
    ("Boston sold 3 cars.", "Москва продала 3 машины."),
    ("It rained.", "Да."),
]


def test_each_finding_costs_or_says_why_not():
    seen = set()
    for source, translation in PAIRS:
        for f in find_mismatches(source, translation):
            seen.add((f.check, f.counts))
            assert f.counts != bool(f.why_free), f
            if not f.counts:
                assert f.why_free.startswith("reported, no cost: "), f
    # names and an added negation are free; a number and a dropped negation count
    assert {("name", False), ("negation", False), ("number", True), ("negation", True)} <= seen


def test_the_reason_quotes_the_measured_file():
    """The figures of a name finding's reason are those ``tools/checks.py`` wrote, and
    the file's lines are the table of ``experiments/results/checks.md``."""
    (f,) = [f for f in find_mismatches(*PAIRS[0], ("name",)) if f.span is None]
    row = measured()[("name", "all")]
    numbers = [int(x.replace(",", "")) for x in re.findall(r"\d[\d,]*", f.why_free)]
    want = [int(row[k]) for k in ("false_alarms", "error_free", "hits", "with_error")]
    assert numbers[:4] == want
    assert "experiments/results/checks.md" in f.why_free
    table = (ROOT / "experiments" / "results" / "checks.md").read_text(encoding="utf-8")
    for (check, rule), r in measured().items():
        line = (
            f"| {check} | {rule} | {r['false_alarms']} of {r['error_free']} | "
            f"{r['hits']} of {r['with_error']} |"
        )
        assert line in table


def test_every_free_rule_is_measured():
    """Each check whose findings may cost nothing has a measured line for every rule it
    reports (no finding falls back to the unmeasured reason)."""
    rules = {(f.check, REGISTRY[f.check].rule(f)) for s, t in PAIRS for f in find_mismatches(s, t)
             if not f.counts}  # fmt: skip
    assert rules and rules <= set(measured())


def test_the_reason_travels_in_json_and_back():
    f = find_mismatches(*PAIRS[0], ("name",))[0]
    d = f.to_dict()
    assert d["why_free"] == f.why_free and d["counts"] is False
    assert Finding.from_dict(d) == f
    assert ScoreResult.from_dict(ScoreResult(0.1, findings=(f,)).to_dict()).findings == (f,)
    # a finding written before the field was added reads back as one without a reason
    old = {k: v for k, v in d.items() if k != "why_free"}
    assert Finding.from_dict(old).why_free == ""


def test_the_text_output_says_why_a_finding_costs_nothing():
    from xlscore.io.writers import TextWriter

    found = tuple(find_mismatches(*PAIRS[0]))
    out = io.StringIO()
    TextWriter(out).row(1, "engine", ScoreResult(0.1, findings=found, check_cost=0.0))
    line = out.getvalue()
    assert "Macron in the source, not in the translation" in line
    assert "[name, reported, no cost: " in line and "false alarms in" in line
    assert line.count("reported, no cost") == 1  # said once for the rule's findings


def test_the_parquet_schema_has_every_key_of_a_finding():
    pa = pytest.importorskip("pyarrow")
    from xlscore.io.schema import arrow_type

    f = find_mismatches(*PAIRS[0], ("name",))[0]
    struct = arrow_type("findings").value_type
    assert [struct.field(i).name for i in range(struct.num_fields)] == list(f.to_dict())
    assert pa.array([[f.to_dict()]], type=arrow_type("findings"))[0][0]["why_free"].as_py()


def test_the_text_output_keeps_what_costs_apart_from_what_does_not():
    """A row with a finding that costs and one that does not: the cost first, then, after a
    semicolon, the free finding with its reason; a resumed run still reads the cost back."""
    from xlscore.io.writers import TextWriter

    found = tuple(find_mismatches("In May, Boston sold 3 cars.", "В мае Москва продала 4 машины."))
    assert any(f.counts for f in found) and any(not f.counts for f in found)
    out = io.StringIO()
    w = TextWriter(out)
    w.row(1, "engine", ScoreResult(0.1, findings=found, check_cost=0.25))
    line = out.getvalue()
    cost, _, free = line.partition("; Boston in the source")
    assert "checks -0.25: " in cost and "[name, reported, no cost: " in free
    assert w.parse(line.rstrip("\n")).check_cost == 0.25
