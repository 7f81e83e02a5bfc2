"""The estimator protocol's data and folds, shared by ``estimator.py``, its report
(:mod:`estimator_report`) and the scripts built on its runs: where finished folds are cached,
the judged sets, the fold names, and each fold's training sets and test rows.

Its own module so that ``estimator.py`` (which calls the report) and the report (which needs
the folds) do not import each other.
"""

from __future__ import annotations

import csv
import os
import subprocess
from pathlib import Path

from xlscore.evaluation.agreement import read_judgments
from xlscore.io.error_marks import attach_errors, read_error_marks
from xlscore.io.judgments import sample_sources
from xlscore.scoring.corpus import assign_folds

ROOT = Path(__file__).resolve().parent.parent
#: the trained folds (ignored by git), read by the record's scripts too
CACHE = Path(
    os.environ.get("XLSCORE_EXPERIMENT_CACHE") or ROOT / "experiments" / ".cache" / "estimator"
)
#: the round-4 default (issues 33-34) as it shipped: its file is ``rtm15``'s leave-WMT22-out
#: fold and the teacher of the students; no longer in the package, read from git
RTM15_FILE = (
    "rtm15-e5s",
    "e26b7a6",
    "xlscore/estimator/weights/rtm15-e5s.safetensors",
    "5e865b0386da2691ebd78a848650ff8196983b6da7eeeece8f89031bddcc8fdf",
)
K = 4  # cross-validation folds (by document)
LODO = ("lodo-qe22", "lodo-news", "lodo-it")
TEST_OF = {"lodo-qe22": "qe22", "lodo-news": "news", "lodo-it": "it-test"}


DA_FILE = "wmt21-enru-da-newstest2021.tsv"


