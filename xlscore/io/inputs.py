"""Reading segments from files: plain text (one per line), TSV with a header, or JSON lines.

Every problem is an :class:`~xlscore.errors.InputError` that names the file, the 1-based line
and the problem: a missing file, invalid UTF-8, a UTF-16 file (with or without its byte-order
mark: without one, its NUL bytes are valid UTF-8, so every line is checked for them and for
other control characters no text has), an empty file, an empty or blank segment, a missing
column, files of different lengths.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from xlscore.errors import InputError

STDIN = "-"
#: characters no line of text holds: the C0 controls but tab and carriage return, and DEL
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_UTF16 = re.compile("[\x00\x04]")


def _convert(encoding: str, path: str | Path | None) -> str:
    """How to convert the file at ``path`` from ``encoding``: an ``iconv`` command naming it
    (shell-quoted; ``FILE`` for standard input or a file not named)."""
    if path is None or str(path) == STDIN:
        return f"convert it to UTF-8 first, e.g. `iconv -f {encoding} -t UTF-8 FILE > FILE.utf8`"
    name = str(path)
    return (
        f"convert it to UTF-8 first, e.g. `iconv -f {encoding} -t UTF-8 {shlex.quote(name)} > "
        f"{shlex.quote(name + '.utf8')}`"
    )


def bom_problem(data: bytes, path: str | Path | None = None) -> str | None:
    """The problem of a file (at ``path``) whose first bytes are a UTF-16 byte-order mark
    (``None``: not)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "the file is UTF-16 (it starts with a UTF-16 byte-order mark); " + _convert(
            "UTF-16", path
        )
    return None


def utf16_order(data: bytes, offset: int = 0) -> str:
    """``UTF-16BE`` or ``UTF-16LE``: which byte order ``data`` (found at byte ``offset`` of its
    file) has, read from where the high bytes of Latin and Cyrillic letters (0x00, 0x04) fall:
    at even offsets of the file in big-endian text, at odd ones in little-endian."""
    even = sum(data[(offset % 2) :: 2].count(b) for b in (b"\x00", b"\x04"))
    odd = sum(data[1 - (offset % 2) :: 2].count(b) for b in (b"\x00", b"\x04"))
    return "UTF-16BE" if even > odd else "UTF-16LE"


def text_problem(
    line: str, raw: bytes | None = None, offset: int = 0, path: str | Path | None = None
) -> str | None:
    """What makes a decoded line not text (``None``: nothing): the bytes UTF-16 leaves when read
    as UTF-8 (NUL, the high byte of Latin letters and spaces, and U+0004, that of Cyrillic ones),
    or another control character. ``raw``, found at byte ``offset`` of the file: the bytes
    the byte order of UTF-16 is told from (:func:`utf16_order`; default: the line's own);
    ``path``: the file, named in the command that converts it."""
    m = _CONTROL.search(line)
    if m is None:
        return None
    if (k := _UTF16.search(line)) is not None:
        order = utf16_order(line.encode("utf-8") if raw is None else raw, offset)
        return (
            f"byte 0x{ord(k.group()):02x} at character {k.start() + 1}: the file looks like "
            f"{order} (no byte-order mark); " + _convert(order, path)
        )
    return (
        f"control character U+{ord(m.group()):04X} at character {m.start() + 1}: not text "
        "(a binary file, or one in another encoding?)"
    )


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a file (``-``: standard input), or an :class:`InputError`."""
    if str(path) == STDIN:
        return sys.stdin.buffer.read()
    p = Path(path)
    if p.is_dir():
        raise InputError("is a directory, not a file", path=path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", path=path) from None


def decode_lines(data: bytes, path: str | Path) -> list[str]:
    """Split into lines (``\\n`` or ``\\r\\n``) and decode each strictly as UTF-8; a line
    with a NUL byte or another control character is refused (:func:`text_problem`)."""
    if problem := bom_problem(data, path):
        raise InputError(problem, path=path, line=1)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise InputError("file is empty", path=path)
    raw = data.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    lines = []
    for n, chunk in enumerate(raw, start=1):
        try:
            lines.append(chunk.decode("utf-8").removesuffix("\r"))
        except UnicodeDecodeError as err:
            raise InputError(
                f"invalid UTF-8 (byte {err.start + 1} of the line is "
                f"0x{chunk[err.start]:02x}); is the file in another encoding?",
                path=path,
                line=n,
            ) from None
        if problem := text_problem(lines[-1], data, path=path):
            raise InputError(problem, path=path, line=n)
    return lines


def _check_blank(
    segments: Sequence[str], path: str | Path, allow_empty: bool, first_line: int = 1
) -> None:
    if allow_empty:
        return
    for n, seg in enumerate(segments, start=first_line):
        if not seg.strip():
            raise InputError(
                "empty segment (use --allow-empty to score blank segments at the floor, the "
                "lowest score)",
                path=path,
                line=n,
            )


def json_object(line: str) -> dict:
    """One line of a JSON-lines file as its object; ``ValueError`` saying what is wrong
    (every reader of JSON lines words its errors so)."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        raise ValueError(f"invalid JSON: {err.msg}") from None
    if not isinstance(row, dict):
        raise ValueError("a JSON line must be an object")
    return row


