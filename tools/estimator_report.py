"""The report of the estimator protocol (``python tools/estimator.py report``): every
cached variant's agreement on each held-out set, the baselines, earlier variants kept from the
previous CSV, compression, the challenge set, predicted spans, length and the number check.
Writes ``experiments/results/estimator.md`` and ``estimator.csv``.

The tables beyond agreement with sentence scores (predicted error spans against the raters'
marks, the hand-written challenge set per category, how scores relate to length) are at the
end of this module. Every table reads the predictions that ``estimator.py run`` saved for each
fold (its test rows only), so every figure is on data the fold's model was not trained on.
Thresholds for spans: the recipe's own (fixed before training) and the one that maximises
word-level MCC on the *other* LODO fold's test set (newstest spans for the WMT22 fold and the
other way round) — a choice made on validation data, never on the rows it is applied to.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from _protocol import CACHE, LODO, TEST_OF, K, fold_split
from _results import RECIPES_SECTION, RESULTS, write_csv, write_markdown
from folds import agreement_on
from scipy import stats

from xlscore.estimator.spans import WordError, decode_spans, span_f1, word_mcc
from xlscore.evaluation.challenge import error_region, span_on_error
from xlscore.training.loop import Recipe

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
        body + kept_recipes_section(),
        title="Quality estimator: agreement with human judgments on data it was not trained on",
    )
    write_csv(
        "estimator",
        ["variant", "protocol", "test", "spearman", "seg_kendall", "sys_kendall"],
        csv_rows,
    )


def kept_recipes_section() -> str:
    """The section ``recipes.py`` writes into ``estimator.md`` (from committed fold files,
    not this cache), kept when the report is written again."""
    f = RESULTS / "estimator.md"
    text = f.read_text(encoding="utf-8") if f.exists() else ""
    at = text.find(f"\n{RECIPES_SECTION}\n")
    return "\n" + text[at:].rstrip() if at >= 0 else ""


def earlier_rows(variants) -> list[list[str]]:
    """Rows of the previous ``results/estimator.csv`` of trained variants that are no longer
    cached (so that a report keeps every variant measured, not only the cached ones)."""
    path = RESULTS / "estimator.csv"
    if not path.exists():
        return []
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    return [r for r in rows if r and not r[0].startswith("unsupervised") and r[0] not in variants]


def sensitivity_table(variants) -> str:
    """How often each variant's LODO models put the correct translation above a corrupted one
    on the hand-written challenge set (data/challenge/challenge.tsv; raw predictions, no
    flags or foreign-word penalty), and where their predicted spans fall."""
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

    from xlscore.text.scripts import is_number
    from xlscore.text.words import split_words

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


# ---------------------------------------------------------------------- spans
THRESHOLDS = tuple(round(x, 2) for x in np.arange(0.05, 0.96, 0.05))


def load_words(folder: Path, suffix: str) -> list[tuple[WordError, ...]] | None:
    """The per-word error probabilities a fold saved (``None`` when it has none)."""
    f = folder / f"words-{suffix}.json"
    if not f.exists():
        return None
    rows = json.loads(f.read_text())
    return [tuple(WordError(*w) for w in row) for row in rows]


def spans_at(rows: list, words: list, threshold: float) -> list[list[tuple[int, int]]]:
    """Predicted spans (character offsets) of each row at ``threshold``."""
    return [
        [(s.start, s.end) for s in decode_spans(r.translation, w, threshold)]
        for r, w in zip(rows, words)
    ]


def gold_spans(rows: list) -> list[list[tuple[int, int]]]:
    return [[(m.start, m.end) for m in (r.errors or ())] for r in rows]


def best_threshold(rows: list, words: list) -> float:
    """The threshold of :data:`THRESHOLDS` with the highest word-level MCC on ``rows``."""
    texts, gold = [r.translation for r in rows], gold_spans(rows)
    return max(THRESHOLDS, key=lambda t: word_mcc(texts, spans_at(rows, words, t), gold))


def latin_rule(rows: list) -> list[list[tuple[int, int]]]:
    """The WMT22 reference rule: every word with a Latin letter is an error."""
    import regex

    return [[m.span() for m in regex.finditer(r"\S*\p{Latin}\S*", r.translation)] for r in rows]


def check_rule(rows: list) -> list[list[tuple[int, int]]]:
    """The explicit checks' findings that point at the translation (xlscore.checks)."""
    from xlscore.checks import find_mismatches

    return [[f.span for f in find_mismatches(r.source, r.translation) if f.span] for r in rows]


#: thresholds shown for every model besides the recipe's and the chosen one (the shipped
#: estimator's 0.8 among them)
GRID = (0.7, 0.8, 0.9)


