"""The reference model as a teacher of the single-translation estimate (issue 84, part 4):
it labels the en-ru outputs of 2022-2024 systems (``enru-general.tsv.gz``, each with its
human reference, no judgment), and a reference-free student, the estimator's cross-encoder
as today, learns those labels.

    python experiments/teacher_student.py label --data-dir ../shared/data --teacher ref1
    python experiments/teacher_student.py train --data-dir ../shared/data --teacher ref1 \\
        --model-id tsc1
    python tools/sets.py predict --data-dir ../shared/data --model-id tsc1 \\
        --sets news,qe22,it,talks,talks-ende,bio-rows,mlqe

``label``: ``--sources`` sources of the file drawn with a fixed seed, every output of each; the
teacher (``reference_model.py train``'s model) scores each output against the source's human
reference. Labels are appended to ``.cache/reference/TEACHER/labels-SOURCES.jsonl`` as they
come, so an interrupted run resumes.

``train``: the student on the labels alone (variant c of the issue: teacher labels only), one
set whose labels the recipe puts on one scale, the outputs of a source ranked against each
other. Its file is saved as both protocol folds' model (``.cache/estimator/MODEL_ID/lodo-news``
and ``lodo-qe22``): it trained on no row of a judged set, and the file holds no source of a
held-out set, so :mod:`sets` reads every set with it but those its teacher trained on (en-ru
DA, en-de newstest2020, zh-en newstest2020 and 2021). With ``--human FOLD`` (variant b: one
mixture) the labels are one training set beside that protocol fold's human rows (the
default's: en-ru MQM and DA, without IT), and the file is that fold's model only. With
``--after STUDENT --human FOLD`` (variant a: teacher labels first, then the human labels) the
model starts from that student's encoder (``STUDENT``'s ``lodo-news`` file, trained on teacher
labels only) and learns the fold's human rows alone, a new sentence head on it:

    python experiments/teacher_student.py train --data-dir ../shared/data --after tsc1 \
        --human lodo-news --model-id tsa1
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import shutil
import time
from dataclasses import asdict, replace
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
from _protocol import CACHE, fold_split, load_sets
from _results import cpu_name
from reference_model import FOLDER, RECIPE

from xlscore.io.judgments import Judgment

GENERAL = "enru-general.tsv.gz"
#: an output with a side this long (characters) or longer is left out: such a pair is mostly
#: cut at the recipe's 192 pieces, and its label would judge a part of it
MAX_CHARS = 400


def general_rows(data_dir: Path, sources: int) -> list[dict[str, str]]:
    """Every output of ``sources`` sources of :data:`GENERAL` (seeded draw, file order); rows
    with an empty side or a side of :data:`MAX_CHARS` or more left out."""
    with gzip.open(data_dir / GENERAL, "rt", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    ok = [
        r
        for r in rows
        if all(0 < len(r[k].strip()) < MAX_CHARS for k in ("source", "translation", "reference"))
    ]
    segs = sorted({r["seg_id"] for r in ok})
    keep = set(random.Random(0).sample(segs, min(sources, len(segs))))
    return [r for r in ok if r["seg_id"] in keep]


def labels_path(teacher: str, sources: int) -> Path:
    return FOLDER / teacher / f"labels-{sources}.jsonl"


def cmd_label(args) -> None:
    from xlscore.estimator.model import QualityEstimator

    rows = general_rows(args.data_dir, args.sources)
    out = labels_path(args.teacher, args.sources)
    done = sum(1 for _ in out.open()) if out.exists() else 0
    print(f"{len(rows)} outputs of {args.sources} sources; {done} labelled before")
    est = QualityEstimator.load(FOLDER / args.teacher / "full.safetensors", dtype="fp32")
    t0 = time.time()
    for at in range(done, len(rows), 1000):
        part = rows[at : at + 1000]
        got = est.predict([r["reference"] for r in part], [r["translation"] for r in part])
        with out.open("a", encoding="utf-8") as fh:
            for r, s in zip(part, got):
                fh.write(json.dumps({**r, "label": float(s)}, ensure_ascii=False) + "\n")
        print(f"{min(at + 1000, len(rows))}/{len(rows)} labelled, {time.time() - t0:.0f} s")


def read_labels(path: Path) -> list[Judgment]:
    """The labelled outputs as judgments of one set (kind ``teacher``)."""
    out = []
    for line in path.open(encoding="utf-8"):
        r = json.loads(line)
        out.append(
            Judgment(
                seg_id=f"general:{r['seg_id']}",
                system=r["system"],
                source=r["source"],
                translation=r["translation"],
                human=r["label"],
                kind="teacher",
                release="enru-general",
            )
        )
    return out


def start_from(est, path: Path) -> None:
    """Copy a fitted model's encoder into ``est`` (untrained, the same base): ``fit`` then
    trains on from it, a new sentence head on top (variant a)."""
    import torch

    from xlscore.estimator.model import QualityEstimator

    theirs = QualityEstimator.load(path, dtype="fp32").model.state_dict()
    mine = est.model.state_dict()
    with torch.no_grad():
        for k, v in mine.items():
            if k.startswith("encoder."):
                v.copy_(theirs[k])


def cmd_train(args) -> None:
    from xlscore.estimator.model import QualityEstimator
    from xlscore.training import fit

    rows = [] if args.after else read_labels(labels_path(args.teacher, args.sources))
    human: list[list[Judgment]] = []
    if args.human:  # variant b: one mixture with the human rows of that protocol fold
        cfg = {"it": False, "it_sample": 0, "da": True}
        human = fold_split(
            {**load_sets(args.data_dir), "data_dir": args.data_dir}, args.human, cfg
        )[0]
    folds = [args.human] if args.human else ["lodo-news", "lodo-qe22"]
    out = CACHE / args.model_id / folds[0]
    out.mkdir(parents=True, exist_ok=True)
    recipe = replace(RECIPE, epochs=args.epochs)
    note = f"student of {args.teacher}'s labels of {len(rows)} enru-general outputs"
    if args.after:
        note = f"{args.after} (a student of teacher labels), then each fold's human rows"
    config = {
        "recipe": asdict(recipe),
        "it": False,
        "it_sample": 0,
        "da": bool(args.human),
        "note": note
        + (f", mixed with the {args.human} fold's human rows" if args.human and rows else ""),
    }
    (CACHE / args.model_id / "config.json").write_text(json.dumps(config, indent=1))
    if not (out / "full.safetensors").exists():
        t0 = time.time()
        est = QualityEstimator(recipe=recipe)
        if args.after:
            start_from(est, CACHE / args.after / "lodo-news" / "full.safetensors")
        sets = [rows, *human] if rows else human
        fit(est, sets, progress=not args.quiet, checkpoint=out / "train.ckpt")
        est.save(out / "full.safetensors", name=f"{args.model_id}")
        (out / "log.json").write_text(
            json.dumps(
                {
                    "minutes": max(time.time() - t0, est.log.seconds) / 60,
                    "cpu": cpu_name(),
                    "train_rows": len(rows) + sum(map(len, human)),
                    "log": asdict(est.log),
                }
            )
        )
        for p in out.glob("train.ckpt*"):
            p.unlink()
    for fold in folds[1:]:  # trained on no judged row: the same file reads both folds' sets
        other = CACHE / args.model_id / fold
        other.mkdir(exist_ok=True)
        for name in ("full.safetensors", "log.json"):
            shutil.copyfile(out / name, other / name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("label", "train"))
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--teacher", default="ref1")
    ap.add_argument("--model-id", default="tsc1")
    ap.add_argument("--sources", type=int, default=1500, help="enru-general sources labelled")
    ap.add_argument("--epochs", type=float, default=RECIPE.epochs)
    ap.add_argument(
        "--human",
        choices=("lodo-news", "lodo-qe22"),
        help="train: mixed with this protocol fold's human rows (variant b; that fold only)",
    )
    ap.add_argument(
        "--after",
        help="train: start from this teacher-labelled student's encoder and learn the --human "
        "fold's human rows only (variant a)",
    )
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    if args.after and not args.human:
        ap.error("--after needs --human FOLD: the human rows it learns after the teacher's")
    {"label": cmd_label, "train": cmd_train}[args.command](args)


if __name__ == "__main__":
    main()
