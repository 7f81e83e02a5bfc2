"""The paper's Table 1 on public data: agreement of xlscore's variants and baselines with expert
MQM judgments of WMT21 English->Russian newstest (14 MT systems x 527 sources, plus two human
translations), with 95% bootstrap confidence intervals.

Two studies, as in the paper: H1 ranks the MT systems only; H2 ranks the human translations
together with MT. Where an alignment is fitted on the scored texts (the paper's way) the same
row is also given with the map fitted on other documents only (5-fold cross-fitting by
document).

    python experiments/table1.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv

Writes experiments/results/table1.md, table1.csv and table1_distributions.png (the paper's
Figure 4) and figure3_alignment.png (Figure 3). Runs in about 15 minutes on 2 CPU cores.
The same study without Müller's dictionary (anchors from word alignment in e5's space; no
dictionary-map rows), written to table1-alignment.md and .csv:

    python experiments/table1.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv \
        --lexicon english-words --output table1-alignment
"""

from __future__ import annotations

import argparse
import math
import time

import _tools  # noqa: F401  (tools/ on the import path)
import numpy as np
from _results import RESULTS, command_line, write_csv, write_markdown

from xlscore import Encoder, Lexicon, XLScorer
from xlscore.evaluation.agreement import LABELS, agreement, compare, read_judgments
from xlscore.report.plots import alignment_map, correlation_distributions

COLUMNS = (
    "seg_kendall",
    "seg_spearman",
    "global_kendall",
    "pairwise_accuracy",
    "sys_pearson",
    "sys_spearman",
)
PAPER_ROWS = {  # our row name -> the paper's Table 1 row (Spearman / Kendall)
    "multilingual e5, all words": "multilingual, all words: -0.07 / -0.06",
    "multilingual e5, anchors only": "multilingual, anchors: -0.04 / -0.02",
    "MiniLM + e5 + map fitted on scored texts, all words": (
        "two monolingual + alignment, all words: 0.33 / 0.27"
    ),
    "MiniLM + e5 + map fitted on scored texts, anchors only": (
        "two monolingual + alignment, anchors: 0.57 / 0.48"
    ),
}


class Clock:
    def __init__(self) -> None:
        self.start = time.time()

    def say(self, what: str) -> None:
        print(f"[{time.time() - self.start:6.0f} s] {what}", flush=True)


def length_ratio_scores(src_words, mt_words):
    """-|log(ratio / median ratio)| of word counts: 0 for the typical length ratio."""
    ratios = [max(len(m), 1) / max(len(s), 1) for s, m in zip(src_words, mt_words)]
    med = float(np.median(ratios))
    return [-abs(math.log(r / med)) for r in ratios]


