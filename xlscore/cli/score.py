"""``xlscore score``: each translation of one or more engines scored against its source, a
score per segment and per engine, written as text, TSV or JSON lines (resumable)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import sys
from pathlib import Path
from typing import TextIO

from xlscore.cli.engine_files import PairProgress, inputs_digest, read_corpus
from xlscore.cli.options import (
    add_fields_option,
    add_io_options,
    add_model_options,
    at_least,
    input_files,
    load_scorer,
    settings_before_loading,
)
from xlscore.errors import InputError
from xlscore.fields import DEFAULT as DEFAULT_FIELDS
from xlscore.io.outputs import check_output, output_lock, writing_to
from xlscore.io.writers import WRITERS, Row, check_resumable, is_finished, resume_state
from xlscore.system_score import SystemScores

#: the command line's status lines (``xlscore: ...`` on standard error, none with ``--quiet``)
log = logging.getLogger("xlscore")


def add_score_parser(sub) -> None:
    """Register ``xlscore score``."""
    from xlscore.text.pairs import CHUNK_PAIRS

    p = sub.add_parser(
        "score",
        help="score translations segment by segment",
        description="Score each translation against its source; prints a "
        "score per segment and a system score per translations "
        "file, with a signature of the settings.",
    )
    add_io_options(p)
    p.add_argument(
        "--format",
        choices=list(WRITERS),
        default="text",
        help="text (default), tsv, or json (one JSON object per line)",
    )
    p.add_argument("--output", "-o", help="write here instead of standard output")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run into the same --output file",
    )
    p.add_argument(
        "--chunk-size",
        type=at_least(1),
        default=CHUNK_PAIRS,
        help=f"pairs embedded and scored at a time (default {CHUNK_PAIRS})",
    )
    p.add_argument(
        "--workers",
        type=at_least(0),
        default=0,
        metavar="N",
        help="run the CPU work in N worker processes beside the model's passes (the same "
        "scores; worth it on a GPU, or on a CPU with cores to spare; the estimator's fields "
        "only, not --fields all); default 0: all in one process",
    )
    add_fields_option(p, DEFAULT_FIELDS)
    add_model_options(p)
    p.set_defaults(func=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    if args.resume and not args.output:
        raise InputError("--resume needs --output FILE")
    out_path = check_output(args.output, input_files(args)) if args.output else None
    sources, engines = read_corpus(args)
    with output_lock(out_path):
        return _score_to(args, sources, engines, out_path)


def _nothing_left(args: argparse.Namespace, path: Path, segments: int) -> int:
    """``score --resume`` of a file that already holds every segment and the system scores:
    it is left as it is, and no model loads."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        first = fh.readline().rstrip("\n")
    if args.format == "json":
        first = str(json.loads(first).get("xlscore", ""))
    log.info("%s already holds all %d segments: nothing left to score", path, segments)
    log.info("%s", first.removeprefix("# ").split(" inputs:")[0])
    return 0


def _score_to(
    args: argparse.Namespace,
    sources: list[str],
    engines: dict[str, list[str]],
    out_path: Path | None,
) -> int:
    """``xlscore score`` once its output is held (:func:`xlscore.io.outputs.output_lock`)."""
    # what must match for --resume to continue a file beyond the scorer's signature: checked
    # before the models load, so that a file of other inputs is refused at once
    run = f"inputs:{inputs_digest(sources, engines)} format:{args.format} chunk:{args.chunk_size}"
    resuming = False
    if args.resume and out_path is not None and out_path.exists() and out_path.stat().st_size:
        check_resumable(out_path, f"{run} {settings_before_loading(args)}")
        writer = WRITERS[args.format](io.StringIO())
        if is_finished(out_path, writer, list(engines), len(sources)):
            return _nothing_left(args, out_path, len(sources))
        resuming = True
    scorer = load_scorer(args)
    names = list(engines)
    # the signature known before scoring (a corpus map's digest comes with the summary)
    head = f"{scorer.signature(sources, engines)} {run}"
    start = 0
    done: dict[str, list[Row]] = {e: [] for e in names}
    out: TextIO
    with writing_to(out_path), contextlib.ExitStack() as stack:  # never closes sys.stdout
        if out_path is not None:
            if resuming:
                start, done = resume_state(
                    out_path, WRITERS[args.format](sys.stdout, scorer.fields), head, names
                )
            if start:
                out = stack.enter_context(open(out_path, "a", encoding="utf-8"))
                log.info("resuming after segment %d of %d", start, len(sources))
            else:
                out = stack.enter_context(open(out_path, "w", encoding="utf-8"))
        else:
            out = sys.stdout
        writer = WRITERS[args.format](out, scorer.fields)
        if start == 0:
            writer.header(head, names)
            out.flush()
        # the system scores from the scores as written (those read back when resuming
        # included), so that a resumed file's system scores are an uninterrupted run's
        systems = SystemScores(names)
        for name in names:
            for row in done[name]:
                systems.add(name, row.score, row.check_cost, row.empty)
        bar = PairProgress(len(sources), len(names), args.quiet, start)
        for i, by in scorer.iter_score(
            sources,
            engines,
            chunk_size=args.chunk_size,
            start=start,
            on_pairs=bar.advance,
            workers=args.workers,
        ):
            for name in names:
                r = by[name]
                writer.row(i + 1, name, r)
                systems.add(
                    name, writer.written(r.score), writer.written(r.check_cost or 0.0), r.is_empty
                )
            bar.finished(i)
            if i % 10 == 9:  # finished segments reach the file soon (a killed run keeps them)
                out.flush()
        bar.close()
        signature = scorer.signature()
        for system in systems.result().values():
            writer.summary(system, signature)
        out.flush()
    if out_path is not None:  # written to standard output, it was said there already
        log.info("%s", signature)
    return 0
