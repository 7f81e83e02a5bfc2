"""Tables of the estimator protocol beyond agreement with sentence scores (used by
``estimator.py report``): predicted error spans against the raters' marks, the hand-written
challenge set per category, and how scores relate to length.

Every table reads the predictions that ``estimator.py run`` saved for each fold (its test rows
only), so every figure is on data the fold's model was not trained on. Thresholds for spans:
the recipe's own (fixed before training) and the one that maximises word-level MCC on the
*other* LODO fold's test set (newstest spans for the WMT22 fold and the other way round) — a
choice made on validation data, never on the rows it is applied to.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from scipy import stats

from xlscore.estimator.spans import WordError, decode_spans, span_f1, word_mcc
from xlscore.evaluation.challenge import error_region, span_on_error

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
    """The explicit checks' findings that point at the translation (xlscore.estimator.checks)."""
    from xlscore.estimator.checks import find_mismatches

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
                ("rule: explicit checks (xlscore.estimator.checks)", check_rule(rows)),
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
