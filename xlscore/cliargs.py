"""Value types of command-line options (for ``argparse``'s ``type=``)."""
from __future__ import annotations

import argparse
from typing import Callable


def at_least(minimum: int | float, kind: type = int) -> Callable[[str], int | float]:
    """A parser of ``kind`` (``int`` or ``float``) values no smaller than ``minimum``."""
    what = "an integer" if kind is int else "a number"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError("must not be negative" if minimum == 0
                                             else f"must be at least {minimum}")
        return value
    return parse
