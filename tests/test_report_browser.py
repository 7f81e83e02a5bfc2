"""The report page in a real browser (headless Chromium through selenium): it renders, sorts,
filters, pages, opens a segment with its evidence, runs no injected script, requests nothing
and logs no error. CI installs chromium and chromium-driver and sets XLSCORE_REQUIRE_BROWSER=1,
which makes a missing browser a failure instead of a skip."""

import os
import time

import pytest
from test_report import HOSTILE, spanned, synthetic

from xlscore.report.browser import find_chromium, open_chromium, page_url
from xlscore.report.page import write_report
from xlscore.text.words import normalize_text, split_words

if find_chromium() is None or pytest.importorskip("selenium") is None:
    if os.environ.get("XLSCORE_REQUIRE_BROWSER"):
        raise RuntimeError("XLSCORE_REQUIRE_BROWSER is set but chromium/chromedriver are missing")
    pytest.skip("no chromium and chromium-driver here", allow_module_level=True)

from selenium.webdriver.common.by import By

pytestmark = pytest.mark.slow  # Ray, a browser or a notebook kernel: the full run only


@pytest.fixture(scope="module")
def browser():
    driver = open_chromium()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def demo_page(tmp_path_factory, offline_default_results):
    sources, translations, results, signature = offline_default_results
    path = tmp_path_factory.mktemp("report") / "demo.html"
    write_report(path, sources, translations, results, signature=signature, n_boot=200)
    return path


@pytest.fixture(scope="module")
def offline_default_results():
    from conftest import DEMO, offline_scorer

    sources = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()
    translations = {
        f"engine{k}": (DEMO / f"engine{k}.ru").read_text(encoding="utf-8").splitlines()
        for k in range(1, 5)
    }
    scorer = offline_scorer(fields="all")  # every field (anchors drawn), the session's models
    results = [by for _, by in scorer.iter_score(sources, translations)]
    return sources, translations, results, scorer.signature()


def _errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _rows(driver) -> list[int]:
    return [
        int(tr.get_attribute("data-segment"))
        for tr in driver.find_elements(By.CSS_SELECTOR, "#segment-rows tr")
    ]


def test_demo_report_renders_sorts_filters_and_opens_a_segment(
    browser, demo_page, offline_default_results
):
    sources, translations, results, _ = offline_default_results
    browser.get(page_url(demo_page))
    assert browser.execute_script("return window.xlscoreReport.segments") == 12
    # the ranking and the significance matrix
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.ranking tbody tr")) == 4
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.matrix tbody td")) == 16
    # both plots drew something
    for fig in ("plot-distribution", "plot-length"):
        svg = browser.find_element(By.CSS_SELECTOR, f"#{fig} svg")
        assert svg.size["width"] > 200 and svg.find_elements(By.TAG_NAME, "path")
    assert _rows(browser) == list(range(1, 13))
    # sorting by engine2's score (descending on the first click, ascending on the second)
    head = browser.find_elements(By.CSS_SELECTOR, "#segment-head th")
    assert [h.text.strip() for h in head][2:6] == ["engine1", "engine2", "engine3", "engine4"]
    head[3].click()
    by_score = sorted(range(12), key=lambda k: (-results[k]["engine2"].score, k))
    assert _rows(browser) == [k + 1 for k in by_score]
    browser.find_elements(By.CSS_SELECTOR, "#segment-head th")[3].click()
    assert _rows(browser)[0] == by_score[-1] + 1
    # the text filter
    word = sources[4].split()[1]
    box = browser.find_element(By.ID, "search")
    box.send_keys(word)
    time.sleep(0.4)  # the search waits for typing to pause
    expected = [
        k + 1
        for k in range(12)
        if word.lower() in normalize_text(sources[k]).lower()
        or any(word.lower() in normalize_text(translations[e][k]).lower() for e in translations)
    ]
    assert sorted(_rows(browser)) == expected and len(expected) < 12
    box.clear()
    box.send_keys(" ")
    time.sleep(0.4)
    assert len(_rows(browser)) == 12
    # the "engines disagree" filter keeps the segments whose score gap reaches the threshold
    gap = float(browser.find_element(By.ID, "gap").get_attribute("value"))
    browser.find_element(By.ID, "disagree").click()
    # as the page computes it: from the scores as the page holds them (4 decimals), against the
    # threshold as the box shows it
    shown = [[round(r.score, 4) for r in by.values()] for by in results]
    gaps = [max(v) - min(v) for v in shown]
    assert sorted(_rows(browser)) == [k + 1 for k in range(12) if gaps[k] >= gap - 1e-9]
    browser.find_element(By.ID, "disagree").click()
    # the segment view: one block per engine, anchors drawn as lines
    browser.find_elements(By.CSS_SELECTOR, "#segment-rows tr")[0].click()
    view = browser.find_element(By.ID, "segment-view")
    assert view.is_displayed()
    first = _rows(browser)[0] - 1
    blocks = view.find_elements(By.CSS_SELECTOR, ".pair")
    assert len(blocks) == 4
    for block, engine in zip(blocks, translations):
        lines = block.find_elements(By.CSS_SELECTOR, "svg.links line")
        assert len(lines) <= results[first][engine].n_anchors
        assert len(lines) == len(block.find_elements(By.CSS_SELECTOR, ".mt .w.anchor"))
    assert any(b.find_elements(By.CSS_SELECTOR, "svg.links line") for b in blocks)
    # the page shows the words xlscore cut, sent with the data (it splits no text itself)
    src_line = blocks[0].find_element(By.CSS_SELECTOR, ".src")
    boxes = [w.text for w in src_line.find_elements(By.CSS_SELECTOR, ".w")]
    assert boxes == [w.text for w in split_words(normalize_text(sources[first]))]
    # nothing was requested but the page itself, and nothing went wrong
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert _errors(browser) == []


