"""Human judgments of translations, read from the WMT formats into one shape.

Three layouts are read (higher scores are better in every :class:`Judgment`):

* **MQM TSV** (WMT21 newstest): header with ``seg_id, system, source, translation,
  human_score`` and optionally ``reference, is_human_translation``; several systems per source.
* **QE TSV** (WMT22 QE): header with ``seg_id, source, translation, mqm_score``; one machine
  translation per source (system ``mt``).
* **HTER files** (WMT19 QE): a path prefix ``P`` with line-parallel ``P.src``, ``P.mt``,
  ``P.hter`` and optionally ``P.pe``; the score is minus the HTER, and each post-edit that
  differs from its machine translation is a second, human translation of the source with
  HTER 0 (it needs no edit). The data have no documents: blocks of :data:`HTER_BLOCK` lines
  stand in for them.

Segment ids look like ``<set>:<doc>:<n>``; :attr:`Judgment.doc` is the middle part.
"""
from __future__ import annotations

import csv
import math
import random
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .inputs import decode_lines, read_bytes

JUDGMENT_COLUMNS = ("seg_id", "source", "translation")
SCORE_COLUMNS = ("human_score", "mqm_score")
HTER_BLOCK = 100


@dataclass(frozen=True)
class Judgment:
    """One human-judged translation."""

    seg_id: str
    system: str
    source: str
    translation: str
    human: float
    reference: str = ""
    is_human: bool = False

    @property
    def doc(self) -> str:
        """Document id: ``newstest2021:<doc>:<n>`` -> ``<doc>``."""
        parts = self.seg_id.split(":")
        return parts[1] if len(parts) >= 3 else self.seg_id


def _finite(text: str, what: str, path, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(f"{what} {text!r} is not a finite number", path=path, line=line)
    return value


def _read_tsv(path: str | Path) -> list[Judgment]:
    lines = decode_lines(read_bytes(path), path)
    rows = list(csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = rows[0]
    missing = [c for c in JUDGMENT_COLUMNS if c not in header]
    if missing:
        raise InputError(f"no column {missing[0]!r} (columns: {', '.join(header)})",
                         path=path, line=1)
    score = next((c for c in SCORE_COLUMNS if c in header), None)
    if score is None:
        raise InputError(f"no score column: need one of {', '.join(SCORE_COLUMNS)} "
                         f"(columns: {', '.join(header)})", path=path, line=1)
    col = {c: header.index(c) for c in header}
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputError(f"{len(row)} fields where the header has {len(header)}",
                             path=path, line=n)
        out.append(Judgment(
            row[col["seg_id"]], row[col["system"]] if "system" in col else "mt",
            row[col["source"]], row[col["translation"]], _finite(row[col[score]], score, path, n),
            row[col["reference"]] if "reference" in col else "",
            "is_human_translation" in col and row[col["is_human_translation"]] == "1"))
    return out


def _read_hter(prefix: Path) -> list[Judgment]:
    parts = {}
    for ext in ("src", "mt", "hter", "pe"):
        f = prefix.with_name(prefix.name + "." + ext)
        if f.exists() or ext != "pe":
            parts[ext] = decode_lines(read_bytes(f), f)
    n = len(parts["src"])
    for ext, lines in parts.items():
        if len(lines) != n:
            raise InputError(f"{len(lines)} lines, but {prefix}.src has {n}; the files must be "
                             "line-parallel", path=f"{prefix}.{ext}")
    name = prefix.name
    out = []
    for i in range(n):
        hter = _finite(parts["hter"][i], "HTER", f"{prefix}.hter", i + 1)
        seg = f"{name}:{i // HTER_BLOCK}:{i + 1}"
        out.append(Judgment(seg, "mt", parts["src"][i], parts["mt"][i], -hter))
        pe = parts.get("pe")
        if pe is not None and pe[i] != parts["mt"][i]:
            out.append(Judgment(seg, "post-edit", parts["src"][i], pe[i], 0.0, is_human=True))
    return out


def read_judgments(path: str | Path, *, include_human: bool = False) -> list[Judgment]:
    """Judged translations from an MQM or QE TSV file, or from HTER files given by their
    common prefix (``.../train`` for ``train.src``, ``train.mt``, ``train.hter``). Human
    translations (and post-edits) are left out unless ``include_human``. Problems are
    :class:`~xlscore.errors.InputError` naming the file and line."""
    p = Path(path)
    if not p.exists() and p.with_name(p.name + ".hter").exists():
        rows = _read_hter(p)
    else:
        rows = _read_tsv(path)
    return [r for r in rows if include_human or not r.is_human]


def sample_sources(rows: list[Judgment], n: int, seed: int = 1) -> list[Judgment]:
    """The judgments of ``n`` sources (segment ids) drawn at random with ``seed``, every
    translation of each kept, in their original order; all rows if there are not more."""
    segs = sorted({r.seg_id for r in rows})
    if n >= len(segs):
        return list(rows)
    keep = set(random.Random(seed).sample(segs, n))
    return [r for r in rows if r.seg_id in keep]
