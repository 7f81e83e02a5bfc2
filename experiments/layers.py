"""Layer study: per-segment Kendall of the anchors variant as a function of the hidden layer,
like bert_score's layer tuning, on WMT21 en-ru newstest MQM (MT systems only).

Three curves:
* e5 as a multilingual encoder for both sides (no alignment), layers 0-12;
* e5 as the Russian encoder, layers 0-12, with MiniLM (English) at its default layer;
* MiniLM as the English encoder, layers 0-6, with e5 (Russian) at its default layer.
The two-encoder curves use maps cross-fitted by document (5 folds) on corpus anchors alone
(no dictionary prior, which would need a dictionary map per layer; with some 30,000 anchor
pairs per fit the prior hardly matters). Each pass of a model yields all its layers at once.

A pack's curve is its 3-layer moving average (a single layer's value is noisy: its standard
error is about 0.015): for MiniLM its curve as English encoder; for e5, which serves both as
the Russian encoder and as the multilingual one, the mean of those two curves. Layers within
one standard error of the best are tied: the default stays where it is if it is among them
(a noise-level "best" is no reason to move), and moves to the best layer otherwise. The demo
check (how often the good demo translation beats each flawed one) is printed for the current
defaults and for the curves' best layers, as a second look.

    python experiments/layers.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv

Writes experiments/results/layers.md, layers.csv and layers.png.
"""

from __future__ import annotations

import argparse
import time

import _tools  # noqa: F401  (tools/ on the import path)
from _results import RESULTS, write_csv, write_markdown

from xlscore import Encoder, Lexicon, XLScorer, packs
from xlscore.evaluation.agreement import per_segment, read_judgments
from xlscore.report.plots import layer_curves
from xlscore.scoring.scorer import PreparedCorpus

SE = 0.015  # standard error of a mean per-segment Kendall over ~440 segments


def smoothed(curve: dict[int, float]) -> dict[int, float]:
    """3-layer moving average (2 layers at the ends)."""
    out = {}
    for L in curve:
        near = [curve[k] for k in (L - 1, L, L + 1) if k in curve]
        out[L] = sum(near) / len(near)
    return out


def smoothed_best(curve: dict[int, float]) -> int:
    """The layer whose mean with its neighbours is highest."""
    sm = smoothed(curve)
    return max(sm, key=lambda L: (sm[L], L))


def choose(curve: dict[int, float], current: int) -> tuple[int, list[int]]:
    """The default to use and the layers tied with the best (within one standard error)."""
    sm = smoothed(curve)
    top = max(sm.values())
    tied = sorted(L for L, v in sm.items() if v >= top - SE)
    return (current if current in tied else smoothed_best(curve)), tied


