"""Does the fast arithmetic change agreement with people? The exact path (``--dtype fp32``)
against the default (``auto``: :data:`xlscore.encoders.arithmetic.AUTO`) and int8 (the
estimator's, through ONNX Runtime), on every MT translation of both MQM sets. The ship gate of
an arithmetic is ``gate_arithmetic.py``; this is the study before it.

    python experiments/precision.py --data-dir ../shared/data

For each scorer (the default: the estimator's score; the multilingual e5@9 all-words F1 of the
bench's comparison with bert_score) and each precision: per-segment Kendall and system-level
Kendall with MQM on WMT21 newstest (14 MT systems), Spearman on the WMT22 dev set (single
translations, the QE setting), each with its 95% bootstrap interval, the hand-written challenge
set (correct translation ranked first, in all and in the weakest category), and the largest
change of any score against fp32. Which of the two sets the shipped estimator never saw is
:data:`HELD_OUT` (on the other one the figures measure fit, and compare precisions only); the
multilingual F1 involves no training. Run it with the emulation
variables (``_results.AVX2_ENV``) to measure on a plain AVX2 CPU, where ``auto`` is
fp32. Writes experiments/results/precision.md (``--output NAME``: another name).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
import numpy as np
from _results import cpu_name, write_markdown

from xlscore import Lexicon, XLScorer
from xlscore.estimator.model import shipped
from xlscore.evaluation.agreement import agreement, read_judgments
from xlscore.evaluation.challenge import read_challenge, run_challenge

CHALLENGE = Path(__file__).resolve().parent.parent / "data" / "challenge" / "challenge.tsv"

DTYPES = ("fp32", "auto", "int8")

#: per shipped estimator, the MQM set of this study its training left out
HELD_OUT = {"rtm15-e5s": "the WMT22 dev set", "adq-e5s": "newstest2021"}


def _scorer(kind: str, dtype: str) -> XLScorer:
    if kind == "default":
        return XLScorer.offline(dtype=dtype)
    return XLScorer.offline(
        multilingual="pack:e5-small",
        layer=9,
        variant="all",
        estimator=None,
        lexicon=Lexicon.mueller7(),
        dtype=dtype,
    )


def _scores(scorer: XLScorer, kind: str, rows) -> np.ndarray:
    res = scorer.score([r.source for r in rows], [r.translation for r in rows])
    return np.array([r.score if kind == "default" else r.f1 for r in res])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="the shared data folder")
    ap.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples")
    ap.add_argument("--output", default="precision", help="results file name (no .md)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    sets = {
        "news": read_judgments(args.data_dir / "wmt21-enru-mqm-newstest2021.tsv"),
        "qe22": read_judgments(args.data_dir / "wmt22-enru-mqm-dev.tsv"),
    }
    cases = read_challenge(CHALLENGE)
    lines = [
        "| scorer | precision | signature part | newstest per-seg Kendall | newstest "
        "system Kendall | WMT22 dev Spearman | challenge: correct first (weakest "
        "category) | largest change vs fp32 (newstest / WMT22) | seconds |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for kind in ("default", "multilingual"):
        exact: dict[str, np.ndarray] = {}
        for dtype in DTYPES:
            if dtype == "int8" and kind != "default":
                continue  # int8 is the estimator's alone (issue 83)
            scorer = _scorer(kind, dtype)
            part = (
                scorer.estimator.signature()
                if kind == "default"
                else "ru:" + scorer.signature().split("|ru:")[1].split("|")[0]
            )
            t = time.perf_counter()
            got = {name: _scores(scorer, kind, rows) for name, rows in sets.items()}
            seconds = time.perf_counter() - t
            if dtype == "fp32":
                exact = got
            stats = {}
            for name, rows in sets.items():
                stats[name] = agreement(
                    [r.seg_id for r in rows],
                    [r.system for r in rows],
                    [r.human for r in rows],
                    got[name],
                    n_boot=args.n_boot,
                )
            change = " / ".join(f"{np.abs(got[n] - exact[n]).max():.4f}" for n in sets)
            table = run_challenge(scorer, cases)
            weakest = min(table, key=lambda k: table[k].wins / table[k].total)
            challenge = (
                f"{sum(r.wins for r in table.values())}/{len(cases)} ({weakest} "
                f"{table[weakest].wins}/{table[weakest].total})"
            )
            lines.append(
                f"| {kind} | {dtype} | `{part}` | {stats['news']['seg_kendall']} | "
                f"{stats['news']['sys_kendall']} | {stats['qe22']['global_spearman']} "
                f"| {challenge} | {change} | {seconds:.0f} |"
            )
            print(lines[-1], flush=True)
            del scorer
    import torch

    est = shipped().name
    if est not in HELD_OUT:
        raise SystemExit(f"say in HELD_OUT which MQM set the shipped {est} was trained without")
    held_out = HELD_OUT[est]
    (seen,) = {"newstest2021", "the WMT22 dev set"} - {held_out}
    write_markdown(
        args.output,
        "\n".join(
            [
                f"{sum(len(r) for r in sets.values())} MT translations (newstest2021: "
                f"{len(sets['news'])}, WMT22 dev: {len(sets['qe22'])}); 95% bootstrap intervals "
                f"over segments ({args.n_boot} resamples); {len(cases)} challenge pairs. Seconds: "
                f"scoring both MQM sets on this machine ({cpu_name()}, kernels at "
                f"{torch.backends.cpu.get_cpu_capability()}, 2 CPU cores; model loading not "
                f"timed). The default's estimator ({est}) was trained without {held_out} (its "
                f"figures there are held out) and on {seen} (there its rows compare precisions "
                "only).",
                "",
                *lines,
            ]
        ),
        title="Exact and fast arithmetic: agreement with MQM",
    )


if __name__ == "__main__":
    main()
