"""The HTML report (`xlscore report`): the demo page and its screenshot, and how the page
scales (file size, time to first render and to sort and search in headless Chromium).

    python experiments/report.py demo
    python experiments/report.py scale --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv

``demo`` scores data/demo's four engines with the offline default and writes
experiments/results/report_demo.html and report.png (the screenshot in the README, a segment
opened). ``scale`` scores the translations of the first four MT systems of newstest2021 (527
sources, real scores and evidence) once, repeats the segments to 1,000, 5,000 and 20,000, writes
each page to a temporary folder and measures its size and, in headless Chromium, the time from
navigation to the end of the page's script (first render), to sort by an engine and to apply a
search; writes experiments/results/report.md.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

from _results import RESULTS, write_markdown

from xlscore import XLScorer
from xlscore.report.browser import open_chromium, page_url
from xlscore.report.page import write_report

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"


def demo() -> None:
    from selenium.webdriver.common.by import By

    sources = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()
    translations = {
        f"engine{k}": (DEMO / f"engine{k}.ru").read_text(encoding="utf-8").splitlines()
        for k in range(1, 5)
    }
    scorer = XLScorer.offline()
    results = [by for _, by in scorer.iter_score(sources, translations)]
    page = write_report(
        RESULTS / "report_demo.html",
        sources,
        translations,
        results,
        signature=scorer.signature(),
        command="xlscore report -s "
        "data/demo/source.en -t data/demo/engine1.ru ... -t data/demo/engine4.ru "
        "-o report_demo.html",
    )
    driver = open_chromium(1280, 3000)
    try:
        driver.get(page_url(page))
        driver.find_elements(By.CSS_SELECTOR, "#segment-rows tr")[1].click()
        driver.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)
        driver.save_screenshot(str(RESULTS / "report.png"))
    finally:
        driver.quit()
    print(f"wrote {page} and {RESULTS / 'report.png'}")


def _measure(driver, path: Path) -> dict:
    from selenium.webdriver.common.by import By

    driver.get(page_url(path))
    first = driver.execute_script("return window.xlscoreReport.rendered")
    t = driver.execute_script(
        "var t = performance.now(); document.querySelectorAll('#segment-head th')[2].click();"
        "return performance.now() - t;"
    )
    box = driver.find_element(By.ID, "search")
    box.send_keys("the")
    time.sleep(0.5)  # the search runs 150 ms after typing stops
    search = driver.execute_script(
        "var t = performance.now(); var e = document.getElementById('disagree'); e.click();"
        "return performance.now() - t;"
    )
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    return {"first": first, "sort": t, "filter": search, "errors": len(errors)}


def scale(data: str, sizes: list[int]) -> None:
    from xlscore.evaluation.agreement import read_judgments

    rows = read_judgments(data)
    systems = list(dict.fromkeys(r.system for r in rows))[:4]
    by = {(r.seg_id, r.system): r for r in rows}
    segs = [s for s in dict.fromkeys(r.seg_id for r in rows) if all((s, e) in by for e in systems)]
    sources = [by[(s, systems[0])].source for s in segs]
    translations = {e: [by[(s, e)].translation for s in segs] for e in systems}
    scorer = XLScorer.offline()
    t = time.perf_counter()
    results = [r for _, r in scorer.iter_score(sources, translations)]
    scored = time.perf_counter() - t
    lines = [
        f"Segments: the {len(segs)} newstest2021 sources with the translations of "
        f"{', '.join(systems)}, scored once with the offline default ({scored:.0f} s) and "
        "repeated to N segments. Times in headless Chromium "
        f"(Debian chromium), {Path('/proc/cpuinfo').read_text().count('processor')} CPU "
        "cores: first render = navigation start to the end of the page's script (table, "
        "plots and ranking on screen); sort = a click on an engine's column; filter = "
        'ticking "engines disagree" with a search active.',
        "",
        "| segments × engines | file size (MiB) | MiB per 1,000 segments | first render "
        "(ms) | sort (ms) | filter (ms) | console errors |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    driver = open_chromium()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for n in sizes:
                reps = -(-n // len(segs))
                src = (sources * reps)[:n]
                tr = {e: (v * reps)[:n] for e, v in translations.items()}
                res = (results * reps)[:n]
                path = write_report(
                    Path(tmp) / f"r{n}.html",
                    src,
                    tr,
                    res,
                    signature=scorer.signature(),
                    n_boot=1000,
                )
                size = path.stat().st_size / 2**20
                m = _measure(driver, path)
                lines.append(
                    f"| {n:,} × {len(systems)} | {size:.1f} | {1000 * size / n:.2f} | "
                    f"{m['first']:.0f} | {m['sort']:.0f} | {m['filter']:.0f} | "
                    f"{m['errors']} |"
                )
                print(lines[-1], flush=True)
    finally:
        driver.quit()
    write_markdown("report", "\n".join(lines), title="The HTML report at scale")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    sub.add_parser("demo", help="the demo page and its screenshot")
    p = sub.add_parser("scale", help="page size and browser times up to 20,000 segments")
    p.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    p.add_argument("--sizes", default="1000,5000,20000", help="segment counts")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.what == "demo":
        demo()
    else:
        scale(args.data, [int(x) for x in args.sizes.split(",")])


if __name__ == "__main__":
    main()
