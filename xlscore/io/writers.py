"""Output formats of ``xlscore score``: text, TSV and JSON lines, each written a segment at a
time and readable back, which is what ``--resume`` relies on."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, NamedTuple, TextIO

from xlscore.errors import InputError
from xlscore.fields import ALL
from xlscore.io import schema
from xlscore.results import EMPTY_FLAGS
from xlscore.signature import Signature
from xlscore.system_score import SystemScore


@dataclass
class Row:
    """One scored (segment, engine) as written to and read back from the output."""

    segment: int  # 1-based
    engine: str
    score: float
    check_cost: float = 0.0
    empty: bool = False  # an empty translation or source (ScoreResult.is_empty)


def check_reason(r) -> str:
    """``checks -0.50: 250 in the source, not in the translation; ...``: what the rule checks
    took off a result's score and the findings that cost it, or ``""``."""
    if not r.check_cost:
        return ""
    said = "; ".join(f.message for f in r.findings if f.counts)
    return f"checks {-r.check_cost:+.2f}: {said}"


def free_reason(r) -> str:
    """``Macron in the source, not in the translation [name, reported, no cost: ...]``: the
    findings of a result that cost nothing, with why (:attr:`~xlscore.finding.Finding.why_free`,
    said once for the findings of one rule), or ``""``."""
    said: dict[tuple[str, str], list[str]] = {}
    for f in r.findings:
        if f.why_free:
            said.setdefault((f.check, f.why_free), []).append(f.message)
    return "; ".join(f"{'; '.join(m)} [{c}, {why}]" for (c, why), m in said.items())


class Writer:
    """Output format of ``xlscore score``: a header, one row per (segment, engine), and one
    summary per engine. Rows can be parsed back, which is what ``--resume`` relies on; system
    scores are means of the scores as written (``written``), so a resumed run sums the same
    numbers as an uninterrupted one."""

    DECIMALS: int | None = None
    #: whether the format writes a system score per engine after the rows
    SUMMARIES: ClassVar[bool] = True

    def __init__(self, out: TextIO, fields: Iterable[str] = ALL) -> None:
        self.out = out
        #: the field groups the scorer computes (:mod:`xlscore.fields`); the text format
        #: shows the paper's columns only when they are among them
        self.fields = frozenset(fields)

    def written(self, score: float) -> float:
        """The score as this format writes it."""
        return score if self.DECIMALS is None else float(f"{score:.{self.DECIMALS}f}")

    def header(self, head: str, engines: list[str]) -> None: ...
    def row(self, segment: int, engine: str, r) -> None: ...
    def summary(self, system: SystemScore, signature: str) -> None: ...
    def first_line(self, head: str) -> str:
        raise NotImplementedError

    def parse(self, line: str) -> Row | None: ...
    def is_summary(self, line: str, engine: str) -> bool:
        """Whether ``line`` is the system score of ``engine``."""
        return False


def _is_empty(flags) -> bool:
    """Whether a row's flags are those of an empty translation or source."""
    return not EMPTY_FLAGS.isdisjoint(flags)


def _num(value: float | int | None, spec: str, missing: str = "") -> str:
    """``value`` formatted by ``spec``, or ``missing`` for a field not computed."""
    return missing if value is None else format(value, spec)


class TsvWriter(Writer):
    """One table: the first line (``# `` and the signature with the run's inputs, format and
    chunk size), then a header of column names and one row per (segment, engine), nothing
    else, so that every column keeps its type (``pandas.read_csv(f, sep="\\t", skiprows=1)``).
    The system scores are not rows of it: they are the means of its ``score`` column by
    engine, and the final signature is said on standard error."""

    DECIMALS = 6
    SUMMARIES = False
    #: ``segment``, ``engine``, then the result's columns (:mod:`xlscore.io.schema`)
    COLUMNS: ClassVar[list[str]] = ["segment", "engine", *(c.name for c in schema.COLUMNS)]

    def first_line(self, head: str) -> str:
        return f"# {head}"

    def header(self, head, engines):
        self.out.write(self.first_line(head) + "\n" + "\t".join(self.COLUMNS) + "\n")

    def row(self, segment, engine, r):
        cells = [str(segment), engine, *(c.tsv(r) for c in schema.COLUMNS)]
        self.out.write("\t".join(cells) + "\n")

    def summary(self, system, signature):
        """Nothing: a system score is no row of the segments' table (see the class)."""

    def parse(self, line):
        f = line.rstrip("\n").split("\t")
        if len(f) < 3 or not f[0].isdigit():
            return None
        at, fl = self.COLUMNS.index("check_cost"), self.COLUMNS.index("flags")
        cost = float(f[at]) if len(f) > at and f[at] else 0.0
        flags = f[fl].split(",") if len(f) > fl else []
        return Row(int(f[0]), f[1], float(f[2]), cost, _is_empty(flags))


