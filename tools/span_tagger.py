"""The span tagger (issue 63): the word head's probabilities joined with the precise rules,
fitted on one rated set's held-out word predictions and read on the other.

    python tools/span_tagger.py --data-dir ../shared/data --model-id rtm15 \\
        --challenge --out experiments/results/span-tagger-rtm15.json

The two en-ru sets with word gold: newstest2021 (MQM spans of one rater, machine translations
only; gold tokens: whitespace tokens a span overlaps) and the WMT22 dev tags (the task's tokens).
The head's probabilities are those of the fold model that never saw the set
(``results/folds/MODEL/lodo-news.tsv.xz``, ``lodo-qe22.tsv.xz``). For each direction, a logistic
regression (:data:`xlscore.estimator.span_tagger.FEATURES`) is fitted on one set's words, its
threshold and shortest span chosen on that set alone (the best MCC with at most
``--max-alarms`` of the set's error-free translations given a span) and read on the other set:
the WMT22 dev figure comes from a tagger that never saw that set. The feature set was fixed
before any figure was read; the ablations (head only, rules only) are reported, not chosen
from. The shipped tagger is the one fitted on newstest2021 (the WMT22 dev figure's); the same
recipe fitted on both sets together is measured beside it. It is written to ``--out`` for
``ship.py --span-tagger``.
Writes ``results/span-tagger-MODEL.md``.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, replace
from pathlib import Path

import folds
import numpy as np
from _protocol import load_sets
from _results import write_markdown
from sklearn.linear_model import LogisticRegression

from xlscore.estimator.span_tagger import FEATURES, SpanTagger, word_features
from xlscore.estimator.spans import WordError, bad_words
from xlscore.evaluation.gate import compare_tags, mcc_of_counts, token_counts

THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(2, 20))  # 0.10 … 0.95
MIN_CHARS = (1, 2, 3)
SUBSETS = {
    "head and rules (the recipe)": FEATURES,
    "head only": ("head", "major", "neighbour"),
    "rules only": tuple(f for f in FEATURES if f not in ("head", "major", "neighbour")),
}


@dataclass
class Item:
    """One translation: its text, the head's words, its words' features and its gold."""

    translation: str
    head: tuple[WordError, ...]
    tokens: list[tuple[int, int]]  # the tokens the set's MCC is counted over
    gold: list[bool]  # their gold tags
    word_gold: list[bool]  # gold of xlscore's words (for fitting)
    words: list  # xlscore's words
    x: np.ndarray  # their features
    marked: np.ndarray  # whether a counted finding points at them

    @property
    def error_free(self) -> bool:
        return not any(self.gold)


def items_of(rows, words, tag_rows=None) -> list[Item]:
    """The set's items: gold tokens from ``tag_rows`` (the task's) or whitespace tokens."""
    out = []
    for k, (r, head) in enumerate(zip(rows, words, strict=True)):
        if tag_rows is not None:
            tokens, gold = tag_rows[k].tokens, tag_rows[k].gold
        else:
            tokens, gold = folds.whitespace_tags(r.translation, r.errors)
        ws, x, marked = word_features(r.source, r.translation, head)
        spans = [(e.start, e.end) for e in r.errors or ()]
        word_gold = bad_words(r.translation, spans) if ws else []
        out.append(Item(r.translation, head, tokens, gold, word_gold, ws, x, marked))
    return out


def tags(items: list[Item], tagger: SpanTagger) -> list[list[bool]]:
    """Each item's gold tokens tagged BAD where a span of ``tagger`` overlaps them."""
    return [
        folds.tokens_hit(it.tokens, tagger.decode(it.translation, it.words, it.x, it.marked))
        for it in items
    ]


def mcc(items: list[Item], predicted: list[list[bool]]) -> float:
    return float(mcc_of_counts(token_counts(predicted, [it.gold for it in items]).sum(0)))


def alarms(items: list[Item], predicted: list[list[bool]]) -> tuple[int, int]:
    """Error-free translations given a span, and how many error-free ones there are."""
    free = [any(p) for it, p in zip(items, predicted) if it.error_free]
    return sum(free), len(free)


def fit(items: list[Item], mask: tuple[str, ...]) -> tuple[tuple[float, ...], float]:
    """Logistic weights (0 for the features outside ``mask``) and bias on the items' words."""
    cols = [FEATURES.index(f) for f in mask]
    x = np.concatenate([it.x for it in items])[:, cols]
    y = np.concatenate([np.asarray(it.word_gold, bool) for it in items])
    model = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)
    w = np.zeros(len(FEATURES))
    w[cols] = model.coef_[0]
    return tuple(float(v) for v in w), float(model.intercept_[0])