def coverage_scores(src_words, mt_words, corpus):
    """Dice coverage of letter-words by anchors: 2 * anchors / (source words + translation
    words), counting words with a letter."""
    out = []
    for s, m, a in zip(src_words, mt_words, corpus.anchors):
        n = sum(any(c.isalpha() for c in w) for w in s) + sum(
            any(c.isalpha() for c in w) for w in m
        )
        out.append(2 * len(a) / n if n else 0.0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    ap.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples (default 1000)")
    ap.add_argument("--folds", type=int, default=5, help="cross-fitting folds (default 5)")
    ap.add_argument("--limit", type=int, default=0, help="first N segments only (for a quick run)")
    ap.add_argument(
        "--lexicon",
        default="mueller7",
        help="mueller7 (default: Müller's dictionary, dictionary anchors) or "
        "english-words (no dictionary: anchors from word alignment, no "
        "dictionary-map rows)",
    )
    ap.add_argument(
        "--output",
        default="table1",
        help="results file name (no extension); the figures are drawn for the default name only",
    )
    args = ap.parse_args()
    clock = Clock()
    rows = read_judgments(args.data, include_human=True)
    if args.limit:
        keep = set(list(dict.fromkeys(r.seg_id for r in rows))[: args.limit])
        rows = [r for r in rows if r.seg_id in keep]
    clock.say(
        f"{len(rows)} judged translations, {len({r.seg_id for r in rows})} segments, "
        f"{len({r.system for r in rows})} systems"
    )

    lexicon = Lexicon.load(args.lexicon)
    e5, minilm = Encoder.load("pack:e5-small"), Encoder.load("pack:minilm-en")
    # the paper's methods: one translation scored at a time, no consensus (docs/consensus.md)
    two = XLScorer.offline(en_model=minilm, ru_model=e5, lexicon=lexicon, estimator=None)
    multi = XLScorer.offline(multilingual=e5, lexicon=lexicon, estimator=None)
    sources = list(dict.fromkeys(r.source for r in rows))
    mts = list(dict.fromkeys(r.translation for r in rows))
    clock.say(f"embedding {len(mts)} translations and {len(sources)} sources")
    mt_e5 = dict(zip(mts, e5.embed_words(mts, progress=True)))
    src_e5 = dict(zip(sources, e5.embed_words(sources, progress=True)))
    src_mini = dict(zip(sources, minilm.embed_words(sources, progress=True)))
    clock.say("sentence embeddings (e5, last layer, mean of all tokens)")
    sent_mt = dict(zip(mts, e5.embed_sentences(mts, progress=True)))
    sent_src = dict(zip(sources, e5.embed_sentences(sources, progress=True)))
    clock.say("anchors")
    space = ([src_e5[r.source] for r in rows], [mt_e5[r.translation] for r in rows])
    two_corpus = two.anchoring.anchor([src_mini[r.source] for r in rows], space[1], space=space)
    multi_corpus = multi.anchoring.anchor(*space, space=space)
    if lexicon.table:
        two.paper.maps.dictionary_map(progress=True)
        clock.say("dictionary map ready")

    import sacrebleu

    chrf = [sacrebleu.sentence_chrf(r.translation, [r.reference]).score for r in rows]
    cosine = [float(sent_src[r.source] @ sent_mt[r.translation]) for r in rows]
    src_words = [src_mini[r.source].words for r in rows]
    mt_words = [mt_e5[r.translation].words for r in rows]

    studies = {
        "H1": [i for i, r in enumerate(rows) if not r.is_human],
        "H2": list(range(len(rows))),
    }
    md: list[str] = []
    csv_rows: list[list] = []
    distributions: dict[str, dict[str, list[float]]] = {"Spearman": {}, "Kendall": {}}
    for study, idx in studies.items():
        clock.say(f"study {study}: {len(idx)} translations")
        sub = [rows[i] for i in idx]
        tc, mc = two_corpus.subset(idx), multi_corpus.subset(idx)
        docs = [r.doc for r in sub]
        metrics: dict[str, list[float]] = {}

        def put(name, results, metrics=metrics):
            metrics[name] = [x.score for x in results]

        put("multilingual e5, all words", multi.paper.score_prepared(mc, "all"))
        put("multilingual e5, anchors only", multi.paper.score_prepared(mc, "anchors"))
        if lexicon.table:
            dmap = two.paper.maps.dictionary_map()
            put(
                "MiniLM + e5 + dictionary map, all words",
                two.paper.score_prepared(tc, "all", aligner=dmap),
            )
            put(
                "MiniLM + e5 + dictionary map, anchors only",
                two.paper.score_prepared(tc, "anchors", aligner=dmap),
            )
        fitted = two.paper.maps.for_corpus(tc, False)
        put(
            "MiniLM + e5 + map fitted on scored texts, all words",
            two.paper.score_prepared(tc, "all", aligner=fitted),
        )
        put(
            "MiniLM + e5 + map fitted on scored texts, anchors only",
            two.paper.score_prepared(tc, "anchors", aligner=fitted),
        )
        put(
            "MiniLM + e5 + map cross-fitted by document, all words",
            two.paper.score_cross_fitted(tc, docs, "all", folds=args.folds),
        )
        put(
            "MiniLM + e5 + map cross-fitted by document, anchors only",
            two.paper.score_cross_fitted(tc, docs, "anchors", folds=args.folds),
        )
        metrics["baseline: e5 sentence cosine(source, translation)"] = [cosine[i] for i in idx]
        metrics["baseline: length ratio"] = length_ratio_scores(
            [src_words[i] for i in idx], [mt_words[i] for i in idx]
        )
        metrics["baseline: anchor coverage alone"] = coverage_scores(
            [src_words[i] for i in idx], [mt_words[i] for i in idx], tc
        )
        metrics["chrF with the reference (needs a reference)"] = [chrf[i] for i in idx]

        seg = [r.seg_id for r in sub]
        sysn = [r.system for r in sub]
        human = [r.human for r in sub]
        reports = {}
        for name, scores in metrics.items():
            reports[name] = agreement(seg, sysn, human, scores, n_boot=args.n_boot)
        base = reports["multilingual e5, all words"]
        a0 = next(iter(reports.values()))
        md.append(
            f"\n### {study}: "
            + ("MT systems only" if study == "H1" else "human translations ranked together with MT")
        )
        md.append(
            f"\n{a0.n_systems} systems, {len(set(seg))} segments, of which "
            f"{a0.n_segments} have unequal human scores ({a0.n_skipped} skipped). "
            "Cells: estimate [95% bootstrap interval]. p: paired bootstrap, share of "
            "resamples in which the row's per-segment Kendall does not exceed the "
            "multilingual all-words baseline's.\n"
        )
        md.append("| metric | " + " | ".join(LABELS[c] for c in COLUMNS) + " | p vs multilingual |")
        md.append("| --- " * (len(COLUMNS) + 2) + "|")
        for name, rep in reports.items():
            p = (
                "—"
                if rep is base
                else f"{compare(rep, base, 'seg_kendall', n_boot=args.n_boot).p_value:.3f}"
            )
            md.append(f"| {name} | " + " | ".join(str(rep[c]) for c in COLUMNS) + f" | {p} |")
            csv_rows.append(
                [study, name]
                + [f"{getattr(rep[c], k):.4f}" for c in COLUMNS for k in ("value", "low", "high")]
                + [rep.n_segments, rep.n_skipped]
            )
            if study == "H1" and name in PAPER_ROWS:
                short = name.replace(
                    "MiniLM + e5 + map fitted on scored texts", "two enc. + fitted map"
                )
                distributions["Spearman"][short] = rep.per_segment_spearman
                distributions["Kendall"][short] = rep.per_segment_kendall
        clock.say(f"study {study} done")

    paper = [
        "\n### The paper's Table 1 (private data: 70 sentences x 4 engines, one assessor)\n",
        "| row | Spearman / Kendall |",
        "| --- | --- |",
    ]
    paper += [f"| {v.split(':')[0]} | {v.split(': ')[1]} |" for v in PAPER_ROWS.values()]
    signature = (
        f"xlscore signature (two encoders): `{two.signature()}`; multilingual: "
        f"`{multi.signature()}`; bootstrap: {args.n_boot} resamples of segments, "
        f"seed 0; cross-fitting: {args.folds} folds of documents, seed 0."
    )
    write_markdown(
        args.output,
        signature + "\n" + "\n".join(md) + "\n" + "\n".join(paper),
        title="Table 1 on WMT21 en-ru MQM (newstest2021)",
    )
    header = (
        ["study", "metric"]
        + [f"{c}_{k}" for c in COLUMNS for k in ("value", "low", "high")]
        + ["segments", "skipped"]
    )
    write_csv(args.output, header, csv_rows)
    if args.output != "table1":
        return
    correlation_distributions(
        distributions,
        path=RESULTS / "table1_distributions.png",
        title="Per-segment correlation with MQM, WMT21 en-ru, MT only (H1)",
    )
    clock.say("Figure 4 written")
    # Figure 3: the segment whose human scores spread most, its best and worst MT and two between
    by_seg: dict[str, list] = {}
    for r in rows:
        if not r.is_human:
            by_seg.setdefault(r.seg_id, []).append(r)
    seg_id = max(
        (s for s in by_seg if 8 <= len(by_seg[s][0].source.split()) <= 16),
        key=lambda s: (np.std([r.human for r in by_seg[s]]), s),
    )
    cands = sorted(by_seg[seg_id], key=lambda r: -r.human)
    pick = [cands[0], cands[len(cands) // 3], cands[2 * len(cands) // 3], cands[-1]]
    alignment_map(
        two,
        pick[0].source,
        [r.translation for r in pick],
        labels=[f"{r.system} (MQM {r.human:g})" for r in pick],
        path=RESULTS / "figure3_alignment.png",
    )
    clock.say(f"Figure 3 written (segment {seg_id})")
    print(f"done: {command_line()}")


if __name__ == "__main__":
    main()
