"""Exceptions raised by xlscore.

Every error a user can cause (bad input, unknown model, mismatched alignment) is an
:class:`XLScoreError` with a one-line message; the command line prints that line and exits
with status 2. Anything else is a bug.
"""

from __future__ import annotations

from os import PathLike


class XLScoreError(Exception):
    """Base class of the errors a user can cause; ``str(err)`` is a complete sentence."""


class InputError(XLScoreError, ValueError):
    """Bad input text or file. Names the file and the 1-based line when it knows them."""

    def __init__(
        self, problem: str, *, path: str | PathLike | None = None, line: int | None = None
    ) -> None:
        self.problem = problem
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path + (f", line {line}" if line is not None else "") + ": "
        elif line is not None:
            where = f"segment {line}: "
        super().__init__(where + problem)


class OutputError(XLScoreError, OSError):
    """An output file that cannot be written; names it."""

    def __init__(self, problem: str, *, path: str | PathLike) -> None:
        self.problem, self.path = problem, str(path)
        super().__init__(f"{self.path}: {problem}")


class ModelError(XLScoreError):
    """A model or pack that cannot be found or loaded."""


class AlignmentMismatchError(XLScoreError):
    """A saved alignment used with encoders other than the ones it was fitted with."""


class LexiconError(XLScoreError):
    """A dictionary that is missing, unreadable or empty."""


class XLScoreWarning(UserWarning):
    """Base class of xlscore's warnings."""


class LongInputWarning(XLScoreWarning):
    """A sentence longer than the encoder's limit, embedded in overlapping windows."""


class DuplicateEnginesWarning(XLScoreWarning):
    """Two engines whose translations are identical on most segments (one may be a copy of
    the other): copies count once in the consensus, but both are ranked."""


class UnembeddedWordWarning(XLScoreWarning):
    """A word that received no sub-word piece and so has no vector."""
