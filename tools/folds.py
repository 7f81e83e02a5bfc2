"""The exported fold predictions (``results/folds/VARIANT/FOLD.tsv.xz``, written by
``python tools/estimator.py export`` and ``sets.py predict``) and the WMT22 word tags they
are tagged against: what :mod:`gate` and :mod:`span_threshold` read, so that a fold is trained
once and its predictions outlive the experiment cache. A fold file is a TSV compressed with xz
(a sixth of the text's size; the format holds no time stamp, so the same predictions give the
same bytes)."""

from __future__ import annotations

import csv
import json
import lzma
import re
from dataclasses import dataclass
from pathlib import Path

from xlscore.estimator.span_tagger import SpanTagger
from xlscore.estimator.spans import WordError, decode_spans

#: where each variant's fold predictions are kept in the repository
FOLDS = Path(__file__).resolve().parent.parent / "experiments" / "results" / "folds"


def fold_path(variant: str, stem: str) -> Path:
    """The file of a variant's predictions called ``stem`` (a fold or a set's key)."""
    return FOLDS / variant / f"{stem}.tsv.xz"


def read_table(path: Path) -> str:
    """A fold file's text."""
    with lzma.open(path, "rt", encoding="utf-8", newline="") as fh:
        return fh.read()


def write_table(path: Path, lines: list[str]) -> None:
    """Write a fold file: ``lines``, a TSV's header and rows, compressed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(path, "wt", encoding="utf-8", newline="") as fh:
        fh.write("\n".join(lines) + "\n")


def read_fold(
    name: str, fold: str, rows: list, blend: float = 0.0
) -> tuple[list[float], list[tuple]] | None:
    """A variant's predictions on a fold's test rows, in their order, with the word error
    probabilities (``None`` when the fold has not been exported). ``blend``: weight of the
    meaning head's output (the file's optional ``meaning`` column) added to each score."""
    f = fold_path(name, fold)
    if not f.exists():
        return None
    lines = read_table(f).splitlines()
    header = lines[0].split("\t")
    if blend and "meaning" not in header:
        raise SystemExit(f"{f}: no meaning column to blend in ({name} has no meaning head)")
    found = {}
    for line in lines[1:]:
        cells = dict(zip(header, line.split("\t")))
        items = tuple(
            WordError(int(a), int(b), float(p), float(mi), float(ma))
            for a, b, p, mi, ma in (w.split(":") for w in cells["words"].split())
        )
        score = float(cells["score"]) + (blend * float(cells["meaning"]) if blend else 0.0)
        found[(cells["seg_id"], cells["system"])] = (score, items)
    missing = [(r.seg_id, r.system) for r in rows if (r.seg_id, r.system) not in found]
    if missing:
        raise SystemExit(f"{f}: no prediction for {missing[0]} ({len(missing)} missing)")
    picked = [found[(r.seg_id, r.system)] for r in rows]
    return [p[0] for p in picked], [p[1] for p in picked]


def word_items(words) -> str:
    """A row's word error probabilities as a fold file writes them: ``start:end:p:minor:major``
    items, space-separated (what :func:`read_fold` reads back)."""
    return " ".join(
        f"{x.start}:{x.end}:{x.probability:.4f}:{x.minor:.4f}:{x.major:.4f}" for x in words
    )


def agreement_on(rows: list, scores: list[float], n_boot: int):
    """Every agreement statistic of ``scores`` with the human scores of ``rows`` (judged
    translations), with bootstrap intervals."""
    from xlscore.evaluation.agreement import agreement

    return agreement(
        [r.seg_id for r in rows],
        [r.system for r in rows],
        [r.human for r in rows],
        scores,
        n_boot=n_boot,
    )


def config(name: str) -> dict:
    """The variant's configuration as exported (recipe, data, note)."""
    return json.loads((FOLDS / name / "config.json").read_text())


@dataclass
class TagRow:
    """A WMT22 dev translation with its task tokens and their gold tags."""

    translation: str
    tokens: list[tuple[int, int]]
    gold: list[bool]


def read_tags(path: Path) -> dict[str, TagRow]:
    """``{seg_id: TagRow}`` of a word-level QE file (``tokens``' ``offsets`` and ``tags``)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return {
            r["seg_id"]: TagRow(
                r["translation"],
                [(int(a), int(b)) for a, b in (o.split(":") for o in r["offsets"].split())],
                [t == "BAD" for t in r["tags"].split()],
            )
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        }


def whitespace_tags(translation: str, errors) -> tuple[list[tuple[int, int]], list[bool]]:
    """The whitespace tokens of a translation and whether a rater's span (``errors``: items
    with ``.start`` and ``.end``; ``None``: none) overlaps each: the gold of a set without the
    task's own tokens."""
    tokens = [(m.start(), m.end()) for m in re.finditer(r"\S+", translation)]
    return tokens, [any(e.start < b and a < e.end for e in errors or ()) for a, b in tokens]


def tags_at(rows: list[TagRow], words: list, threshold: float) -> list[list[bool]] | None:
    """Each gold token (the task's tokenisation) tagged BAD when a span decoded from the
    word error probabilities at ``threshold`` overlaps it; ``None`` for a model without a
    word head."""
    if not any(words):
        return None
    return [
        tokens_hit(r.tokens, decode_spans(r.translation, w, threshold))
        for r, w in zip(rows, words, strict=True)
    ]


def tokens_hit(tokens: list[tuple[int, int]], spans) -> list[bool]:
    """For each token ``(start, end)``, whether a predicted span (``.start``, ``.end``)
    overlaps it: the BAD tags a tagger's spans give the gold tokens."""
    return [any(a < s.end and s.start < b for s in spans) for a, b in tokens]


def fold_tagger(name: str, fold: str) -> SpanTagger | None:
    """The span tagger fitted without the fold's test set (``span_tagger.py``), if any."""
    f = FOLDS / name / f"span-tagger-{fold}.json"
    if not f.exists():
        return None
    return SpanTagger.from_meta(json.loads(f.read_text(encoding="utf-8")), f)


def latin_tags(rows: list[TagRow]) -> list[list[bool]]:
    """The WMT22 reference rule: a token with a Latin letter is BAD."""
    import regex

    return [
        [bool(regex.search(r"\p{Latin}", r.translation[a:b])) for a, b in r.tokens] for r in rows
    ]
