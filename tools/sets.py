"""Every set of human judgments of real machine translation the score is judged on (issue 51),
each read by the fold model that never saw it, and what each part of the score gives on it.

    python tools/sets.py predict --data-dir ../shared/data --model-id rtm15
    python tools/sets.py findings --data-dir ../shared/data   # after a change to the checks

**Many-systems sets** (several engines' translations of each source; per-segment Kendall tau-b
averaged over the sources with at least three distinct human scores, and system Kendall): en-ru
newstest2021 MQM and source-based DA, en-de and zh-en newstest2020 and newstest2021 MQM.
**Single-translation sets** (Spearman over all translations): WMT22 en-ru QE dev, MLQE-PE
dev2021 DA (the mean of its seven language pairs' Spearman), WMT19 en-ru IT HTER test. Machine
translations only.

**Validation only** (:data:`VALIDATION_ONLY`, issue 84): the en-ru biomedical MQM, read twice —
as a many-systems set (the 107 sources with three distinct human scores) and over all its
2,124 machine translations (Spearman, ``bio-rows``). Its rule: never train, tune a weight or
pick a threshold on it. It is reported beside every comparison, but the rule's weights and the
means the recipes are chosen by leave it out. No model trains on it, so the ``lodo-qe22``
model reads it.

Which model reads which set: the variant's ``lodo-news`` fold (trained without en-ru newstest2021
MQM and without the DA rows of its sources) reads en-ru newstest MQM and DA, en-de
newstest2021 (whose sources are the en-ru newstest sources) and the en-de talks; its
``lodo-qe22`` fold reads the rest, the zh-en talks among them. A variant trained with the talks
(``estimator.py run --talks``, issue 72) trains its ``lodo-news`` fold with the zh-en talks and
its ``lodo-qe22`` fold with the en-de talks, so that each talks set is read by the model that
never trained on it (the talks files' rule); ``rtm15``, trained on no talks, reads both with the
``lodo-qe22`` model it keeps in git (:func:`reading_fold`). Rows whose English source (letters and
digits, lower-cased) is in the fold's en-ru training data are dropped, so no figure comes from a
source the model saw; the variant may not train on the other pairs' news files (they are test
sets here). The big sets are cut to
:data:`SOURCES` sources (drawn with a fixed seed among those with three distinct scores) and
MLQE-PE to :data:`PER_PAIR` rows a pair, so that a variant is read in about a quarter of an hour
on 2 CPU cores.

``predict`` writes each set's predictions (the sentence head's estimate, the meaning head's raw
output) to ``results/folds/VARIANT/SET.tsv.xz`` (the newstest and WMT22 folds' own files are
the exported ``lodo-news.tsv.xz`` and ``lodo-qe22.tsv.xz``), and the parts that do not depend on
the model — the untrained e5 similarity, the share of foreign words and the reliable check
findings — to ``results/folds/parts/SET.tsv.xz``, so that the rule (:mod:`rule`, which also
writes every set's table) and the gate run from git alone.
"""

from __future__ import annotations

import argparse
import csv
import functools
import io
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _protocol import CACHE, RTM15_FILE, TALKS, TALKS_READ, git_file, load_sets, split
from folds import FOLDS, fold_path, read_table, word_items, write_table

from xlscore.io.judgments import Judgment, read_judgments, sample_sources

#: the validation sets read from each multi-pair training file (``estimator.py --multilingual``):
#: a variant trained on the file may not read them (``word`` holds MLQE-PE's sentences)
READ_FROM = {
    "mqm": ("ende20", "ende21", "zhen20", "zhen21"),
    "da": ("mlqe",),
    "word": ("mlqe",),
    "ced": (),
}
#: sources kept of a many-systems set that has more (seeded draw)
SOURCES = 250
#: rows kept of each MLQE-PE pair
PER_PAIR = 500
#: the file of the model-independent parts of each set's rows
MQM = "multilingual/mqm.tsv.gz"
#: the many-systems sets read whole, not cut to :data:`SOURCES` sources: newstest (its exported
#: fold file is read whole), the talks (421 and 238 sources, every one the issues' figures use)
#: and the biomedical set
WHOLE = ("news", *TALKS, "bio")
BIO = "bio-enru-mqm.tsv.gz"
#: sets reported but never chosen on: no weight, threshold or recipe is picked by them
VALIDATION_ONLY = ("bio-rows", "bio")
#: sets whose rows are a part of another set's: their predictions and parts are in its files
PART_OF = {"bio": "bio-rows"}


