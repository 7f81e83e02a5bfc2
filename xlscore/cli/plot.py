"""``xlscore plot alignment``: a source and its translations after the paper's alignment."""

from __future__ import annotations

import argparse

from xlscore.cli.options import (
    add_model_options,
    build_scorer,
    model_files,
)
from xlscore.errors import InputError
from xlscore.io.outputs import check_output


def add_plot_parser(sub) -> None:
    """Register ``xlscore plot``."""
    p = sub.add_parser("plot", help="figures", description="Draw figures.")
    plots = p.add_subparsers(dest="figure", metavar="FIGURE")
    plots.required = True
    q = plots.add_parser(
        "alignment", help="a source and its translations after alignment (the paper's Figure 3)"
    )
    q.add_argument("-s", "--src", required=True, help="the English source sentence")
    q.add_argument(
        "-t", "--mt", required=True, action="append", help="a Russian translation (repeat)"
    )
    q.add_argument("-o", "--output", required=True, help="PNG file to write")
    add_model_options(q)
    q.set_defaults(func=cmd_plot)


def cmd_plot(args: argparse.Namespace) -> int:
    from xlscore.report.plots import alignment_map

    if not args.src.strip() or not all(t.strip() for t in args.mt):
        raise InputError("plot alignment needs a non-empty source and translations")
    check_output(args.output, model_files(args))
    scorer = build_scorer(args)
    alignment_map(scorer, args.src, args.mt, path=args.output)
    print(f"saved {args.output}")
    return 0
