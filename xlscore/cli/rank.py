"""``xlscore rank``: the engines' translations of each segment ranked, and the engines overall
(mean score, wins, mean rank) with paired bootstrap tests."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import TextIO

from xlscore.cli.engine_files import read_corpus, score_engines
from xlscore.cli.options import (
    add_fields_option,
    add_io_options,
    add_model_options,
    at_least,
    input_files,
    load_scorer,
)
from xlscore.errors import InputError
from xlscore.io.outputs import check_output, writing_to


def add_rank_parser(sub) -> None:
    """Register ``xlscore rank``."""
    from xlscore.text.pairs import CHUNK_PAIRS

    p = sub.add_parser(
        "rank",
        help="rank several engines per segment and overall",
        description="Rank the engines' translations of each segment and "
        "overall (mean score, wins, mean rank), with paired "
        "bootstrap tests between engines.",
    )
    add_io_options(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--output", "-o", help="write here instead of standard output")
    p.add_argument("--segments", action="store_true", help="also list each segment's ranking")
    p.add_argument(
        "--n-boot", type=at_least(1), default=1000, help="bootstrap resamples (default 1000)"
    )
    p.add_argument("--chunk-size", type=at_least(1), default=CHUNK_PAIRS, help=argparse.SUPPRESS)
    add_fields_option(p, "score")
    add_model_options(p)
    p.set_defaults(func=cmd_rank)


def cmd_rank(args: argparse.Namespace) -> int:
    out_path = check_output(args.output, input_files(args)) if args.output else None
    sources, engines = read_corpus(args)
    if len(engines) < 2:
        raise InputError("rank needs at least two translations files (-t A -t B)")
    result = score_engines(load_scorer(args), sources, engines, args)
    comparison, signature = result.compare(n_boot=args.n_boot), result.signature
    with writing_to(out_path), contextlib.ExitStack() as stack:  # never closes sys.stdout
        out: TextIO = (
            stack.enter_context(open(args.output, "w", encoding="utf-8"))
            if args.output
            else sys.stdout
        )
        if args.format == "json":
            json.dump(
                {**comparison.to_dict(segments=args.segments), "signature": signature},
                out,
                ensure_ascii=False,
                indent=1,
            )
            out.write("\n")
        else:
            _print_ranking(out, comparison, args.segments, len(sources), signature)
    return 0


def _print_ranking(out: TextIO, comparison, segments: bool, n: int, signature: str) -> None:
    table = comparison.engines
    w = max(len("engine"), *(len(r.engine) for r in table))
    out.write(
        f"Engines ranked by mean score over {n} segments "
        f"(95% bootstrap interval, {comparison.n_boot} resamples):\n\n"
    )
    out.write(
        f"  {'#':>2}  {'engine':<{w}}  {'mean score':>10}  {'95% interval':^19}  "
        f"{'wins':>5}  {'mean rank':>9}\n"
    )
    for k, r in enumerate(table, start=1):
        out.write(
            f"  {k:>2}  {r.engine:<{w}}  {r.mean:>+10.4f}  "
            f"[{r.low:+.4f}, {r.high:+.4f}]  {r.wins:>5}  {r.mean_rank:>9.2f}\n"
        )
    for r in table:
        if r.empty:
            out.write(
                f"\n  {r.engine}: {r.empty} empty segment(s), scored at the floor (the lowest "
                f"score); without them its mean would be {r.mean + r.empty_cost:+.4f}\n"
            )
    out.write("\nPaired bootstrap (segments resampled; p: two-sided, no difference):\n\n")
    for p in comparison.pairs:
        mark = "*" if p.significant else " "
        out.write(
            f"  {p.a:<{w}} vs {p.b:<{w}}  delta {p.delta:+.4f} "
            f"[{p.low:+.4f}, {p.high:+.4f}]  p = {p.p:.3f} {mark}\n"
        )
    out.write("\n  * significant at 0.05\n")
    if segments:
        out.write("\nPer segment (best first):\n")
        for seg in comparison.segments:
            ranked = ", ".join(f"{e} {seg.scores[e]:+.4f}" for e in seg.ranking)
            out.write(f"  {seg.segment:>5}: {ranked}\n")
    out.write(f"\nsignature: {signature}\n")
