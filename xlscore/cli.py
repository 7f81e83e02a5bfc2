"""The ``xlscore`` command line: a thin layer over the public API.

Errors a user can cause print one line (``xlscore: error: ...``) and exit with status 2.
"""
from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from . import __version__
from .errors import XLScoreError

EXIT_USAGE = 2


def _add_encoder_options(p: argparse.ArgumentParser, default_model: str) -> None:
    p.add_argument("--model", default=default_model,
                   help=f"pack:NAME, a local folder or a hub name (default {default_model})")
    p.add_argument("--layer", type=int, default=None,
                   help="hidden layer (0 = embeddings, -1 = last; default: the pack's)")
    p.add_argument("--batch-size", type=int, default=32, help="sentences per batch (default 32)")
    p.add_argument("--device", default=None, help="cpu, cuda, cuda:1 ... (default: CUDA if present)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def cmd_embed(args: argparse.Namespace) -> int:
    """Print the words of each line and optionally save their vectors."""
    import numpy as np
    import torch

    from .encoders import Encoder
    from .inputs import read_lines

    lines = read_lines(args.input, allow_empty=True)
    enc = Encoder.load(args.model, layer=args.layer, device=args.device,
                       batch_size=args.batch_size)
    result = enc.embed_words(lines, progress=not args.quiet)
    out = sys.stdout
    print(f"# {enc!r} fingerprint={enc.fingerprint}", file=out)
    for n, wv in enumerate(result, start=1):
        print(f"{n}\t{len(wv)}\t{' '.join(wv.words)}", file=out)
    if args.output:
        vectors = torch.cat([wv.vectors for wv in result]) if result else torch.zeros(0, enc.dim)
        offsets = np.cumsum([0] + [len(wv) for wv in result])
        words = np.array([w for wv in result for w in wv.words], dtype=str)
        np.savez(args.output, vectors=vectors.numpy(), offsets=offsets, words=words)
        print(f"# vectors of {len(words)} words saved to {args.output}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``xlscore`` command."""
    parser = argparse.ArgumentParser(
        prog="xlscore",
        description="Reference-free scoring of English->Russian translations "
                    "(cross-lingual BERTScore over aligned monolingual encoders).")
    parser.add_argument("--version", action="version", version=f"xlscore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("embed", help="word vectors of each line of a file",
                       description="Split each line into words and embed them (the mean of "
                                   "each word's sub-word pieces at one hidden layer).")
    p.add_argument("input", help="text file, one sentence per line (- for stdin)")
    _add_encoder_options(p, "pack:e5-small")
    p.add_argument("--output", "-o", help="save vectors, offsets and words to this .npz file")
    p.set_defaults(func=cmd_embed)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xlscore`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except XLScoreError as err:
        print(f"xlscore: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("xlscore: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