def test_injected_markup_shows_as_text_and_runs_nothing(browser, tmp_path):
    sources, translations, results = synthetic()
    path = write_report(
        tmp_path / "hostile.html",
        sources,
        translations,
        results,
        signature="<script>window.__pwned = 1</script>",
        n_boot=50,
    )
    browser.get(page_url(path))
    assert browser.execute_script("return window.xlscoreReport.segments") == 30
    cells = " ".join(
        td.get_attribute("textContent")
        for td in browser.find_elements(By.CSS_SELECTOR, "#segment-rows td")
    )
    for text in HOSTILE[:3]:
        assert text in cells  # shown as given
    assert (
        browser.find_elements(
            By.CSS_SELECTOR, "#segment-rows img, #segment-rows b, #segment-rows script"
        )
        == []
    )
    browser.find_elements(By.CSS_SELECTOR, "#segment-rows tr")[3].click()
    assert HOSTILE[0] in browser.find_element(By.ID, "segment-view").text
    # "only flagged": a flag (segment 6) or a number on one side only (every third segment)
    browser.find_element(By.ID, "flagged").click()
    assert _rows(browser) == sorted({k + 1 for k in range(30) if k % 3 == 0} | {6})
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert _errors(browser) == []


def test_large_tables_are_paged(browser, tmp_path):
    sources, translations, results = synthetic(n=120, seed=1)
    path = write_report(
        tmp_path / "paged.html", sources, translations, results, signature="s", n_boot=20
    )
    browser.get(page_url(path))
    assert _rows(browser) == list(range(1, 51))
    assert browser.find_element(By.ID, "page").text == "page 1 of 3"
    assert not browser.find_element(By.ID, "prev").is_enabled()
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "next").click()
    assert _rows(browser) == list(range(101, 121))
    assert not browser.find_element(By.ID, "next").is_enabled()
    assert _errors(browser) == []


def _marks(element) -> list[tuple[str, str]]:
    return [
        (m.get_attribute("textContent"), m.get_attribute("class"))
        for m in element.find_elements(By.CSS_SELECTOR, "mark")
    ]


