"""The report page in a real browser (headless Chromium through selenium): it renders, sorts,
filters, pages, opens a segment with its evidence, runs no injected script, requests nothing
and logs no error. CI installs chromium and chromium-driver and sets XLSCORE_REQUIRE_BROWSER=1,
which makes a missing browser a failure instead of a skip."""

import itertools
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
            assert (
                td.find_element(By.CSS_SELECTOR, ".text").get_attribute("textContent")
                == (translations[e][k])
            )
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
    # the estimate's parts: its sentence head's and the adequacy (the word and meaning heads')
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
                assert "adequacy" not in parts and "sentence head" not in parts
            else:
                assert f"adequacy (word and meaning heads) {r.adequacy:+.4f}" in parts
                assert f"estimate's sentence head {r.estimate - r.adequacy:+.4f}" in parts
            assert "base" not in parts  # a word the page never explained
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


# ------------------------------------------------------------------ a page a reviewer can read
#: the window the layout tests render at: a laptop's, and a narrow one
WINDOWS = ((1280, 900), (860, 900))
#: how far the displayed terms of a score may miss it: each is rounded to 4 decimals
ROUNDING = 5 * 0.5e-4


def _terms(block) -> tuple[list[tuple[str, float]], float]:
    """The terms of a score as the segment view writes them (``[(label, value), ...]``, signs
    applied) and the score they add up to."""
    out = []
    for k, term in enumerate(block.find_elements(By.CSS_SELECTOR, "p.terms .term:not(.total)")):
        text = term.find_element(By.CSS_SELECTOR, ".value").text.replace("\u2212", "-")
        value = float(text)
        if k:
            sign = term.find_element(By.CSS_SELECTOR, ".sign").text.strip()
            value = -value if sign == "\u2212" else value
        out.append((term.get_attribute("data-term"), value))
    total = block.find_element(By.CSS_SELECTOR, "p.terms .total .value").text
    return out, float(total.replace("\u2212", "-"))


def test_every_score_of_the_demo_is_shown_as_terms_that_add_up_to_it(
    browser, demo_page, offline_default_results
):
    """Issue 82 (6): the segment view writes each score as estimate, what the checks took and
    what the consensus moved, and they add up to the score; each term is the result's own."""
    _, translations, results, _ = offline_default_results
    browser.get(page_url(demo_page))
    moved = costly = 0
    for k in range(12):
        browser.find_element(By.CSS_SELECTOR, f'#segment-rows tr[data-segment="{k + 1}"]').click()
        blocks = browser.find_elements(By.CSS_SELECTOR, "#segment-view .pair")
        assert len(blocks) == 4
        for block, engine in zip(blocks, translations):
            r = results[k][engine]
            terms, total = _terms(block)
            assert total == pytest.approx(r.score, abs=0.5e-4)
            assert sum(v for _, v in terms) == pytest.approx(total, abs=ROUNDING)
            named = dict(terms)
            assert terms[0] == ("estimate", pytest.approx(r.estimate, abs=0.5e-4))
            if r.check_cost is not None:
                assert named["checks"] == pytest.approx(-r.check_cost, abs=0.5e-4)
                costly += r.check_cost > 0.01
            else:
                assert "checks" not in named
            if r.consensus_shift is not None:
                assert named["consensus"] == pytest.approx(r.consensus_shift, abs=0.5e-4)
                moved += abs(r.consensus_shift) > 0.01
            else:
                assert "consensus" not in named
            if r.foreign == 0 and not r.is_empty:  # no foreign words: nothing else moved it
                assert named.get("foreign text", 0.0) == pytest.approx(0.0, abs=0.5e-4)
    assert moved and costly  # the demo exercises both terms
    assert _errors(browser) == []


