"""The challenge set (data/challenge/challenge.tsv): how often the correct translation is
ranked above one with a single accuracy error, per category, and where predicted error spans
fall.

    python tools/challenge.py
    python tools/challenge.py \\
        --estimator adq-lodo-news=experiments/.cache/estimator/adq/lodo-news/full.safetensors

Writes experiments/results/challenge.md (the table in the README). ``--estimator NAME=PATH``
adds a column for a trained estimator file (e.g. each variant of the estimator protocol);
``--estimator-alone NAME=PATH`` one for the file's estimate alone: its similarity weight, check
weight and meaning blend set to 0 (the estimate pulled towards the floor by the share of
foreign words, as an estimator without a similarity is used).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _results import write_markdown

from xlscore import Encoder, Lexicon, XLScorer
from xlscore.estimator.model import QualityEstimator
from xlscore.evaluation.challenge import read_challenge, run_challenge

DEFAULT = Path(__file__).resolve().parent.parent / "data" / "challenge" / "challenge.tsv"


def table(tables: dict) -> str:
    """Markdown: phenomena by scorers (wins/total), then the span rows of scorers with spans."""
    names = list(tables)
    phenomena = list(next(iter(tables.values())))
    lines = ["| phenomenon | " + " | ".join(names) + " |", "|" + " --- |" * (len(names) + 1)]
    for ph in phenomena:
        lines.append(
            f"| {ph} | " + " | ".join(f"{t[ph].wins}/{t[ph].total}" for t in tables.values()) + " |"
        )
    total = {n: sum(r.total for r in t.values()) for n, t in tables.items()}
    lines.append(
        "| **all** | "
        + " | ".join(f"**{sum(r.wins for r in t.values())}/{total[n]}**" for n, t in tables.items())
        + " |"
    )
    spans = {
        n: t for n, t in tables.items() if any(r.on_error or r.good_flagged for r in t.values())
    }
    if spans:
        lines.append(
            "| a predicted span on the error (flawed translations) | "
            + " | ".join(
                f"{sum(r.on_error for r in t.values())}/{total[n]}" if n in spans else "—"
                for n, t in tables.items()
            )
            + " |"
        )
        lines.append(
            "| any predicted span (correct translations) | "
            + " | ".join(
                f"{sum(r.good_flagged for r in t.values())}/{total[n]}" if n in spans else "—"
                for n, t in tables.items()
            )
            + " |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", default=str(DEFAULT), help="challenge TSV (default: data/challenge/challenge.tsv)"
    )
    ap.add_argument(
        "--estimator",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="add a column for a trained estimator file (repeat)",
    )
    ap.add_argument(
        "--estimator-alone",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="add a column for a trained estimator file's estimate alone: no similarity, "
        "checks or meaning blend (repeat)",
    )
    args = ap.parse_args()
    cases = read_challenge(args.data)
    lexicon = Lexicon.mueller7()
    en, ru = Encoder.load("pack:minilm-en"), Encoder.load("pack:e5-small")
    scorers = {
        "default": XLScorer.offline(en_model=en, ru_model=ru, lexicon=lexicon),
        "paper: two encoders, anchors": XLScorer.offline(
            en_model=en, ru_model=ru, lexicon=lexicon, estimator=None
        ),
        "paper: two encoders, all words": XLScorer.offline(
            en_model=en, ru_model=ru, lexicon=lexicon, variant="all", estimator=None
        ),
        "paper: multilingual e5, all words": XLScorer.offline(
            multilingual=ru, lexicon=lexicon, variant="all", estimator=None
        ),
    }
    for spec in args.estimator:
        name, _, path = spec.partition("=")
        scorers[name] = XLScorer.offline(en_model=en, ru_model=ru, lexicon=lexicon, estimator=path)
    for spec in args.estimator_alone:
        name, _, path = spec.partition("=")
        est = QualityEstimator.load(path)
        est.similarity_weight = est.check_weight = est.meaning_blend = 0.0
        scorers[name] = XLScorer.offline(en_model=en, ru_model=ru, lexicon=lexicon, estimator=est)
    tables = {name: run_challenge(s, cases) for name, s in scorers.items()}
    body = [
        f"{len(cases)} pairs of translations of {len({c.case for c in cases})} sources, "
        "written by hand for xlscore (not by the code that makes training corruptions; no "
        "training file has these sentences). Cell: times the correct translation is ranked "
        "above the flawed one (flagged translations rank last; a tie is not a win). Each "
        "translation is scored on its own, so the candidates' consensus plays no part. "
        "Span rows: flawed translations where a predicted error span overlaps the "
        "characters that differ from the correct one (for a deletion: touches its "
        "position), and correct translations with any predicted span.",
        "",
        table(tables),
        "",
        "Signatures:",
        "",
    ]
    body += [f"* {name}: `{s.signature()}`" for name, s in scorers.items()]
    write_markdown("challenge", "\n".join(body), title="Challenge set")


if __name__ == "__main__":
    main()
