"""Where results go: an output path checked before any work starts (so that a wrong path, or
one that would overwrite an input, fails at once, not after the models have loaded), and write
errors named by their file."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from xlscore.errors import OutputError

#: what names standard input on the command line (never a file an output could overwrite)
STDIN = "-"


def _file_id(path: str | os.PathLike) -> tuple[int, int] | None:
    """The device and inode of the regular file ``path`` names (through links), or ``None``:
    no such file, or not a regular file (a folder, ``/dev/stdout``)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def _stdin_id() -> tuple[int, int] | None:
    """The device and inode of the regular file standard input reads (``< file``), or
    ``None``: a terminal, a pipe, or no standard input."""
    try:
        st = os.fstat(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def overwritten_input(
    path: str | os.PathLike, inputs: Iterable[str | os.PathLike]
) -> tuple[str, str] | None:
    """The input among ``inputs`` that writing ``path`` would overwrite, and how ``path``
    reaches it (``the same file``, ``a symbolic link to it``, ``a hard link to it``, or, for
    standard input, ``-``, redirected from a file: ``standard input reads this file``);
    ``None`` when it reaches none (a terminal or a pipe on standard input is no file)."""
    out = _file_id(path)
    if out is None:
        return None
    for given in inputs:
        if str(given) == STDIN:
            if _stdin_id() == out:
                return "-", "standard input reads this file"
            continue
        if _file_id(given) != out:
            continue
        if Path(path).is_symlink():
            return str(given), "a symbolic link to it"
        if Path(path).resolve() == Path(given).resolve():
            return str(given), "the same file"
        return str(given), "a hard link to it"
    return None


def check_not_input(path: str | os.PathLike, inputs: Iterable[str | os.PathLike]) -> None:
    """Refuse (:class:`OutputError`, naming both) an output ``path`` that is one of ``inputs``:
    the same file, a symbolic link to it or a hard link (the same device and inode)."""
    hit = overwritten_input(path, inputs)
    if hit is not None:
        given, how = hit
        raise OutputError(
            f"writing here would overwrite the input {given} ({how}); give another output",
            path=path,
        )


def check_output(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """``path`` made ready for writing (its folder created), or an :class:`OutputError`:
    one of the command's ``inputs`` (:func:`check_not_input`), a folder, a folder that cannot
    be made, a file that cannot be opened for writing. The file itself is left as it was (a new
    one is not left behind)."""
    p = Path(path)
    check_not_input(p, inputs)
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


def _read_by_folder(folder: Path, inside: Path) -> bool:
    """Whether the files under ``inside`` are among those an input folder ``folder`` gives
    (:func:`xlscore.io.pairfiles.discover` skips hidden and ``_``-prefixed names)."""
    rel = inside.relative_to(folder)
    return not any(part.startswith((".", "_")) for part in rel.parts)


def check_output_folder(
    folder: str | os.PathLike,
    inputs: Sequence[str | os.PathLike],
    files: Sequence[str | os.PathLike],
) -> None:
    """Refuse (:class:`OutputError`, naming both) an output folder of part files that would
    overwrite or swallow a batch job's input: one of the ``inputs`` (a file, or a folder given),
    a folder that holds one of the input ``files`` (by path or by hard link: the job writes,
    and with ``--overwrite`` deletes, part files there), or a folder inside an input folder
    whose files the next run would read as input."""
    out = Path(folder)
    where = out.resolve()
    for given in inputs:
        p = Path(given)
        if p.resolve() == where or (_file_id(p) is not None and _file_id(p) == _file_id(out)):
            kind = "folder" if p.is_dir() else "file"
            raise OutputError(
                f"is the input {kind} {given}; give another output folder", path=folder
            )
        if p.is_dir() and where.is_relative_to(p.resolve()) and _read_by_folder(p.resolve(), where):
            raise OutputError(
                f"is inside the input folder {given}: its part files would be read as input "
                "the next time; give a folder outside it (or one whose name starts with _)",
                path=folder,
            )
    for f in files:
        if Path(f).resolve().is_relative_to(where):
            raise OutputError(
                f"holds the input file {f}, which the job's part files could overwrite; "
                "give another output folder",
                path=folder,
            )
    ids = {i: f for f in files if (i := _file_id(f)) is not None}
    for entry in out.iterdir() if out.is_dir() else ():
        if (i := _file_id(entry)) in ids:
            raise OutputError(
                f"holds {entry.name}, a hard link to the input file {ids[i]}; give another "
                "output folder",
                path=folder,
            )


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