class TextWriter(TsvWriter):
    DECIMALS = 4
    SUMMARIES = True

    def header(self, head, engines):
        self.out.write(self.first_line(head) + "\n")
        paper = (
            f" {'F1':>8} {'P':>8} {'R':>8} {'cons':>7} {'anchors':>7}"
            if "paper" in self.fields
            else ""
        )
        self.out.write(f"# {'seg':>5}  {'engine':<16} {'score':>8}{paper}  flags and checks\n")

    def row(self, segment, engine, r):
        paper = ""
        if "paper" in self.fields:
            prp = " ".join(f"{_num(x, '+8.4f', '—'):>8}" for x in (r.f1, r.precision, r.recall))
            paper = f" {prp} {_num(r.consensus, '.4f', '—'):>7} {_num(r.n_anchors, 'd', '—'):>7}"
        said = "; ".join(x for x in (check_reason(r), free_reason(r)) if x)
        notes = " ".join(x for x in (",".join(r.flags), said) if x)
        line = f"{segment:>7}  {engine:<16} {r.score:+8.4f}{paper}"
        self.out.write(f"{line}  {notes}\n" if notes else f"{line}\n")

    def summary(self, system, signature):
        self.out.write(
            f"# system score {system.engine}: {system.mean:.4f} over {system.segments} "
            f"segments{system.notes()}\n"
        )

    def is_summary(self, line, engine):
        return line.startswith(f"# system score {engine}: ")

    def parse(self, line):
        f = line.split()
        if len(f) < 3 or not f[0].isdigit():
            return None
        cost = next(
            (
                -float(b.rstrip(":"))
                for a, b in itertools.pairwise(f[3:])
                if a == "checks" and b.endswith(":")
            ),
            0.0,
        )
        # the flags are the first note, joined by commas (after the paper's five columns)
        at = 3 + 5 * ("paper" in self.fields)
        flags = f[at].split(",") if len(f) > at else []
        return Row(int(f[0]), f[1], float(f[2]), cost, _is_empty(flags))


class JsonWriter(Writer):
    """JSON Lines: every record says what it is in its ``type``: the ``header`` (the
    signature with the run's inputs, ``xlscore``), one ``segment`` per (segment, engine) and
    one ``system`` score per engine."""

    def first_line(self, head: str) -> str:
        return json.dumps({"type": "header", "xlscore": head}, ensure_ascii=False)

    def header(self, head, engines):
        self.out.write(self.first_line(head) + "\n")

    def row(self, segment, engine, r):
        self.out.write(
            json.dumps(
                {"type": "segment", "segment": segment, "engine": engine, **r.to_dict()},
                ensure_ascii=False,
            )
            + "\n"
        )

    def summary(self, system, signature):
        self.out.write(
            json.dumps(
                {"type": "system", **system.to_dict(), "signature": signature},
                ensure_ascii=False,
            )
            + "\n"
        )

    def parse(self, line):
        try:
            d = json.loads(line)
        except ValueError:
            return None
        if not isinstance(d, dict) or "segment" not in d:
            return None
        return Row(
            int(d["segment"]),
            str(d["engine"]),
            float(d["score"]),
            float(d.get("check_cost") or 0),
            _is_empty(d.get("flags") or ()),
        )

    def is_summary(self, line, engine):
        try:
            d = json.loads(line)
        except ValueError:
            return False
        return isinstance(d, dict) and d.get("system") == engine


WRITERS: dict[str, type[Writer]] = {
    "text": TextWriter,
    "tsv": TsvWriter,
    "json": JsonWriter,
}


class Written(NamedTuple):
    """What an output file already holds: its complete segments (every engine's row
    there), their rows by segment and engine, the bytes up to the end of the last one, and the
    whole lines after it (system scores, or a segment only some engines finished)."""

    complete: int
    rows: dict[int, dict[str, Row]]
    end: int
    after: list[str]