@dataclass(frozen=True)
class ValidationSet:
    """One judged set: its key (file names), label, kind (``systems``: several MT per
    source; ``single``: one), the protocol fold whose model reads it, and its test rows."""

    key: str
    label: str
    kind: str
    fold: str
    rows: tuple[Judgment, ...]

    @property
    def tunes(self) -> bool:
        """Whether a choice (a weight, a threshold, a recipe) may be made on this set."""
        return self.key not in VALIDATION_ONLY

    @property
    def russian(self) -> bool:
        """Whether the translations are Russian (the scorer's own target language)."""
        return all(r.lp.endswith("-ru") for r in self.rows)

    @property
    def groups(self) -> list[str]:
        """What a single-translation set's Spearman is averaged over (its language pairs)."""
        return [r.lp for r in self.rows]


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _distinct3(rows: list[Judgment]) -> list[Judgment]:
    """The rows of the sources with at least three distinct human scores."""
    by: dict[str, set[float]] = {}
    for r in rows:
        by.setdefault(r.seg_id, set()).add(r.human)
    return [r for r in rows if len(by[r.seg_id]) >= 3]


def _of(rows: list[Judgment], lp: str, release: str) -> list[Judgment]:
    """The machine translations of one pair and release of a multi-pair file's rows."""
    return [r for r in rows if r.lp == lp and r.release == release and not r.is_human]


def training_sources(sets: dict, fold: str) -> set[str]:
    """The normalised English sources of a fold's training rows (the en-ru recipe: DA, no IT)."""
    train, _ = split(sets, fold, use_it=False, it_sample=0, use_da=True)
    return {_norm(r.source) for rows in train for r in rows}


def load_validation_sets(data_dir: Path, only: set[str] | None = None) -> list[ValidationSet]:
    """Every validation set (``only``: those keys), each without the rows its fold's model
    trained on."""
    sets = load_sets(data_dir)
    sets["data_dir"] = data_dir
    seen = {f: training_sources(sets, f) for f in ("lodo-news", "lodo-qe22")}
    mqm = functools.cache(lambda: read_judgments(data_dir / MQM))  # read once, if at all
    specs: list[tuple[str, str, str, str, Callable[[], list[Judgment]]]] = [
        ("news", "en-ru newstest2021 MQM", "systems", "lodo-news",
         lambda: [r for r in sets["news"] if not r.is_human]),
        ("da", "en-ru newstest2021 DA", "systems", "lodo-news",
         lambda: [r for r in sets["da"] if not r.is_human]),
        ("ende20", "en-de newstest2020 MQM", "systems", "lodo-qe22",
         lambda: _of(mqm(), "en-de", "newstest2020")),
        ("ende21", "en-de newstest2021 MQM", "systems", "lodo-news",
         lambda: _of(mqm(), "en-de", "newstest2021")),
        ("zhen20", "zh-en newstest2020 MQM", "systems", "lodo-qe22",
         lambda: _of(mqm(), "zh-en", "newstest2020")),
        ("zhen21", "zh-en newstest2021 MQM", "systems", "lodo-qe22",
         lambda: _of(mqm(), "zh-en", "newstest2021")),
        ("qe22", "WMT22 en-ru dev", "single", "lodo-qe22", lambda: list(sets["qe22"])),
        ("mlqe", "MLQE-PE dev2021 DA (7 pairs)", "single", "lodo-qe22",
         lambda: _mlqe(data_dir)),
        ("it", "WMT19 en-ru IT HTER test", "single", "lodo-qe22", lambda: list(sets["it-test"])),
        ("talks", "zh-en TED talks MQM", "systems", TALKS_READ["talks"],
         lambda: read_judgments(data_dir / TALKS["talks"])),
        ("talks-ende", "en-de TED talks MQM", "systems", TALKS_READ["talks-ende"],
         lambda: read_judgments(data_dir / TALKS["talks-ende"])),
        ("bio-rows", "en-ru biomedical MQM, every MT row (validation only)", "single",
         "lodo-qe22", lambda: read_judgments(data_dir / BIO)),
        ("bio", "en-ru biomedical MQM (validation only)", "systems", "lodo-qe22",
         lambda: read_judgments(data_dir / BIO)),
    ]  # fmt: skip
    out = []
    for key, label, kind, fold, read in specs:
        if only is not None and key not in only:
            continue
        rows = [r for r in read() if _norm(r.source) not in seen[fold]]
        if kind == "systems":
            rows = _distinct3(rows)
            if key not in WHOLE:
                rows = sample_sources(rows, SOURCES)
        out.append(ValidationSet(key, label, kind, fold, tuple(rows)))
    return out