def choose(sets: list[list[Item]], weights, bias, max_alarms: float) -> tuple[SpanTagger, float]:
    """The threshold and shortest span with the best mean MCC over ``sets`` among those that
    give a span to at most ``max_alarms`` of each set's error-free translations."""
    best: tuple[float, SpanTagger] | None = None
    for t in THRESHOLDS:
        for m in MIN_CHARS:
            tagger = SpanTagger(weights, bias, t, m)
            predicted = [tags(s, tagger) for s in sets]
            if any(a > max_alarms * n for a, n in (alarms(s, p) for s, p in zip(sets, predicted))):
                continue
            score = float(np.mean([mcc(s, p) for s, p in zip(sets, predicted)]))
            if best is None or score > best[0]:
                best = (score, tagger)
    if best is None:
        raise SystemExit("no threshold keeps the alarms within the bound")
    return best[1], best[0]


def challenge_rows(
    tagger: SpanTagger, data: dict[str, list[Item]], estimator: Path | None = None
) -> list[str]:
    """The threshold's other side: at lower thresholds, the shipped tagger's spans on the
    challenge set's minimal pairs (the default scorer, with the estimator file ``estimator``
    when given: a candidate's fold model made by ``ship.py``), its alarms on newstest's
    error-free translations (in-sample) and its WMT22 dev MCC (held out)."""
    from challenge import DEFAULT

    from xlscore import XLScorer
    from xlscore.evaluation.challenge import read_challenge, run_challenge

    scorer = XLScorer.offline(**({"estimator": str(estimator)} if estimator else {}))
    mark = " (chosen)" if estimator else " (shipped)"
    est = scorer.final.estimator
    assert est is not None
    pairs = read_challenge(DEFAULT)
    out = [
        "### The threshold's other side: the challenge set's minimal pairs",
        "",
        f"The {mark.strip(' ()')} tagger's weights at lower thresholds; challenge set: "
        f"{len(pairs)} pairs, "
        "a span on the error of the flawed translation / any span on the correct one "
        "(`tools/challenge.py`'s rows).",
        "",
        "| threshold | challenge: span on the error | challenge: span on the correct one | "
        "newstest2021 error-free with a span (in-sample) | WMT22 dev MCC (held out) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for t in sorted({tagger.threshold, 0.2, 0.15, 0.1, 0.07, 0.05}, reverse=True):
        est.tagger = replace(tagger, threshold=t)
        table = run_challenge(scorer, pairs)
        hit = sum(r.on_error for r in table.values())
        good = sum(r.good_flagged for r in table.values())
        news = tags(data["newstest2021"], est.tagger)
        a, n = alarms(data["newstest2021"], news)
        wmt = mcc(data["WMT22 dev"], tags(data["WMT22 dev"], est.tagger))
        out.append(
            f"| {t:g}{mark if t == tagger.threshold else ''} | {hit}/{len(pairs)} | "
            f"{good}/{len(pairs)} | {a / n:.1%} | {wmt:+.3f} |"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--model-id", default="rtm15")
    ap.add_argument("--max-alarms", type=float, default=0.10)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument(
        "--challenge",
        action="store_true",
        help="also read the challenge set's spans at lower thresholds (loads the models)",
    )
    ap.add_argument(
        "--challenge-file",
        type=Path,
        help="--challenge with this estimator file instead of the shipped one (a candidate)",
    )
    ap.add_argument("--out", type=Path, help="write the shipped tagger's metadata (JSON) here")
    args = ap.parse_args()
    sets = load_sets(args.data_dir)
    news = [r for r in sets["news"] if not r.is_human]
    qe22 = list(sets["qe22"])
    got_news = folds.read_fold(args.model_id, "lodo-news", news)
    got_qe22 = folds.read_fold(args.model_id, "lodo-qe22", qe22)
    if got_news is None or got_qe22 is None:
        raise SystemExit(f"{args.model_id}: the lodo-news and lodo-qe22 folds are needed")
    tag_file = folds.read_tags(args.data_dir / "wmt22-enru-word-dev.tsv")
    data = {
        "newstest2021": items_of(news, got_news[1]),
        "WMT22 dev": items_of(qe22, got_qe22[1], [tag_file[r.seg_id] for r in qe22]),
    }
    # the Latin-letter rule and the word head alone at 0.7, on each set's tokens
    latin = {name: folds.latin_tags(items) for name, items in data.items()}
    head_at = {
        name: folds.tags_at(items, [it.head for it in items], 0.7) for name, items in data.items()
    }
    lines = [
        f"Fold model `{args.model_id}`; alarm bound {args.max_alarms:.0%} of the error-free "
        "translations of the set the threshold is chosen on. MCC over each set's tokens; "
        "alarms: error-free translations (no gold error) given at least one span.",
        "",
        "### Fitted on one set, read on the other",
        "",
        "| features | fitted and chosen on | threshold, shortest span | read on | MCC | "
        "tokens tagged (gold BAD) | alarms on its error-free translations | "
        "Latin-letter rule MCC (alarms) | head at 0.7 MCC (alarms) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    found: dict[tuple[str, str], list[list[bool]]] = {}
    fold_of = {"WMT22 dev": "lodo-qe22", "newstest2021": "lodo-news"}
    for label, mask in SUBSETS.items():
        for train, test in (("newstest2021", "WMT22 dev"), ("WMT22 dev", "newstest2021")):
            w, b = fit(data[train], mask)
            tagger, _ = choose([data[train]], w, b, args.max_alarms)
            if mask == FEATURES:  # the recipe's tagger of the fold that never saw ``test``
                out = folds.FOLDS / args.model_id / f"span-tagger-{fold_of[test]}.json"
                out.write_text(json.dumps(tagger.to_meta(), indent=1) + "\n", encoding="utf-8")
            p = tags(data[test], tagger)
            found[(label, test)] = p
            a, n = alarms(data[test], p)
            la, _ = alarms(data[test], latin[test])
            ha, _ = alarms(data[test], head_at[test])
            gold_bad = sum(sum(it.gold) for it in data[test])
            lines.append(
                f"| {label} | {train} | {tagger.threshold:g}, {tagger.min_chars} | {test} | "
                f"**{mcc(data[test], p):+.3f}** | {sum(map(sum, p))} ({gold_bad}) | "
                f"{a} of {n} ({a / n:.1%}) | {mcc(data[test], latin[test]):+.3f} "
                f"({la / n:.1%}) | {mcc(data[test], head_at[test]):+.3f} ({ha / n:.1%}) |"
            )
    recipe = next(iter(SUBSETS))
    # the other side of the alarm bound: the recipe's threshold chosen for MCC alone
    for train, test in (("newstest2021", "WMT22 dev"), ("WMT22 dev", "newstest2021")):
        w, b = fit(data[train], FEATURES)
        tagger, _ = choose([data[train]], w, b, 1.0)
        p = tags(data[test], tagger)
        a, n = alarms(data[test], p)
        lines.append(
            f"| {recipe}, no alarm bound | {train} | {tagger.threshold:g}, {tagger.min_chars} "
            f"| {test} | **{mcc(data[test], p):+.3f}** | {sum(map(sum, p))} | {a} of {n} "
            f"({a / n:.1%}) | | |"
        )
    wgold = [it.gold for it in data["WMT22 dev"]]
    vs_latin = compare_tags(
        wgold, found[(recipe, "WMT22 dev")], latin["WMT22 dev"], n_boot=args.boot
    )
    vs_head = compare_tags(
        wgold, found[(recipe, "WMT22 dev")], head_at["WMT22 dev"], n_boot=args.boot
    )
    lines += [
        "",
        f"On the WMT22 dev tags, the recipe fitted and chosen on newstest2021 alone: "
        f"{vs_latin.candidate}; the Latin-letter rule {vs_latin.reference} (difference "
        f"{vs_latin.delta}); the head alone at 0.7 {vs_head.reference} (difference "
        f"{vs_head.delta}). Paired bootstrap over segments, {args.boot} resamples.",
    ]
    # the shipped tagger is the one validated above: fitted and chosen on newstest2021 alone
    # (pooling both sets was measured: newstest's 158k words outweigh WMT22's, and the pooled
    # tagger reads WMT22 dev worse in-sample than this one does held out)
    w, b = fit(data["newstest2021"], FEATURES)
    tagger, _ = choose([data["newstest2021"]], w, b, args.max_alarms)
    pw, pb = fit([it for s in data.values() for it in s], FEATURES)
    pooled, _ = choose(list(data.values()), pw, pb, args.max_alarms)

    def figures(t: SpanTagger) -> str:
        out = []
        for name, items in data.items():
            p = tags(items, t)
            a, n = alarms(items, p)
            out.append(f"{name} MCC {mcc(items, p):+.3f}, alarms {a} of {n} ({a / n:.1%})")
        return "; ".join(out)

    lines += [
        "",
        "### The shipped tagger",
        "",
        "The recipe's tagger fitted and chosen on newstest2021 alone, the one whose WMT22 dev "
        f"figure is above: threshold {tagger.threshold:g}, shortest span {tagger.min_chars} "
        f"letters or digits. {figures(tagger)} (newstest2021 in-sample, WMT22 dev held out).",
        "",
        f"Not shipped: the same recipe fitted on both sets together, its threshold "
        f"({pooled.threshold:g}, shortest span {pooled.min_chars}) chosen by their mean MCC "
        f"with the alarm bound on each: {figures(pooled)} (both in-sample). newstest2021's "
        "words outnumber WMT22's seven to one, so the pooled fit is newstest's, with a "
        "threshold that reads WMT22 worse than the newstest-only tagger does held out.",
        "",
        "| feature | weight |",
        "| --- | --- |",
        *[f"| {f} | {v:+.3f} |" for f, v in zip(FEATURES, tagger.weights)],
        f"| (bias) | {tagger.bias:+.3f} |",
    ]
    if args.challenge:
        lines += ["", *challenge_rows(tagger, data, args.challenge_file)]
        if args.challenge_file:
            lines.append(f"\nChallenge rows read with the estimator file `{args.challenge_file}`.")
    if args.out:
        args.out.write_text(json.dumps(tagger.to_meta(), indent=1) + "\n", encoding="utf-8")
        lines.append(f"\nWritten to `{args.out}`.")
    write_markdown(f"span-tagger-{args.model_id}", "\n".join(lines), title="Span tagger")


if __name__ == "__main__":
    main()