def json_lines(path: str | Path, *, skip_blank: bool = False) -> Iterator[tuple[int, dict]]:
    """The objects of a JSON-lines file with their 1-based line numbers, read strictly as
    UTF-8 (:func:`decode_lines`); a line that is not a JSON object, or blank unless
    ``skip_blank``, raises :class:`InputError` naming the file and line."""
    for n, line in enumerate(decode_lines(read_bytes(path), path), start=1):
        if not line.strip():
            if skip_blank:
                continue
            raise InputError("empty line in a JSON-lines file", path=path, line=n)
        try:
            yield n, json_object(line)
        except ValueError as err:
            raise InputError(str(err), path=path, line=n) from None


def read_lines(path: str | Path, *, allow_empty: bool = False) -> list[str]:
    """Segments of a plain text file, one per line (``-`` reads standard input)."""
    lines = decode_lines(read_bytes(path), path)
    _check_blank(lines, path, allow_empty)
    return lines


def read_columns(
    path: str | Path, columns: Sequence[str], *, allow_empty: bool = False
) -> dict[str, list[str]]:
    """Named columns of a TSV file with a header line (no quoting) or of a JSON-lines file.

    The format follows the file name: ``.jsonl``/``.json`` is JSON lines, anything else TSV.
    """
    is_json = str(path).endswith((".jsonl", ".json"))
    out: dict[str, list[str]] = {c: [] for c in columns}
    if is_json:
        for n, row in json_lines(path):
            for c in columns:
                if c not in row:
                    raise InputError(
                        f"no field {c!r} (fields: {', '.join(row)})", path=path, line=n
                    )
                if not isinstance(row[c], str):
                    raise InputError(f"field {c!r} is not a string", path=path, line=n)
                out[c].append(row[c])
        first = 1
    else:
        lines = decode_lines(read_bytes(path), path)
        reader = csv.reader(io.StringIO("\n".join(lines)), delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        missing = [c for c in columns if c not in header]
        if missing:
            raise InputError(
                f"no column {missing[0]!r} in the header (columns: {', '.join(header)})",
                path=path,
                line=1,
            )
        idx = [header.index(c) for c in columns]
        for n, cells in enumerate(reader, start=2):
            if len(cells) != len(header):
                raise InputError(
                    f"{len(cells)} fields where the header has {len(header)}", path=path, line=n
                )
            for c, i in zip(columns, idx):
                out[c].append(cells[i])
        first = 2
    for c in columns:
        _check_blank(out[c], path, allow_empty, first_line=first)
    return out


def check_parallel(
    source_path: str, source: Sequence[str], others: Sequence[tuple[str, Sequence[str]]]
) -> None:
    """Every file in ``others`` must have as many segments as the source."""
    for path, segs in others:
        if len(segs) != len(source):
            raise InputError(
                f"{len(segs)} segments, but the source {source_path} has "
                f"{len(source)}; the files must be line-parallel",
                path=path,
            )
