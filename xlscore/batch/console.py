"""The console of a batch job: its progress bars (:func:`progress_bar`), and Ray's own log
lines kept off it.

Ray's C++ core in the driver writes some of its log lines (level E and F) straight to file
descriptor 2, past Python's ``sys.stderr``: one such line on every run of Ray 2.60 says that
Ray Data's actors take their constructor arguments from the object store while they may be
restarted (ray-project/ray issue 53727), and it lands in the middle of the progress bar.
:func:`native_lines_to` sends descriptor 2 through a pipe for the length of a job: lines in
the format of Ray's native log go to a file, everything else (the bar, Python's warnings,
our own messages) reaches the console unchanged and at once. :func:`ray_data_console_muted`
silences Ray Data's console handler for the job (a failed job would print Ray Data's
traceback before our one-line error); its log file in Ray's session folder keeps every line.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

# "[2026-11-27 16:25:52,887 E 17947 17947] core_worker.cc:2465: ..." up to its newline
NATIVE_LINE = re.compile(rb"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [DIWEF] \d+ \d+\] [^\n]*\n")
# what may be such a line cut off at the end of what was read so far: "[" and only the
# characters of the opening, then perhaps the opening's "] " and more, but no newline yet
_PARTIAL = re.compile(rb"\[[\d\-:, DIWEF]*(\] [^\n]*)?\Z")
# the notice above, printed on every run: not worth telling the user about
KNOWN = (b"has constructor arguments in the object store and max_restarts > 0",)


class NativeLines:
    """What :func:`native_lines_to` kept off the console."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0  # lines written to ``path``
        self.unexpected = 0  # of which not a known notice

    def add(self, line: bytes) -> None:
        with open(self.path, "ab") as fh:
            fh.write(line)
        self.count += 1
        if not any(k in line for k in KNOWN):
            self.unexpected += 1


def split_native(data: bytes) -> tuple[bytes, list[bytes], bytes]:
    """Cut what was read from the pipe into the text for the console, Ray's native log
    lines, and a tail held back because it may be the start of a native line.

    Returns:
        ``(console, native_lines, held_back)``.
    """
    lines = [m.group(0) for m in NATIVE_LINE.finditer(data)]
    rest = NATIVE_LINE.sub(b"", data)
    tail = _PARTIAL.search(rest)
    if tail is None:
        return rest, lines, b""
    return rest[: tail.start()], lines, rest[tail.start() :]


@contextlib.contextmanager
def native_lines_to(path: Path) -> Iterator[NativeLines]:
    """For the length of the ``with`` block, keep Ray's native log lines written to file
    descriptor 2 off the console: they are appended to ``path``; the rest goes through.

    Yields:
        The :class:`NativeLines` count, final once the block has ended.
    """
    kept = NativeLines(Path(path))
    kept.path.unlink(missing_ok=True)  # the lines of the last run only
    try:
        sys.stderr.flush()
        console = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no descriptor 2 (a frozen GUI, ...)
        yield kept
        return
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)

    def relay() -> None:
        held = b""
        while True:
            data = os.read(read_end, 65536)
            if not data:
                break
            out, lines, held = split_native(held + data)
            for line in lines:
                try:
                    kept.add(line)
                except OSError:  # the file cannot be written: the line is not lost
                    out += line
            if out:
                os.write(console, out)
        if held:
            os.write(console, held)

    thread = threading.Thread(target=relay, name="xlscore-native-lines", daemon=True)
    thread.start()
    try:
        yield kept
    finally:
        with contextlib.suppress(ValueError, AttributeError):
            sys.stderr.flush()
        os.dup2(console, 2)  # closes the pipe's last write end: the relay drains and ends
        thread.join(timeout=5)
        os.close(console)
        os.close(read_end)


@contextlib.contextmanager
def ray_data_console_muted() -> Iterator[None]:
    """For the length of the ``with`` block, Ray Data logs to its file only (``ray-data.log``
    in Ray's session folder), not to the console."""
    console = [
        h
        for h in logging.getLogger("ray.data").handlers
        if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)
    ]
    levels = [h.level for h in console]
    for h in console:
        h.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for h, level in zip(console, levels):
            h.setLevel(level)


def progress_bar(total: int, progress: bool, desc: str):
    """A tqdm bar of rows on standard error (shown only with ``progress``)."""
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit="row",
        file=sys.stderr,
        disable=not progress,
        dynamic_ncols=True,
    )
