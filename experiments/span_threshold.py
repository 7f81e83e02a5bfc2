"""The word head's span threshold chosen on validation (issue 51, item 6): word MCC on newstest2021
by the leave-newstest-out fold's word error probabilities, the WMT22 dev tags held out.

    python experiments/span_threshold.py --data-dir ../shared/data --model-id rtm15

Newstest's gold tags: each whitespace token of a machine translation is BAD when a rater's error
span (any severity) overlaps it. The threshold is chosen by the mean of the two sets' MCC
(never by one) and read on the WMT22 dev tags (the task's tokens, by the leave-WMT22-out
fold), beside the recipe's 0.5 and the Latin-letter rule; the word head alone (what the
scorer's spans are) and joined with that rule (a tagger not built) are chosen apart. Writes
``results/span-threshold-VARIANT.md``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
import folds
from _protocol import load_sets
from _results import write_markdown

from xlscore.evaluation.gate import compare_tags, mcc_of_counts, token_counts

THRESHOLDS = (*(round(0.3 + 0.05 * k, 2) for k in range(14)), 0.97, 0.99)  # 0.30 … 0.99


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument(
        "--model-id", default="rtm15", help="the model's name: its folder under .cache/estimator/"
    )
    args = ap.parse_args()
    sets = load_sets(args.data_dir)
    news = [r for r in sets["news"] if not r.is_human]
    got = folds.read_fold(args.model_id, "lodo-news", news)
    if got is None:
        raise SystemExit(f"{args.model_id}: no exported lodo-news fold")
    rows = [
        folds.TagRow(
            r.translation,
            tokens := [(m.start(), m.end()) for m in re.finditer(r"\S+", r.translation)],
            [any(e.start < b and a < e.end for e in r.errors or ()) for a, b in tokens],
        )
        for r in news
    ]
    qe22 = list(sets["qe22"])
    tag_file = folds.read_tags(args.data_dir / "wmt22-enru-word-dev.tsv")
    qrows = [tag_file[r.seg_id] for r in qe22]
    qgot = folds.read_fold(args.model_id, "lodo-qe22", qe22)
    assert qgot is not None
    both = {"newstest2021": (rows, got[1]), "WMT22 dev": (qrows, qgot[1])}
    lines = [
        f"Variant `{args.model_id}`: word MCC of the word head's tags at each threshold on "
        "newstest2021 (the leave-newstest-out fold; gold: whitespace tokens a rater's span "
        "overlaps) and on the WMT22 dev tags (the leave-WMT22-out fold; the task's tokens), "
        "alone and joined with the Latin-letter rule (a token with a Latin letter is BAD too). "
        "The threshold is chosen by the mean of the two sets' MCC, never by one.",
        "",
        "| tagger | threshold | " + " | ".join(f"{k} MCC (BAD)" for k in both) + " | mean |",
        "| --- | --- |" + " --- |" * (len(both) + 1),
    ]
    best: dict[bool, tuple[float, float]] = {}
    for union in (False, True):
        for t in THRESHOLDS:
            cells, mccs = [], []
            for trows, words in both.values():
                tags = folds.tags_at(trows, words, t)
                assert tags is not None
                if union:
                    tags = [[a or b for a, b in zip(x, y)]
                            for x, y in zip(tags, folds.latin_tags(trows))]  # fmt: skip
                mcc = float(mcc_of_counts(token_counts(tags, [r.gold for r in trows]).sum(0)))
                mccs.append(mcc)
                cells.append(f"{mcc:+.3f} ({sum(map(sum, tags))})")
            mean = sum(mccs) / len(mccs)
            name = "head or Latin letter" if union else "head"
            lines.append(f"| {name} | {t:g} | " + " | ".join(cells) + f" | {mean:+.3f} |")
            if union not in best or mean > best[union][1]:
                best[union] = (t, mean)
    gold_counts = "; ".join(
        f"{k}: {sum(map(len, (r.gold for r in v[0])))} tokens, {sum(sum(r.gold) for r in v[0])} BAD"
        for k, v in both.items()
    )
    wgold = [r.gold for r in qrows]
    lines += ["", f"Gold: {gold_counts}.", ""]
    latin = folds.latin_tags(qrows)
    recipe = folds.tags_at(qrows, qgot[1], 0.5)
    assert recipe is not None
    for union, (t, mean) in best.items():
        chosen = folds.tags_at(qrows, qgot[1], t)
        assert chosen is not None
        if union:
            chosen = [[a or b for a, b in zip(x, y)] for x, y in zip(chosen, latin)]
        vs_recipe = compare_tags(wgold, chosen, recipe)
        vs_latin = compare_tags(wgold, chosen, latin)
        lines.append(
            f"* **{'the head or a Latin letter' if union else 'the head alone'}: best at "
            f"{t:g}** (mean MCC {mean:+.3f}). On the WMT22 dev tags (a validation figure: the "
            f"threshold was chosen with it): {vs_recipe.candidate}; the head at the recipe's "
            f"0.5 {vs_recipe.reference} (difference {vs_recipe.delta}); the Latin-letter rule "
            f"{vs_latin.reference} (difference {vs_latin.delta})."
        )
    write_markdown(f"span-threshold-{args.model_id}", "\n".join(lines), title="Span threshold")


if __name__ == "__main__":
    main()
