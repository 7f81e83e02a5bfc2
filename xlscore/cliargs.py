"""Value types of command-line options (for ``argparse``'s ``type=``)."""
from __future__ import annotations

import argparse
import math
from typing import Callable


def at_least(minimum: int | float, kind: type = int) -> Callable[[str], int | float]:
    """A parser of ``kind`` (``int`` or ``float``) values no smaller than ``minimum``."""
    what = "an integer" if kind is int else "a number"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if value < minimum:
            raise argparse.ArgumentTypeError("must not be negative" if minimum == 0
                                             else f"must be at least {minimum}")
        return value
    return parse


def yes_no(text: str) -> bool:
    """``yes``/``no`` (also ``true``/``false``, ``on``/``off``, ``1``/``0``) as a bool."""
    value = text.strip().lower()
    if value in ("yes", "true", "on", "1"):
        return True
    if value in ("no", "false", "off", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not yes or no")


def recipe_type(default: object) -> Callable[[str], object]:
    """The parser of a recipe field with this default value (bools take yes/no)."""
    return yes_no if isinstance(default, bool) else type(default)


def add_fields_option(p: argparse.ArgumentParser, default: str) -> None:
    """``--fields``: the parts of each result to compute (:mod:`xlscore.fields`)."""
    from .fields import FIELDS

    p.add_argument("--fields", default=default, metavar="LIST",
                   help="what to compute besides the score, comma-separated: "
                        + ", ".join(f for f in FIELDS if f != "score")
                        + f" (the paper's F1/P/R and anchors; costs the English encoder, the "
                        f"map and BERTScore), or all (default: {default}); the score is the "
                        f"same either way")
