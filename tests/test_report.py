"""The engine comparison (xlscore.evaluation.compare) and the HTML report
(xlscore.report.page), without a browser: statistics, escaping, the page's policy, saved runs;
the CLI end to end on the demo."""

import base64
import hashlib
import itertools
import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_cli import ENGINES, EST, SRC, cli, ok

from xlscore import InputError, ScoreResult
from xlscore.estimator.spans import ErrorSpan
from xlscore.evaluation.compare import compare_engines, segment_ranking
from xlscore.report.charts import length_bins
from xlscore.report.page import build_report, read_saved_scores
from xlscore.scoring.evidence import Evidence
from xlscore.text.words import normalize_text

HOSTILE = [
    "<script>window.__pwned = 1</script>",
    '"><img src=x onerror="window.__pwned = 1">',
    "</textarea><b>bold</b> & </script><script>window.__pwned = 1</script>",
    "\u2028line</style><svg onload=window.__pwned=1>",
]


def result(score: float, anchors=(), flags=(), **evidence) -> ScoreResult:
    return ScoreResult(
        score=score,
        precision=score,
        recall=score,
        f1=score,
        n_anchors=len(anchors),
        anchors=tuple(anchors),
        flags=tuple(flags),
        estimate=score,
        evidence=Evidence(**evidence),
    )


