"""How far does the similarity carry a fold model on the hand-written challenge set? Wins per
category of a fold model's raw estimate (plus ``--blend`` x its meaning head's output, if it has
one) blended with the multilingual e5 similarity (``estimate + w * similarity``) for each weight
of a grid, beside the round-3 default as it
shipped (the gate's challenge reference).

    python experiments/challenge_weights.py --variant rtn --fold lodo-qe22 \\
        --weights 0,1,2,3,5,10

Needs the fold's model in the experiment cache (``estimator.py run``); writes
``results/challenge-weights-VARIANT.md`` (``-FOLD`` added for a fold other than lodo-qe22, whose
model is the one that would ship; ``-mBLEND`` with a blend). The rows read which weight, if any,
would bring the model to the gate's challenge rule before its other fold is trained. A model
with a meaning head also gets that head's own wins (its output alone) and its mean output on
the good and on the bad translations.
"""

from __future__ import annotations

import argparse

import numpy as np
from _protocol import CACHE
from _results import write_markdown
from combine import challenge_signals, pair_wins, weights
from estimator_tables import challenge_rows, fold_challenge
from gate import CHALLENGE_FLOOR, floor_outcomes

from xlscore.evaluation.gate import failing_categories


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--fold", required=True, help="e.g. lodo-qe22")
    ap.add_argument("--weights", type=weights, default=(0.0, 1.0, 2.0, 3.0, 5.0, 10.0))
    ap.add_argument("--blend", type=float, default=0.0, help="weight of the meaning head")
    args = ap.parse_args()
    folder = CACHE / args.variant / args.fold
    cases, est, e5, _ = challenge_signals(folder, args.blend)
    if est is None:
        raise SystemExit(f"{folder} holds no model: run estimator.py run first")
    cats = list(dict.fromkeys(c.phenomenon for c in cases))
    reference = floor_outcomes()
    floor = {c: sum(v) for c, v in reference.items()}
    per_weight = [challenge_rows(cases, est + w * e5, None) for w in args.weights]
    size = {c: per_weight[0][c][1] for c in cats}
    table = [[int(rows[c][0]) for c in cats] for rows in per_weight]
    # the gate's own rule, per weight: the checks that fail it
    n = len(cases)
    phen = [c.phenomenon for c in cases]
    below = [failing_categories(pair_wins(est + w * e5, n), phen, reference) for w in args.weights]
    lines = [
        "| category (pairs) | "
        + " | ".join(f"w = {w:g}" for w in args.weights)
        + f" | `{CHALLENGE_FLOOR}` as shipped |",
        "| --- " * (len(args.weights) + 2) + "|",
    ]
    for j, c in enumerate(cats):
        cells = [str(t[j]) + (" ✗" if c in b else "") for t, b in zip(table, below)]
        lines.append(f"| {c} ({size[c]}) | " + " | ".join(cells) + f" | {floor[c]} |")
    lines.append(
        "| **all** | "
        + " | ".join(f"**{sum(t)}**" + (" ✗" if "all" in b else "") for t, b in zip(table, below))
        + f" | **{sum(floor.values())}** |"
    )
    meaning = np.array(fold_challenge(folder, cases)["meaning"])
    if meaning.any():  # a meaning head: what it says alone
        alone = challenge_rows(cases, meaning, None)
        lines[1] += " --- |"
        lines[0] += " meaning head alone |"
        for j, c in enumerate(cats):
            lines[2 + j] += f" {int(alone[c][0])} |"
        lines[-1] += f" **{sum(int(v[0]) for v in alone.values())}** |"
        lines.append(
            f"\nThe meaning head's mean output: {meaning[:n].mean():+.3f} on the good "
            f"translations, {meaning[n:].mean():+.3f} on the bad ones."
        )
    passing = [f"{w:g}" for w, b in zip(args.weights, below) if not b]
    verdict = (
        f"weights {', '.join(passing)} pass the gate's challenge rule against `{CHALLENGE_FLOOR}`"
        if passing
        else "every weight of the grid fails the gate's challenge rule"
    )
    body = (
        f"Fold model `{args.variant}` {args.fold}: its raw estimate (no foreign-word pull)"
        + (f" plus {args.blend:g} × its meaning head" if args.blend else "")
        + " plus w "
        f"× the multilingual e5 all-words similarity; good ranked above bad per category. ✗: "
        f"fails the gate's challenge rule (significantly below `{CHALLENGE_FLOOR}`, sign test p < "
        "0.05, or under 8 in 10 of the category's pairs right).\n\n"
        + "\n".join(lines)
        + f"\n\nVerdict of the grid: {verdict}.\n"
    )
    name = (
        f"challenge-weights-{args.variant}"
        + (f"-{args.fold}" if args.fold != "lodo-qe22" else "")
        + (f"-m{args.blend:g}" if args.blend else "")
    )
    write_markdown(name, body, title="Challenge set by similarity weight")


if __name__ == "__main__":
    main()
