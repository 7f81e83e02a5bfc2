"""Every finding of the checks on the English->Russian judged sets and the challenge set, one
line each, to compare two versions of the checks (a change to their rules or word tables).

    python experiments/findings.py --data-dir ../shared/data -o /tmp/before.tsv
    (change the checks)
    python experiments/findings.py --data-dir ../shared/data -o /tmp/after.tsv
    cmp /tmp/before.tsv /tmp/after.tsv

The pairs: newstest2021 MQM and DA, WMT22 dev, the WMT19 IT post-editing sets (train, dev,
test) and the hand-written challenge set (its correct and its flawed translations), each
distinct (source, translation) once, in that order. A line: the pair's number in that order,
the check, its message, the span in the translation and the span in the source. Prints how
many pairs and findings there are.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Iterator
from pathlib import Path

from xlscore.estimator.checks import find_mismatches

CHALLENGE = Path(__file__).resolve().parent.parent / "data" / "challenge" / "challenge.tsv"


def _tsv_pairs(path: Path, columns: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(source, translation) of each row, one per translation column."""
    with open(path, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            for column in columns:
                yield row["source"], row[column]


def _it_pairs(folder: Path) -> Iterator[tuple[str, str]]:
    """(source, machine translation) of the WMT19 IT sets, line by line."""
    for part in ("train", "dev", "test"):
        src = (folder / f"{part}.src").read_text(encoding="utf-8").splitlines()
        mt = (folder / f"{part}.mt").read_text(encoding="utf-8").splitlines()
        if len(src) != len(mt):
            raise SystemExit(f"{folder}/{part}: {len(src)} sources but {len(mt)} translations")
        yield from zip(src, mt)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path, help="the shared data folder")
    ap.add_argument("-o", "--output", required=True, type=Path)
    args = ap.parse_args()
    d = args.data_dir
    sources = [
        _tsv_pairs(d / "wmt21-enru-mqm-newstest2021.tsv", ("translation",)),
        _tsv_pairs(d / "wmt21-enru-da-newstest2021.tsv", ("translation",)),
        _tsv_pairs(d / "wmt22-enru-mqm-dev.tsv", ("translation",)),
        _it_pairs(d / "wmt19-enru-qe-it"),
        _tsv_pairs(CHALLENGE, ("good", "bad")),
    ]
    seen: set[tuple[str, str]] = set()
    lines = []
    for pairs in sources:
        for pair in pairs:
            if pair in seen:
                continue
            seen.add(pair)
            for f in find_mismatches(*pair):
                lines.append(f"{len(seen)}\t{f.check}\t{f.message}\t{f.span}\t{f.source_span}")
    args.output.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"{len(seen)} pairs, {len(lines)} findings -> {args.output}")


if __name__ == "__main__":
    sys.exit(main())
