"""Files of (source, translation) pairs for batch scoring: finding them, cutting them into
work units of a few thousand rows, and reading one unit (:mod:`xlscore.io.partfiles` writes
one unit's scores).

Inputs are Parquet, JSON lines (``.jsonl``/``.json``/``.ndjson``) or TSV files with a header
(``.tsv``), or folders of them. A unit is a row range of one file, found by the planner
(:func:`plan_units`) from the file's metadata or line offsets, so a worker reads just its
slice. Problems that concern a whole file (missing, unreadable, a required column absent)
are :class:`~xlscore.errors.InputError` before any work starts; problems of one row (invalid
UTF-8, a bad JSON line, a missing field, empty text) flag that row in the output (``error``:
``FILE, line N: problem``) and leave its scores empty, so one bad line never stops a job.

"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from xlscore.errors import InputError
from xlscore.io.inputs import bom_problem, json_object, text_problem

PARQUET = (".parquet", ".pq")
JSONL = (".jsonl", ".json", ".ndjson")
TSV = (".tsv",)
#: rows of input per work unit (and per output file)
ROWS_PER_FILE = 2000
_READ_CHUNK = 1 << 24


@dataclass(frozen=True)
class PairColumns:
    """Column names in the input: the two texts (required), an id and an engine (used when
    present; without an id, ``FILE:LINE`` is the id)."""

    source: str = "source"
    translation: str = "translation"
    id: str = "id"
    engine: str = "engine"


@dataclass(frozen=True)
class Unit:
    """Rows ``start..stop`` (0-based, data rows) of one input file; for text files also the
    byte range and the line number of the first row."""

    index: int
    path: str
    kind: str  # "parquet" | "jsonl" | "tsv"
    start: int
    stop: int
    byte_start: int = 0
    byte_stop: int = 0
    first_line: int = 1
    header: tuple[str, ...] = ()

    @property
    def rows(self) -> int:
        return self.stop - self.start

    def to_dict(self) -> dict:
        d = asdict(self)
        d["header"] = list(self.header)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Unit:
        return cls(**{**d, "header": tuple(d["header"])})


def _kind(path: Path) -> str | None:
    name = path.name.lower()
    for kind, suffixes in (("parquet", PARQUET), ("jsonl", JSONL), ("tsv", TSV)):
        if name.endswith(suffixes):
            return kind
    return None


def discover(inputs: str | os.PathLike | Sequence[str | os.PathLike]) -> list[Path]:
    """The input files: each file given, and the Parquet/JSONL/TSV files in each folder
    given (recursively, sorted by name; hidden and ``_``-prefixed names skipped)."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    files: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = sorted(
                f
                for f in p.rglob("*")
                if f.is_file()
                and _kind(f)
                and not any(part.startswith((".", "_")) for part in f.relative_to(p).parts)
            )
            if not found:
                raise InputError("no .parquet, .jsonl or .tsv file in this folder", path=p)
            files.extend(found)
        elif not p.exists():
            raise InputError("no such file", path=p)
        elif _kind(p) is None:
            raise InputError(
                "unknown format: name the file .parquet, .jsonl (JSON lines) or "
                ".tsv (tab-separated, with a header)",
                path=p,
            )
        else:
            files.append(p)
    if not files:
        raise InputError("no input files given")
    return files


def _line_offsets(path: Path):
    """Byte offsets where each line of a file starts (and, last, the file's size)."""
    import numpy as np

    starts = [np.zeros(1, dtype=np.int64)]
    offset = 0
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_READ_CHUNK):
                nl = np.flatnonzero(np.frombuffer(chunk, dtype=np.uint8) == 10)
                starts.append(nl.astype(np.int64) + offset + 1)
                offset += len(chunk)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", path=path) from None
    out = np.concatenate(starts)
    if out[-1] != offset:  # no newline at the end: the last line ends at the end
        out = np.append(out, offset)
    return out


