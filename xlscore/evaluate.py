"""Agreement between metric scores and human judgments (scipy.stats underneath).

Data are :class:`Judgment` rows: a segment id, a system, a human score and (after scoring) a
metric score. Higher is better for both.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy import stats

from .errors import InputError

JUDGMENT_COLUMNS = ("seg_id", "system", "source", "translation", "human_score")


@dataclass(frozen=True)
class Judgment:
    """One human-judged translation (a row of the shared data's TSV)."""

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


def read_judgments(path: str | Path, *, include_human: bool = False) -> list[Judgment]:
    """Rows of a TSV with a header holding ``seg_id, system, source, translation,
    human_score`` (and optionally ``reference``, ``is_human_translation``); no quoting.
    Human translations are left out unless ``include_human``."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 ({err.reason})", path=path) from None
    rows = list(csv.reader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows:
        raise InputError("file is empty", path=path)
    header = rows[0]
    missing = [c for c in JUDGMENT_COLUMNS if c not in header]
    if missing:
        raise InputError(f"no column {missing[0]!r} (columns: {', '.join(header)})",
                         path=path, line=1)
    col = {c: header.index(c) for c in header}
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputError(f"{len(row)} fields where the header has {len(header)}",
                             path=path, line=n)
        try:
            human = float(row[col["human_score"]])
        except ValueError:
            raise InputError(f"human_score {row[col['human_score']]!r} is not a number",
                             path=path, line=n) from None
        is_human = row[col["is_human_translation"]] == "1" if "is_human_translation" in col \
            else False
        if is_human and not include_human:
            continue
        out.append(Judgment(row[col["seg_id"]], row[col["system"]], row[col["source"]],
                            row[col["translation"]], human,
                            row[col["reference"]] if "reference" in col else "", is_human))
    return out


def group_segments(seg_ids: Sequence[str], human: Sequence[float], metric: Sequence[float]
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(human, metric)`` arrays per segment, in order of first appearance."""
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(seg_ids):
        groups.setdefault(s, []).append(i)
    h, m = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    return [(h[idx], m[idx]) for idx in groups.values()]


def per_segment(seg_ids: Sequence[str], human: Sequence[float], metric: Sequence[float],
                method: str = "kendall") -> tuple[float, list[float], int]:
    """Mean over segments of the rank correlation between metric and human scores of the
    segment's translations (Kendall tau-b or Spearman rho with average ranks); segments whose
    human scores are all equal are skipped. Returns the mean, the per-segment values and the
    number skipped. A segment whose metric scores are all equal counts as 0."""
    values, skipped = [], 0
    for h, m in group_segments(seg_ids, human, metric):
        if len(h) < 2 or np.all(h == h[0]):
            skipped += 1
            continue
        if np.all(m == m[0]):
            values.append(0.0)
            continue
        if method == "kendall":
            v = stats.kendalltau(m, h, variant="b").statistic
        elif method == "spearman":
            v = stats.spearmanr(m, h).statistic
        else:
            raise ValueError(f"unknown method {method!r}")
        values.append(0.0 if math.isnan(v) else float(v))
    mean = float(np.mean(values)) if values else float("nan")
    return mean, values, skipped
