"""``xlscore embed``: the word vectors of each line of a file."""

from __future__ import annotations

import argparse
import sys

from xlscore.cli.options import (
    parse_layer,
)
from xlscore.encoders.dtypes import DTYPES
from xlscore.io.outputs import check_output


def add_embed_parser(sub) -> None:
    """Register ``xlscore embed``."""
    p = sub.add_parser(
        "embed",
        help="word vectors of each line of a file",
        description="Split each line into words and embed them (the mean of "
        "each word's sub-word pieces at one hidden layer).",
    )
    p.add_argument("input", help="text file, one sentence per line (- for stdin)")
    p.add_argument(
        "--model",
        default="pack:e5-small",
        help="pack:NAME, a local folder or a hub name (default pack:e5-small)",
    )
    p.add_argument("--layer", help="hidden layer (default: the pack's)")
    p.add_argument(
        "--dtype",
        "--precision",  # its former name, kept so that old command lines still run
        choices=list(DTYPES),
        default="auto",
        help="auto (default), fp32 (exact), bf16 or fp16 (int8 is refused: it failed the "
        "ship gate)",
    )
    p.add_argument("--device")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--output", "-o", help="save vectors, offsets and words to this .npz file")
    p.set_defaults(func=cmd_embed)


def cmd_embed(args: argparse.Namespace) -> int:
    """Print the words of each line and optionally save their vectors."""
    import numpy as np
    import torch

    from xlscore.encoders.encoder import Encoder
    from xlscore.io.inputs import read_lines

    lines = read_lines(args.input, allow_empty=True)
    if args.output:  # numpy adds .npz to a name without it
        saved = args.output if args.output.endswith(".npz") else f"{args.output}.npz"
        check_output(saved, [args.input])
    enc = Encoder.load(
        args.model, layer=parse_layer(args.layer), device=args.device, dtype=args.dtype
    )
    result = enc.embed_words(lines, progress=not args.quiet)
    print(f"# {enc!r} fingerprint={enc.fingerprint}")
    for n, wv in enumerate(result, start=1):
        print(f"{n}\t{len(wv)}\t{' '.join(wv.words)}")
    if args.output:
        vectors = torch.cat([wv.vectors for wv in result]) if result else torch.zeros(0, enc.dim)
        offsets = np.cumsum([0] + [len(wv) for wv in result])
        words = np.array([w for wv in result for w in wv.words], dtype=str)
        np.savez(args.output, vectors=vectors.numpy(), offsets=offsets, words=words)
        if not args.quiet:
            print(f"# vectors of {len(words)} words saved to {args.output}", file=sys.stderr)
    return 0
