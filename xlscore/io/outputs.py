"""Where results go: an output path checked before any work starts (so that a wrong path
fails at once, not after the models have loaded), and write errors named by their file."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from xlscore.errors import OutputError


def check_output(path: str | os.PathLike) -> Path:
    """``path`` made ready for writing (its folder created), or an :class:`OutputError`:
    a folder, a folder that cannot be made, a file that cannot be opened for writing. The
    file itself is left as it was (a new one is not left behind)."""
    p = Path(path)
    if p.is_dir():
        raise OutputError("is a directory, not a file", path=p)
    if any(a.exists() and not a.is_dir() for a in p.parents):
        raise OutputError("cannot write: a folder on its path is a file", path=p)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        existed = p.exists()
        with open(p, "a", encoding="utf-8"):
            pass
        if not existed:
            p.unlink()
    except OSError as err:
        raise OutputError(f"cannot write: {err.strerror or err}", path=p) from None
    return p


@contextlib.contextmanager
def writing_to(path: str | os.PathLike | None) -> Iterator[None]:
    """Turn a failed write to ``path`` (a full disk, an I/O error, ``/dev/full``) into an
    :class:`OutputError` that names it; ``None`` (standard output) is left alone, so that a
    closed pipe stays what it is."""
    try:
        yield
    except OutputError:
        raise
    except OSError as err:
        other = err.filename is not None and str(err.filename) != str(path)
        if path is None or isinstance(err, BrokenPipeError) or other:
            raise  # standard output, a closed pipe, or another file (named by the error)
        problem = err.strerror or os.strerror(err.errno or errno.EIO)
        raise OutputError(f"cannot write: {problem}", path=path) from None
