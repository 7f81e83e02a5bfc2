"""Human judgments of translations, read from the WMT formats into one shape.

Four layouts are read (higher scores are better in every :class:`Judgment`):

* **MQM TSV** (WMT21 newstest): header with ``seg_id, system, source, translation,
  human_score`` and optionally ``reference, is_human_translation``; several systems per source.
  ``human_score`` is minus a *sum* of error weights (kind ``"mqm"``).
* **DA TSV** (WMT21 source-based direct assessment): the MQM layout plus ``raw_da`` (the mean
  raw 0-100 rating, kept in :attr:`Judgment.raw`; ``human_score`` is the z-score); kind
  ``"da"``. Ratings are noisy: training compares two translations of a source only when their
  raw ratings differ clearly (:attr:`xlscore.training.loop.Recipe.da_gap`).
* **QE TSV** (WMT22 QE): header with ``seg_id, source, translation, mqm_score``; one machine
  translation per source (system ``mt``); the score is already per word (kind ``"qe"``).
* **HTER files** (WMT19 QE): a path prefix ``P`` with line-parallel ``P.src``, ``P.mt``,
  ``P.hter`` and optionally ``P.pe``; the score is minus the HTER, and each post-edit that
  differs from its machine translation is a second, human translation of the source with
  HTER 0 (it needs no edit). With post-edits, the words of the machine translation that the
  post-editor changed or removed are its error marks (severity ``"edit"``: an edit, not a
  rated error), as the WMT word-level tags are derived (:func:`edit_marks`). The data have no
  documents: blocks of :data:`HTER_BLOCK` lines stand in for them.

Segment ids look like ``<set>:<doc>:<n>``; :attr:`Judgment.doc` is the middle part.

**Other language pairs** (the ``multilingual/`` files of the shared data: gzip-compressed or
plain TSV with a column ``lp``) are read by the same :func:`read_judgments`, each row with its
language pair (:attr:`Judgment.lp`), its release (:attr:`Judgment.release`) and the en-ru files
that hold the same English source (:attr:`Judgment.source_in`, from ``enru_source_in``):

* ``mqm_score``: expert MQM, kind ``"mqm"`` (newstest: minus summed error weights) or ``"qe"``
  (the 2022 dev sets' length-normalised score), several systems per source;
* ``da_z``: direct assessment, kind ``"da"``, one translation per source (``da_mean`` in
  :attr:`Judgment.raw` where released);
* ``post_edit`` + ``hter`` + ``tags``: kind ``"hter"`` (minus the HTER), the post-editing
  ``BAD`` tags as error marks of severity ``"edit"`` (they mark edits, not rated errors: training
  decides whether to learn from them);
* ``label`` (``OK``/``BAD``): critical-error labels, kind ``"ced"`` (0 or -1).

Rows without a ``seg_id`` get ``<release>:<lp>:<line>``; the raters' spans of the MQM rows
are in a file of their own, read by :mod:`xlscore.io.error_marks` like the en-ru span file.
:func:`split_sets` cuts rows into training sets of one scale each (language pair, release,
kind), and :func:`leave_out_sources` drops the rows whose English source a test file holds.

Where the errors are is read by :mod:`xlscore.io.error_marks`.
"""

from __future__ import annotations

import csv
import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xlscore.errors import InputError
from xlscore.io.inputs import decode_lines, read_bytes

JUDGMENT_COLUMNS = ("seg_id", "source", "translation")
SCORE_COLUMNS = ("human_score", "mqm_score")
HTER_BLOCK = 100
#: severities an error mark may carry: MQM's (``critical`` kept as its own level on reading),
#: and ``edit`` for a word a post-editor changed (not a rated error)
SEVERITIES = ("minor", "major", "critical", "edit")
#: the language pair of the files without an ``lp`` column
DEFAULT_LP = "en-ru"


@dataclass(frozen=True)
class ErrorMark:
    """One error a rater marked in a translation: characters ``start:end`` (end exclusive; equal
    for an omission marked at a position) and its severity."""

    start: int
    end: int
    severity: str = "major"


@dataclass(frozen=True)
class Judgment:
    """One human-judged translation.

    ``kind``: what ``human`` measures — ``"mqm"`` (minus a sum of error weights), ``"qe"``
    (length-normalised MQM), ``"hter"`` (minus the edit rate), ``"da"`` (direct assessment
    z-score, with the raw 0-100 rating in ``raw``) or ``"ced"`` (0, or -1 for a critical error).
    ``errors``: where the errors are, when known (``()``: known to have none; ``None``: not
    annotated). ``lp``: the language pair (``en-ru`` unless the file says); ``release``: the
    set within a multi-set file (e.g. ``newstest2020``); ``source_in``: the en-ru files that
    hold the same English source (rows to leave out of training when testing on one of them).
    """

    seg_id: str
    system: str
    source: str
    translation: str
    human: float
    reference: str = ""
    is_human: bool = False
    kind: str = "mqm"
    raw: float | None = None
    errors: tuple[ErrorMark, ...] | None = None
    lp: str = DEFAULT_LP
    release: str = ""
    source_in: tuple[str, ...] = ()

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