def span(
    text: str, part: str, severity: str = "major", probability: float = 0.9, nth: int = 0
) -> ErrorSpan:
    """The error span over the ``nth`` occurrence of ``part`` in ``text`` (the text as given)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(part, at + 1)
    return ErrorSpan(at, at + len(part), part, severity, probability)


def with_spans(r: ScoreResult, *spans: ErrorSpan, adequacy: float | None = 0.125) -> ScoreResult:
    return replace(r, error_spans=tuple(spans), adequacy=adequacy, estimate=r.score)


#: translations that normalisation changes (spaces, a decomposed й, a soft hyphen, NBSP) and
#: the parts of them marked as predicted errors: ``[(text, [(part, severity), ...])]``
CHANGED = [
    ("  Мой  кот   спит на  ковре. ", [("Мой", "minor"), ("кот   спит", "major")]),
    ("Дом­ик стоит у реки.", [("Дом­ик", "major"), ("реки", "minor")]),
    (
        "Он сказал: «<script>window.__pwned = 1</script>»",
        [("<script>window.__pwned = 1</script>", "major")],
    ),
    (
        'Текст "><img src=x onerror="window.__pwned = 1"> конец',
        [('"><img src=x onerror="window.__pwned = 1">', "minor")],
    ),
    ("Обычный текст без изменений.", []),
]


def spanned(n: int = 6):
    """Sources, two engines' translations and results with predicted error spans: engine
    ``A`` has the texts of :data:`CHANGED` (cycled), ``B <i>`` plain ones with a minor span on
    even segments; expected major segments (1-based): those whose ``A`` text has a major
    span."""
    sources = [f"The cat {k} sleeps on the rug." for k in range(n)]
    texts, results, major = {"A": [], "B <i>": []}, [], []
    for k in range(n):
        text, parts = CHANGED[k % len(CHANGED)]
        other = f"Кошка {k}  спит на ковре."
        texts["A"].append(text)
        texts["B <i>"].append(other)
        a = with_spans(
            result(0.4 + 0.01 * k),
            *[span(text, part, sev, 0.5 + 0.05 * j) for j, (part, sev) in enumerate(parts)],
        )
        b = with_spans(
            result(0.3),
            *([span(other, "спит", "minor", 0.42)] if k % 2 == 0 else []),
            adequacy=None if k % 3 else -0.05,
        )
        results.append({"A": a, "B <i>": b})
        if any(sev == "major" for _, sev in parts):
            major.append(k + 1)
    return sources, texts, results, major


def synthetic(n: int = 30, seed: int = 0):
    """Sources, translations of three engines (hostile texts among them) and results."""
    rng = np.random.default_rng(seed)
    sources = [f"The cat {k} sat on the mat." for k in range(n)]
    sources[3] = HOSTILE[0]
    names = ["good", "bad <b>", "mixed\"'"]
    translations = {e: [f"Кошка {k} сидела на коврике." for k in range(n)] for e in names}
    for k, text in enumerate(HOSTILE):
        translations[names[k % 3]][k] = text
    results = []
    for k in range(n):
        results.append(
            {
                "good": result(0.5 + 0.1 * rng.random(), [("cat", "Кошка")]),
                "bad <b>": result(
                    0.1 * rng.random(),
                    flags=("untranslated",) if k == 5 else (),
                    numbers_missing=(str(k),) if k % 3 == 0 else (),
                ),
                "mixed\"'": result(0.3 * rng.random() + 0.2),
            }
        )
    return sources, translations, results


def test_compare_engines_ranks_tests_and_counts():
    _, _, results = synthetic()
    cmp = compare_engines(results, n_boot=200)
    assert [e.engine for e in cmp.engines] == ["good", "mixed\"'", "bad <b>"]
    assert sum(e.wins for e in cmp.engines) == 30 and cmp.engines[0].wins == 30
    assert len(cmp.pairs) == 3 and all(p.significant for p in cmp.pairs)
    good, bad = cmp.engines[0], cmp.engines[2]
    assert good.low <= good.mean <= good.high and bad.mean_rank == 3.0
    t = cmp.test("bad <b>", "good")
    assert t.delta == pytest.approx(-cmp.test("good", "bad <b>").delta) and t.delta < 0
    # a flagged translation ranks last in its segment whatever its score
    seg = segment_ranking(1, {"a": result(0.9, flags=("untranslated",)), "b": result(0.1)})
    assert seg.ranking == ["b", "a"] and seg.flags == {"a": ["untranslated"]}
    # empty segments (scored at the floor) are counted with what they cost the mean (issue 52)
    two = [
        {"a": result(-4.0, flags=("empty",)), "b": result(0.2)},
        {"a": result(0.4), "b": result(0.1)},
    ]
    a = next(e for e in compare_engines(two, n_boot=50).engines if e.engine == "a")
    assert (a.empty, a.mean) == (1, pytest.approx(-1.8)) and a.empty_cost == pytest.approx(2.2)
    texts = {"a": ["", "x"], "b": ["y", "z"]}
    page = build_report(["s1", "s2"], texts, two, signature="s", n_boot=50)
    assert "a: 1 empty segment(s), scored at the floor" in page and "would be +0.4000" in page
    with pytest.raises(InputError, match="at least two"):
        compare_engines([{"a": result(0.1)}])
    with pytest.raises(InputError, match="segment 2 has engines"):
        compare_engines([{"a": result(0.1), "b": result(0.2)}, {"a": result(0.1)}])


def test_score_results_survive_the_json_of_score():
    r = result(
        0.25, [("cat", "кошка")], ("untranslated",), unmatched_source=("mat",), numbers_added=("3",)
    )
    again = ScoreResult.from_dict(json.loads(json.dumps({"segment": 1, **r.to_dict()})))
    assert again == r
    with pytest.raises(KeyError):
        ScoreResult.from_dict({"score": 1.0})


def _without_data(html: str) -> str:
    return re.sub(
        r'<script type="application/json" id="xlscore-data">.*?</script>', "", html, flags=re.S
    )


def test_every_input_text_is_escaped_and_the_page_loads_nothing():
    sources, translations, results = synthetic()
    html = build_report(
        sources,
        translations,
        results,
        signature="sig <i>x</i>",
        command="xlscore report <x>",
        n_boot=50,
    )
    outside = _without_data(html)
    for text in [*HOSTILE, "<b>bold</b>", "<i>x</i>", "bad <b>"]:
        assert text not in html  # not raw anywhere, data block included
    assert "bad &lt;b&gt;" in outside and "sig &lt;i&gt;x&lt;/i&gt;" in outside
    # exactly two scripts: the data block (not executable) and the page's own
    assert len(re.findall(r"<script\b", html)) == 2
    block = re.search(r'id="xlscore-data">(.*?)</script>', html, re.S).group(1)
    assert "<" not in block and "\u2028" not in block
    data = json.loads(block)
    assert data["segments"][3][0] == HOSTILE[0] and data["engines"][1] == "bad <b>"
    # the policy allows only this page's script, by its hash, and no remote load
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    script = re.search(r"<script>(.*?)</script>", html, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in outside.split("<svg")[0]


def test_plots_are_inline_svg_without_input_text():
    sources, translations, results = synthetic()
    html = build_report(sources, translations, results, signature="s", n_boot=20)
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    assert len(svgs) == 2
    for svg in svgs:
        assert "<path" in svg and "E1" in svg and "good" not in svg and "mixed" not in svg


def test_saved_runs_are_read_and_checked(tmp_path):
    path = tmp_path / "s.jsonl"
    rows = [{"xlscore": "SIG inputs:abc format:json chunk:10"}]
    rows += [
        {"segment": s, "engine": e, **result(0.1 * s).to_dict()} for s in (1, 2) for e in ("a", "b")
    ]
    rows.append({"system": "a", "score": 0.15, "segments": 2, "signature": "SIG"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    head, final, results = read_saved_scores(path, ["a", "b"], 2)
    assert head.startswith("SIG") and final == "SIG" and results[1]["b"].score == pytest.approx(0.2)
    with pytest.raises(InputError, match="segment 3 has no score for a, b"):
        read_saved_scores(path, ["a", "b"], 3)
    with pytest.raises(InputError, match="beyond the 1 segments"):
        read_saved_scores(path, ["a", "b"], 1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rows[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl, line 2: invalid JSON"):
        read_saved_scores(bad, ["a"], 1)
    # worded as every JSON-lines reader words it (xlscore.io.inputs.json_lines)
    bad.write_text(json.dumps(rows[0]) + "\n[1, 2]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: a JSON line must be an object"):
        read_saved_scores(bad, ["a"], 1)


def test_report_command_scores_or_reads_a_saved_run(tmp_path):
    page = tmp_path / "r.html"
    args = ["-s", SRC, *[arg for e in ENGINES[:3] for arg in ("-t", e)], "--quiet"]
    r = ok(
        cli(
            "report",
            *args,
            "-o",
            page,
            "--n-boot",
            "200",
            "--name",
            "A",
            "--name",
            "B",
            "--name",
            "C <3",
        )
    )
    html = page.read_text(encoding="utf-8")
    assert r.stderr == ""  # --quiet: nothing but warnings and errors
    assert "C &lt;3" in html and "xlscore report -s" in html and EST in html
    # issue 82 (6): the page needs the score and the evidence, not the paper's columns (the
    # English encoder and the dictionary map made the first report take minutes)
    assert "fields:score+evidence" in html
    assert all(pair[3] is None for row in _data(html)["segments"] for pair in row[1])
    saved = tmp_path / "s.jsonl"
    ok(cli("score", *args, "--format", "json", "-o", saved))
    again = tmp_path / "again.html"
    ok(
        cli(
            "report",
            *args,
            "--from",
            saved,
            "-o",
            again,
            "--n-boot",
            "200",
            "--name",
            "A",
            "--name",
            "B",
            "--name",
            "C <3",
        )
    )
    strip = lambda h: re.sub(r"<dt>made</dt>.*</footer>", "", h, flags=re.S)
    assert strip(again.read_text(encoding="utf-8")) == strip(html)  # the same page
    changed = tmp_path / "engine1.ru"  # same engine name, one line changed
    lines = Path(ENGINES[0]).read_text(encoding="utf-8").splitlines()
    changed.write_text("\n".join(["Другой текст.", *lines[1:]]) + "\n", encoding="utf-8")
    r = cli(
        "report",
        "-s",
        SRC,
        "-t",
        changed,
        *[arg for e in ENGINES[1:3] for arg in ("-t", e)],
        "--from",
        saved,
        "-o",
        tmp_path / "w.html",
    )
    assert r.returncode == 2 and "other input files" in r.stderr
    other = ok(
        cli(
            "score",
            "-s",
            SRC,
            "-t",
            ENGINES[0],
            "-t",
            ENGINES[3],
            "--format",
            "json",
            "-o",
            tmp_path / "o.jsonl",
            "--quiet",
        )
    )
    assert other.returncode == 0
    r = cli("report", *args, "--from", tmp_path / "o.jsonl", "-o", tmp_path / "x.html")
    assert r.returncode == 2 and "o.jsonl" in r.stderr and "no score for" in r.stderr
    r = cli("report", "-s", SRC, "-t", ENGINES[0], "-o", tmp_path / "y.html")
    assert r.returncode == 2 and "at least two" in r.stderr
    r = cli("report", *args, "--name", "A", "-o", tmp_path / "z.html")
    assert r.returncode == 2 and "1 --name for 3" in r.stderr
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "z.html").exists()


def _data(html: str) -> dict:
    return json.loads(re.search(r'id="xlscore-data">(.*?)</script>', html, re.S).group(1))


def test_error_spans_point_into_the_displayed_text():
    sources, translations, results, _ = spanned()
    html = build_report(sources, translations, results, signature="s", n_boot=20)
    data = _data(html)
    # the page shows each text as given, and every offset of a result points into it
    assert (
        data["segments"][0][1][0][0] == translations["A"][0] != normalize_text(translations["A"][0])
    )
    for k, (src, pairs, _) in enumerate(data["segments"]):
        assert src == sources[k]
        for e, pair in zip(translations, pairs):
            shown, given, r = pair[0], translations[e][k], results[k][e]
            assert shown == given
            assert len(pair) == 23 and pair[14] == (None if r.adequacy is None else r.adequacy)
            assert pair[15] == (None if r.similarity is None else round(r.similarity, 4))
            assert [[a, b, sev] for a, b, sev, _ in pair[13]] == [
                [sp.start, sp.end, sp.severity] for sp in r.error_spans
            ]
            assert [shown[a:b] for a, b, *_ in pair[13]] == [sp.text for sp in r.error_spans]
            assert [p for *_, p in pair[13]] == [sp.probability for sp in r.error_spans]
    # the decomposed й stays two characters, and the span holds both
    a, b = data["segments"][0][1][0][13][0][:2]
    assert data["segments"][0][1][0][0][a:b] == "Мои\u0306" and (a, b) == (2, 6)
    # the words are the scorer's (those of the normalised text), moved onto the text as given
    first = data["segments"][0][1][0]
    assert [normalize_text(first[0][a:b]) for a, b in first[16]][:2] == ["Мой", "кот"]
    assert 'id="predicted" type="checkbox">' in html and "not verdicts" in html


def test_error_spans_that_do_not_fit_are_left_out_and_overlaps_cut():
    text = "Кот  спит на ков\u00adре."
    good = span(text, "спит на", "major", 0.8)
    spans = [
        ErrorSpan(0, 3, "Пёс", "major", 0.9),  # other text: not this one
        ErrorSpan(15, 40, "ре.", "major", 0.9),  # beyond the end
        span(text, "\u00ad", "minor", 0.9),  # nothing visible
        span(text, "на ков\u00adре", "odd <b>", float("nan")),  # overlap: cut to " ков\u00adре"
        good,
    ]
    results = [{"A": with_spans(result(0.5), *spans), "B": result(0.4)}]
    data = _data(
        build_report(
            ["The cat sleeps."],
            {"A": [text], "B": ["Кот спит."]},
            results,
            signature="s",
            n_boot=10,
        )
    )
    shown, marks = data["segments"][0][1][0][0], data["segments"][0][1][0][13]
    assert [(shown[a:b], sev, p) for a, b, sev, p in marks] == [
        ("спит на", "major", 0.8),
        (" ков\u00adре", "minor", 0.0),
    ]


def test_hostile_text_inside_error_spans_never_reaches_the_page_raw():
    sources, translations, results, _ = spanned()
    html = build_report(sources, translations, results, signature="s", n_boot=20)
    for text in [*HOSTILE[:2], "<script>window", "<img", 'onerror="window', "B <i>"]:
        assert text not in html
    assert len(re.findall(r"<script\b", html)) == 2 and "<img" not in html
    block = re.search(r'id="xlscore-data">(.*?)</script>', html, re.S).group(1)
    assert "<" not in block and ">" not in block and "\u2028" not in block
    pair = _data(html)["segments"][2][1][0]
    ((a, b, sev, _),) = pair[13]
    assert pair[0][a:b] == HOSTILE[0] and sev == "major"


def test_results_without_error_spans_still_build():
    sources, translations, results = synthetic(n=8)
    html = build_report(sources, translations, results, signature="s", n_boot=20)
    data = _data(html)
    assert all(
        pair[13] == [] and pair[14] is None for _, pairs, _ in data["segments"] for pair in pairs
    )
    assert 'id="predicted" type="checkbox" disabled>' in html
    assert "hold no predicted errors" in html
    # results read back from a saved run (to_dict/from_dict) keep their spans and adequacy
    sources, translations, results, _ = spanned(n=3)
    again = [
        {e: ScoreResult.from_dict(json.loads(json.dumps(r.to_dict()))) for e, r in by.items()}
        for by in results
    ]
    assert again == results
    assert _data(build_report(sources, translations, again, signature="s", n_boot=10)) == _data(
        build_report(sources, translations, results, signature="s", n_boot=10)
    )


def test_the_report_command_says_what_it_does_and_computes_the_paper_on_request(tmp_path):
    """Issue 82 (6): without --quiet the report says on stderr what it is doing from start
    to end (loading, scoring, the page); ``--fields all`` adds the paper's columns."""
    args = ["-s", SRC, "-t", ENGINES[0], "-t", ENGINES[1], "--n-boot", "20"]
    r = ok(cli("report", *args, "-o", tmp_path / "r.html"))
    for step in ("loading the models", "scoring", "building the page", "wrote "):
        assert step in r.stderr, step
    ok(cli("report", *args, "--fields", "all", "-o", tmp_path / "all.html", "--quiet"))
    html = (tmp_path / "all.html").read_text(encoding="utf-8")
    assert "fields:all" in html
    assert all(pair[3] is not None for row in _data(html)["segments"] for pair in row[1])


