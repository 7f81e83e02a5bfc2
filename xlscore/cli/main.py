"""The ``xlscore`` command line: a thin layer over the public API.

Commands: ``score``, ``rank``, ``batch`` (:mod:`xlscore.cli.batch`), ``fit``, ``evaluate``,
``plot alignment``, ``lexicon build|lookup``, ``embed``. Errors a user can cause print one
line (``xlscore: error: ...``) and exit with status 2; warnings print one line each
(``xlscore: warning: ...``).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Sequence

from xlscore._version import __version__
from xlscore.cli.batch import add_batch_parser
from xlscore.cli.commands import (
    cmd_embed,
    cmd_evaluate,
    cmd_fit,
    cmd_lexicon,
    cmd_plot,
    cmd_rank,
    cmd_score,
    cmd_train,
)
from xlscore.cli.options import (
    EXIT_USAGE,
    add_fields_option,
    add_io_options,
    add_model_options,
    at_least,
    recipe_type,
    settle_translations,
)
from xlscore.cli.report import add_report_parser
from xlscore.encoders.dtypes import DTYPES
from xlscore.errors import XLScoreError
from xlscore.fields import DEFAULT as DEFAULT_FIELDS
from xlscore.io.writers import WRITERS


# ---------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``xlscore`` command."""
    from xlscore.metric.corpus import CHUNK_PAIRS

    parser = argparse.ArgumentParser(
        prog="xlscore",
        description="Reference-free scoring of English->Russian translations. The score is a "
        "quality estimator (multilingual e5-small fine-tuned on human judgments of machine "
        "translation, one pass per pair) minus a penalty per number or negation mismatch; "
        "--preset paper gives Vetrov & Gorn's cross-lingual BERTScore over two aligned "
        "monolingual encoders and anchor words instead. Runs offline with the packs it "
        "installs.",
        epilog="Run `xlscore COMMAND --help` for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"xlscore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

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

    p = sub.add_parser(
        "rank",
        help="rank several engines per segment and overall",
        description="Rank the engines' translations of each segment and "
        "overall (mean score, wins, mean rank), with paired "
        "bootstrap tests between engines.",
    )
    add_io_options(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--output", "-o", help="write here instead of standard output")
    p.add_argument("--segments", action="store_true", help="also list each segment's ranking")
    p.add_argument(
        "--n-boot", type=at_least(1), default=1000, help="bootstrap resamples (default 1000)"
    )
    p.add_argument("--chunk-size", type=at_least(1), default=CHUNK_PAIRS, help=argparse.SUPPRESS)
    add_fields_option(p, "score")
    add_model_options(p)
    p.set_defaults(func=cmd_rank)

    add_report_parser(sub)
    add_batch_parser(sub)

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

    p = sub.add_parser(
        "evaluate",
        help="agreement with human judgments",
        description="Score a TSV of human-judged translations (columns seg_id, "
        "system, source, translation, human_score; see the shared "
        "data README) and report per-segment Kendall/Spearman, "
        "global Kendall, pairwise and system-level agreement with "
        "95% bootstrap intervals.",
    )
    p.add_argument("--data", required=True, help="TSV of judged translations")
    p.add_argument(
        "--include-human",
        action="store_true",
        help="rank human translations (is_human_translation = 1) with MT",
    )
    p.add_argument(
        "--n-boot", type=at_least(1), default=1000, help="bootstrap resamples (default 1000)"
    )
    p.add_argument("--folds", type=at_least(2), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    add_model_options(p)
    p.set_defaults(func=cmd_evaluate)

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
    from xlscore.estimator.recipe import Recipe  # the record: no training code, no torch

    # a setting not given is the shipped estimator's, read from its file when training starts
    # (not here: the parser reads no model file)
    g = p.add_argument_group(
        "recipe (each default: the shipped estimator's setting, read from its file when "
        "training starts)"
    )
    for f in Recipe.__dataclass_fields__.values():
        g.add_argument("--" + f.name.replace("_", "-"), type=recipe_type(f.default))
    p.set_defaults(func=cmd_train)

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

    p = sub.add_parser(
        "lexicon",
        help="build the dictionary cache or look words up",
        description="build: build (or check) the cached dictionary and print "
        "its size; lookup WORD ...: show how words translate.",
    )
    p.add_argument("action", choices=["build", "lookup"])
    p.add_argument("words", nargs="*", help="words to look up")
    p.add_argument("--lexicon", metavar="PATH", help="a ru<TAB>en word list instead")
    p.set_defaults(func=cmd_lexicon)

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
    return parser


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one line, ``xlscore: warning: ...``, on standard error: on a line of its
    own even while a progress bar is drawn there (the bar is cleared, and drawn again under
    the warning)."""
    from tqdm import tqdm

    tqdm.write(f"xlscore: warning: {message}", file=sys.stderr)


def _status_lines(*, quiet: bool) -> None:
    """The library's notices (logger ``xlscore``, level INFO: a pack converted once...) as
    ``xlscore: ...`` lines on standard error, unless ``--quiet``."""
    log = logging.getLogger("xlscore")
    for h in [h for h in log.handlers if getattr(h, "xlscore_cli", False)]:
        log.removeHandler(h)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("xlscore: %(message)s"))
    handler.xlscore_cli = True  # type: ignore[attr-defined]
    log.addHandler(handler)
    log.setLevel(logging.WARNING if quiet else logging.INFO)
    log.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xlscore`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    missing = settle_translations(args)
    if missing:  # as argparse refuses a missing option: one line, exit status 2
        parser.exit(EXIT_USAGE, f"xlscore {args.command}: error: {missing}\n")
    args.argv = list(sys.argv[1:] if argv is None else argv)
    warnings.showwarning = _one_line_warning
    _status_lines(quiet=bool(getattr(args, "quiet", False)))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return args.func(args)
    except XLScoreError as err:
        print(f"xlscore: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away (``xlscore score ... | head``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:
        where = f"{err.filename}: " if err.filename else ""
        print(f"xlscore: error: {where}{err.strerror or err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        kept = ""
        if getattr(args, "resume", None) is not None and getattr(args, "output", None):
            kept = (
                f"; the finished segments are in {args.output}: the same command with "
                "--resume continues from them"
            )
        print(f"xlscore: interrupted{kept}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
