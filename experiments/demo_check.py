"""How the scorer orders the demo translations: for each kind of flaw, on how many of the 12
demo sources the good translation scores above the flawed one, per variant scored one pair at a
time, and with the default ``rank()`` of the four translations of each source (anchors blended
with the candidates' consensus).

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
    ids = list(dict.fromkeys(r["id"] for r in rows))
    ranked = {}
    for i in ids:
        four = [r for r in rows if r["id"] == i]
        for t in scorer.rank(four[0]["source"], [r["translation"] for r in four]):
            ranked[(i, four[t.index]["quality"])] = t.score
    for variant in ("anchors", "all", "default rank()"):
        by = defaultdict(dict)
        if variant in ("anchors", "all"):
            for r, x in zip(rows, scorer.score_prepared(corpus, variant)):
                by[r["id"]][r["quality"]] = x.score
        else:
            for (i, q), v in ranked.items():
                by[i][q] = v
        n = len(by)
        wins = {q: sum(v["good"] > v[q] for v in by.values()) for q in ("literal", "omission", "meaning")}
        first = sum(max(v, key=v.get) == "good" for v in by.values())
        lines.append(f"| {variant} | {wins['literal']}/{n} | {wins['omission']}/{n} | "
                     f"{wins['meaning']}/{n} | {first}/{n} |")
    write_markdown("demo_check", f"Signature: `{scorer.signature()}`\n\n" + "\n".join(lines),
                   title="Demo data: good translation against each flaw")


if __name__ == "__main__":
    main()
