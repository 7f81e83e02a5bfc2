"""``xlscore report``: one self-contained HTML page comparing engines
(:mod:`xlscore.report.page`)."""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import time
from pathlib import Path

from xlscore.cli.options import add_fields_option, add_io_options, add_model_options, at_least
from xlscore.errors import InputError


def add_report_parser(sub) -> None:
    """Register ``xlscore report`` (with the shared input and model/method options)."""
    from xlscore.text.pairs import CHUNK_PAIRS

    p = sub.add_parser(
        "report",
        help="an HTML page comparing engines (ranking, plots, segments, evidence)",
        description="Score several engines' translations (or read a saved `xlscore score "
        "--format json` run with --from) and write one self-contained HTML page: "
        "ranking with intervals and significance, score plots, a sortable and "
        "filterable table of segments, and each segment's word-level evidence.",
    )
    add_io_options(p)
    p.add_argument("--output", "-o", required=True, help="the HTML file to write")
    p.add_argument(
        "--name",
        action="append",
        metavar="NAME",
        help="engine name, once per -t in the same order (default: file names)",
    )
    p.add_argument(
        "--from",
        dest="from_file",
        metavar="SCORES.jsonl",
        help="build the page from a saved `xlscore score --format json` run of the "
        "same -s/-t files instead of scoring again",
    )
    p.add_argument("--title", default="xlscore report", help="the page's title")
    p.add_argument(
        "--n-boot", type=at_least(1), default=1000, help="bootstrap resamples (default 1000)"
    )
    p.add_argument("--chunk-size", type=at_least(1), default=CHUNK_PAIRS, help=argparse.SUPPRESS)
    # the page needs the score and its evidence; the paper's columns (F1/P/R, the anchor
    # lines of the segment view) cost the English encoder and the dictionary map
    add_fields_option(p, "score,evidence")
    add_model_options(p)
    p.set_defaults(func=cmd_report)


def _renamed(engines: dict[str, list[str]], names: list[str] | None) -> dict[str, str]:
    """``{file-derived name: shown name}``."""
    if names is None:
        return {e: e for e in engines}
    if len(names) != len(engines):
        raise InputError(
            f"{len(names)} --name for {len(engines)} translations files: give one "
            "per -t, in the same order"
        )
    if len(set(names)) != len(names) or any(not n.strip() for n in names):
        raise InputError("--name values must be distinct and not empty")
    return dict(zip(engines, names))


def cmd_report(args: argparse.Namespace) -> int:
    from xlscore.cli.engine_files import inputs_digest, read_corpus, score_engines
    from xlscore.cli.options import input_files, load_scorer
    from xlscore.io.outputs import check_output

    # the output is checked first: a wrong -o is refused before the page's libraries load
    check_output(args.output, [*input_files(args), *([args.from_file] if args.from_file else [])])
    sources, engines = read_corpus(args)
    if len(engines) < 2:
        raise InputError("report needs at least two translations files (-t A -t B)")
    shown = _renamed(engines, args.name)
    from xlscore.report.page import read_saved_scores, write_report

    if args.from_file:
        head, final, results = read_saved_scores(args.from_file, list(engines), len(sources))
        digest = inputs_digest(sources, engines)
        if f" inputs:{digest} " not in f" {head} ":
            raise InputError(
                "these scores were made from other input files or engine names "
                f"(the -s/-t files give inputs:{digest})",
                path=args.from_file,
            )
        signature = final or head.split(" inputs:")[0]
    else:
        scored = score_engines(load_scorer(args), sources, engines, args)
        results, signature = scored.segments, scored.signature
    log = logging.getLogger("xlscore")  # status lines: none with --quiet
    start = time.perf_counter()
    log.info("building the page (%d bootstrap resamples, plots)...", args.n_boot)
    path = write_report(
        Path(args.output),
        sources,
        {shown[e]: engines[e] for e in engines},
        [{shown[e]: by[e] for e in engines} for by in results],
        signature=signature,
        command=" ".join(["xlscore"] + [shlex.quote(a) for a in args.argv]),
        n_boot=args.n_boot,
        title=args.title,
    )
    size = path.stat().st_size
    if not args.quiet:
        print(
            f"wrote {path}: {len(engines)} engines, {len(sources)} segments, "
            f"{size / 1024:.0f} KiB (page built in {time.perf_counter() - start:.1f} s)",
            file=sys.stderr,
        )
    return 0