def test_each_score_is_its_estimate_minus_the_checks_plus_the_consensus(tmp_path):
    """Issue 82 (6): ``consensus_shift`` is what the engines' agreement moved a score by, so
    that a translation without foreign words scores ``estimate - check_cost +
    consensus_shift`` exactly; with fewer than three engines there is no consensus term."""
    out = tmp_path / "s.jsonl"
    ok(
        cli(
            "score",
            "-s",
            SRC,
            *[a for e in ENGINES for a in ("-t", e)],
            "--format",
            "json",
            "-o",
            out,
            "--quiet",
        )
    )
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    rows = [r for r in rows if "segment" in r]
    assert len(rows) == 48
    moved = 0
    for row in rows:
        r = ScoreResult.from_dict(row)
        if r.flags:
            assert r.consensus_shift is None  # flagged candidates take no part
            continue
        if r.consensus_shift is None:  # fewer than three voters in its segment
            assert r.consensus is None
            continue
        moved += abs(r.consensus_shift) > 0.01
        if r.foreign == 0:
            total = r.estimate - (r.check_cost or 0.0) + r.consensus_shift
            assert total == pytest.approx(r.score, abs=1e-9)
    assert moved > 10
    two = tmp_path / "two.jsonl"
    ok(
        cli(
            "score",
            "-s",
            SRC,
            "-t",
            ENGINES[0],
            "-t",
            ENGINES[1],
            "--format",
            "json",
            "-o",
            two,
            "--quiet",
        )
    )
    lines = two.read_text(encoding="utf-8").splitlines()[1:]
    assert all(json.loads(x).get("consensus_shift") is None for x in lines)


