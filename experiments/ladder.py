"""What each source of data and each objective adds: every exported variant's agreement with
people on the en-ru set its fold never saw.

    python experiments/ladder.py --data-dir ../shared/data

Reads ``results/folds/*/`` (``python experiments/estimator.py export``): the leave-newstest-out
fold (newstest2021 MQM, 14 systems per source: Spearman, per-segment and system Kendall) and
the leave-WMT22-out fold (WMT22 dev, one MT per source: Spearman, and word MCC on its tags at
the recipe's span threshold), each with a 95% bootstrap interval over segments. Writes
``results/ladder.md``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import folds
import numpy as np
from _protocol import load_sets
from _results import cpu_name, write_markdown

from xlscore.estimator.training import Recipe
from xlscore.evaluation.agreement import Estimate, _resamples
from xlscore.evaluation.gate import mcc_of_counts, token_counts


def word_mcc(gold: list[list[bool]], predicted: list[list[bool]], n_boot: int) -> Estimate:
    """Word MCC over every token, with its 95% bootstrap interval over segments."""
    counts = token_counts(predicted, gold)
    boots = mcc_of_counts(counts[_resamples(len(gold), n_boot, 0)].sum(1))
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return Estimate(float(mcc_of_counts(counts.sum(0))), float(lo), float(hi))


def describe(cfg: dict) -> str:
    """A variant's data and the recipe settings that differ from the defaults."""
    changed = {
        k: v for k, v in cfg["recipe"].items() if k != "delta_rank" and getattr(Recipe(), k) != v
    }
    data = ["newstest MQM and WMT22 dev (the tested one left out)"]
    if cfg.get("da"):
        data.append("en-ru DA")
    if cfg.get("it"):
        data.append(f"IT HTER ({cfg['it_sample']} sources)")
    data += [f"multi-pair {m}" for m in cfg.get("multilingual", [])]
    return f"{' + '.join(data)}; recipe defaults except {changed}" if changed else " + ".join(data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--boot", type=int, default=1000)
    args = ap.parse_args()
    sets = load_sets(args.data_dir)
    news = [r for r in sets["news"] if not r.is_human]
    qe22 = sets["qe22"]
    tags = folds.read_tags(args.data_dir / "wmt22-enru-word-dev.tsv")
    tag_rows = [tags[r.seg_id] for r in qe22]
    gold = [t.gold for t in tag_rows]
    lines = [
        "| variant | WMT22 dev Spearman | WMT22 word MCC | newstest Spearman "
        "| newstest per-seg Kendall | newstest system Kendall | training (min, both folds) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| rule: every token with a Latin letter | — | "
        f"{word_mcc(gold, folds.latin_tags(tag_rows), args.boot)} | — | — | — | — |",
    ]
    notes = []
    names = sorted(p.name for p in folds.FOLDS.iterdir() if (p / "config.json").exists())
    for name in names:
        cfg = folds.config(name)
        cells = ["not run"] * 5
        got = folds.read_fold(name, "lodo-qe22", qe22)
        if got is not None:
            a = folds.agreement_on(qe22, got[0], args.boot)
            cells[0] = str(a["global_spearman"])
            th = float(cfg["recipe"].get("span_threshold", 0.5))
            tagged = folds.tags_at(tag_rows, got[1], th)
            cells[1] = (
                "no word head" if tagged is None else f"{word_mcc(gold, tagged, args.boot)} at {th}"
            )
        got = folds.read_fold(name, "lodo-news", news)
        if got is not None:
            a = folds.agreement_on(news, got[0], args.boot)
            cells[2:5] = [str(a[k]) for k in ("global_spearman", "seg_kendall", "sys_kendall")]
        minutes = [folds.log(name, f) for f in ("lodo-qe22", "lodo-news")]
        spent = " + ".join(f"{m['minutes']:.0f}" for m in minutes if m) or "—"
        lines.append(f"| `{name}` | " + " | ".join(cells) + f" | {spent} |")
        notes.append(
            f"* `{name}`: {describe(cfg)}" + (f" — {cfg['note']}" if cfg.get("note") else "")
        )
    body = (
        "Each variant's models never saw the set they are tested on: the leave-WMT22-out fold "
        "is tested on WMT22 dev, the leave-newstest-out fold on newstest2021 MQM (without the "
        "DA rows and the other pairs' rows that share its sources); machine translations only; "
        f"95% bootstrap intervals over segments ({args.boot} resamples); predictions of the "
        "delta as it would ship (rank 64, int8). Training minutes as each run logged them, "
        f"on 2 cores of this project's machines (this report ran on {cpu_name()}).\n\n"
        + "\n".join(lines)
        + "\n\nVariants:\n\n"
        + "\n".join(notes)
    )
    write_markdown("ladder", body, title="What each source of data and each objective adds")


if __name__ == "__main__":
    main()
