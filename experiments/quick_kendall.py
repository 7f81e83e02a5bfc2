"""Quick check of the scorer on WMT21 en-ru MQM (MT systems only): mean per-segment Kendall
tau-b of the anchor variant against the multilingual all-words baseline.

    python experiments/quick_kendall.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv [--limit N]

Superseded for publication by experiments/table1.py; kept because issue notes quote it.
"""
from __future__ import annotations

import argparse
import random
import time

from _results import write_markdown

from xlscore import XLScorer
from xlscore.alignment import ProcrustesAligner
from xlscore.evaluate import per_segment, read_judgments


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--limit", type=int, default=0, help="first N segments only")
    args = ap.parse_args()
    rows = read_judgments(args.data)
    if args.limit:
        keep = list(dict.fromkeys(r.seg_id for r in rows))[:args.limit]
        rows = [r for r in rows if r.seg_id in set(keep)]
    src, mt = [r.source for r in rows], [r.translation for r in rows]
    seg, human = [r.seg_id for r in rows], [r.human for r in rows]
    print(f"{len(rows)} pairs, {len(set(seg))} segments")
    lines = ["| configuration | mean per-segment Kendall tau-b | segments (skipped) |",
             "| --- | --- | --- |"]

    def report(name, results):
        mean, vals, skipped = per_segment(seg, human, [x.score for x in results])
        lines.append(f"| {name} | {mean:+.4f} | {len(vals)} ({skipped}) |")
        print(lines[-1], flush=True)

    t = time.time()
    two = XLScorer.offline()
    corpus = two.prepare(src, mt, progress=True)
    print(f"prepared two-encoder corpus in {time.time() - t:.0f} s", flush=True)
    for variant in ("all", "anchors"):
        report(f"minilm+e5, dictionary map, {variant}",
               two.score_prepared(corpus, variant, aligner=two.dictionary_map()))
    corpus_map = two._corpus_aligner(corpus, False)
    for variant in ("all", "anchors"):
        report(f"minilm+e5, map fitted on scored corpus, {variant}",
               two.score_prepared(corpus, variant, aligner=corpus_map))
    docs = sorted({r.doc for r in rows})
    random.Random(0).shuffle(docs)
    half = set(docs[: len(docs) // 2])
    fold = [r.doc in half for r in rows]
    results = [None] * len(rows)
    for side in (True, False):
        train = [i for i, f in enumerate(fold) if f != side]
        test = [i for i, f in enumerate(fold) if f == side]
        sub = lambda idx: type(corpus)([corpus.src[i] for i in idx], [corpus.mt[i] for i in idx],
                                       [corpus.anchors[i] for i in idx])
        aligner = two._corpus_aligner(sub(train), False)
        for i, res in zip(test, two.score_prepared(sub(test), "anchors", aligner=aligner)):
            results[i] = res
    report("minilm+e5, map fitted on the other half (by doc), anchors", results)
    t = time.time()
    multi = XLScorer(multilingual="pack:e5-small", lexicon=two.lexicon)
    mcorpus = multi.prepare(src, mt, progress=True)
    print(f"prepared multilingual corpus in {time.time() - t:.0f} s", flush=True)
    for variant in ("all", "anchors"):
        report(f"e5 multilingual, no alignment, {variant}", multi.score_prepared(mcorpus, variant))
    write_markdown("quick_kendall", f"{len(rows)} pairs (MT systems only), {len(set(seg))} "
                   "segments; segments whose human scores are all equal are skipped.\n\n"
                   + "\n".join(lines), title="Quick check: per-segment Kendall on WMT21 en-ru MQM")


if __name__ == "__main__":
    main()
