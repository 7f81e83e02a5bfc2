"""The report of the estimator protocol (``python experiments/estimator.py report``): every
cached variant's agreement on each held-out set, the baselines, earlier variants kept from the
previous CSV, compression, the challenge set, predicted spans, length and the number check.
Writes ``experiments/results/estimator.md`` and ``estimator.csv``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from _protocol import CACHE, LODO, TEST_OF, K, fold_split
from _results import write_csv, write_markdown
from folds import agreement_on

from xlscore.estimator.training import Recipe

STATS = {
    "news": ("global_spearman", "seg_kendall", "sys_kendall"),
    "qe22": ("global_spearman",),
    "it-test": ("global_spearman",),
}
LABEL = {
    "global_spearman": "Spearman",
    "seg_kendall": "per-seg Kendall",
    "sys_kendall": "system Kendall",
}


def collect(sets, variant: str, suffix: str) -> dict[str, tuple[str, list, np.ndarray]]:
    """``{test set: (how, rows, predictions)}`` for the folds a variant has run."""
    folder = CACHE / variant
    cfg = json.loads((folder / "config.json").read_text())
    out = {}
    for fold in LODO:
        f = folder / fold / f"pred-{suffix}.npy"
        if f.exists():
            _, test = fold_split(sets, fold, cfg)
            out[("LODO", TEST_OF[fold])] = (test, np.load(f))
    for target in ("news", "qe22"):
        parts = [(k, folder / f"cv-{target}-{k}" / f"pred-{suffix}.npy") for k in range(K)]
        parts = [(k, p) for k, p in parts if p.exists()]
        if parts:  # folds not run yet are left out, and the row says how many there are
            rows, preds = [], []
            for k, p in parts:
                rows += fold_split(sets, f"cv-{target}-{k}", cfg)[1]
                preds.append(np.load(p))
            how = "CV" if len(parts) == K else f"CV, {len(parts)} of {K} folds"
            out[(how, target)] = (rows, np.concatenate(preds))
    return out


def cmd_report(args, sets) -> None:
    lines, csv_rows = [], []
    variants = (
        sorted(p.name for p in CACHE.iterdir() if (p / "config.json").exists())
        if CACHE.exists()
        else []
    )
    header = (
        "| variant | protocol | test set | "
        + " | ".join(
            f"{LABEL[s]} [95% CI]" for s in ("global_spearman", "seg_kendall", "sys_kendall")
        )
        + " |"
    )
    lines += [header, "|" + " --- |" * 6]
    base_dir = CACHE / "baselines"
    rows_of = {
        "news": [r for r in sets["news"] if not r.is_human],
        "qe22": sets["qe22"],
        "it-test": sets["it-test"],
    }
    entries = []
    for name in ("anchors", "e5-all", "length"):
        for t, rows in rows_of.items():
            f = base_dir / f"{name}-{t}.npy"
            if f.exists():
                entries.append((f"unsupervised: {name}", "no training", t, rows, np.load(f)))
    for v in variants:
        for (how, t), (rows, pred) in sorted(collect(sets, v, args.suffix).items()):
            entries.append((v, how, t, rows, pred))
    for name, how, t, rows, pred in entries:
        a = agreement_on(rows, list(pred), 1000)
        cells = [
            str(a[s]) if s in STATS[t] else ""
            for s in ("global_spearman", "seg_kendall", "sys_kendall")
        ]
        lines.append(f"| {name} | {how} | {t} | " + " | ".join(cells) + " |")
        csv_rows.append(
            [name, how, t]
            + [
                a[s].value if s in STATS[t] else ""
                for s in ("global_spearman", "seg_kendall", "sys_kendall")
            ]
        )
    earlier = earlier_rows(variants)
    for row in earlier:
        lines.append(
            f"| {row[0]} (earlier run) | {row[1]} | {row[2]} | "
            + " | ".join(f"{float(x):+.3f}" if x else "" for x in row[3:])
            + " |"
        )
    csv_rows += earlier
    notes = []
    if earlier:
        notes.append(
            "* " + ", ".join(sorted({f"`{r[0]}`" for r in earlier})) + ": earlier "
            "runs whose predictions are no longer in the cache; their point values are "
            "kept from the previous `estimator.csv` (intervals and recipes: this file's "
            "git history)"
        )
    for v in variants:
        cfg = json.loads((CACHE / v / "config.json").read_text())
        if v == "features":
            notes.append(f"* `{v}`: {cfg['note']}")
            continue
        changed = {
            k: val
            for k, val in cfg["recipe"].items()
            if k != "delta_rank" and getattr(Recipe(), k) != val
        }
        notes.append(
            f"* `{v}`: recipe defaults"
            + (f" except {changed}" if changed else "")
            + (
                f", IT data ({cfg['it_sample']} sources with post-edits)"
                if cfg["it"]
                else ", no IT data"
            )
            + (f" — {cfg['note']}" if cfg.get("note") else "")
        )
    comp = (
        compression_table(sets, variants)
        + "\n"
        + sensitivity_table(variants)
        + "\n"
        + span_and_length_tables(sets, variants)
        + "\n"
        + number_check_table(sets, variants)
    )
    body = (
        "Predictions "
        + (
            "of the uncompressed fine-tune"
            if args.suffix == "full"
            else f"with the delta compressed ({args.suffix})"
        )
        + "; machine translations only; 95% bootstrap intervals over segments (1000 "
        "resamples). LODO: trained without the test set; CV: 4 folds by document, "
        "every other set in training.\n\n"
        + "\n".join(lines)
        + "\n\nVariants:\n\n"
        + "\n".join(notes)
        + "\n"
        + comp
    )
    write_markdown(
        "estimator",
        body,
        title="Quality estimator: agreement with human judgments on data it was not trained on",
    )
    write_csv(
        "estimator",
        ["variant", "protocol", "test", "spearman", "seg_kendall", "sys_kendall"],
        csv_rows,
    )


def earlier_rows(variants) -> list[list[str]]:
    """Rows of the previous ``results/estimator.csv`` of trained variants that are no longer
    cached (so that a report keeps every variant measured, not only the cached ones)."""
    path = Path(__file__).resolve().parent / "results" / "estimator.csv"
    if not path.exists():
        return []
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    return [r for r in rows if r and not r[0].startswith("unsupervised") and r[0] not in variants]


def sensitivity_table(variants) -> str:
    """How often each variant's LODO models put the correct translation above a corrupted one
    on the hand-written challenge set (data/challenge/challenge.tsv; raw predictions, no
    flags or foreign-word penalty), and where their predicted spans fall."""
    from estimator_tables import challenge_rows, challenge_table, fold_challenge

    from xlscore.evaluation.challenge import read_challenge

    cases = read_challenge(
        Path(__file__).resolve().parent.parent / "data" / "challenge" / "challenge.tsv"
    )
    results, spans_seen = {}, False
    for v in variants:
        for fold in ("lodo-news", "lodo-qe22"):
            saved = fold_challenge(CACHE / v / fold, cases)
            if saved is None:
                continue
            has = any(saved["spans"])
            spans_seen |= has
            results[f"`{v}` {fold}"] = challenge_rows(
                cases, np.array(saved["scores"]), saved["spans"] if has else None
            )
    if not results:
        return ""
    return (
        "\n### The hand-written challenge set (each LODO model, raw predictions, no flags)\n\n"
        + challenge_table(results, spans_seen)
    )


def span_and_length_tables(sets, variants) -> str:
    """Predicted error spans against the raters' (LODO folds) and the scores' relation to
    length."""
    from estimator_tables import best_threshold, length_table, load_words, span_table

    span_entries, length_entries = [], []
    for v in variants:
        folder = CACHE / v
        cfg = json.loads((folder / "config.json").read_text())
        words, tests = {}, {}
        for fold in ("lodo-news", "lodo-qe22"):
            if (folder / fold / "pred-full.npy").exists():
                tests[fold] = fold_split(sets, fold, cfg)[1]
                length_entries.append(
                    (v, fold, tests[fold], np.load(folder / fold / "pred-full.npy"))
                )
                words[fold] = load_words(folder / fold, "full")
        for fold, other in (("lodo-news", "lodo-qe22"), ("lodo-qe22", "lodo-news")):
            if words.get(fold) is None:
                continue
            chosen = (
                best_threshold(tests[other], words[other]) if words.get(other) is not None else None
            )
            span_entries.append(
                (
                    v,
                    fold,
                    tests[fold],
                    words[fold],
                    chosen,
                    cfg["recipe"].get("span_threshold", 0.5),
                )
            )
    out = ""
    if span_entries:
        out += (
            "\n### Predicted error spans against the raters' (LODO: the test set's documents "
            "never seen in training)\n\nWord-level MCC of BAD/OK words (the WMT QE statistic) "
            "and character-level precision, recall and F1 of the marked characters.\n\n"
            + span_table(span_entries)
            + "\n"
        )
    if length_entries:
        out += (
            "\n### Scores and length (Spearman ρ over the test set's machine translations)"
            "\n\n" + length_table(length_entries) + "\n"
        )
    return out


def _number_mismatches(source: str, translation: str) -> int:
    """Digit strings on one side only, each occurrence counted (as the evidence reports)."""
    from collections import Counter

    from xlscore.encoders.words import split_words
    from xlscore.metric.anchors import is_number

    a, b = (
        Counter(w.text for w in split_words(t) if is_number(w.text)) for t in (source, translation)
    )
    return sum(((a - b) + (b - a)).values())


def number_check_table(sets, variants, weights=(0.25, 0.5, 1.0)) -> str:
    """Would an explicit check help? Each LODO prediction minus ``weight`` normal-score units
    per number on one side only, against the prediction alone (weights fixed beforehand)."""
    lines = [
        "| variant | test set | statistic | no check | "
        + " | ".join(f"−{w} per number" for w in weights)
        + " |",
        "|" + " --- |" * (4 + len(weights)),
    ]
    for v in variants:
        for (how, t), (rows, pred) in sorted(collect(sets, v, "full").items()):
            if how != "LODO" or t == "it-test":
                continue
            m = np.array([_number_mismatches(r.source, r.translation) for r in rows])
            for stat in ("global_spearman", "seg_kendall") if t == "news" else ("global_spearman",):
                vals = [agreement_on(rows, list(pred - w * m), 0)[stat] for w in (0.0, *weights)]
                lines.append(
                    f"| {v} | {t} ({(m > 0).mean():.1%} with a mismatch) | {LABEL[stat]} | "
                    + " | ".join(f"{x.value:+.3f}" for x in vals)
                    + " |"
                )
    return (
        "\n### An explicit number check on top of the estimator (LODO, uncompressed)\n\n"
        + "\n".join(lines)
    )


def compression_table(sets, variants) -> str:
    """Agreement of each compressed delta next to the full fine-tune, for the folds that have
    the predictions."""
    out = []
    for v in variants:
        for fold in LODO:
            d = CACHE / v / fold
            sizes = sorted(
                d.glob("size-r*.txt"),
                key=lambda p: (int(p.stem.split("r")[1].split("b")[0]), p.stem),
            )
            if len(sizes) < 2:
                continue
            cfg = json.loads((CACHE / v / "config.json").read_text())
            _, test = fold_split(sets, fold, cfg)
            stat = "seg_kendall" if fold == "lodo-news" else "global_spearman"
            full = np.load(d / "pred-full.npy")
            whole = agreement_on(test, list(full), 1000)[stat]
            rows = [f"| full fine-tune | {21.4 * 2:.1f} (fp16) | {whole} | |"]
            for s in sizes:
                tag = s.stem.removeprefix("size-")
                pred = np.load(d / f"pred-{tag}.npy")
                r, b = tag[1:].split("b")
                rows.append(
                    f"| rank {r}, {'int8' if b == '8' else 'fp16'} factors | "
                    f"{int(s.read_text()) / 1e6:.1f} | "
                    f"{agreement_on(test, list(pred), 1000)[stat]} | "
                    f"{np.abs(pred - full).max():.3f} |"
                )
            out.append(
                f"\n### Compressing the delta: `{v}`, {fold} ({LABEL[stat]})\n\n"
                "| delta | MB | agreement [95% CI] | largest change of a prediction |\n"
                "| --- | --- | --- | --- |\n" + "\n".join(rows)
            )
    return "\n".join(out)
