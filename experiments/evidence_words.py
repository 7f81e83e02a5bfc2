"""How often does the evidence call a translated source word unmatched? (issue 82, point 5)

    python experiments/evidence_words.py data/evidence/translated.tsv

Reads a tagged set of correct translations (``id, source, translation, translated``: the
source words each translation renders; ``#`` lines are comments) and scores it with the offline
default (evidence on), once per word translator: ``dictionary`` (Müller's dictionary, what
the default uses when it is installed) and ``alignment`` (the encoder's word alignment, what it
falls back to without it). Per translator: the tagged words the evidence lists in
``unmatched_source`` (false omissions), and which. Writes
``experiments/results/evidence-words.md`` (``--out``: another name).
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import _tools  # noqa: F401  (tools/ on the import path)
from _results import write_markdown

from xlscore import XLScorer
from xlscore.results import ScoreResult


class Tagged(NamedTuple):
    """One correct translation and the source words it renders."""

    id: str
    source: str
    translation: str
    translated: tuple[str, ...]


def read_tagged(path: Path) -> list[Tagged]:
    """The rows of a tagged set."""
    with open(path, encoding="utf-8", newline="") as fh:
        lines = [line for line in fh if not line.startswith("#")]
    rows = csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    return [Tagged(r["id"], r["source"], r["translation"], tuple(r["translated"].split()))
            for r in rows]  # fmt: skip


def false_omissions(rows: Sequence[Tagged], results: Sequence[ScoreResult]) -> list[list[str]]:
    """Per row, the tagged (translated) words the evidence lists as unmatched."""
    out = []
    for row, r in zip(rows, results, strict=True):
        unmatched = {w.casefold() for w in r.evidence.unmatched_source}
        out.append([w for w in row.translated if w.casefold() in unmatched])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tagged", type=Path, help="the tagged set (data/evidence/translated.tsv)")
    ap.add_argument("--translators", default="dictionary,alignment")
    ap.add_argument("--out", default="evidence-words")
    args = ap.parse_args()
    rows = read_tagged(args.tagged)
    n_words = sum(len(r.translated) for r in rows)
    table, missed = [], []
    for translator in args.translators.split(","):
        scorer = XLScorer.offline(translator=translator)
        results = scorer.score([r.source for r in rows], [r.translation for r in rows])
        wrong = false_omissions(rows, results)
        n_wrong = sum(len(w) for w in wrong)
        table.append(
            f"| {translator} | {n_words} | {n_wrong} ({n_wrong / n_words:.1%}) | "
            f"{sum(1 for w in wrong if w)} of {len(rows)} |"
        )
        missed.append(
            f"* {translator}: "
            + ("; ".join(f"{r.id} " + " ".join(w) for r, w in zip(rows, wrong) if w) or "none")
        )
    body = [
        f"The tagged set `{args.tagged}`: {len(rows)} correct translations, {n_words} source "
        "words they render. A tagged word that the evidence lists in `unmatched_source` is a "
        "false omission. Offline default, evidence on.",
        "",
        "| translator | tagged words | listed as unmatched | translations with one |",
        "| --- | --- | --- | --- |",
        *table,
        "",
        "The words listed as unmatched (row id, then the words):",
        "",
        *missed,
        "",
    ]
    write_markdown(args.out, "\n".join(body), title="Translated words the evidence calls unmatched")


if __name__ == "__main__":
    main()
