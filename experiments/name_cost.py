"""What would making the ``name`` check's findings cost points do? (issue 82, point 5)

    python experiments/name_cost.py --data-dir ../shared/data \\
        --file xlscore/estimator/weights/rtm15-all-e5s.safetensors

The shipped default's score as it is (its blend from the file's metadata: check weight,
consensus...) against the same score with every ``name`` finding counted as a check finding
too (the check term still saturates at four findings, :data:`xlscore.estimator.formula.CHECK_CAP`,
and no score goes below the floor). Nothing is retrained: the name findings are found from the
texts and the rest of each score comes from committed files.

* **The judged sets** (:mod:`sets`: each read by the fold model of ``--variant`` that never
  saw it, from ``results/folds/VARIANT`` and ``results/folds/parts``, as the ship gate reads
  them): each set's figure both ways and the paired bootstrap of the difference (95%). The
  checks are rules about Russian: on the en-de, zh-en and MLQE-PE sets they are off, so those
  sets' figures do not move.
* **The challenge set** (``data/challenge/challenge.tsv``): pairs ranked right per category,
  scored by the offline default with the file both ways (the second with ``name`` among the
  counted checks).

Writes ``experiments/results/name-cost.md`` (``--out``: another name). The shipped default is
not changed by this script.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
import numpy as np
from _results import write_markdown
from gate import CHALLENGE, shipping
from rule import SetData, load_data, mean_of

import xlscore.checks as checks_module
from xlscore.checks import REGISTRY, find_mismatches

ROOT = Path(__file__).resolve().parent.parent


def name_findings(source: str, translation: str) -> int:
    """How many ``name`` findings a pair has."""
    return len(find_mismatches(source, translation, ("name",)))


def with_names(d: SetData) -> SetData:
    """A set whose rows count their name findings among the check findings."""
    names = np.array([name_findings(r.source, r.translation) for r in d.set.rows])
    return replace(d, parts=replace(d.parts, findings=d.parts.findings + names))


def challenge_wins(path: Path) -> dict[str, tuple[int, int]]:
    """Per category, ``(wins, total)`` of the offline default scorer with the file."""
    from xlscore import XLScorer
    from xlscore.evaluation.challenge import read_challenge, run_challenge

    table = run_challenge(XLScorer.offline(estimator=str(path)), read_challenge(CHALLENGE))
    return {k: (v.wins, v.total) for k, v in table.items()}


def counting_names() -> None:
    """Make ``name`` findings count in the score, in this process only."""
    REGISTRY["name"] = replace(REGISTRY["name"], counts=lambda f: True)
    checks_module.COUNTED = tuple(
        c.name for c in REGISTRY.values() if c.counts is not None or c.pulls
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--file", required=True, type=Path, help="the shipped estimator file")
    ap.add_argument("--variant", default="rtm15", help="the file's recipe's fold predictions")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--no-challenge", action="store_true", help="the judged sets only")
    ap.add_argument("--out", default="name-cost")
    args = ap.parse_args()
    blend = shipping(args.file).blend
    rows, now_figs, names_figs, worse, better = [], [], [], [], []
    for d in load_data(args.data_dir, args.variant):
        now = d.scores(blend)
        if d.set.russian:
            e = with_names(d)
            named = e.scores(blend)
            flagged = int((e.parts.findings > d.parts.findings).sum())
        else:
            named, flagged = now, 0
        c = d.compare(named, now, n_boot=args.boot)
        now_figs.append(d.figure(now))
        names_figs.append(d.figure(named))
        worse += [d.set.label] * c.worse
        better += [d.set.label] * (c.delta.low > 0)
        rows.append(
            f"| {d.set.label} | {c.statistic} | {len(d.set.rows)} | {flagged} | "
            f"{c.reference.value:+.4f} | {c.candidate.value:+.4f} | {c.delta} | "
            f"{'**yes**' if c.worse else 'no'} |"
        )
    body = [
        f"The shipped default `{args.file}` (its score: {blend}; fold predictions of "
        f"`{args.variant}`), as it is and with every `name` finding counted as a check "
        f"finding ({blend.checks:g} each, at most four findings a pair). Paired bootstrap, "
        f"{args.boot} resamples.",
        "",
        "| set | statistic | rows | rows with a name finding | today | names counted | "
        "difference (95%) | significantly worse |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        f"| **mean over the sets** | | | | **{mean_of(now_figs):+.4f}** | "
        f"**{mean_of(names_figs):+.4f}** | {mean_of(names_figs) - mean_of(now_figs):+.4f} | |",
        "",
        f"Significantly worse: {', '.join(worse) or 'no set'}; significantly better: "
        f"{', '.join(better) or 'no set'}.",
        "",
    ]
    if not args.no_challenge:
        today = challenge_wins(args.file)
        counting_names()
        named_wins = challenge_wins(args.file)
        body += [
            "Challenge set (`data/challenge/challenge.tsv`), pairs ranked right:",
            "",
            "| category | today | names counted |",
            "| --- | --- | --- |",
            *(
                f"| {k} | {today[k][0]} of {n} | {named_wins[k][0]} of {n} |"
                for k, (_, n) in today.items()
            ),
            f"| **all** | {sum(w for w, _ in today.values())} of "
            f"{sum(n for _, n in today.values())} | {sum(w for w, _ in named_wins.values())} of "
            f"{sum(n for _, n in named_wins.values())} |",
            "",
        ]
    write_markdown(args.out, "\n".join(body), title="The cost of counting name findings")


if __name__ == "__main__":
    main()
