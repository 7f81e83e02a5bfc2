"""The engine comparison (xlscore.compare) and the HTML report (xlscore.report), without a
browser: statistics, escaping, the page's policy, saved runs; the CLI end to end on the demo."""
import base64
import hashlib
import json
import re

import numpy as np
import pytest

from test_cli import ENGINES, SRC, ok, xlscore
from xlscore import InputError, ScoreResult
from xlscore.compare import compare_engines, segment_ranking
from xlscore.evidence import Evidence
from xlscore.report import build_report, read_saved_scores

HOSTILE = ["<script>window.__pwned = 1</script>",
           '"><img src=x onerror="window.__pwned = 1">',
           "</textarea><b>bold</b> & </script><script>window.__pwned = 1</script>",
           "\u2028line</style><svg onload=window.__pwned=1>"]


def result(score: float, anchors=(), flags=(), **evidence) -> ScoreResult:
    return ScoreResult(score, score, score, score, len(anchors), tuple(anchors), 0.0,
                       tuple(flags), None, score, Evidence(**evidence))


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
        results.append({"good": result(0.5 + 0.1 * rng.random(), [("cat", "Кошка")]),
                        "bad <b>": result(0.1 * rng.random(), flags=("untranslated",) if k == 5
                                          else (),
                                          numbers_missing=(str(k),) if k % 3 == 0 else ()),
                        "mixed\"'": result(0.3 * rng.random() + 0.2)})
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
    with pytest.raises(InputError, match="at least two"):
        compare_engines([{"a": result(0.1)}])
    with pytest.raises(InputError, match="segment 2 has engines"):
        compare_engines([{"a": result(0.1), "b": result(0.2)}, {"a": result(0.1)}])


def test_score_results_survive_the_json_of_score():
    r = result(0.25, [("cat", "кошка")], ("untranslated",), unmatched_source=("mat",),
               numbers_added=("3",))
    again = ScoreResult.from_dict(json.loads(json.dumps({"segment": 1, **r.to_dict()})))
    assert again == r
    with pytest.raises(KeyError):
        ScoreResult.from_dict({"score": 1.0})


def _without_data(html: str) -> str:
    return re.sub(r'<script type="application/json" id="xlscore-data">.*?</script>', "", html,
                  flags=re.S)


def test_every_input_text_is_escaped_and_the_page_loads_nothing():
    sources, translations, results = synthetic()
    html = build_report(sources, translations, results, signature="sig <i>x</i>",
                        command="xlscore report <x>", n_boot=50)
    outside = _without_data(html)
    for text in HOSTILE + ["<b>bold</b>", "<i>x</i>", "bad <b>"]:
        assert text not in html                       # not raw anywhere, data block included
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
    rows += [{"segment": s, "engine": e, **result(0.1 * s).to_dict()}
             for s in (1, 2) for e in ("a", "b")]
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
    with pytest.raises(InputError, match=r"bad\.jsonl, line 2: not JSON"):
        read_saved_scores(bad, ["a"], 1)


def test_report_command_scores_or_reads_a_saved_run(tmp_path):
    page = tmp_path / "r.html"
    args = ["-s", SRC, *sum((["-t", e] for e in ENGINES[:3]), []), "--quiet"]
    r = ok(xlscore("report", *args, "-o", page, "--n-boot", "200", "--name", "A", "--name", "B",
                   "--name", "C <3"))
    html = page.read_text(encoding="utf-8")
    assert "wrote" in r.stderr and "12 segments" in r.stderr
    assert "C &lt;3" in html and "xlscore report -s" in html and "est:qe-e5s#" in html
    saved = tmp_path / "s.jsonl"
    ok(xlscore("score", *args, "--format", "json", "-o", saved))
    again = tmp_path / "again.html"
    ok(xlscore("report", *args, "--from", saved, "-o", again, "--n-boot", "200", "--name", "A",
               "--name", "B", "--name", "C <3"))
    strip = lambda h: re.sub(r"<dt>made</dt>.*</footer>", "", h, flags=re.S)   # noqa: E731
    assert strip(again.read_text(encoding="utf-8")) == strip(html)     # the same page
    changed = tmp_path / "engine1.ru"                 # same engine name, one line changed
    lines = open(ENGINES[0], encoding="utf-8").read().splitlines()
    changed.write_text("\n".join(["Другой текст."] + lines[1:]) + "\n", encoding="utf-8")
    r = xlscore("report", "-s", SRC, "-t", changed, *sum((["-t", e] for e in ENGINES[1:3]), []),
                "--from", saved, "-o", tmp_path / "w.html")
    assert r.returncode == 2 and "other input files" in r.stderr
    other = ok(xlscore("score", "-s", SRC, "-t", ENGINES[0], "-t", ENGINES[3], "--format",
                       "json", "-o", tmp_path / "o.jsonl", "--quiet"))
    assert other.returncode == 0
    r = xlscore("report", *args, "--from", tmp_path / "o.jsonl", "-o", tmp_path / "x.html")
    assert r.returncode == 2 and "o.jsonl" in r.stderr and "no score for" in r.stderr
    r = xlscore("report", "-s", SRC, "-t", ENGINES[0], "-o", tmp_path / "y.html")
    assert r.returncode == 2 and "at least two" in r.stderr
    r = xlscore("report", *args, "--name", "A", "-o", tmp_path / "z.html")
    assert r.returncode == 2 and "1 --name for 3" in r.stderr
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "z.html").exists()
