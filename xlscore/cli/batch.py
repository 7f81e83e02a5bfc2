"""``xlscore batch``: score files of pairs on Ray
(:func:`xlscore.batch.distributed.score_dataset`)."""

from __future__ import annotations

import argparse
import logging
import sys

from xlscore.cli.options import add_fields_option, add_model_options, at_least
from xlscore.fields import DEFAULT as DEFAULT_FIELDS
from xlscore.io.pairfiles import ROWS_PER_FILE


def add_batch_parser(sub) -> None:
    """Register ``xlscore batch`` (with the model and method options that ``score`` has)."""
    p = sub.add_parser(
        "batch",
        help="score files of pairs on Ray (a local instance or a cluster)",
        description="Score every (source, translation) row of Parquet, JSON-lines or TSV files "
        "(or folders of them) with Ray Data, writing Parquet files of scores with "
        "the signature in their metadata. The scores are those `xlscore score` "
        "gives. Started again with the same arguments, a job keeps the files it "
        'finished. Needs `pip install "xlscore[ray]"`.',
    )
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="a .parquet, .jsonl or .tsv file, or a folder of them",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="DIR",
        help="folder for the part-NNNNNN.parquet files",
    )
    _add_cluster_options(p)
    _add_column_options(p)
    p.add_argument(
        "--keep-text", action="store_true", help="copy source and translation into the output"
    )
    p.add_argument(
        "--overwrite", action="store_true", help="replace another job's output in the folder"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    add_fields_option(p, DEFAULT_FIELDS)
    add_model_options(p)
    p.set_defaults(func=cmd_batch)


def _add_cluster_options(p: argparse.ArgumentParser) -> None:
    """Where the job runs: the Ray instance, its actors and their share of the machine."""
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="join a running Ray cluster ('auto', or HOST:PORT); default: start a "
        "local Ray instance for this job",
    )
    p.add_argument(
        "--workers",
        type=at_least(1),
        default=1,
        help="scoring actors, each with its own models (default 1)",
    )
    p.add_argument(
        "--gpus-per-worker",
        type=at_least(0.0, float),
        default=0.0,
        help="GPUs per actor (default 0; 1 = one actor per GPU)",
    )
    p.add_argument(
        "--cpus-per-worker",
        type=at_least(0.0, float),
        help="CPUs Ray reserves per actor (default: 1, or less where the actors "
        "would leave no CPU to read with)",
    )
    p.add_argument(
        "--threads",
        type=at_least(1),
        help="torch threads per actor (default: the node's CPUs / workers on a "
        "one-node Ray, else the CPUs per worker)",
    )
    p.add_argument(
        "--rows-per-file",
        type=at_least(1),
        default=ROWS_PER_FILE,
        help=f"rows per work unit and output file (default {ROWS_PER_FILE})",
    )
    p.add_argument(
        "--ray-temp",
        metavar="DIR",
        help="Ray's temporary files for a local instance (default TMPDIR/xlscore-ray-UID)",
    )


def _add_column_options(p: argparse.ArgumentParser) -> None:
    """Which columns of the input files hold what, and what an empty text is."""
    p.add_argument("--source-col", default="source", help="column of sources (default source)")
    p.add_argument(
        "--translation-col",
        default="translation",
        help="column of translations (default translation)",
    )
    p.add_argument(
        "--id-col",
        default="id",
        help="column of ids, used when present (default id; else FILE:LINE)",
    )
    p.add_argument(
        "--engine-col",
        default="engine",
        help="column of engine names, used when present (default engine)",
    )
    p.add_argument(
        "--allow-empty",
        action="store_true",
        help="score empty texts (at the floor, the lowest score; flagged 'empty') instead of "
        "marking them errors",
    )


def cmd_batch(args: argparse.Namespace) -> int:
    from xlscore.batch.distributed import score_dataset
    from xlscore.batch.output import RAY_LOG
    from xlscore.cli.options import scorer_options
    from xlscore.io.pairfiles import PairColumns

    summary = score_dataset(
        args.inputs,
        args.output,
        scorer=scorer_options(args),
        columns=PairColumns(args.source_col, args.translation_col, args.id_col, args.engine_col),
        workers=args.workers,
        gpus_per_worker=args.gpus_per_worker,
        cpus_per_worker=args.cpus_per_worker,
        threads_per_worker=args.threads,
        rows_per_file=args.rows_per_file,
        allow_empty=args.allow_empty,
        keep_text=args.keep_text,
        overwrite=args.overwrite,
        ray_address=args.ray,
        temp_dir=args.ray_temp,
        progress=not args.quiet,
    )
    kept = f", {summary.skipped_units} kept from an earlier run" if summary.skipped_units else ""
    log = logging.getLogger("xlscore")  # status lines: none with --quiet
    log.info(
        "%d rows in %d files under %s%s (%.0f s)",
        summary.rows,
        summary.units,
        summary.output,
        kept,
        summary.seconds,
    )
    if summary.error_rows:
        print(
            f"xlscore: warning: {summary.error_rows} rows not scored (column 'error'), e.g. "
            + "; ".join(summary.first_errors[:3]),
            file=sys.stderr,
        )
    if summary.ray_lines:
        log.info("Ray logged %d lines of its own: %s", summary.ray_lines, summary.output / RAY_LOG)
    log.info("%s", summary.signature)
    return 0