def _first_line(path: Path, offsets) -> str:
    with open(path, "rb") as fh:
        raw = fh.read(int(offsets[1]) if len(offsets) > 1 else 0)
    raw = raw.removeprefix(b"\xef\xbb\xbf").rstrip(b"\r\n")
    if problem := bom_problem(raw, path):
        raise InputError(problem, path=path, line=1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("invalid UTF-8 in the first line", path=path, line=1) from None
    if problem := text_problem(text, raw, path=path):
        raise InputError(problem, path=path, line=1)
    return text


def _check_columns(
    present: Iterable[str], columns: PairColumns, path: Path, what: str, line: int | None = None
) -> None:
    present = list(present)
    for name in (columns.source, columns.translation):
        if name not in present:
            raise InputError(
                f"no {what} {name!r} (there are: {', '.join(present) or 'none'}); "
                f"name the columns with --source-col/--translation-col",
                path=path,
                line=line,
            )


def plan_units(
    files: Sequence[Path], columns: PairColumns = PairColumns(), rows_per_file: int = ROWS_PER_FILE
) -> list[Unit]:
    """Cut the input files into units of at most ``rows_per_file`` rows, checking that each
    file is readable and has the required columns."""
    if rows_per_file < 1:
        raise InputError("rows per file must be at least 1")
    units: list[Unit] = []
    for path in files:
        kind = _kind(path)
        if kind is None:
            raise InputError(
                "unknown format: name the file .parquet, .jsonl (JSON lines) or "
                ".tsv (tab-separated, with a header)",
                path=path,
            )
        if kind == "parquet":
            import pyarrow.parquet as pq

            try:
                f = pq.ParquetFile(path)
                meta, names = f.metadata, f.schema_arrow.names
            except (OSError, ValueError) as err:
                raise InputError(f"cannot read as Parquet: {err}", path=path) from None
            _check_columns(names, columns, path, "column")
            ranges = [
                (a, min(a + rows_per_file, meta.num_rows))
                for a in range(0, meta.num_rows, rows_per_file)
            ]
            units += [
                Unit(len(units) + k, str(path), kind, a, b, first_line=a + 1)
                for k, (a, b) in enumerate(ranges)
            ]
            continue
        offsets = _line_offsets(path)
        header: tuple[str, ...] = ()
        first = 0  # index into offsets of the first data line
        if kind == "tsv":
            header = tuple(_first_line(path, offsets).split("\t"))
            _check_columns(header, columns, path, "column", line=1)
            first = 1
        elif len(offsets) > 1:
            try:
                row = json.loads(_first_line(path, offsets))
            except ValueError:
                raise InputError(
                    "the first line is not valid JSON; is this a JSON-lines file?",
                    path=path,
                    line=1,
                ) from None
            if not isinstance(row, dict):
                raise InputError("a JSON line must be an object", path=path, line=1)
            _check_columns(row, columns, path, "field", line=1)
        n_rows = len(offsets) - 1 - first
        for a in range(0, n_rows, rows_per_file):
            b = min(a + rows_per_file, n_rows)
            units.append(
                Unit(
                    len(units),
                    str(path),
                    kind,
                    a,
                    b,
                    int(offsets[first + a]),
                    int(offsets[first + b]),
                    first_line=first + a + 1,
                    header=header,
                )
            )
    if not units:
        raise InputError("the input files hold no rows")
    return units


@dataclass
class UnitRows:
    """The rows of one unit as read: ids, engines (``None`` without an engine column), the
    two texts, and for each row ``None`` or the problem that keeps it from being scored."""

    ids: list[str]
    engines: list[str | None]
    sources: list[str]
    translations: list[str]
    problems: list[str | None]


def _as_text(value) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _text_problem(fields, allow_empty: bool) -> str | None:
    """What is wrong with a row's two texts (``(column, value)`` each), if anything: a field
    missing or not text, or empty (unless ``allow_empty``)."""
    for name, value in fields:
        if not isinstance(value, str):
            if value is None:
                return f"no field {name!r}"
            return f"field {name!r} is {type(value).__name__}, not text"
        if not allow_empty and not value.strip():
            return f"empty {name!r} (use --allow-empty to score it at the floor, the lowest score)"
    return None


def read_unit(
    unit: Unit, columns: PairColumns = PairColumns(), *, allow_empty: bool = False
) -> UnitRows:
    """Read one unit's rows; row problems are recorded, not raised."""
    out = UnitRows([], [], [], [], [])
    path = unit.path

    def add(line: int, record: dict | None, problem: str | None) -> None:
        record = record or {}
        src, mt = record.get(columns.source), record.get(columns.translation)
        problem = problem or _text_problem(
            ((columns.source, src), (columns.translation, mt)), allow_empty
        )
        rid = _as_text(record.get(columns.id))
        out.ids.append(rid if rid is not None else f"{path}:{line}")
        out.engines.append(_as_text(record.get(columns.engine)))
        out.sources.append(src if isinstance(src, str) else "")
        out.translations.append(mt if isinstance(mt, str) else "")
        out.problems.append(None if problem is None else f"{path}, line {line}: {problem}")

    if unit.kind == "parquet":
        import pyarrow.parquet as pq

        f = pq.ParquetFile(path)
        wanted = [
            c
            for c in (columns.source, columns.translation, columns.id, columns.engine)
            if c in f.schema_arrow.names
        ]
        table = _parquet_rows(f, wanted, unit.start, unit.stop)
        for k, record in enumerate(table.to_pylist()):
            add(unit.first_line + k, record, None)
        return out
    with open(path, "rb") as fh:
        fh.seek(unit.byte_start)
        data = fh.read(unit.byte_stop - unit.byte_start)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if unit.start == 0 and unit.kind == "jsonl" and lines:
        lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
    at = unit.byte_start
    for k, raw in enumerate(lines):
        line, at = unit.first_line + k, at + len(raw) + 1
        start = at - len(raw) - 1
        try:
            text = raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as err:
            add(
                line,
                None,
                f"invalid UTF-8 (byte {err.start + 1} of the line is 0x{raw[err.start]:02x})",
            )
            continue
        if problem := text_problem(text, raw, start, path=path):
            add(line, None, problem)
            continue
        if unit.kind == "tsv":
            fields = text.split("\t")
            if len(fields) != len(unit.header):
                add(line, None, f"{len(fields)} fields where the header has {len(unit.header)}")
                continue
            add(line, dict(zip(unit.header, fields)), None)
            continue
        try:
            add(line, json_object(text), None)
        except ValueError as err:
            add(line, None, str(err))
    return out


def _parquet_rows(f, wanted: list[str], start: int, stop: int):
    """Rows ``start..stop`` of an open ``pyarrow.parquet.ParquetFile``, reading only the row
    groups that hold them."""
    import pyarrow as pa

    pieces, offset = [], 0
    for g in range(f.metadata.num_row_groups):
        n = f.metadata.row_group(g).num_rows
        if offset < stop and offset + n > start:
            t = f.read_row_group(g, columns=wanted)
            a, b = max(start - offset, 0), min(stop - offset, n)
            pieces.append(t.slice(a, b - a))
        offset += n
    return pa.concat_tables(pieces) if pieces else pa.table({c: [] for c in wanted})
