"""The texts named on the command line: sources and each engine's translations read and
checked, their digest (for resuming), and scoring them with a progress bar."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from xlscore.errors import InputError

if TYPE_CHECKING:
    from xlscore.scoring.corpus_result import CorpusResult


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


def progress(total: int, quiet: bool, desc: str, unit: str = "seg", initial: int = 0):
    """A bar on standard error (none when ``quiet``); ``initial``: what was done before, which
    its rate does not count."""
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        disable=quiet,
        dynamic_ncols=True,
        initial=initial,
    )


class PairProgress:
    """A bar over the pairs of a corpus (segments × engines): it moves with every pass of the
    estimator inside a chunk (:meth:`advance`, the scorer's ``on_pairs``) and lands on each
    segment as it is finished (:meth:`finished`), so that a corpus of one chunk does not jump
    from 0 to the end. A resumed run's bar starts at the pairs of its ``start`` segments,
    which its rate does not count."""

    def __init__(self, segments: int, engines: int, quiet: bool, start: int = 0) -> None:
        self.engines = engines
        self.bar = progress(segments * engines, quiet, "scoring", "pair", start * engines)

    def advance(self, pairs: int) -> None:
        self.bar.update(max(0, min(pairs, self.bar.total - self.bar.n)))

    def finished(self, segment: int) -> None:
        """Segment ``segment`` (0-based) and those before it are done."""
        self.bar.update(max(0, (segment + 1) * self.engines - self.bar.n))

    def close(self) -> None:
        self.bar.close()


def score_engines(
    scorer, sources: list[str], engines: dict[str, list[str]], args: argparse.Namespace
) -> CorpusResult:
    """The scored corpus (:meth:`XLScorer.score_corpus
    <xlscore.scoring.scorer.XLScorer.score_corpus>`: every segment's results by engine, the
    system scores, the signature), with a progress bar."""
    bar = PairProgress(len(sources), len(engines), args.quiet)
    result = scorer.score_corpus(
        sources,
        engines,
        chunk_size=args.chunk_size,
        on_pairs=bar.advance,
        on_segment=bar.finished,
    )
    bar.close()
    return result