def _svg_marks(svg: str, gid: str) -> list[tuple[float, float]]:
    """The ``(x, y)`` of each marker matplotlib drew in the SVG group ``gid``."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    group = next(g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("id") == gid)
    return [
        (float(u.get("x")), float(u.get("y")))
        for u in group.iter("{http://www.w3.org/2000/svg}use")
    ]


def test_the_plots_give_each_engine_its_own_row_and_draw_no_broken_line():
    """Issue 82 (6): the score distribution was four overlapping outlines; now each engine's
    segments are dots on a row of its own (rows do not overlap, engine 1 on top), and the
    length plot has one dot per engine and bin of source length, no bin empty (its lines
    broke where a bin held no segment)."""
    sources, translations, results = synthetic(n=40)
    # lengths with many ties and a long tail
    sources = [" ".join(["word"] * (3 if k < 25 else 4 + k)) for k in range(40)]
    html = build_report(sources, translations, results, signature="s", n_boot=20)
    dist, length = re.findall(r"<svg.*?</svg>", html, re.S)
    rows = [[y for _, y in _svg_marks(dist, f"dist-E{k}")] for k in (1, 2, 3)]
    assert [len(r) for r in rows] == [40, 40, 40]
    for upper, lower in itertools.pairwise(rows):
        assert max(upper) < min(lower)  # SVG's y grows downwards
    means = [_svg_marks(length, f"len-E{k}") for k in (1, 2, 3)]
    assert len({len(m) for m in means}) == 1 and len(means[0]) >= 2
    assert "nan" not in length.lower()
    bins = length_bins(np.array([len(s.split()) for s in sources]))
    assert all(len(b) for b in bins) and sorted(np.concatenate(bins)) == list(range(40))
    assert len(bins) == len(means[0])
