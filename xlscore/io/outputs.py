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


@contextlib.contextmanager
def output_lock(path: str | os.PathLike | None) -> Iterator[None]:
    """Hold ``path`` for this process while it writes it: a second process that asks for the
    same output (a second run, a resumed one) is refused at once with an
    :class:`OutputError` naming the file and the process that holds it. The lock is a file
    beside the output (``.NAME.lock``, :mod:`filelock`), removed when done; ``None``
    (standard output) is not locked."""
    if path is None:
        yield
        return
    import socket

    from filelock import FileLock, Timeout

    p = Path(path).resolve()
    lock_path = p.with_name(f".{p.name}.lock")
    owner = p.with_name(f".{p.name}.lock.owner")
    lock = FileLock(lock_path)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        try:
            who = owner.read_text(encoding="utf-8").strip()
        except OSError:
            who = "another process"
        raise OutputError(
            f"is being written by {who or 'another process'}; wait for it to finish, or "
            "give another --output",
            path=path,
        ) from None
    try:
        owner.write_text(f"process {os.getpid()} on {socket.gethostname()}\n", encoding="utf-8")
        yield
    finally:
        owner.unlink(missing_ok=True)
        lock.release()
        with contextlib.suppress(OSError):
            lock_path.unlink()
