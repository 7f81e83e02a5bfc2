"""Output formats of ``xlscore score``: text, TSV and JSON lines, each written a segment at a
time and readable back, which is what ``--resume`` relies on."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, NamedTuple, TextIO

from xlscore.errors import InputError
from xlscore.fields import ALL
from xlscore.io import schema


@dataclass
class Row:
    """One scored (segment, engine) as written to and read back from the output."""

    segment: int  # 1-based
    engine: str
    score: float


class Empties(NamedTuple):
    """An engine's empty segments (scored at the floor) and how much they lower its mean."""

    segments: int = 0
    cost: float = 0.0

    def note(self) -> str:
        """`` (N empty, scored at the floor: -C of this mean)``, or nothing without them."""
        if not self.segments:
            return ""
        return f" ({self.segments} empty, scored at the floor: {-self.cost:+.4f} of this mean)"


NO_EMPTIES = Empties()


class Writer:
    """Output format of ``xlscore score``: a header, one row per (segment, engine), and one
    summary per engine. Rows can be parsed back, which is what ``--resume`` relies on; system
    scores are means of the scores as written (``written``), so a resumed run sums the same
    numbers as an uninterrupted one."""

    DECIMALS: int | None = None

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
    def summary(
        self, engine: str, mean: float, n: int, signature: str, empties: Empties = NO_EMPTIES
    ) -> None: ...
    def first_line(self, head: str) -> str:
        raise NotImplementedError

    def parse(self, line: str) -> Row | None: ...


def _num(value: float | int | None, spec: str, missing: str = "") -> str:
    """``value`` formatted by ``spec``, or ``missing`` for a field not computed."""
    return missing if value is None else format(value, spec)


class TsvWriter(Writer):
    DECIMALS = 6
    #: ``segment``, ``engine``, then the result's columns (:mod:`xlscore.io.schema`)
    COLUMNS: ClassVar[list[str]] = ["segment", "engine", *(c.name for c in schema.COLUMNS)]

    def first_line(self, head: str) -> str:
        return f"# {head}"

    def header(self, head, engines):
        self.out.write(self.first_line(head) + "\n" + "\t".join(self.COLUMNS) + "\n")

    def row(self, segment, engine, r):
        cells = [str(segment), engine, *(c.tsv(r) for c in schema.COLUMNS)]
        self.out.write("\t".join(cells) + "\n")

    def summary(self, engine, mean, n, signature, empties=NO_EMPTIES):
        gap = "\t" * (len(self.COLUMNS) - 3)
        self.out.write(
            f"system\t{engine}\t{mean:.6f}{gap}{n} segments{empties.note()}; {signature}\n"
        )

    def parse(self, line):
        f = line.rstrip("\n").split("\t")
        if len(f) < 3 or not f[0].isdigit():
            return None
        return Row(int(f[0]), f[1], float(f[2]))


class TextWriter(TsvWriter):
    DECIMALS = 4

    def header(self, head, engines):
        self.out.write(self.first_line(head) + "\n")
        paper = (
            f" {'F1':>8} {'P':>8} {'R':>8} {'cons':>7} {'anchors':>7}"
            if "paper" in self.fields
            else ""
        )
        self.out.write(f"# {'seg':>5}  {'engine':<16} {'score':>8}{paper}  flags\n")

    def row(self, segment, engine, r):
        paper = ""
        if "paper" in self.fields:
            prp = " ".join(f"{_num(x, '+8.4f', '—'):>8}" for x in (r.f1, r.precision, r.recall))
            paper = f" {prp} {_num(r.consensus, '.4f', '—'):>7} {_num(r.n_anchors, 'd', '—'):>7}"
        self.out.write(f"{segment:>7}  {engine:<16} {r.score:+8.4f}{paper}  {','.join(r.flags)}\n")

    def summary(self, engine, mean, n, signature, empties=NO_EMPTIES):
        self.out.write(f"# system score {engine}: {mean:.4f} over {n} segments{empties.note()}\n")

    def parse(self, line):
        f = line.split()
        if len(f) < 3 or not f[0].isdigit():
            return None
        return Row(int(f[0]), f[1], float(f[2]))


class JsonWriter(Writer):
    def first_line(self, head: str) -> str:
        return json.dumps({"xlscore": head}, ensure_ascii=False)

    def header(self, head, engines):
        self.out.write(self.first_line(head) + "\n")

    def row(self, segment, engine, r):
        self.out.write(
            json.dumps({"segment": segment, "engine": engine, **r.to_dict()}, ensure_ascii=False)
            + "\n"
        )

    def summary(self, engine, mean, n, signature, empties=NO_EMPTIES):
        self.out.write(
            json.dumps(
                {
                    "system": engine,
                    "score": mean,
                    "segments": n,
                    "empty": empties.segments,
                    "empty_cost": empties.cost,
                    "signature": signature,
                },
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
        return Row(int(d["segment"]), str(d["engine"]), float(d["score"]))


WRITERS: dict[str, type[Writer]] = {
    "text": TextWriter,
    "tsv": TsvWriter,
    "json": JsonWriter,
}


def resume_state(
    path: Path, writer: Writer, head: str, engines: list[str]
) -> tuple[int, dict[str, list[float]]]:
    """Segments already complete in ``path`` and their scores; the file is cut back to the end
    of the last complete segment (a partly written line or segment is dropped)."""
    data = path.read_bytes()
    lines = data.split(b"\n")[:-1]  # the last piece has no newline: partly written
    first = lines[0].decode("utf-8", "replace") if lines else ""
    if first != writer.first_line(head):
        raise InputError(
            "cannot resume: the file was written with other settings or inputs ("
            + setting_differences(first, writer.first_line(head))
            + "); remove it or drop --resume",
            path=path,
        )
    done: dict[int, dict[str, float]] = {}
    keep_bytes, offset, complete = 0, 0, 0
    for raw in lines:
        offset += len(raw) + 1
        row = writer.parse(raw.decode("utf-8", "replace"))
        if row is None:
            if complete == 0 and not done:
                keep_bytes = offset  # header lines
            continue
        done.setdefault(row.segment, {})[row.engine] = row.score
        while len(done.get(complete + 1, {})) == len(engines):
            complete += 1
            keep_bytes = offset
    with open(path, "r+b") as fh:
        fh.truncate(keep_bytes)
    scores = {e: [done[s][e] for s in range(1, complete + 1)] for e in engines}
    return complete, scores


def _settings(line: str) -> dict[str, str]:
    """The settings a first line names, by key: each part of the signature
    (``est:...``, ``ru:...``) and the run's ``inputs:``, ``format:`` and ``chunk:``."""
    line = line.removeprefix("# ")
    if line.startswith("{"):
        try:
            line = str(json.loads(line).get("xlscore", ""))
        except (ValueError, AttributeError):
            return {}
    out = {}
    for token in line.split():
        for part in token.split("|"):
            key, _, value = part.partition(":")
            out[key] = value
    return out


def setting_differences(old: str, new: str) -> str:
    """Which settings differ between a file's first line and this run's, in words."""
    a, b = _settings(old), _settings(new)
    if not a:
        return "its first line is not an xlscore header"
    diff = [k for k in dict.fromkeys([*b, *a]) if a.get(k) != b.get(k)]
    said = [
        f"{k}: {a.get(k, '(none)')} in the file, {b.get(k, '(none)')} now"
        if k != "inputs"
        else "the input files or engine names differ"
        for k in diff
    ]
    return "; ".join(said[:3]) + (f"; and {len(said) - 3} more" if len(said) > 3 else "")