def test_predicted_error_spans_are_marked_filtered_and_stay_text(browser, tmp_path):
    sources, translations, results, major = spanned(n=12)
    path = write_report(
        tmp_path / "spans.html", sources, translations, results, signature="s", n_boot=20
    )
    browser.get(page_url(path))
    assert browser.execute_script("return window.xlscoreReport.segments") == 12
    assert browser.find_element(By.ID, "error-legend").is_displayed()
    # each engine's cell marks its spans: the text of each mark is the span's text as shown
    rows = browser.find_elements(By.CSS_SELECTOR, "#segment-rows tr")
    assert len(rows) == 12
    for k, tr in enumerate(rows):
        cells = tr.find_elements(By.TAG_NAME, "td")[2:4]
        for td, e in zip(cells, translations):
            expected = [(sp.text, f"err {sp.severity}") for sp in results[k][e].error_spans]
            assert _marks(td) == expected
            # the cell still reads as the whole translation, as given
            assert td.get_attribute("textContent").endswith(" " + translations[e][k])
    assert any(_marks(td) for td in browser.find_elements(By.CSS_SELECTOR, "#segment-rows td"))
    # injected markup inside a span stays text: no element made, nothing ran
    assert (
        browser.find_elements(
            By.CSS_SELECTOR,
            "#segment-rows img, #segment-rows script, #segment-rows b, #segment-rows i",
        )
        == []
    )
    hostile = [
        m
        for m in browser.find_elements(By.CSS_SELECTOR, "#segment-rows mark")
        if m.get_attribute("textContent") in HOSTILE[:2]
    ]
    assert len(hostile) >= 2 and all(not m.find_elements(By.XPATH, "./*") for m in hostile)
    # the "predicted errors" filter keeps the segments where an engine has a major span
    box = browser.find_element(By.ID, "predicted")
    assert box.is_enabled()
    box.click()
    assert _rows(browser) == major and 0 < len(major) < 12
    # with "only flagged" too (no segment here is flagged), nothing is left; then undo both
    browser.find_element(By.ID, "flagged").click()
    assert _rows(browser) == []
    browser.find_element(By.ID, "flagged").click()
    assert _rows(browser) == major
    box.click()
    assert len(_rows(browser)) == 12
    # the segment view: the same marks on the translation, the list of predicted errors and
    # the score's parts with the adequacy and the base
    for k in (0, 3, 2):
        browser.find_elements(By.CSS_SELECTOR, "#segment-rows tr")[k].click()
        view = browser.find_element(By.ID, "segment-view")
        blocks = view.find_elements(By.CSS_SELECTOR, ".pair")
        assert len(blocks) == 2
        for block, e in zip(blocks, translations):
            r = results[k][e]
            mt = block.find_element(By.CSS_SELECTOR, "p.mt")
            assert _marks(mt) == [(sp.text, f"err {sp.severity}") for sp in r.error_spans]
            assert mt.get_attribute("textContent") == translations[e][k]
            listed = block.find_elements(By.CSS_SELECTOR, "p.errors q")
            assert [q.get_attribute("textContent") for q in listed] == [
                sp.text for sp in r.error_spans
            ]
            if r.error_spans:
                line = block.find_element(By.CSS_SELECTOR, "p.errors").text
                for sp in r.error_spans:
                    assert f"{sp.severity}, {sp.probability:.2f}" in line
            parts = block.find_element(By.CSS_SELECTOR, ".parts").text
            if r.adequacy is None:
                assert "adequacy" not in parts and "base" not in parts
            else:
                assert f"adequacy {r.adequacy:+.4f}" in parts
                assert f"base {r.score - r.adequacy:+.4f}" in parts
        assert (
            view.find_elements(By.CSS_SELECTOR, "img, script, b:not(.parts b):not(.errors b)") == []
        )
    # segment 3 holds <script> inside a major span: shown as text in the view too
    assert HOSTILE[0] in browser.find_element(By.ID, "segment-view").text
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert _errors(browser) == []


def test_pages_without_predicted_errors_disable_their_filter(browser, demo_page):
    browser.get(page_url(demo_page))
    has = browser.execute_script(
        "return JSON.parse(document.getElementById('xlscore-data').textContent).segments"
        ".some(function (r) { return r[1].some(function (p) { return p[13].length; }); })"
    )
    box = browser.find_element(By.ID, "predicted")
    assert box.is_enabled() == has
    if not has:
        assert browser.find_elements(By.CSS_SELECTOR, "#segment-rows mark") == []
    assert _errors(browser) == []
