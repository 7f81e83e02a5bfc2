"""How the scorer orders the demo translations: for each kind of flaw, on how many of the 12
demo sources the good translation scores above the flawed one — the default (the shipped
quality estimator) and the paper's variants, each pair scored on its own, and each with the
candidates' consensus, ranking the four translations of each source together.

    python tools/demo_check.py
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from pathlib import Path

from _results import write_markdown

from xlscore import XLScorer

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"
FLAWS = ("literal", "omission", "meaning")


def _row(name: str, by: dict[str, dict[str, float]]) -> str:
    n = len(by)
    wins = {q: sum(v["good"] > v[q] for v in by.values()) for q in FLAWS}
    first = sum(max(v, key=v.get) == "good" for v in by.values())
    return (
        f"| {name} | {wins['literal']}/{n} | {wins['omission']}/{n} | "
        f"{wins['meaning']}/{n} | {first}/{n} |"
    )


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    with open(DEMO / "demo.tsv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    sources = [r["source"] for r in rows]
    translations = [r["translation"] for r in rows]
    default = XLScorer.offline()
    paper = XLScorer.offline(estimator=None, consensus=False)
    blend = XLScorer.offline(estimator=None, consensus=True)
    lines = [
        "| scorer | good > literal | good > omission | good > meaning error | good ranked first |",
        "| --- | --- | --- | --- | --- |",
    ]

    def by_id(results) -> dict[str, dict[str, float]]:
        by: dict[str, dict[str, float]] = defaultdict(dict)
        for r, x in zip(rows, results):
            by[r["id"]][r["quality"]] = x.score
        return by

    lines.append(_row("default (quality estimator)", by_id(default.score(sources, translations))))
    corpus = paper.prepare(sources, translations)
    for variant in ("anchors", "all"):
        lines.append(
            _row(f"paper, variant {variant}", by_id(paper.paper.score_prepared(corpus, variant)))
        )
    for name, scorer in (("default", default), ("paper anchors", blend)):
        ranked: dict[str, dict[str, float]] = defaultdict(dict)
        for i in dict.fromkeys(r["id"] for r in rows):
            four = [r for r in rows if r["id"] == i]
            for t in scorer.rank(four[0]["source"], [r["translation"] for r in four]):
                ranked[i][four[t.index]["quality"]] = t.score
        lines.append(_row(f"{name} + consensus, rank() of the four", ranked))
    text = f"Default: `{default.signature()}`\n\nPaper: `{paper.signature()}`\n\n" + "\n".join(
        lines
    )
    write_markdown("demo_check", text, title="Demo data: good translation against each flaw")


if __name__ == "__main__":
    main()
