"""The one output schema: the columns of a scored row, derived from the fields of
:class:`~xlscore.ScoreResult` (the evidence's lists in its place), and how each kind of column
is written. The TSV writer, the JSON writer (:meth:`ScoreResult.to_dict`, whose keys are these
names), the Parquet files of a batch job and the report all read it, so a field added to the
result reaches every format.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from xlscore.finding import Finding
from xlscore.results import ErrorSpan, Evidence, ScoreResult

#: the kind of column each field type gives
_KINDS = {
    float: "float",
    int: "int",
    tuple[str, ...]: "words",
    tuple[tuple[str, str], ...]: "pairs",
    tuple[tuple[int, int], ...]: "spans",
    tuple[tuple[int, int, int, int], ...]: "links",
    tuple[ErrorSpan, ...]: "error_spans",
    tuple[Finding, ...]: "findings",
}


@dataclass(frozen=True)
class Column:
    """One output column: its ``name`` (the result's field), ``kind`` (a key of how it is
    written: ``float``, ``int``, ``words``, ``pairs``, ``spans``, ``links``, ``error_spans``,
    ``findings``), and ``sep``, what joins a list's items in TSV."""

    name: str
    kind: str
    sep: str = " "
    evidence: bool = False

    def value(self, r: ScoreResult):
        """This column's value in a result."""
        return getattr(r.evidence if self.evidence else r, self.name)

    def tsv(self, r: ScoreResult) -> str:
        """This column of a result as a TSV cell (empty for a field not computed)."""
        v = self.value(r)
        if v is None:
            return ""
        if self.kind in _ITEM:
            return self.sep.join(_ITEM[self.kind](x) for x in v)
        return format(v, ".6f" if self.kind == "float" else "d")


def _kind(hint) -> str:
    """The kind of a field's type (``X | None`` as ``X``)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        hint = args[0]
    return _KINDS[hint]


def _columns() -> tuple[Column, ...]:
    hints = typing.get_type_hints(ScoreResult)
    ev_hints = typing.get_type_hints(Evidence)
    out: list[Column] = []
    for f in fields(ScoreResult):
        if f.name == "evidence":
            out += [
                Column(e.name, _kind(ev_hints[e.name]), evidence=True) for e in fields(Evidence)
            ]
        else:
            out.append(Column(f.name, _kind(hints[f.name]), f.metadata.get("tsv", " ")))
    return tuple(out)


def _finding(f: Finding) -> str:
    """``CHECK:START-END`` in the translation, or ``CHECK:source:START-END``."""
    if f.span is not None:
        return f"{f.check}:{f.span[0]}-{f.span[1]}"
    where = f.source_span or (0, 0)
    return f"{f.check}:source:{where[0]}-{where[1]}"


#: how one item of a list column is written in TSV
_ITEM: dict[str, Callable[[Any], str]] = {
    "words": str,
    "pairs": lambda p: f"{p[0]}={p[1]}",
    "spans": lambda s: f"{s[0]}-{s[1]}",
    "links": lambda q: f"{q[0]}-{q[1]}={q[2]}-{q[3]}",
    "error_spans": lambda s: f"{s.start}-{s.end}:{s.severity}:{s.probability:.3f}",
    "findings": _finding,
}

#: every column of a scored row, in order (``segment`` and ``engine`` come before them)
COLUMNS = _columns()


def arrow_type(kind: str):
    """The Arrow type of a column of this kind (the Parquet files of a batch job)."""
    import pyarrow as pa

    i32 = pa.int32()
    return {
        "float": pa.float64(),
        "int": i32,
        "words": pa.list_(pa.string()),
        "pairs": pa.list_(pa.list_(pa.string())),
        "spans": pa.list_(pa.list_(i32)),
        "links": pa.list_(pa.list_(i32)),
        "error_spans": pa.list_(
            pa.struct(
                [
                    ("start", i32),
                    ("end", i32),
                    ("text", pa.string()),
                    ("severity", pa.string()),
                    ("probability", pa.float64()),
                ]
            )
        ),
        "findings": pa.list_(
            pa.struct(
                [
                    ("check", pa.string()),
                    ("message", pa.string()),
                    ("start", i32),
                    ("end", i32),
                    ("source_start", i32),
                    ("source_end", i32),
                    ("counts", pa.bool_()),
                    ("why_free", pa.string()),
                    ("share", pa.float64()),
                ]
            )
        ),
    }[kind]