def git_file(name: str, commit: str, path: str, sha256: str) -> Path:
    """A file as it was at a commit of this repository (an estimator that once shipped), taken
    from git once into the experiment cache and checked against its digest."""
    from xlscore.io.cache import sha256_file

    out = CACHE.parent / "gate" / f"{name}-{sha256[:12]}.safetensors"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        data = subprocess.run(
            ["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        out.write_bytes(data)
    if sha256_file(out) != sha256:
        raise SystemExit(f"{out}: not the file {name} shipped with (digest differs)")
    return out


def da_shared_sources(data_dir: Path) -> dict[str, str]:
    """``{DA seg_id: MQM seg_id}`` for the DA sources that the MQM file judges too."""
    with open(data_dir / DA_FILE, encoding="utf-8", newline="") as fh:
        return {
            r["seg_id"]: r["mqm_seg_id"]
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
            if r["mqm_seg_id"]
        }


#: the test file of each fold's en-ru test set, as ``enru_source_in`` names it
TEST_FILE = {
    "news": "wmt21-enru-mqm-newstest2021",
    "qe22": "wmt22-enru-mqm-dev",
    "it-test": "wmt19-enru-qe-it",
}
#: the multi-pair files (``multilingual/NAME.tsv.gz``) and the span file of each
MULTILINGUAL = {"mqm": "mqm-spans", "da": None, "word": None, "ced": None}
#: the spoken-domain sets (issue 72), by their validation key: a variant may train on them
#: (``--talks``), but a figure for one comes only from a model that never trained on it
TALKS = {
    "talks": "multilingual/mqm-ted-zhen.tsv.gz",
    "talks-ende": "multilingual/mqm-ted-ende.tsv.gz",
}
#: the fold that reads each talks set: a ``--talks`` variant's fold trains with every talks set
#: but the one it reads (``lodo-news`` with the zh-en talks, ``lodo-qe22`` with the en-de
#: talks; every other fold, ``all``, the shipped model, included, with both)
TALKS_READ = {"talks": "lodo-qe22", "talks-ende": "lodo-news"}


def load_multilingual(data_dir: Path, names: list[str], sources: int = 0) -> list[list]:
    """The training sets (one per language pair, release and kind) of the named multi-pair
    files, the MQM rows with their raters' spans; ``sources`` > 0: that many sources of each
    set, drawn at random (:func:`sample_sources`)."""
    from xlscore.io.judgments import read_judgments, split_sets

    out = []
    for name in names:
        if name not in MULTILINGUAL:
            raise SystemExit(f"unknown multilingual file {name!r}: {', '.join(MULTILINGUAL)}")
        path = data_dir / "multilingual" / f"{name}.tsv.gz"
        rows = read_judgments(path, include_human=True)
        if MULTILINGUAL[name]:
            spans = data_dir / "multilingual" / f"{MULTILINGUAL[name]}.tsv.gz"
            rows = unmarked_errors(attach_errors(rows, read_error_marks(spans, lenient=True)), path)
        out += [sample_sources(s, sources) if sources else s for s in split_sets(rows)]
    return out


def unmarked_errors(rows: list, path: Path) -> list:
    """``rows`` whose file (``path``, column ``n_err``) counts errors that their attached marks
    do not place (an error marked on the source, or a marked copy that differs from the
    translation) left without word labels, not taken as error-free."""
    from dataclasses import replace

    errful = {(r["seg_id"], r["system"]) for r in _table(path) if int(r["n_err"] or 0) > 0}
    return [
        replace(r, errors=None) if r.errors == () and (r.seg_id, r.system) in errful else r
        for r in rows
    ]


def _table(path: Path) -> list[dict[str, str]]:
    """The rows of a TSV file (gzip-compressed or not) as dictionaries, read and checked by
    the package's reader."""
    from xlscore.io.judgments import _read_table

    header, rows = _read_table(path)
    return [dict(zip(header, row, strict=True)) for row in rows]


#: the raters' spans of both talks files (no translation column: keyed by lp, segment, system)
TALKS_SPANS = "multilingual/mqm-ted-spans.tsv.gz"


def talks_marks(data_dir: Path, rows: list) -> list:
    """The talks ``rows`` with the raters' spans of :data:`TALKS_SPANS` attached (a span past
    its translation dropped; a row whose errors have no span left unlabelled)."""
    import json
    from dataclasses import replace

    from xlscore.io.judgments import ErrorMark

    spans = {
        (r["lp"], r["seg_id"], r["system"]): json.loads(r["spans"])
        for r in _table(data_dir / TALKS_SPANS)
    }
    out = []
    for r in rows:
        found = spans.get((r.lp, r.seg_id, r.system))
        marks = (
            None
            if found is None
            else tuple(
                ErrorMark(int(m["start"]), int(m["end"]), str(m["severity"]).lower())
                for m in found
                if 0 <= int(m["start"]) <= int(m["end"]) <= len(r.translation)
            )
        )
        out.append(replace(r, errors=marks))
    return out


def load_talks(data_dir: Path, spans: bool = False) -> dict[str, list]:
    """The two talks files' judgments (human translations included, as in every training
    set), by validation key; with ``spans``, the raters' spans attached (:func:`talks_marks`)."""
    out = {key: read_judgments(data_dir / f, include_human=True) for key, f in TALKS.items()}
    if spans:
        out = {
            key: unmarked_errors(talks_marks(data_dir, rows), data_dir / TALKS[key])
            for key, rows in out.items()
        }
    return out


def talks_trained(fold: str) -> tuple[str, ...]:
    """The talks sets a ``--talks`` variant's fold trains with: all but the one it reads
    (:data:`TALKS_READ`)."""
    return tuple(key for key in TALKS if TALKS_READ[key] != fold)


def load_sets(data_dir: Path) -> dict[str, list]:
    """Every judged set, human translations and post-edits included, with the error marks
    where they exist."""
    news = read_judgments(data_dir / "wmt21-enru-mqm-newstest2021.tsv", include_human=True)
    qe22 = read_judgments(data_dir / "wmt22-enru-mqm-dev.tsv", include_human=True)
    return {
        "news": attach_errors(
            news, read_error_marks(data_dir / "wmt21-enru-mqm-newstest2021-spans.tsv")
        ),
        "qe22": attach_errors(qe22, read_error_marks(data_dir / "wmt22-enru-word-dev.tsv")),
        "da": read_judgments(data_dir / DA_FILE, include_human=True),
        "da-shared": da_shared_sources(data_dir),
        "it": read_judgments(data_dir / "wmt19-enru-qe-it" / "train", include_human=True),
        "it-test": read_judgments(data_dir / "wmt19-enru-qe-it" / "test"),
    }


def fold_names(which: str) -> list[str]:
    """The folds a ``--folds`` value names: ``lodo`` (every leave-one-set-out fold),
    ``cv-news``/``cv-qe22`` (their cross-validation folds) or single fold names, by commas
    (``all``: every en-ru set, for the model that ships; it has no test rows)."""
    names = []
    for part in which.split(","):
        if part == "lodo":
            names += list(LODO)
        elif part in ("cv-news", "cv-qe22"):
            names += [f"{part}-{k}" for k in range(K)]
        else:
            names.append(part)
    return names


def split(
    sets: dict[str, list],
    fold: str,
    use_it: bool,
    it_sample: int,
    use_da: bool = False,
    multilingual: list[list] | None = None,
    talks: dict[str, list] | None = None,
) -> tuple[list[list], list]:
    """Training sets and test rows (machine translations only) of a fold; ``multilingual``
    sets join training without their rows whose English source the fold tests on, and of
    ``talks`` (:func:`load_talks`) the sets the fold trains with (:func:`talks_trained`)."""
    train, test = _split_enru(sets, fold, use_it, it_sample, use_da)
    others = list(multilingual or [])
    if talks:
        others += [talks[key] for key in talks_trained(fold)]
    if others and fold != "all":
        from xlscore.io.judgments import leave_out_sources

        tested = TEST_OF.get(fold) or fold.rsplit("-", 1)[0].removeprefix("cv-")
        others = [leave_out_sources(rows, TEST_FILE[tested]) for rows in others]
    return train + [rows for rows in others if rows], test


def _split_enru(
    sets: dict[str, list], fold: str, use_it: bool, it_sample: int, use_da: bool
) -> tuple[list[list], list]:
    """The en-ru training sets and test rows of a fold."""
    it = [sample_sources(sets["it"], it_sample)] if use_it else []
    mt = lambda rows: [r for r in rows if not r.is_human]

    def da(tested: list) -> list[list]:
        """The DA set without the sources of the tested newstest rows."""
        if not use_da:
            return []
        gone = {r.seg_id for r in tested}
        return [[r for r in sets["da"] if sets["da-shared"].get(r.seg_id) not in gone]]

    if fold == "all":  # the shipped model: every en-ru set, nothing to test on
        return [sets["news"], sets["qe22"], *da([]), *it], []
    if fold == "lodo-qe22":
        return [sets["news"], *da([]), *it], mt(sets["qe22"])
    if fold == "lodo-news":
        return [sets["qe22"], *da(sets["news"]), *it], mt(sets["news"])
    if fold == "lodo-it":
        return [sets["news"], sets["qe22"], *da([])], sets["it-test"]
    name, k = fold.rsplit("-", 1)
    target = name.removeprefix("cv-")
    folds = assign_folds([r.doc for r in sets[target]], K, seed=0)
    train = [r for r in sets[target] if folds[r.doc] != int(k)]
    test = [r for r in sets[target] if folds[r.doc] == int(k)]
    others = [sets[n] for n in ("news", "qe22") if n != target]
    return [train, *others, *da(test if target == "news" else []), *it], mt(test)


def fold_split(sets: dict[str, list], fold: str, cfg: dict) -> tuple[list[list], list]:
    """:func:`split` with a variant's configuration."""
    multilingual = talks = None
    sources = cfg.get("multilingual_sources", 0)
    if cfg.get("talks"):
        key = "talks-data" + (":spans" if cfg.get("talks_spans") else "")
        if key not in sets:
            sets[key] = load_talks(sets["data_dir"], bool(cfg.get("talks_spans")))
        talks = {k: sample_sources(v, sources) if sources else v for k, v in sets[key].items()}
    if cfg.get("multilingual"):
        key = "multilingual:" + ",".join(cfg["multilingual"]) + f":{sources}"
        if key not in sets:
            sets[key] = load_multilingual(sets["data_dir"], cfg["multilingual"], sources)
        multilingual = sets[key]
    train, test = split(
        sets, fold, cfg["it"], cfg["it_sample"], cfg.get("da", False), multilingual, talks
    )
    if cfg.get("recipe", {}).get("foreign_words_only"):  # other pairs teach the word head only
        labelled = ([r for r in d if r.errors is not None] for d in train)
        train = [d if d[0].lp == "en-ru" else kept for d, kept in zip(train, labelled)]
        train = [d for d in train if d]
    return train, test
