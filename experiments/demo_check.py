"""How the scorer orders the demo translations: for each kind of flaw, on how many of the 12
demo sources the good translation scores above the flawed one, per variant; and the ranking
of the demo's four engines.

    python experiments/demo_check.py
"""
from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from _results import write_markdown

from xlscore import XLScorer

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"


def main() -> None:
    with open(DEMO / "demo.tsv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    scorer = XLScorer.offline()
    corpus = scorer.prepare([r["source"] for r in rows], [r["translation"] for r in rows])
    lines = ["| variant | good > literal | good > omission | good > meaning error | "
             "good ranked first |", "| --- | --- | --- | --- | --- |"]
    for variant in ("anchors", "all"):
        res = scorer.score_prepared(corpus, variant)
        by = defaultdict(dict)
        for r, x in zip(rows, res):
            by[r["id"]][r["quality"]] = x.score
        n = len(by)
        wins = {q: sum(v["good"] > v[q] for v in by.values()) for q in ("literal", "omission", "meaning")}
        first = sum(max(v, key=v.get) == "good" for v in by.values())
        lines.append(f"| {variant} | {wins['literal']}/{n} | {wins['omission']}/{n} | "
                     f"{wins['meaning']}/{n} | {first}/{n} |")
    write_markdown("demo_check", f"Signature: `{scorer.signature()}`\n\n" + "\n".join(lines),
                   title="Demo data: good translation against each flaw")


if __name__ == "__main__":
    main()