def span_table(entries: list[tuple]) -> str:
    """``entries``: (variant, fold, test rows with gold marks, word probabilities, threshold
    chosen on the other fold or ``None``, the recipe's threshold). Rows: each variant's spans
    at the recipe threshold and at the chosen one, and the rules for reference, per test
    set."""
    lines = [
        "| predictor | test set (fold) | threshold | word MCC | span precision | "
        "span recall | span F1 | share of translations with a span |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    seen_tests = set()
    for variant, fold, rows, words, chosen, recipe_threshold in entries:
        texts, gold = [r.translation for r in rows], gold_spans(rows)
        test = f"{'newstest MQM spans' if 'news' in fold else 'WMT22 word tags'} ({fold})"
        if test not in seen_tests:
            seen_tests.add(test)
            for name, pred in (
                ("all OK", [[] for _ in rows]),
                ("rule: every word with a Latin letter", latin_rule(rows)),
                ("rule: explicit checks (xlscore.checks)", check_rule(rows)),
            ):
                lines.append(_span_row(name, test, "—", texts, pred, gold))
        shown = set()
        for label, t in (
            ("recipe", recipe_threshold),
            ("chosen on the other fold", chosen),
            *(("grid", g) for g in GRID),
        ):
            if t is None or round(t, 2) in shown:
                continue
            shown.add(round(t, 2))
            lines.append(
                _span_row(
                    f"`{variant}`",
                    test,
                    f"{t:.2f} ({label})",
                    texts,
                    spans_at(rows, words, t),
                    gold,
                )
            )
    return "\n".join(lines)


def _span_row(name, test, threshold, texts, pred, gold) -> str:
    p, r, f = span_f1(texts, pred, gold)
    share = np.mean([bool(x) for x in pred])
    return (
        f"| {name} | {test} | {threshold} | {word_mcc(texts, pred, gold):+.3f} | "
        f"{p:.3f} | {r:.3f} | {f:.3f} | {share:.1%} |"
    )


# ---------------------------------------------------------------------- challenge set
def fold_challenge(folder: Path, cases) -> dict | None:
    """A fold model's raw predictions, its meaning head's output and its spans on the challenge
    set (``{"cases", "scores", "meaning", "spans"}``, good translations first, then the bad
    ones), computed once into ``folder/challenge.json`` and again when the set has changed (or
    the file predates ``meaning`` and the model is there); ``None`` without a model."""
    from xlscore.estimator.model import QualityEstimator

    f, model = folder / "challenge.json", folder / "full.safetensors"
    saved = json.loads(f.read_text()) if f.exists() else None
    old = saved is not None and "meaning" not in saved and model.exists()
    if saved is None or saved.get("cases") != len(cases) or old:
        if not model.exists():
            return None
        src = [c.source for c in cases] * 2
        mt = [c.good for c in cases] + [c.bad for c in cases]
        res = QualityEstimator.load(model).estimate(src, mt)
        saved = {
            "cases": len(cases),
            "scores": [e.score for e in res],
            "meaning": [e.meaning for e in res],
            "spans": [[[s.start, s.end] for s in e.error_spans] for e in res],
        }
        f.write_text(json.dumps(saved))
    return saved


def challenge_rows(cases, scores: np.ndarray, spans: list | None) -> dict[str, list]:
    """Per phenomenon: wins (good above bad), total, and with spans: bad translations with a
    span on the error, good translations with any span."""
    n = len(cases)
    out: dict[str, list] = {}
    for k, c in enumerate(cases):
        row = out.setdefault(c.phenomenon, [0, 0, 0, 0])
        row[0] += scores[k] > scores[n + k]
        row[1] += 1
        if spans is not None:
            row[2] += span_on_error(spans[n + k], error_region(c.good, c.bad))
            row[3] += bool(spans[k])
    return out


def challenge_table(results: dict[str, dict[str, list]], with_spans: bool) -> str:
    """Rows: phenomena; columns: predictors (wins/total), then the span figures."""
    names = list(results)
    phenomena = list(next(iter(results.values())))
    head = "| phenomenon | " + " | ".join(names) + " |"
    lines = [head, "|" + " --- |" * (len(names) + 1)]
    for ph in phenomena:
        lines.append(
            f"| {ph} | " + " | ".join(f"{t[ph][0]}/{t[ph][1]}" for t in results.values()) + " |"
        )
    lines.append(
        "| **all** | "
        + " | ".join(
            f"**{sum(v[0] for v in t.values())}/{sum(v[1] for v in t.values())}**"
            for t in results.values()
        )
        + " |"
    )
    if with_spans:
        lines.append(
            "| span on the error (bad translations) | "
            + " | ".join(
                f"{sum(v[2] for v in t.values())}/{sum(v[1] for v in t.values())}"
                for t in results.values()
            )
            + " |"
        )
        lines.append(
            "| any span (good translations) | "
            + " | ".join(
                f"{sum(v[3] for v in t.values())}/{sum(v[1] for v in t.values())}"
                for t in results.values()
            )
            + " |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------- length
def length_table(entries: list[tuple[str, str, list, np.ndarray]]) -> str:
    """Spearman of each fold's predictions (and of the human scores) with the translation's
    length in words, and, where error marks exist, with the raters' errors per word."""
    lines = [
        "| scores | test set (fold) | ρ with length (words) | ρ with −errors per word |",
        "| --- | --- | --- | --- |",
    ]
    humans = set()
    for name, fold, rows, pred in entries:
        n = np.array([max(1, len(r.translation.split())) for r in rows])
        per_word = np.array([-len(r.errors) if r.errors is not None else np.nan for r in rows]) / n
        ok = ~np.isnan(per_word)
        test = fold.split("-", 1)[1] if fold.startswith("lodo") else fold
        if test not in humans:
            humans.add(test)
            h = np.array([r.human for r in rows])
            lines.append(_len_row("human scores", f"{test}", h, n, per_word, ok))
        lines.append(_len_row(f"`{name}`", f"{test} ({fold})", pred, n, per_word, ok))
    return "\n".join(lines)


def _len_row(name, test, x, n, per_word, ok) -> str:
    rho_len = stats.spearmanr(x, n).statistic
    rho_err = stats.spearmanr(x[ok], per_word[ok]).statistic if ok.sum() > 2 else float("nan")
    err = "—" if np.isnan(rho_err) else f"{rho_err:+.3f}"
    return f"| {name} | {test} | {rho_len:+.3f} | {err} |"
