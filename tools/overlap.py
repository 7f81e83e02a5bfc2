"""The default's speed with its CPU work in worker processes beside the estimator's passes
(``XLScorer.score(..., workers=N)``, :mod:`xlscore.scoring.blocks`), on a GPU or a CPU, in one run:

    python tools/overlap.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv \\
        --device cuda --workers 0,4,8,14 --repeat 4

Rows, each on the same pairs (the judged MT translations, ``--repeat`` times over, so that a
fast device runs long enough to time):

* the estimator's passes alone (the pairs read into pieces beforehand, untimed): the ceiling
  of any overlap on this device;
* the default (``fields="score,evidence"``) with each number of workers; every run's scores
  must equal the first's to the last bit (exit status 1 otherwise);
* with ``--check``: the default in fp32 on the device and on this machine's CPU over the first
  ``--check`` pairs, their largest difference;
* ``bert_score`` (when installed) on the same pairs, device, e5@9 and batch size 64.

Models load before timing; a first block warms the device. Writes
``experiments/results/NAME.md`` (``--out``, default ``overlap``) and prints the table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

from _results import cpu_name, write_markdown
from bench import _pairs


def _timed(fn) -> tuple[float, object]:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()
    t = time.perf_counter()
    out = fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter() - t, out


def passes_alone(scorer, src: list[str], mt: list[str]) -> float:
    """Seconds of the estimator's passes over the distinct pairs of each block of the
    default's pipeline, the pieces read beforehand (untimed)."""
    from xlscore.estimator.prediction import PassQueue, read_pairs
    from xlscore.scoring.blocks import BLOCK_PAIRS

    est = scorer.estimator
    size = BLOCK_PAIRS.get(est.device.type, BLOCK_PAIRS["cpu"])
    inputs = [
        read_pairs(est, src[k : k + size], mt[k : k + size]) for k in range(0, len(src), size)
    ]

    def run() -> None:
        queue = PassQueue(est, details=True)
        for i in inputs:
            queue.add_all(i)
            queue.run(flush=False)
        queue.run(flush=True)

    return _timed(run)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--limit", type=int, default=0, help="first N sources (0: all)")
    ap.add_argument("--repeat", type=int, default=1, help="the pairs this many times over")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="auto")
    ap.add_argument("--workers", default="0,1,2", help="comma-separated numbers of workers")
    ap.add_argument("--check", type=int, default=0, help="pairs compared with the CPU in fp32")
    ap.add_argument("--no-bert-score", action="store_true")
    ap.add_argument("--out", default="overlap")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import torch

    from xlscore import XLScorer

    src, mt = _pairs(args.data, args.limit)
    src, mt = src * args.repeat, mt * args.repeat
    n = len(src)
    scorer = XLScorer.offline(device=args.device, dtype=args.dtype)
    est = scorer.estimator
    scorer.score(src[:300], mt[:300])  # warm: caches, kernels, the lexicon's tables
    gpu = torch.cuda.get_device_name() if est.device.type == "cuda" else None
    rows: list[tuple[str, float, str]] = []
    figures: dict = {"pairs": n, "device": gpu or cpu_name(), "cores": os.cpu_count()}
    sec = passes_alone(scorer, src, mt)
    rows.append(("the estimator's passes alone (pieces read beforehand)", sec, ""))
    figures["passes"] = sec
    first = None
    for w in [int(x) for x in args.workers.split(",")]:
        sec, res = _timed(lambda w=w: scorer.score(src, mt, workers=w))
        scores = [r.score for r in res]
        same = first is None or scores == first
        first = first or scores
        rows.append(
            (
                f"default ({est.signature()}), score and evidence, {w} worker(s)",
                sec,
                f"{figures['passes'] / sec:.0%} of the time in passes"
                + ("" if same else "; SCORES DIFFER from the first run"),
            )
        )
        figures[f"workers-{w}"] = sec
        if not same:
            figures["differ"] = True
    if args.check:
        k = min(args.check, n)
        here = XLScorer.offline(device=args.device, dtype="fp32")
        w = max(int(x) for x in args.workers.split(","))
        dev = [r.score for r in here.score(src[:k], mt[:k], workers=w)]
        cpu = [r.score for r in XLScorer.offline(device="cpu", dtype="fp32").score(src[:k], mt[:k])]
        diff = max(abs(a - b) for a, b in zip(dev, cpu))
        figures["fp32-vs-cpu"] = diff
        rows.append((f"fp32 on {args.device} vs this machine's CPU, {k} pairs", float("nan"),
                     f"largest difference {diff:.2e}"))  # fmt: skip
    if not args.no_bert_score:
        try:
            from bert_score import BERTScorer

            from xlscore import packs

            bsc = BERTScorer(
                model_type=str(packs.path("e5-small")), num_layers=9, device=args.device,
                batch_size=64,
            )  # fmt: skip
            bsc.score(mt[:300], src[:300])
            sec, _ = _timed(lambda: bsc.score(mt, src))
            rows.append(("bert_score 0.3.13, e5@9, batch_size=64", sec, ""))
            figures["bert_score"] = sec
        except ImportError:
            pass
    bert = figures.get("bert_score")
    table = ["| run | seconds | pairs/s | note |", "| --- | --- | --- | --- |"]
    for label, sec, note in rows:
        if sec != sec:  # a check, not a timing
            table.append(f"| {label} |  |  | {note} |")
            continue
        extra = f"; {bert / sec:.2f}× bert_score's pairs/s" if bert and "default" in label else ""
        table.append(f"| {label} | {sec:.2f} | {n / sec:.0f} | {note}{extra} |")
    head = (
        f"{n} pairs ({len(set(src))} distinct sources, the pairs {args.repeat}× over) on "
        f"{gpu or 'the CPU'}; {cpu_name()}, {os.cpu_count()} CPU cores, torch threads "
        f"{torch.get_num_threads()}. One process; models loaded and a first block run before "
        "timing."
    )
    body = head + "\n\n" + "\n".join(table) + "\n"
    print(body)
    write_markdown(args.out, body, title="Workers beside the estimator's passes")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return 1 if figures.get("differ") else 0


if __name__ == "__main__":
    sys.exit(main())
