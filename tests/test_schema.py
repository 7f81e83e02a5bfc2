"""One record per pair: the checks' findings kept in the result (found once per pair, read by
the score), and one output schema derived from the result for TSV, JSON and Parquet."""

import io
import json
from dataclasses import fields

import pytest

from xlscore import XLScorer
from xlscore.checks import COUNTED, REGISTRY, Check, counted
from xlscore.io.schema import COLUMNS
from xlscore.io.writers import JsonWriter, TsvWriter
from xlscore.results import Evidence, ScoreResult

SOURCES = ["He did not pay 40,000 dollars in Boston.", "The museum opens on Monday."]
TRANSLATIONS = ["Он заплатил 45 000 долларов в Бостоне.", "Музей открывается в понедельник."]


@pytest.fixture(scope="module")
def scorers():
    full = XLScorer.offline(fields="all")
    only = XLScorer.offline(
        en_model=full.en, ru_model=full.ru, estimator=full.estimator, fields="score"
    )
    return full, only


def test_findings_are_kept_and_the_score_counts_them(scorers):
    full, only = scorers
    r, clean = full.score(SOURCES, TRANSLATIONS)
    found = {f.check for f in r.findings}
    assert {"number", "negation"} <= found, r.findings
    assert clean.findings == ()
    # the evidence's numbers are the number findings, with their offsets
    assert r.evidence.numbers_missing == ("40,000",)
    assert r.evidence.numbers_added == ("45 000",)
    ((a, b),) = r.evidence.numbers_added_at
    assert TRANSLATIONS[0][a:b] == "45 000"
    # the score subtracts the estimator's check weight per counted finding
    weight = full.estimator.check_weight
    assert weight > 0 and r.foreign == 0
    assert r.score == pytest.approx(r.estimate - weight * counted(r.findings), abs=1e-12)
    # with the score alone, only the counted checks run, and the score is the same
    s, _ = only.score(SOURCES, TRANSLATIONS)
    assert {f.check for f in s.findings} <= set(COUNTED) and s.score == r.score
    assert counted(s.findings) == counted(r.findings)


def test_each_check_runs_once_per_pair(scorers, monkeypatch):
    full, _ = scorers
    calls = []
    number = REGISTRY["number"]

    def counting(source, translation):
        calls.append(source)
        return number.find(source, translation)

    monkeypatch.setitem(REGISTRY, "number", Check("number", counting, number.counts))
    full.score(SOURCES * 2, TRANSLATIONS * 2)
    # once per distinct pair: not again for the score after the evidence, nor for a repeat
    assert sorted(calls) == sorted(SOURCES)


def test_the_columns_are_the_results_fields_in_order():
    names = [c.name for c in COLUMNS]
    own = [f.name for f in fields(ScoreResult)]
    ev = [f.name for f in fields(Evidence)]
    k = own.index("evidence")
    assert names == own[:k] + ev + own[k + 1 :]
    assert names[0] == "score"  # TSV's third column, what --resume reads


def test_tsv_json_and_parquet_share_the_schema(scorers):
    from xlscore.io.partfiles import output_schema

    full, _ = scorers
    r = full.score(SOURCES[:1], TRANSLATIONS[:1])[0]
    names = [c.name for c in COLUMNS]
    out = io.StringIO()
    tsv = TsvWriter(out)
    tsv.header("head", ["e"])
    tsv.row(1, "e", r)
    lines = out.getvalue().splitlines()
    header, row = lines[1].split("\t"), lines[2].split("\t")
    assert header == ["segment", "engine", *names] and len(row) == len(header)
    cell = dict(zip(header, row))
    assert float(cell["score"]) == pytest.approx(r.score, abs=1e-6)
    assert "number:source:" in cell["findings"] and "negation:source:" in cell["findings"]
    out = io.StringIO()
    JsonWriter(out).row(1, "e", r)
    d = json.loads(out.getvalue())
    assert list(d)[:3] == ["type", "segment", "engine"] and list(d)[3:] == names
    assert ScoreResult.from_dict(d) == r  # the record survives the trip, offsets included
    schema = output_schema(keep_text=False)
    assert schema.names == ["id", "engine", *names, "error"]


def test_every_offset_points_into_the_texts_as_given(scorers):
    from xlscore.text.words import normalize_text

    full, _ = scorers
    src = "  He did not pay 40,000 dollars\u200b in  Boston. "
    mt = "Он  заплатил 45\u00a0000 дол\u00adларов в\tБостоне. "
    seen_s, seen_t = normalize_text(src), normalize_text(mt)
    r = full.score([src], [mt])[0]
    plain = full.score([seen_s], [seen_t])[0]
    assert seen_t != mt and r.score == plain.score and r.findings and r.error_spans

    def same(given: str, a: int, b: int, seen: str, c: int, d: int) -> bool:
        return normalize_text(given[a:b]) == seen[c:d] != ""

    assert len(r.anchors_at) == len(plain.anchors_at) > 0
    for (a, b, c, d), (e, f, g, h) in zip(r.anchors_at, plain.anchors_at):
        assert same(src, a, b, seen_s, e, f) and same(mt, c, d, seen_t, g, h)
    for name, given, seen in [
        ("unmatched_source_at", src, seen_s),
        ("foreign_words_at", mt, seen_t),
        ("numbers_missing_at", src, seen_s),
        ("numbers_added_at", mt, seen_t),
    ]:
        moved, kept = getattr(r.evidence, name), getattr(plain.evidence, name)
        assert len(moved) == len(kept)
        assert all(same(given, *x, seen, *y) for x, y in zip(moved, kept)), name
    assert r.evidence.numbers_added_at and mt[slice(*r.evidence.numbers_added_at[0])] == (
        "45\u00a0000"
    )
    for f, g in zip(r.findings, plain.findings, strict=True):
        assert (f.span is None) == (g.span is None) and (f.source_span is None) == (
            g.source_span is None
        )
        assert f.span is None or same(mt, *f.span, seen_t, *g.span)
        assert f.source_span is None or same(src, *f.source_span, seen_s, *g.source_span)
    for s, p in zip(r.error_spans, plain.error_spans, strict=True):
        assert s.text == mt[s.start : s.end] and normalize_text(s.text) == p.text