def _mlqe(data_dir: Path) -> list[Judgment]:
    """MLQE-PE dev2021 DA, :data:`PER_PAIR` rows of each pair (seeded draw), in file order."""
    rows = [r for r in read_judgments(data_dir / "multilingual" / "da.tsv.gz")
            if r.release == "dev2021"]  # fmt: skip
    out = []
    for lp in sorted({r.lp for r in rows}):
        mine = [r for r in rows if r.lp == lp]
        keep = set(random.Random(1).sample(range(len(mine)), min(PER_PAIR, len(mine))))
        out += [r for i, r in enumerate(mine) if i in keep]
    return out


# ------------------------------------------------------------------ predictions
def _fold_file(variant: str, vs: ValidationSet) -> Path:
    """Where a variant's predictions on a set are kept (the fold's own file for its test set;
    :data:`PART_OF`)."""
    own = {"news": "lodo-news", "qe22": "lodo-qe22", **PART_OF}
    return fold_path(variant, own.get(vs.key, vs.key))


def _parts_file(vs: ValidationSet) -> Path:
    """Where the model-independent parts of a set's rows are kept (:data:`PART_OF`)."""
    return fold_path("parts", PART_OF.get(vs.key, vs.key))


def _rows_of(f: Path, vs: ValidationSet) -> list[dict]:
    """The lines of a per-row TSV (``seg_id``, ``system``, …) for a set's rows, in their order
    (``SystemExit`` naming the first row it lacks)."""
    rows = csv.DictReader(io.StringIO(read_table(f)), delimiter="\t", quoting=csv.QUOTE_NONE)
    got = {(r["seg_id"], r["system"]): r for r in rows}
    missing = [(r.seg_id, r.system) for r in vs.rows if (r.seg_id, r.system) not in got]
    if missing:
        raise SystemExit(f"{f}: no row for {missing[0]} ({len(missing)} missing)")
    return [got[(r.seg_id, r.system)] for r in vs.rows]


def predictions(variant: str, vs: ValidationSet) -> tuple[np.ndarray, np.ndarray] | None:
    """A variant's estimates without the meaning head (what its fold files call ``score``)
    and the meaning head's raw outputs (zeros without that head) on a set's rows, in their
    order; ``None`` if not predicted."""
    f = _fold_file(variant, vs)
    if not f.exists():
        return None
    picked = _rows_of(f, vs)
    base = np.array([float(p["score"]) for p in picked])
    meaning = np.array([float(p.get("meaning") or 0.0) for p in picked])
    return base, meaning


def cmd_predict(args) -> None:
    """Each set's predictions of the variant's fold models (as they would ship: compressed)
    and the model-independent parts."""
    from distill import fold_model

    todo = load_validation_sets(args.data_dir, set(args.sets.split(",")) if args.sets else None)
    for vs in todo:
        _write_parts(vs)
        f = _fold_file(args.model_id, vs)
        if f.exists():
            print(f"{vs.key}: {f} exists")
            continue
        # at the rank and width of the files shipped (rtm15-e5s's, from git)
        est = fold_model(args.model_id, reading_fold(vs, args.model_id), git_file(*RTM15_FILE))
        est.meaning_blend = 0.0  # the fold files' ``score``: the meaning head apart
        predict_set(est, args.model_id, vs)


def reading_fold(vs: ValidationSet, variant: str) -> str:
    """The fold whose model reads a set: the set's ``fold`` (for the talks, the fold that
    does not train on it when the variant trains with the talks). ``rtm15`` trained on no talks
    and kept only its ``lodo-qe22`` model (in git): that model reads both talks sets."""
    if vs.key in TALKS and variant == "rtm15":
        return "lodo-qe22"
    return vs.fold


def _config(variant: str) -> dict:
    """A variant's configuration, exported or in the experiment cache."""
    exported, cached = FOLDS / variant / "config.json", CACHE / variant / "config.json"
    return json.loads((exported if exported.exists() else cached).read_text())


def predict_set(est, variant: str, vs: ValidationSet) -> Path:
    """Write an estimator's predictions on a set's rows (the estimate with its meaning head
    apart, and that head's raw output) as ``variant``'s file of that set."""
    res = est.estimate([r.source for r in vs.rows], [r.translation for r in vs.rows],
                       progress=True)  # fmt: skip
    f = _fold_file(variant, vs)
    lines = ["seg_id\tsystem\tscore\twords\tmeaning"]
    lines += [f"{r.seg_id}\t{r.system}\t{e.score:.6f}\t{word_items(e.words)}\t{e.meaning:.6f}"
              for r, e in zip(vs.rows, res, strict=True)]  # fmt: skip
    write_table(f, lines)
    print(f"{vs.key}: {len(vs.rows)} predictions of {variant}/{vs.fold} -> {f}")
    return f


