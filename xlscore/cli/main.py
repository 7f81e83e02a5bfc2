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
from xlscore.cli.embed import add_embed_parser
from xlscore.cli.evaluate import add_evaluate_parser
from xlscore.cli.fit import add_fit_parser
from xlscore.cli.lexicon import add_lexicon_parser
from xlscore.cli.options import EXIT_USAGE, settle_translations
from xlscore.cli.plot import add_plot_parser
from xlscore.cli.rank import add_rank_parser
from xlscore.cli.report import add_report_parser
from xlscore.cli.score import add_score_parser
from xlscore.cli.train import add_train_parser
from xlscore.errors import XLScoreError


# ---------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``xlscore`` command."""
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

    for add in (
        add_score_parser,
        add_rank_parser,
        add_report_parser,
        add_batch_parser,
        add_fit_parser,
        add_evaluate_parser,
        add_train_parser,
        add_plot_parser,
        add_lexicon_parser,
        add_embed_parser,
    ):
        add(sub)
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
