"""``xlscore fit``: the paper's Procrustes map fitted on a corpus's anchor pairs and saved."""

from __future__ import annotations

import argparse

from xlscore.cli.engine_files import read_corpus
from xlscore.cli.options import (
    add_io_options,
    add_model_options,
    at_least,
    build_scorer,
    input_files,
)
from xlscore.io.outputs import check_output


def add_fit_parser(sub) -> None:
    """Register ``xlscore fit``."""
    from xlscore.text.pairs import CHUNK_PAIRS

    p = sub.add_parser(
        "fit",
        help="fit an alignment on a corpus and save it",
        description="Fit the Procrustes map on the anchor pairs of a corpus "
        "(starting from the dictionary map) and save it for "
        "--alignment PATH.",
    )
    add_io_options(p)
    p.add_argument("--save", required=True, metavar="PATH", help="where to save the map (.npz)")
    p.add_argument("--chunk-size", type=at_least(1), default=CHUNK_PAIRS, help=argparse.SUPPRESS)
    add_model_options(p)
    p.set_defaults(func=cmd_fit)


def cmd_fit(args: argparse.Namespace) -> int:
    sources, engines = read_corpus(args)
    check_output(args.save, input_files(args))
    scorer = build_scorer(args)
    aligner = scorer.paper.fit_alignment(
        sources, engines, chunk_size=args.chunk_size, progress=not args.quiet
    )
    path = aligner.save(args.save)
    print(
        f"saved {path}: {aligner.n_pairs_} anchor pairs from {len(sources)} segments x "
        f"{len(engines)} engine(s), map {aligner.W_.shape[0]}x{aligner.W_.shape[1]}, "
        f"{'reliable' if aligner.reliable else 'NOT reliable (too few pairs)'}, "
        f"digest {aligner.digest}"
    )
    print(f"signature: {scorer.signature()}")
    return 0