def reliable_findings(source: str, translation: str) -> int:
    """How many of a pair's rule-check findings count in the score
    (:func:`xlscore.checks.counted` of the :data:`~xlscore.checks.COUNTED` checks)."""
    from xlscore.checks import COUNTED, counted, find_mismatches

    return counted(find_mismatches(source, translation, COUNTED))


def _write_parts(vs: ValidationSet) -> None:
    """The untrained e5 similarity (with the foreign-word penalty), the foreign-word share and
    the reliable check findings of each row of a set, once."""
    from estimator import _e5_all

    f = _parts_file(vs)
    if f.exists():
        return
    res = _e5_all().score([r.source for r in vs.rows], [r.translation for r in vs.rows],
                          progress=True)  # fmt: skip
    lines = ["seg_id\tsystem\tsimilarity\tf1\tforeign\tfindings"]
    lines += [f"{r.seg_id}\t{r.system}\t{x.score:.6f}\t{x.f1:.6f}\t{x.foreign:.6f}\t"
              f"{reliable_findings(r.source, r.translation)}"
              for r, x in zip(vs.rows, res, strict=True)]  # fmt: skip
    write_table(f, lines)


def cmd_findings(args) -> None:
    """The check findings of every set's parts file counted again with today's checks (the
    rest of each file is kept: it does not depend on them)."""
    for vs in load_validation_sets(args.data_dir, set(args.sets.split(",")) if args.sets else None):
        f = _parts_file(vs)
        lines = read_table(f).splitlines()
        rows = {(r.seg_id, r.system): r for r in vs.rows}
        changed = 0
        out = [lines[0]]
        for line in lines[1:]:
            cols = line.split("\t")
            r = rows.get((cols[0], cols[1]))
            if r is not None:
                now = str(reliable_findings(r.source, r.translation))
                changed += now != cols[5]
                cols[5] = now
            out.append("\t".join(cols))
        write_table(f, out)
        print(f"{vs.key}: {changed} of {len(lines) - 1} rows' findings changed")


@dataclass(frozen=True)
class Parts:
    """The model-independent parts of a set's rows, in their order: the similarity with the
    foreign-word penalty, the share of foreign words, the reliable check findings, and the
    share of each translation that is degenerate (:mod:`xlscore.checks.degenerate`, found
    from the texts here: it reads no model)."""

    similarity: np.ndarray
    foreign: np.ndarray
    findings: np.ndarray
    degenerate: np.ndarray


def parts(vs: ValidationSet) -> Parts:
    """:func:`_write_parts`'s file read back for a set's rows. The foreign-word share and the
    checks are rules about Russian: on a set whose translations are in another language
    (en-de, zh-en, MLQE-PE's pairs) every word would be "foreign" and the Russian negation
    "missing", so there they are off — no foreign share, no findings, the similarity
    unpenalised — as they would be in a scorer for that language."""
    f = _parts_file(vs)
    if not f.exists():
        raise SystemExit(f"{f} missing: run python tools/sets.py predict first")
    from xlscore.checks.degenerate import degeneracy
    from xlscore.text.words import normalize_text

    picked = _rows_of(f, vs)
    col = lambda c, t: np.array([t(p[c]) for p in picked])
    zero = np.zeros(len(picked))
    if vs.russian:
        degenerate = np.array(
            [
                degeneracy(normalize_text(r.source), normalize_text(r.translation)).share
                for r in vs.rows
            ]
        )
        return Parts(
            col("similarity", float), col("foreign", float), col("findings", int), degenerate
        )
    return Parts(col("f1", float), zero, zero.astype(int), zero)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["predict", "findings"])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument(
        "--model-id", default="rtm15", help="the model's name: its folder under .cache/estimator/"
    )
    ap.add_argument("--sets", default="", help="only these set keys, by commas")
    args = ap.parse_args()
    trained = {
        k for f in _config(args.model_id).get("multilingual", []) for k in READ_FROM.get(f, ())
    }
    asked = set(args.sets.split(",")) if args.sets else None
    if trained and (asked is None or asked & trained):
        raise SystemExit(
            f"{args.model_id} trained on the multi-pair files behind the sets "
            f"{', '.join(sorted(trained))}: they are no test sets for it (--sets the others)"
        )
    (cmd_findings if args.command == "findings" else cmd_predict)(args)


if __name__ == "__main__":
    main()