def test_the_table_shows_whole_translations_and_their_findings(
    browser, demo_page, offline_default_results
):
    """Issue 82 (6): no translation is cut in the table; each engine's cell lists the checks'
    findings (check and message, and whether it costs points)."""
    _, translations, results, _ = offline_default_results
    browser.get(page_url(demo_page))
    listed = 0
    for tr in browser.find_elements(By.CSS_SELECTOR, "#segment-rows tr"):
        k = int(tr.get_attribute("data-segment")) - 1
        cells = tr.find_elements(By.CSS_SELECTOR, "td.cell")
        for td, engine in zip(cells, translations, strict=True):
            assert td.find_element(By.CSS_SELECTOR, ".text").text == translations[engine][k]
            found = [li.text for li in td.find_elements(By.CSS_SELECTOR, "ul.findings li")]
            why = lambda f: "costs points" if f.counts else f.why_free or "costs nothing"
            want = [f"{f.check}: {f.message} ({why(f)})" for f in results[k][engine].findings]
            assert found == want
            listed += len(found)
            # nothing clipped: the cell's content fits it
            assert browser.execute_script(
                "return arguments[0].scrollWidth <= arguments[0].clientWidth", td
            )
        # the best engine's score is starred (the page's style reaches the browser intact)
        best = tr.find_element(By.CSS_SELECTOR, "td.best .score")
        star = browser.execute_script(
            "return getComputedStyle(arguments[0], '::before').content", best
        )
        assert "★" in star
    assert listed > 0
    assert _errors(browser) == []


def _box(browser, element) -> dict:
    return browser.execute_script(
        "var r = arguments[0].getBoundingClientRect();"
        "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};",
        element,
    )


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.parametrize("window", WINDOWS)
def test_the_demo_report_fits_its_window_and_its_plots_do_not_overlap(demo_page, tmp_path, window):
    """Issue 82 (6): rendered at a fixed window, the page scrolls only down (no horizontal
    overflow), table cells wrap, each plot stays inside its figure, the distribution plot
    gives each engine a row of its own and the length plot one dot per engine and bin; a
    screenshot of the window is taken (saved where XLSCORE_REPORT_SHOT says, for the docs)."""
    width, height = window
    driver = open_chromium(width, height)
    try:
        driver.get(page_url(demo_page))
        inner = driver.execute_script("return window.innerWidth")
        assert driver.execute_script("return document.documentElement.scrollWidth") <= inner
        for td in driver.find_elements(By.CSS_SELECTOR, "#segment-rows td"):
            assert driver.execute_script(
                "return getComputedStyle(arguments[0]).whiteSpace", td
            ) in (
                "normal",
                "pre-wrap",
            )
        for fig in ("plot-distribution", "plot-length"):
            outer = _box(driver, driver.find_element(By.ID, fig))
            svg = _box(driver, driver.find_element(By.CSS_SELECTOR, f"#{fig} svg"))
            assert outer["left"] - 0.5 <= svg["left"] and svg["right"] <= outer["right"] + 0.5
            assert svg["right"] <= inner and svg["right"] - svg["left"] > 300
        rows = [
            _box(driver, driver.find_element(By.CSS_SELECTOR, f"#plot-distribution g#dist-E{k}"))
            for k in range(1, 5)
        ]
        for upper, lower in itertools.pairwise(rows):
            assert upper["bottom"] <= lower["top"]  # one row per engine, top to bottom
        for k in range(1, 5):
            dots = driver.find_elements(By.CSS_SELECTOR, f"#plot-distribution g#dist-E{k} use")
            assert len(dots) == 12  # a dot per segment
            marks = driver.find_elements(By.CSS_SELECTOR, f"#plot-length g#len-E{k} use")
            assert len(marks) >= 2  # a dot per bin, no line to break
        assert driver.find_elements(By.CSS_SELECTOR, "#plot-length path[d*='nan' i]") == []
        # open a segment whose scores the checks and the consensus moved, and take the shot
        driver.find_element(By.CSS_SELECTOR, '#segment-rows tr[data-segment="2"]').click()
        assert driver.execute_script("return document.documentElement.scrollWidth") <= inner
        png = driver.get_screenshot_as_png()
        assert _png_size(png)[0] == width  # what the window shows, at its width
        shot = os.environ.get("XLSCORE_REPORT_SHOT")
        if shot and width == WINDOWS[0][0]:
            driver.set_window_size(
                width, driver.execute_script("return document.documentElement.scrollHeight + 200")
            )
            driver.save_screenshot(shot)
        (tmp_path / f"report-{width}.png").write_bytes(png)
        assert _errors(driver) == []
    finally:
        driver.quit()
