"""``xlscore train``: a quality estimator fine-tuned on judged translations (the training
code is imported only when the command runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from xlscore.cli.options import (
    at_least,
    recipe_type,
)
from xlscore.errors import InputError, OutputError, XLScoreError
from xlscore.io.outputs import check_output, overwritten_input


def add_train_parser(sub) -> None:
    """Register ``xlscore train``."""
    p = sub.add_parser(
        "train",
        help="train a quality estimator on human judgments",
        description="Fine-tune a cross-encoder (default pack:e5-small) on judged "
        "translations and save the compressed weights for "
        "--estimator PATH. Data: MQM, DA or QE TSV files, HTER file "
        "prefixes, or multi-pair files with an lp column (.tsv.gz; one "
        "score scale per pair, release and kind); human translations "
        "and post-edits are used. Interrupted runs continue from the checkpoint "
        "when started again with the same arguments.",
    )
    p.add_argument(
        "--data",
        required=True,
        action="append",
        metavar="PATH",
        help="judged data set (repeat for several; each gets its own score scale)",
    )
    p.add_argument("--output", "-o", required=True, help="the .safetensors file to write")
    p.add_argument("--name", help="the estimator's name in signatures (default: file stem)")
    p.add_argument(
        "--base", default="pack:e5-small", help="model to fine-tune (default pack:e5-small)"
    )
    p.add_argument(
        "--max-sources",
        type=at_least(1),
        metavar="N",
        help="use at most N sources of each data set (drawn at random with a fixed "
        "seed; every translation of a drawn source is kept)",
    )
    p.add_argument(
        "--errors",
        action="append",
        metavar="FILE",
        help="where the errors of the judged translations are, for the word head: an "
        "MQM error-span TSV (column spans) or word-level QE tags (tags, "
        "offsets); repeat for several files",
    )
    p.add_argument(
        "--leave-out",
        action="append",
        metavar="TEST_FILE",
        help="leave out the rows whose English source this en-ru test file holds (the "
        "multi-pair files' enru_source_in column names it); repeat for several",
    )
    p.add_argument(
        "--similarity-weight",
        type=at_least(0, float),
        default=0.0,
        metavar="W",
        help="the score becomes the prediction minus W times (1 - the multilingual "
        "all-words F1 of pack:e5-small); 0: the prediction alone (default, as the "
        "shipped default estimator: the similarity did not earn a place in its score)",
    )
    p.add_argument(
        "--check-weight",
        type=at_least(0, float),
        default=0.0,
        metavar="B",
        help="the score loses B per finding of the checks that measured precise on "
        "machine output (numbers, a dropped negation); default 0",
    )
    p.add_argument(
        "--meaning-blend",
        type=at_least(0, float),
        default=0.0,
        metavar="M",
        help="with --meaning-weight above 0: the score adds M times the meaning head's "
        "output (default 0; choose M on validation data)",
    )
    p.add_argument("--checkpoint", help="checkpoint file (default: OUTPUT.ckpt)")
    p.add_argument("--device", help="cpu, cuda, ... (default: CUDA when present)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    _add_recipe_options(p)
    p.set_defaults(func=cmd_train)


def _add_recipe_options(p: argparse.ArgumentParser) -> None:
    """An option per field of the training recipe. A setting not given is the shipped
    estimator's, read from its file when training starts (not here: the parser reads no model
    file)."""
    from xlscore.estimator.recipe import Recipe  # the record: no training code, no torch

    g = p.add_argument_group(
        "recipe (each default: the shipped estimator's setting, read from its file when "
        "training starts)"
    )
    for f in Recipe.__dataclass_fields__.values():
        g.add_argument("--" + f.name.replace("_", "-"), type=recipe_type(f.default))


def cmd_train(args: argparse.Namespace) -> int:
    from xlscore.cli.options import train_recipe
    from xlscore.estimator.model import QualityEstimator
    from xlscore.io.error_marks import attach_errors, read_error_marks
    from xlscore.io.judgments import leave_out_sources, read_judgments, sample_sources, split_sets
    from xlscore.training import fit
    from xlscore.training.loop import remove_checkpoint

    recipe = train_recipe(args)
    if args.meaning_blend and not recipe.meaning_weight:
        raise XLScoreError("--meaning-blend needs a meaning head: give --meaning-weight above 0")
    out = Path(args.output)
    checkpoint = Path(args.checkpoint) if args.checkpoint else out.with_name(out.name + ".ckpt")
    _check_training_outputs(args, out, checkpoint)
    files = [read_judgments(p, include_human=True) for p in args.data]
    for test in args.leave_out or ():
        files = [leave_out_sources(rows, test) for rows in files]
    if args.max_sources:
        files = [sample_sources(rows, args.max_sources) for rows in files]
    for path, rows in zip(args.data, files):
        if not rows:
            raise InputError("no judged translations", path=path)
    # a file of several language pairs or releases gives one set (one score scale) each
    datasets = [s for rows in files for s in split_sets(rows)]
    marks = {}
    keys = (
        {(r.seg_id, r.system, r.translation) for rows in datasets for r in rows}
        if args.errors
        else set()
    )
    for path in args.errors or ():
        found = read_error_marks(path, lenient=True)
        if not keys & set(found):
            raise InputError(
                "no judged translation of the --data sets matches these error "
                "marks (segment, system and translation must be the same)",
                path=path,
            )
        marks.update(found)
    if marks:
        datasets = [attach_errors(rows, marks) for rows in datasets]
    if checkpoint.exists() and not args.quiet:
        print(f"xlscore: resuming from {checkpoint}", file=sys.stderr)
    est = QualityEstimator(args.base, recipe=recipe, device=args.device)
    fit(est, datasets, progress=not args.quiet, checkpoint=checkpoint)
    est.similarity_weight = args.similarity_weight
    est.meaning_blend = args.meaning_blend
    est.check_weight = args.check_weight
    path = est.save(out, name=args.name)
    remove_checkpoint(checkpoint)
    print(
        f"saved {path} ({path.stat().st_size / 1e6:.2f} MB): {est.signature()}, trained on "
        f"{sum(map(len, datasets))} judged translations from {len(datasets)} set(s) in "
        f"{est.log.steps} steps, {est.log.seconds / 60:.1f} min"
    )
    return 0


def _check_training_outputs(args: argparse.Namespace, out: Path, checkpoint: Path) -> None:
    """``train``'s estimator file and checkpoint checked before anything is read or loaded:
    neither may be one of its inputs (each ``--data`` file, an HTER prefix's files, each
    ``--errors`` file), nor the two one file (the checkpoint is removed once the estimator is
    saved)."""
    inputs = [f"{d}{ext}" for d in args.data for ext in ("", ".src", ".mt", ".hter", ".pe")]
    inputs += args.errors or []
    check_output(out, inputs)
    check_output(checkpoint, inputs)
    if checkpoint.resolve() == out.resolve() or overwritten_input(checkpoint, [out]):
        raise OutputError(
            f"is also the --checkpoint {checkpoint}, which is removed once the estimator is "
            "saved; give two different files",
            path=out,
        )
