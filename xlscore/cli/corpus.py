"""The texts named on the command line: sources and each engine's translations read and
checked, their digest (for resuming), and scoring them with a progress bar."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from xlscore.errors import InputError


def _read(path: str, column: str | None, allow_empty: bool) -> list[str]:
    from xlscore.io.inputs import read_columns, read_lines

    if column:
        return read_columns(path, [column], allow_empty=allow_empty)[column]
    return read_lines(path, allow_empty=allow_empty)


def read_corpus(args: argparse.Namespace) -> tuple[list[str], dict[str, list[str]]]:
    """Sources and each engine's translations, checked to be line-parallel."""
    from xlscore.io.inputs import check_parallel

    if args.mt.count("-") + (args.src == "-") > 1:
        raise InputError("standard input can be read only once")
    sources = _read(args.src, args.src_col, args.allow_empty)
    if not sources:
        raise InputError("no segments", path=args.src)
    engines: dict[str, list[str]] = {}
    for path in args.mt:
        name = "stdin" if path == "-" else "_".join(Path(path).stem.split()) or "mt"
        base, k = name, 2
        while name in engines:
            name, k = f"{base}#{k}", k + 1
        engines[name] = _read(path, args.mt_col, args.allow_empty)
    check_parallel(args.src, sources, list(zip(args.mt, engines.values())))
    return sources, engines


def inputs_digest(sources: list[str], engines: dict[str, list[str]]) -> str:
    h = hashlib.sha256()
    for text in sources + [f"\x00{n}" for n in engines] + [t for v in engines.values() for t in v]:
        h.update(text.encode("utf-8") + b"\n")
    return h.hexdigest()[:16]


def progress(total: int, quiet: bool, desc: str):
    from tqdm.auto import tqdm

    return tqdm(
        total=total, desc=desc, unit="seg", file=sys.stderr, disable=quiet, dynamic_ncols=True
    )


def score_engines(
    scorer, sources: list[str], engines: dict[str, list[str]], args: argparse.Namespace
) -> list[dict]:
    """``{engine: ScoreResult}`` of every segment, with a progress bar."""
    results = []
    bar = progress(len(sources), args.quiet, "scoring")
    for _, by in scorer.iter_score(sources, engines, chunk_size=args.chunk_size):
        results.append(by)
        bar.update(1)
    bar.close()
    return results