def read_back(path: Path, writer: Writer, engines: list[str]) -> Written:
    """The complete segments of an output file (:class:`Written`); a partly written last
    line is not counted. The first line is not checked (:func:`check_resumable`)."""
    data = path.read_bytes()
    lines = data.split(b"\n")[:-1]  # the last piece has no newline: partly written
    done: dict[int, dict[str, Row]] = {}
    keep_bytes, offset, complete = 0, 0, 0
    for raw in lines:
        offset += len(raw) + 1
        row = writer.parse(raw.decode("utf-8", "replace"))
        if row is None:
            if complete == 0 and not done:
                keep_bytes = offset  # header lines
            continue
        done.setdefault(row.segment, {})[row.engine] = row
        while len(done.get(complete + 1, {})) == len(engines):
            complete += 1
            keep_bytes = offset
    after = data[keep_bytes:].decode("utf-8", "replace").split("\n")[:-1]
    return Written(complete, done, keep_bytes, after)


def is_finished(path: Path, writer: Writer, engines: list[str], segments: int) -> bool:
    """Whether ``path`` holds every one of ``segments`` for every engine and, in a format
    that writes them, each engine's system score after them: a run that has nothing left to
    do (read without the scorer: no model is needed to tell)."""
    got = read_back(path, writer, engines)
    return got.complete == segments and (
        not writer.SUMMARIES
        or all(any(writer.is_summary(x, e) for x in got.after) for e in engines)
    )


def resume_state(
    path: Path, writer: Writer, head: str, engines: list[str]
) -> tuple[int, dict[str, list[Row]]]:
    """Segments already complete in ``path`` and their rows by engine; the file is cut back
    to the end of the last complete segment (a partly written line or segment is dropped)."""
    with open(path, "rb") as fh:
        first = fh.readline().rstrip(b"\n").decode("utf-8", "replace")
    if first != writer.first_line(head):
        raise InputError(
            "cannot resume: the file was written with other settings or inputs ("
            + setting_differences(first, writer.first_line(head))
            + "); remove it or drop --resume",
            path=path,
        )
    got = read_back(path, writer, engines)
    with open(path, "r+b") as fh:
        fh.truncate(got.end)
    done = got.rows
    return got.complete, {e: [done[s][e] for s in range(1, got.complete + 1)] for e in engines}


def check_resumable(path: Path, run: str) -> None:
    """Refuse, before any model loads, to resume ``path`` when its first line names other
    inputs, another format or another chunk size than ``run`` (``inputs:... format:...
    chunk:...``), or differs in a setting ``run`` names after them (the parts of the
    signature the options give, ``variant:anchors|idf:no``...); the scorer's whole signature
    is compared once it is loaded (:func:`resume_state`)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            first = fh.readline().rstrip("\n")
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", path=path) from None
    old, new = _settings(first), _settings(run)
    if not old.parts:
        raise InputError(
            "cannot resume: its first line is not an xlscore header; remove it or drop --resume",
            path=path,
        )
    diff = new.differing(old)
    if diff:
        raise InputError(
            "cannot resume: the file was written with other settings or inputs ("
            + _differences(diff, old, new)
            + "); remove it or drop --resume",
            path=path,
        )


def _settings(line: str) -> Signature:
    """The settings a first line names, as one signature: the run's ``inputs:``,
    ``format:`` and ``chunk:``, then each part of the scorer's signature (``est:...``,
    ``ru:...``); no part for a line that is not an xlscore header."""
    line = line.removeprefix("# ")
    if line.startswith("{"):
        try:
            line = str(json.loads(line).get("xlscore", ""))
        except (ValueError, AttributeError):
            return Signature(())
    try:
        return Signature(tuple(p for t in line.split() for p in Signature.parse(t).parts))
    except ValueError:  # a part without a key: not a header this package wrote
        return Signature(())


def setting_differences(old: str, new: str) -> str:
    """Which settings differ between a file's first line and this run's, in words."""
    a, b = _settings(old), _settings(new)
    if not a.parts:
        return "its first line is not an xlscore header"
    return _differences(list(dict.fromkeys([*b.differing(a), *a.differing(b)])), a, b)


def _differences(diff: list[str], a: Signature, b: Signature) -> str:
    """The settings ``diff`` that differ between a file's (``a``) and this run's (``b``)."""
    said = [
        f"{k}: {a.value(k, '(none)')} in the file, {b.value(k, '(none)')} now"
        if k != "inputs"
        else "the input files or engine names differ"
        for k in diff
    ]
    return "; ".join(said[:3]) + (f"; and {len(said) - 3} more" if len(said) > 3 else "")