def demo_wins(two: XLScorer, layers: tuple[int, int]) -> str:
    """Good demo translation above each flawed one, anchors variant."""
    import csv
    from collections import defaultdict
    from pathlib import Path

    demo = Path(__file__).resolve().parent.parent / "data" / "demo" / "demo.tsv"
    with open(demo, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    scorer = XLScorer.offline(
        en_model=two.en.with_layer(layers[0]),
        ru_model=two.ru.with_layer(layers[1]),
        lexicon=two.paper.lexicon,
        estimator=None,
    )
    res = scorer.score([r["source"] for r in rows], [r["translation"] for r in rows])
    by: dict[str, dict[str, float]] = defaultdict(dict)
    for r, x in zip(rows, res):
        by[r["id"]][r["quality"]] = x.score
    return ", ".join(
        f"{q} {sum(v['good'] > v[q] for v in by.values())}/12"
        for q in ("literal", "omission", "meaning")
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--limit", type=int, default=0, help="first N segments only")
    ap.add_argument("--folds", type=int, default=5)
    args = ap.parse_args()
    start = time.time()

    def say(msg: str) -> None:
        print(f"[{time.time() - start:6.0f} s] {msg}", flush=True)

    rows = read_judgments(args.data)
    if args.limit:
        keep = set(list(dict.fromkeys(r.seg_id for r in rows))[: args.limit])
        rows = [r for r in rows if r.seg_id in keep]
    seg, human, docs = [r.seg_id for r in rows], [r.human for r in rows], [r.doc for r in rows]
    lexicon = Lexicon.mueller7()
    e5, minilm = Encoder.load("pack:e5-small"), Encoder.load("pack:minilm-en")
    sources = list(dict.fromkeys(r.source for r in rows))
    mts = list(dict.fromkeys(r.translation for r in rows))
    e5_layers = list(range(e5.n_layers + 1))
    mini_layers = list(range(minilm.n_layers + 1))
    say(f"{len(rows)} pairs; embedding {len(mts)} translations at all {len(e5_layers)} e5 layers")
    mt_e5 = e5.embed_words_layers(mts, e5_layers, progress=True)
    src_e5 = e5.embed_words_layers(sources, e5_layers)
    src_mini = minilm.embed_words_layers(sources, mini_layers)
    say("embedded")

    def pairs(src_by, mt_by, L_src, L_mt):
        s = dict(zip(sources, src_by[L_src]))
        m = dict(zip(mts, mt_by[L_mt]))
        return [s[r.source] for r in rows], [m[r.translation] for r in rows]

    d_en, d_ru = packs.get("minilm-en").default_layer, packs.get("e5-small").default_layer
    multi = XLScorer.offline(multilingual=e5, lexicon=lexicon, estimator=None)
    two = XLScorer.offline(en_model=minilm, ru_model=e5, lexicon=lexicon, estimator=None)
    anchors = two.anchoring.anchor(*pairs(src_mini, mt_e5, d_en, d_ru)).anchors  # words: layer-free
    say("anchors found")

    def kendall(results) -> float:
        return per_segment(seg, human, [x.f1 for x in results])[0]

    curves: dict[str, dict[int, float]] = {
        "e5 multilingual (both sides)": {},
        f"e5 as Russian encoder (MiniLM at {d_en})": {},
        f"MiniLM as English encoder (e5 at {d_ru})": {},
    }
    names = list(curves)
    for L in e5_layers:
        corpus = PreparedCorpus(*pairs(src_e5, mt_e5, L, L), anchors)
        curves[names[0]][L] = kendall(multi.paper.score_prepared(corpus, "anchors"))
        corpus = PreparedCorpus(*pairs(src_mini, mt_e5, d_en, L), anchors)
        curves[names[1]][L] = kendall(
            two.paper.score_cross_fitted(corpus, docs, "anchors", folds=args.folds, prior=False)
        )
        say(
            f"e5 layer {L}: multilingual {curves[names[0]][L]:+.4f}, "
            f"Russian side {curves[names[1]][L]:+.4f}"
        )
    for L in mini_layers:
        corpus = PreparedCorpus(*pairs(src_mini, mt_e5, L, d_ru), anchors)
        curves[names[2]][L] = kendall(
            two.paper.score_cross_fitted(corpus, docs, "anchors", folds=args.folds, prior=False)
        )
        say(f"MiniLM layer {L}: {curves[names[2]][L]:+.4f}")

    e5_both = {L: (curves[names[0]][L] + curves[names[1]][L]) / 2 for L in e5_layers}
    e5_pick, e5_tied = choose(e5_both, d_ru)
    mini_pick, mini_tied = choose(curves[names[2]], d_en)
    best = {names[0]: e5_pick, names[1]: e5_pick, names[2]: mini_pick}
    layer_curves(
        curves,
        ylabel="mean per-segment Kendall (anchors variant)",
        marks=best,
        path=RESULTS / "layers.png",
        title="Layer study, WMT21 en-ru MQM newstest2021 (MT systems only)",
    )
    lines = ["| layer | " + " | ".join(names) + " |", "| --- " * (len(names) + 1) + "|"]
    for L in e5_layers:
        lines.append(
            f"| {L} | "
            + " | ".join(f"{curves[n][L]:+.4f}" if L in curves[n] else "" for n in names)
            + " |"
        )
    best_pair = (smoothed_best(curves[names[2]]), smoothed_best(e5_both))
    chosen = (
        f"Best layer by 3-layer moving average: pack:e5-small {best_pair[1]} (mean of its two "
        f"curves; alone: multilingual {smoothed_best(curves[names[0]])}, Russian side "
        f"{smoothed_best(curves[names[1]])}), pack:minilm-en {best_pair[0]}. Tied with the best "
        f"(within one standard error, {SE}): e5 layers {e5_tied}, MiniLM layers {mini_tied}. "
        f"Defaults in use when this ran: pack:minilm-en {d_en}, pack:e5-small {d_ru}; "
        f"chosen defaults: pack:minilm-en {mini_pick}, pack:e5-small {e5_pick}.\n\n"
        f"Demo check (anchors variant, good translation above the flawed one): defaults "
        f"({d_en}, {d_ru}): {demo_wins(two, (d_en, d_ru))}; curves' best {best_pair}: "
        f"{demo_wins(two, best_pair)}."
    )
    write_markdown(
        "layers",
        f"{len(rows)} pairs, {len(set(seg))} segments; anchors variant, "
        "F1; two-encoder rows cross-fitted by document without prior.\n\n"
        + "\n".join(lines)
        + "\n\n"
        + chosen,
        title="Layer study",
    )
    write_csv(
        "layers",
        ["layer", *names],
        [[L] + [curves[n].get(L, "") for n in names] for L in e5_layers],
    )
    say("done")


if __name__ == "__main__":
    main()
