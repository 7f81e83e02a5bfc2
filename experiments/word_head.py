"""The word head alone, per set with word gold (issue 73): does it find where the errors are?

    python experiments/word_head.py --data-dir ../shared/data --model-ids rtm15,words73

Each set is read by the fold model that never trained on it (``results/folds/MODEL/``):
newstest2021 by ``lodo-news`` (gold: the whitespace tokens a rater's span overlaps), the WMT22
dev tags by ``lodo-qe22`` (the task's tokens), each talks set by the model that never saw it
(``sets.py predict``; gold: whitespace tokens a span of ``mqm-ted-spans`` overlaps; a
translation whose counted errors have no span in the translation is left out). A token's
probability is the largest error probability of the head's words that overlap it.

Per set: the average precision of the token probabilities (no threshold); the MCC at the
threshold chosen on the *other* en-ru set's held-out predictions (best MCC there:
newstest2021 for WMT22 dev and the zh-en talks, WMT22 dev for newstest2021 and the en-de talks),
with the tokens it tags against the gold's; the best MCC over thresholds on the set itself
(in-sample, an upper bound, not a figure to quote); and on the en-ru sets the Latin-letter
rule. Differences against the first model: paired bootstrap over segments.
Writes ``results/word-head.md``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
import folds
import numpy as np
from _protocol import TALKS, load_sets, talks_marks, unmarked_errors
from _results import write_markdown
from sets import load_validation_sets
from sklearn.metrics import average_precision_score

from xlscore.evaluation.gate import compare_tags, mcc_of_counts, token_counts

THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(1, 20))  # 0.05 … 0.95
#: the set whose held-out predictions choose each set's threshold
CHOSEN_ON = {
    "WMT22 dev": "newstest2021",
    "zh-en talks": "newstest2021",
    "newstest2021": "WMT22 dev",
    "en-de talks": "WMT22 dev",
}


@dataclass
class WordSet:
    """A set's gold tokens and each model's token probabilities."""

    name: str
    translations: list[str]
    tokens: list[list[tuple[int, int]]]
    gold: list[list[bool]]
    russian: bool

    def probabilities(self, words: list) -> list[np.ndarray]:
        """Each token's probability: the largest of the head's words that overlap it."""
        out = []
        for toks, ws in zip(self.tokens, words, strict=True):
            p = np.zeros(len(toks))
            for w in ws:
                for k, (a, b) in enumerate(toks):
                    if a < w.end and w.start < b:
                        p[k] = max(p[k], w.probability)
            out.append(p)
        return out


def whitespace_gold(rows: list) -> tuple[list, list]:
    """Whitespace tokens of each translation and whether a rater's span overlaps each."""
    tags = [folds.whitespace_tags(r.translation, r.errors) for r in rows]
    return [t for t, _ in tags], [g for _, g in tags]


def load_word_sets(data_dir: Path) -> tuple[dict[str, WordSet], dict[str, tuple[str, list]]]:
    """The four sets with word gold, and for each the fold file and rows its predictions
    are read from."""
    sets = load_sets(data_dir)
    news = [r for r in sets["news"] if not r.is_human]
    qe22 = list(sets["qe22"])
    tags = folds.read_tags(data_dir / "wmt22-enru-word-dev.tsv")
    out, source = {}, {}
    tokens, gold = whitespace_gold(news)
    out["newstest2021"] = WordSet("newstest2021", [r.translation for r in news], tokens, gold, True)
    source["newstest2021"] = ("lodo-news", news)
    out["WMT22 dev"] = WordSet(
        "WMT22 dev",
        [r.translation for r in qe22],
        [tags[r.seg_id].tokens for r in qe22],
        [tags[r.seg_id].gold for r in qe22],
        True,
    )
    source["WMT22 dev"] = ("lodo-qe22", qe22)
    talks = {vs.key: list(vs.rows) for vs in load_validation_sets(data_dir, set(TALKS))}
    for key, name in (("talks", "zh-en talks"), ("talks-ende", "en-de talks")):
        rows = talks[key]  # the rows sets.py predicts
        marked = unmarked_errors(talks_marks(data_dir, rows), data_dir / TALKS[key])
        keep = [r for r in marked if r.errors is not None]
        tokens, gold = whitespace_gold(keep)
        out[name] = WordSet(name, [r.translation for r in keep], tokens, gold, False)
        source[name] = (key, keep)
    return out, source