def _read_table(path: str | Path) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a TSV file (gzip-compressed when its name ends in ``.gz``), each row
    checked to have the header's number of fields."""
    data = read_bytes(path)
    if str(path).endswith(".gz"):
        import gzip
        import zlib

        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as err:
            raise InputError(f"not a readable gzip file ({err})", path=path) from None
    lines = decode_lines(data, path)
    rows = list(csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = rows[0]
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputError(
                f"{len(row)} fields where the header has {len(header)}", path=path, line=n
            )
    return header, rows[1:]


def _read_tsv(path: str | Path) -> list[Judgment]:
    header, rows = _read_table(path)
    if "lp" in header and "human_score" not in header:  # the en-ru DA file has an lp column too
        return _read_multilingual(header, rows, path)
    missing = [c for c in JUDGMENT_COLUMNS if c not in header]
    if missing:
        raise InputError(
            f"no column {missing[0]!r} (columns: {', '.join(header)})", path=path, line=1
        )
    score = next((c for c in SCORE_COLUMNS if c in header), None)
    if score is None:
        raise InputError(
            f"no score column: need one of {', '.join(SCORE_COLUMNS)} "
            f"(columns: {', '.join(header)})",
            path=path,
            line=1,
        )
    col = {c: header.index(c) for c in header}
    kind = "da" if "raw_da" in col else "mqm" if score == "human_score" else "qe"
    out = []
    for n, row in enumerate(rows, start=2):
        out.append(
            Judgment(
                row[col["seg_id"]],
                row[col["system"]] if "system" in col else "mt",
                row[col["source"]],
                row[col["translation"]],
                _finite(row[col[score]], score, path, n),
                row[col["reference"]] if "reference" in col else "",
                "is_human_translation" in col and row[col["is_human_translation"]] == "1",
                kind,
                _finite(row[col["raw_da"]], "raw_da", path, n) if kind == "da" else None,
            )
        )
    return out


#: what each layout of a multi-pair file is recognised by (the first match wins) and its kind
_LAYOUTS = (("mqm_score", "mqm"), ("da_z", "da"), ("post_edit", "hter"), ("label", "ced"))


def _read_multilingual(header: list[str], rows: list[list[str]], path) -> list[Judgment]:
    """Judgments from a file with an ``lp`` column (module docstring)."""
    layout = next(((c, k) for c, k in _LAYOUTS if c in header), None)
    if layout is None:
        raise InputError(
            "a file with an lp column needs one of the score columns "
            + ", ".join(c for c, _ in _LAYOUTS)
            + f" (columns: {', '.join(header)})",
            path=path,
            line=1,
        )
    score, kind = layout
    need = ["source", "translation"] + (["hter", "tags"] if kind == "hter" else [])
    missing = [c for c in need if c not in header]
    if missing:
        raise InputError(
            f"no column {missing[0]!r} (columns: {', '.join(header)})", path=path, line=1
        )
    col = {c: header.index(c) for c in header}
    get = lambda row, c, default="": row[col[c]] if c in col else default
    out = []
    for n, row in enumerate(rows, start=2):
        lp, release = row[col["lp"]], get(row, "set")
        seg = get(row, "seg_id") or f"{release}:{lp}:{n - 1}"
        raw = None
        errors: tuple[ErrorMark, ...] | None = None
        if kind == "mqm":
            human = _finite(row[col[score]], score, path, n)
            row_kind = "qe" if release.startswith("dev") else "mqm"
        elif kind == "da":
            human = _finite(row[col[score]], score, path, n)
            raw = _finite(get(row, "da_mean"), "da_mean", path, n) if get(row, "da_mean") else None
            row_kind = "da"
        elif kind == "hter":
            human = -_finite(row[col["hter"]], "hter", path, n)
            errors = _marks_from_words(row[col["translation"]], row[col["tags"]], path, n)
            row_kind = "hter"
        else:
            label = row[col["label"]]
            if label not in ("OK", "BAD"):
                raise InputError(f"label {label!r} is neither OK nor BAD", path=path, line=n)
            human, row_kind = (-1.0 if label == "BAD" else 0.0), "ced"
        out.append(
            Judgment(
                seg,
                get(row, "system", "mt") or "mt",
                row[col["source"]],
                row[col["translation"]],
                human,
                is_human=get(row, "is_human_translation") == "1",
                kind=row_kind,
                raw=raw,
                errors=errors,
                lp=lp,
                release=release,
                source_in=tuple(x for x in get(row, "enru_source_in").split(",") if x),
            )
        )
    return out


def _marks_from_words(text: str, tags: str, path, line: int) -> tuple[ErrorMark, ...]:
    """Edit marks from one ``OK``/``BAD`` tag per whitespace token of ``text``."""
    import re

    tokens = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    t = tags.split()
    if len(t) != len(tokens):
        raise InputError(f"{len(t)} tags for {len(tokens)} words", path=path, line=line)
    return _bad_marks(t, tokens, "edit", path, line)


def _bad_marks(
    tags: Sequence[str], spans: Sequence[tuple[int, int]], severity: str, path, line: int
) -> tuple[ErrorMark, ...]:
    """A mark of ``severity`` for each span tagged ``BAD`` (every tag checked to be ``OK`` or
    ``BAD``)."""
    bad = [tag for tag in tags if tag not in ("OK", "BAD")]
    if bad:
        raise InputError(f"tag {bad[0]!r} is neither OK nor BAD", path=path, line=line)
    return tuple(ErrorMark(a, b, severity) for (a, b), tag in zip(spans, tags) if tag == "BAD")


def split_sets(rows: Sequence[Judgment]) -> list[list[Judgment]]:
    """``rows`` cut into sets of one scale each: one per language pair, release and kind, in
    the order they first occur (training puts each set's scores on one scale)."""
    sets: dict[tuple[str, str, str], list[Judgment]] = {}
    for r in rows:
        sets.setdefault((r.lp, r.release, r.kind), []).append(r)
    return list(sets.values())


def leave_out_sources(rows: Sequence[Judgment], test_file: str | Path) -> list[Judgment]:
    """``rows`` without those whose English source the en-ru file ``test_file`` holds (its
    path or name, with or without extensions, as the column ``enru_source_in`` names it)."""
    name = Path(test_file).name.split(".")[0]
    return [r for r in rows if name not in r.source_in]


def _read_hter(prefix: Path) -> list[Judgment]:
    parts = {}
    for ext in ("src", "mt", "hter", "pe"):
        f = prefix.with_name(prefix.name + "." + ext)
        if f.exists() or ext != "pe":
            parts[ext] = decode_lines(read_bytes(f), f)
    n = len(parts["src"])
    for ext, lines in parts.items():
        if len(lines) != n:
            raise InputError(
                f"{len(lines)} lines, but {prefix}.src has {n}; the files must be line-parallel",
                path=f"{prefix}.{ext}",
            )
    name = prefix.name
    out = []
    for i in range(n):
        hter = _finite(parts["hter"][i], "HTER", f"{prefix}.hter", i + 1)
        seg = f"{name}:{i // HTER_BLOCK}:{i + 1}"
        pe = parts.get("pe")
        marks = None if pe is None else edit_marks(parts["mt"][i], pe[i])
        out.append(
            Judgment(seg, "mt", parts["src"][i], parts["mt"][i], -hter, kind="hter", errors=marks)
        )
        if pe is not None and pe[i] != parts["mt"][i]:
            out.append(
                Judgment(
                    seg,
                    "post-edit",
                    parts["src"][i],
                    pe[i],
                    0.0,
                    is_human=True,
                    kind="hter",
                    errors=(),
                )
            )
    return out


def edit_marks(mt: str, post_edit: str) -> tuple[ErrorMark, ...]:
    """The words of ``mt`` that a post-editor replaced or deleted (a minimal word-level edit
    alignment), as marks of severity ``"edit"``; a word inserted by the post-editor marks the
    gap before it (a zero-length mark)."""
    import difflib

    from xlscore.text.words import split_words

    a, b = split_words(mt), split_words(post_edit)
    marks = []
    ops = difflib.SequenceMatcher(
        None, [w.text for w in a], [w.text for w in b], autojunk=False
    ).get_opcodes()
    for tag, i1, i2, _, _ in ops:
        if tag in ("replace", "delete"):
            marks.append(ErrorMark(a[i1].start, a[i2 - 1].end, "edit"))
        elif tag == "insert":
            at = a[i1 - 1].end if i1 > 0 else 0
            marks.append(ErrorMark(at, at, "edit"))
    return tuple(marks)


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


def rows_digest(rows: Sequence[Judgment]) -> str:
    """Digest of a training set's texts and scores (which data a file was trained on)."""
    h = hashlib.sha256()
    for r in rows:
        h.update(f"{r.seg_id}\t{r.source}\t{r.translation}\t{r.human!r}\n".encode())
    return h.hexdigest()[:16]
