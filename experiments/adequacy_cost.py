"""What the adequacy parts of the default cost in speed: the previous default estimator (one
sentence head) against the current one (the same pass with alignment features and a word head,
plus the multilingual similarity the scorer blends in), measured side by side in one run on the
same pairs.

    git show 2a16ff6:xlscore/estimators/qe-e5s.safetensors > /tmp/qe-e5s.safetensors
    python experiments/adequacy_cost.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv \\
        --previous /tmp/qe-e5s.safetensors --pairs 400

Rows: each estimator alone (``QualityEstimator.estimate``), and the whole default
(``XLScorer.offline`` with that estimator: anchors, F1, evidence, and for the current one the
similarity). Each row is timed twice after a warm-up on other pairs, the faster run kept;
model loading is not timed. Writes ``experiments/results/adequacy_cost.md`` (with
``ONEDNN_MAX_CPU_ISA`` set, e.g. to emulate a plain AVX2 CPU: ``adequacy_cost-avx2.md``).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from _results import write_markdown

from xlscore import XLScorer
from xlscore.estimator.model import QualityEstimator
from xlscore.evaluation.agreement import read_judgments


def timed(fn, reps: int = 2) -> float:
    """The fastest of ``reps`` runs of ``fn``, in seconds."""
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    ap.add_argument("--previous", required=True, help="the previous default estimator's file")
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--precision", default="auto")
    args = ap.parse_args()
    rows = [r for r in read_judgments(args.data) if not r.is_human]
    warm, rows = rows[:32], rows[32 : 32 + args.pairs]
    src, mt = [r.source for r in rows], [r.translation for r in rows]
    models = {
        "previous default": QualityEstimator.load(args.previous, precision=args.precision),
        "current default": QualityEstimator.load(precision=args.precision),
    }
    lines = [
        "| what runs | estimator | seconds | pairs/s | relative to the previous |",
        "| --- | --- | --- | --- | --- |",
    ]
    warm_src, warm_mt = [r.source for r in warm], [r.translation for r in warm]
    for what in ("estimator alone", "whole default score"):
        speed = {}
        for name, est in models.items():
            if what == "estimator alone":
                est.estimate(warm_src, warm_mt)

                def run(e=est):
                    return e.estimate(src, mt)
            else:
                scorer = XLScorer.offline(estimator=est, precision=args.precision)
                scorer.score(warm_src, warm_mt)

                def run(sc=scorer):
                    return sc.score(src, mt)

            seconds = timed(run)
            speed[name] = len(src) / seconds
            lines.append(
                f"| {what} | {name} (`{est.signature()}`) | {seconds:.1f} | "
                f"{speed[name]:.1f} | "
                f"{speed[name] / speed['previous default']:.2f}× |"
            )
    isa = os.environ.get("ONEDNN_MAX_CPU_ISA", "native")
    body = (
        f"{len(src)} newstest2021 MT pairs (after a warm-up on 32 others), precision "
        f"`{args.precision}`; CPU: {cpu_name()}, {os.cpu_count()} cores, ISA {isa}. "
        "The faster of two runs of each row.\n\n" + "\n".join(lines)
    )
    name = "adequacy_cost" + ("" if isa == "native" else "-" + isa.lower())
    write_markdown(name, body, title="The cost of the adequacy parts")


if __name__ == "__main__":
    main()