def head_words(model: str, source: tuple[str, list]) -> list | None:
    """The model's word errors on a set's rows, from its fold file (a talks set's: written by
    ``sets.py predict``; ``KEY.words.tsv`` where a variant's file was written before the
    words column, its words predicted again); ``None``: not predicted, or without words."""
    fold, rows = source
    if folds.fold_path(model, f"{fold}.words").exists():  # words added to an older file
        fold = f"{fold}.words"
    got = folds.read_fold(model, fold, rows)
    return got[1] if got is not None and any(got[1]) else None


def best_threshold(ws: WordSet, probs: list[np.ndarray]) -> tuple[float, float]:
    """The threshold with the best MCC on ``ws`` and that MCC."""
    best = max(THRESHOLDS, key=lambda t: mcc(ws, [p >= t for p in probs]))
    return best, mcc(ws, [p >= best for p in probs])


def mcc(ws: WordSet, predicted: list) -> float:
    return float(mcc_of_counts(token_counts(predicted, ws.gold).sum(0)))


def latin(ws: WordSet) -> list[list[bool]]:
    """The WMT22 reference rule on the set's tokens (:func:`folds.latin_tags`)."""
    return folds.latin_tags(
        [folds.TagRow(t, toks, g) for t, toks, g in zip(ws.translations, ws.tokens, ws.gold)]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--model-ids", default="rtm15", help="comma-separated; the first is the base")
    ap.add_argument("--boot", type=int, default=1000)
    args = ap.parse_args()
    models = args.model_ids.split(",")
    word_sets, source = load_word_sets(args.data_dir)
    probs: dict[tuple[str, str], list[np.ndarray]] = {}
    for m in models:
        for name, ws in word_sets.items():
            words = head_words(m, source[name])
            if words is not None:
                probs[(m, name)] = ws.probabilities(words)
    lines = [
        "Word head alone, each set read by the fold model that never trained on it; the MCC's "
        "threshold chosen on the other en-ru set's held-out predictions (the column says which). "
        "Average precision: of the token probabilities, no threshold. Best MCC: over thresholds "
        "on the set itself (in-sample, an upper bound).",
        "",
        "| set | gold BAD (tokens) | model | average precision | threshold (chosen on) | MCC | "
        "tokens tagged (× gold) | best MCC in-sample (threshold) | Latin-letter rule MCC |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    tagged: dict[tuple[str, str], list] = {}
    for name, ws in word_sets.items():
        n_bad = sum(map(sum, ws.gold))
        n_tok = sum(map(len, ws.gold))
        rule = f"{mcc(ws, latin(ws)):+.3f}" if ws.russian else "—"
        for m in models:
            p = probs.get((m, name))
            if p is None:
                lines.append(f"| {name} | {n_bad} ({n_tok}) | `{m}` | not predicted | | | | | |")
                continue
            chooser = CHOSEN_ON[name]
            if (m, chooser) not in probs:
                lines.append(f"| {name} | {n_bad} ({n_tok}) | `{m}` | | no {chooser} | | | | |")
                continue
            t, _ = best_threshold(word_sets[chooser], probs[(m, chooser)])
            pred = [x >= t for x in p]
            tagged[(m, name)] = pred
            ap_ = average_precision_score(np.concatenate(ws.gold), np.concatenate(p))
            bt, bm = best_threshold(ws, p)
            n_tag = sum(map(sum, pred))
            lines.append(
                f"| {name} | {n_bad} ({n_tok}) | `{m}` | {ap_:.3f} | {t:g} ({chooser}) | "
                f"**{mcc(ws, pred):+.3f}** | {n_tag} ({n_tag / n_bad:.2f}×) | {bm:+.3f} ({bt:g}) | "
                f"{rule} |"
            )
    base = models[0]
    notes = []
    for name, ws in word_sets.items():
        for m in models[1:]:
            if (m, name) in tagged and (base, name) in tagged:
                c = compare_tags(ws.gold, tagged[(m, name)], tagged[(base, name)], n_boot=args.boot)
                notes.append(
                    f"* {name}: `{m}` {c.candidate}, `{base}` {c.reference}, difference {c.delta}"
                )
    if notes:
        lines += ["", f"Paired bootstrap over segments ({args.boot} resamples), MCC:", "", *notes]
    write_markdown("word-head", "\n".join(lines), title="Word head per set")


if __name__ == "__main__":
    main()
