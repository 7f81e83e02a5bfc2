"""What a variant's signals can trade: real-MT agreement against the challenge set, over a grid
of the blends a shipped file may carry.

    python experiments/frontier.py --data-dir ../shared/data --variant rtm

Each blend is ``estimate + m * meaning - w * (1 - e5 F1) - b * checks`` (the score of
:func:`xlscore.final_score.estimator_score`; ``meaning`` is the meaning head's output, the e5
F1 carries the foreign-word penalty). Real MT: the held-out predictions of both leave-one-
dataset-out folds (WMT22 dev Spearman; newstest2021 MQM per-segment and system Kendall).
Challenge set: the leave-WMT22-out fold's model, the one that ``ship.py`` ships, its raw
estimate (no flags), against the round-3 default ``adq-e5s`` as shipped: pairs short of its
count in each category, and whether the blend passes the ship gate's challenge rule
(:func:`xlscore.evaluation.gate.challenge_checks`).

This is an analysis, not a selection: every figure is on a test set, so a blend picked from
this table would be picked on its own test data (``combine.py`` chooses weights on the other
fold). It answers whether *any* blend of the grid could reach ``adq-e5s`` or the gate, and
what the nearest ones cost on real MT. Only the blends that no other blend matches or beats on
all four figures (the Pareto front) are listed. Writes
``experiments/results/frontier-VARIANT.md``.
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np
from _protocol import CACHE, load_sets
from _results import write_markdown
from combine import challenge_signals, fold_signals, pair_wins, stat, stats, weights
from estimator_tables import fold_challenge
from gate import CHALLENGE_FLOOR, floor_outcomes

from xlscore.evaluation.gate import failing_categories

MEANING = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1)
SIMILARITY = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 30.0)
CHECKS = (0.0, 0.25, 0.5)
SHIP_FOLD = "lodo-qe22"


def dominated(p: tuple[float, ...], others: list[tuple[float, ...]]) -> bool:
    """Whether some point of ``others`` is at least as good as ``p`` everywhere and better
    somewhere (larger is better in every coordinate)."""
    return any(
        all(o >= x for o, x in zip(q, p)) and any(o > x for o, x in zip(q, p)) for q in others
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--suffix", default="r64b8", help="which predictions (full, r64b8)")
    ap.add_argument("--meaning-blends", type=weights, default=MEANING)
    ap.add_argument("--similarity-weights", type=weights, default=SIMILARITY)
    ap.add_argument("--check-weights", type=weights, default=CHECKS)
    args = ap.parse_args()
    data = fold_signals(
        load_sets(args.data_dir), dict.fromkeys(("lodo-news", SHIP_FOLD), args.variant), args.suffix
    )
    folder = CACHE / args.variant / SHIP_FOLD
    cases, c_est, c_e5, c_chk = challenge_signals(folder)
    if c_est is None:
        raise SystemExit(f"{folder}: no saved challenge predictions (estimator.py run)")
    c_mean = np.array(fold_challenge(folder, cases)["meaning"])
    cats = np.array([c.phenomenon for c in cases])
    n = len(cases)
    reference = floor_outcomes()
    floor = {k: sum(v) for k, v in reference.items()}
    n_rows, n_pred, n_e5, n_chk, n_mean = data["lodo-news"]
    q_rows, q_pred, q_e5, q_chk, q_mean = data[SHIP_FOLD]
    points = []
    for m, w, b in itertools.product(
        args.meaning_blends, args.similarity_weights, args.check_weights
    ):
        if m and not np.any(q_mean):
            continue
        news = n_pred + m * n_mean + w * n_e5 - b * n_chk
        qe22 = q_pred + m * q_mean + w * q_e5 - b * q_chk
        s = c_est + m * c_mean + w * c_e5 - b * c_chk
        win = pair_wins(s, n)
        per = {k: int(win[cats == k].sum()) for k in floor}
        below = {k: (per[k], floor[k]) for k in floor if per[k] < floor[k]}
        passes = not failing_categories(win, cats, reference)
        on_news = stats(n_rows, news)
        figures = (
            stat(q_rows, qe22, "global_spearman").value,
            on_news["seg_kendall"].value,
            on_news["sys_kendall"].value,
            -sum(t - mine for mine, t in below.values()),
        )
        points.append(((m, w, b), figures, int(win.sum()), below, passes))
    allfig = [p[1] for p in points]
    front = [p for p in points if not dominated(p[1], allfig)]
    front.sort(key=lambda p: (-p[1][3], -p[1][0]))
    lines = [
        "| m (meaning) | w (similarity) | b (checks) | WMT22 dev Spearman | newstest per-seg "
        "Kendall | newstest system Kendall | challenge | pairs short of the floor | "
        f"categories below `{CHALLENGE_FLOOR}` | the gate's challenge rule |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (m, w, b), (q, seg, sys_k, short), total, below, passes in front:
        cells = ", ".join(f"{k} {mine} < {t}" for k, (mine, t) in below.items()) or "none"
        lines.append(
            f"| {m:g} | {w:g} | {b:g} | {q:+.3f} | {seg:+.3f} | {sys_k:+.3f} | {total}/{n} "
            f"| {-short:g} | {cells} | {'passes' if passes else 'fails'} |"
        )
    level = sum(p[1][3] == 0 for p in points)
    passing = sum(p[4] for p in points)
    verdict = (
        f"{level or 'None'} of the {len(points)} blends reach the floor in every category; "
        f"{passing or 'none'} pass the gate's challenge rule (not significantly below "
        f"`{CHALLENGE_FLOOR}`, overall or in a category, and at least 8 in 10 of every "
        "category's pairs right)."
    )
    body = (
        f"Variant `{args.variant}`, predictions `{args.suffix}`; grid m in "
        + ", ".join(f"{x:g}" for x in args.meaning_blends)
        + "; w in "
        + ", ".join(f"{x:g}" for x in args.similarity_weights)
        + "; b in "
        + ", ".join(f"{x:g}" for x in args.check_weights)
        + f". Challenge: the `{SHIP_FOLD}` fold's model (the one that would ship), raw "
        f"estimates, good above bad; floor: `{CHALLENGE_FLOOR}` as shipped, per category. "
        "Every figure is on held-out test data, so this table selects nothing: it shows what "
        "the grid can trade. The Pareto front (no other blend at least as good on all four "
        "of WMT22 Spearman, per-segment Kendall, system Kendall and pairs short of the "
        f"floor), sorted by pairs short, then WMT22.\n\n{verdict}\n\n" + "\n".join(lines)
    )
    write_markdown(
        f"frontier-{args.variant}", body, title="Real MT against the challenge set, by blend"
    )


if __name__ == "__main__":
    main()
