"""Where the errors of judged translations are (:func:`read_error_marks`, attached to the
judged rows with :func:`attach_errors`): the MQM error-span file (``spans``: a JSON list of
``{start, end, severity, ...}`` character spans in the translation) or word-level QE tags
(``tokens``, ``tags``, ``offsets``: ``BAD`` tokens become spans of severity ``"major"``, the
tags carry none).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from xlscore.errors import InputError
from xlscore.io.judgments import SEVERITIES, ErrorMark, Judgment, _bad_marks, _read_table


def _marks_from_spans(text: str, path, line: int) -> tuple[ErrorMark, ...]:
    try:
        spans = json.loads(text)
        marks = tuple(
            ErrorMark(int(m["start"]), int(m["end"]), str(m["severity"]).lower()) for m in spans
        )
    except (ValueError, TypeError, KeyError) as err:
        raise InputError(
            f"spans is not a JSON list of {{start, end, severity}} objects "
            f"({type(err).__name__}: {err})",
            path=path,
            line=line,
        ) from None
    for m in marks:
        if m.severity not in SEVERITIES or not 0 <= m.start <= m.end:
            raise InputError(f"bad error span {m}", path=path, line=line)
    return marks


def _marks_from_tags(tags: str, offsets: str, path, line: int) -> tuple[ErrorMark, ...]:
    t, o = tags.split(), offsets.split()
    if len(t) != len(o):
        raise InputError(f"{len(t)} tags but {len(o)} offsets", path=path, line=line)
    spans = []
    for span in o:
        try:
            a, b = (int(x) for x in span.split(":"))
        except ValueError:
            raise InputError(f"offset {span!r} is not START:END", path=path, line=line) from None
        spans.append((a, b))
    return _bad_marks(t, spans, "major", path, line)


def read_error_marks(
    path: str | Path, *, lenient: bool = False
) -> dict[tuple[str, str, str], tuple[ErrorMark, ...]]:
    """Where raters put the errors: ``{(seg_id, system, translation): marks}`` from an MQM
    error-span TSV (column ``spans``) or a word-level QE TSV (``tags`` and ``offsets``; system
    ``mt``). Spans are checked to lie inside their translation; with ``lenient`` a span that
    does not is dropped with a warning instead (the multi-pair span file has a few, from
    releases whose marked copy of a translation differs from the translation)."""
    header, rows = _read_table(path)
    col = {c: header.index(c) for c in header}
    need = ["seg_id", "translation"] + (["spans"] if "spans" in col else ["tags", "offsets"])
    missing = [c for c in need if c not in col]
    if missing:
        raise InputError(
            f"no column {missing[0]!r}: an error-span file needs "
            "seg_id, translation and spans (or tags and offsets)",
            path=path,
            line=1,
        )
    out = {}
    dropped = 0
    for n, row in enumerate(rows, start=2):
        text = row[col["translation"]]
        marks = (
            _marks_from_spans(row[col["spans"]], path, n)
            if "spans" in col
            else _marks_from_tags(row[col["tags"]], row[col["offsets"]], path, n)
        )
        if any(m.end > len(text) for m in marks):
            if not lenient:
                raise InputError("an error span ends after the translation", path=path, line=n)
            dropped += sum(m.end > len(text) for m in marks)
            marks = tuple(m for m in marks if m.end <= len(text))
        system = row[col["system"]] if "system" in col else "mt"
        out[(row[col["seg_id"]], system, text)] = marks
    if dropped:
        import warnings

        warnings.warn(
            f"{path}: {dropped} error span(s) ending after their translation were dropped",
            stacklevel=2,
        )
    return out


def attach_errors(
    rows: Sequence[Judgment], marks: Mapping[tuple[str, str, str], tuple[ErrorMark, ...]]
) -> list[Judgment]:
    """``rows`` with :attr:`Judgment.errors` set where ``marks`` (from
    :func:`read_error_marks`) has the same segment, system and translation."""
    return [
        replace(r, errors=marks[key])
        if (key := (r.seg_id, r.system, r.translation)) in marks
        else r
        for r in rows
    ]
