"""Distil a gated estimator (the teacher) into a smaller student, per leave-one-dataset-out fold.

    python tools/distill.py label --data-dir ../shared/data --fold lodo-qe22 --pool-name b51
    python tools/distill.py run --data-dir ../shared/data --fold lodo-qe22 --pool-name b51 \\
        --model-id st4a --epochs 3
    python tools/estimator.py export --data-dir ../shared/data --model-id st4a --suffix r64b8

``label``: the fold's teacher (:func:`teacher`: ``.cache/estimator/TEACHER/FOLD/full.safetensors``
at the rank and width ``--shipped`` ships at, with that file's meaning blend, similarity weight,
check weight and span threshold; ``--shipped`` is today's default unless told otherwise)
scores a pool of translations nobody judged for this purpose: those of the fold's own training
sets (never its test set, nor the DA rows that share its sources) and the WMT19 IT training
translations, a deterministic sample of ``--pool`` of them, plus corruptions of a
``--corrupt`` share (:func:`xlscore.training.distill.with_corruptions`). Labels are appended
to ``.cache/estimator/distill/TEACHER-FOLD[-POOL_NAME]/labels.jsonl`` as they come, so an
interrupted run resumes where it stopped.

``run``: trains the student (:data:`xlscore.training.distill.STUDENT`, ``--layers``) on the
labels, checkpointing, and saves it with its predictions on the fold's test rows in the layout
``estimator.py export`` reads (suffix ``r64b8``). ``--fold all`` (every en-ru set, nothing held
out) makes the student that would ship; the two leave-one-out folds are what the gate reads.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
from _protocol import CACHE, RTM15_FILE, fold_split, git_file, load_sets
from _results import cpu_name
from estimator import save_estimates

from xlscore.estimator.formula import ScoreFormula
from xlscore.estimator.model import QualityEstimator, read_metadata
from xlscore.estimator.model import shipped as shipped_estimator
from xlscore.io.judgments import ErrorMark, Judgment
from xlscore.training import fit
from xlscore.training.distill import STUDENT, Pair, student_of, teacher_labels, with_corruptions

ROOT = Path(__file__).resolve().parent.parent


def pool(sets: dict, fold: str, teacher_cfg: dict, size: int, share: float) -> list[Pair]:
    """The fold's unjudged pool (see the module's docstring), in a fixed order."""
    train, _ = fold_split(sets, fold, {**teacher_cfg, "it": False})
    seen: set[tuple[str, str]] = set()
    pairs = []
    for rows in [*train, sets["it"]]:
        for r in rows:
            key = (r.source, r.translation)
            if key not in seen and r.source.strip() and r.translation.strip():
                seen.add(key)
                pairs.append(Pair(r.seg_id, r.system or "", r.source, r.translation))
    random.Random(0).shuffle(pairs)
    return with_corruptions(pairs[:size], share, seed=7)


def fold_model(name: str, fold: str, shipped: Path) -> QualityEstimator:
    """A variant's fold model with its weights as they would ship, at ``shipped``'s rank and
    width. Without a cached fold model, ``rtm15``'s ``lodo-qe22`` fold is read from
    ``rtm15-e5s`` (that fold model as it shipped in round 4, from git) and its ``all`` fold from
    the package's ``rtm15-all-e5s`` (that fold model as it ships)."""
    rec = read_metadata(shipped)["recipe"]
    cached = CACHE / name / fold / "full.safetensors"
    if cached.exists():
        est = QualityEstimator.load(cached)
        est.recompress(int(rec["delta_rank"]), int(rec["delta_bits"]))
        return est
    if name == "rtm15" and fold in ("lodo-qe22", "all"):
        if fold == "lodo-qe22":
            return QualityEstimator.load(git_file(*RTM15_FILE))
        return QualityEstimator.load(shipped_estimator("rtm15-all-e5s").path)
    raise SystemExit(f"{cached} missing: train it first (estimator.py run, distill.py run)")


def teacher(name: str, fold: str, shipped: Path) -> QualityEstimator:
    """The fold's teacher as it would ship (:func:`fold_model`), with the shipped file's score
    formula and span threshold."""
    meta = read_metadata(shipped)
    est = fold_model(name, fold, shipped)
    est.formula = ScoreFormula.from_meta(meta, shipped)
    est.recipe = replace(est.recipe, span_threshold=float(meta["recipe"]["span_threshold"]))
    return est


def labels_file(args) -> Path:
    """Where the labels of this teacher, fold and pool are kept (``--pool-name``: a pool made
    with other ``--pool``/``--corrupt`` settings beside the first)."""
    name = f"{args.teacher}-{args.fold}" + (f"-{args.pool_name}" if args.pool_name else "")
    return CACHE / "distill" / name / "labels.jsonl"


def cmd_label(args, sets) -> None:
    from xlscore import XLScorer

    cfg = json.loads((CACHE / args.teacher / "config.json").read_text())
    pairs = pool(sets, args.fold, cfg, args.pool, args.corrupt)
    out = labels_file(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    spec = {"pool": args.pool, "corrupt": args.corrupt, "pairs": len(pairs)}
    spec_file = out.parent / "pool.json"
    if spec_file.exists() and json.loads(spec_file.read_text()) != spec:
        raise SystemExit(f"{spec_file} was made with another pool; remove its folder to relabel")
    spec_file.write_text(json.dumps(spec))
    if out.exists():  # a run killed mid-line: keep its complete lines only
        data = out.read_bytes()
        out.write_bytes(data[: data.rfind(b"\n") + 1])
    done = sum(1 for _ in out.open()) if out.exists() else 0
    if done >= len(pairs):
        print(f"{out}: {done} labels, done before")
        return
    scorer = XLScorer.offline(
        estimator=teacher(args.teacher, args.fold, args.shipped), fields="score"
    )
    t0 = time.time()
    with out.open("a", encoding="utf-8") as fh:
        for i, j in teacher_labels(scorer, pairs, start=done, progress=not args.quiet):
            errors = [[e.start, e.end, e.severity] for e in j.errors or ()]
            row = [j.seg_id, j.system, j.source, j.translation, round(j.human, 6), errors]
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            if i % 500 == 0:
                fh.flush()
    print(f"{out}: {len(pairs) - done} labels in {(time.time() - t0) / 60:.1f} min ({cpu_name()})")


def read_labels(path: Path) -> list[Judgment]:
    rows = []
    for line in path.open(encoding="utf-8"):
        seg, system, src, mt, score, errors = json.loads(line)
        marks = tuple(ErrorMark(a, b, s) for a, b, s in errors)
        rows.append(Judgment(seg, system, src, mt, score, errors=marks))
    return rows


def cmd_run(args, sets) -> None:
    spec_file = labels_file(args).parent / "pool.json"
    if not spec_file.exists():
        raise SystemExit(f"no labels for {args.teacher}/{args.fold}: run `label` first")
    expected = json.loads(spec_file.read_text())["pairs"]
    rows = read_labels(labels_file(args))
    if len(rows) != expected:
        raise SystemExit(f"{len(rows)} of {expected} labels: finish `label` first")
    meta = read_metadata(args.shipped)
    recipe = replace(
        STUDENT,
        layers=args.layers,
        epochs=args.epochs,
        seed=args.seed,
        rank_weight=args.rank_weight,
        synthetic=args.synthetic,
        synthetic_kinds=args.synthetic_kinds,
    )
    folder = CACHE / args.model_id
    out = folder / args.fold
    out.mkdir(parents=True, exist_ok=True)
    config = {
        "recipe": asdict(recipe),
        "it": False,
        "it_sample": 0,
        "da": True,
        "multilingual": [],
        "teacher": args.teacher,
        "pool": {k: v for k, v in json.loads(spec_file.read_text()).items() if k != "pairs"},
        "note": f"a {args.layers}-layer student of {args.teacher}, distilled on its labels",
    }
    cfg_file = folder / "config.json"
    if cfg_file.exists() and json.loads(cfg_file.read_text()) != config:
        raise SystemExit(f"{cfg_file} holds another configuration; use another --model-id")
    cfg_file.write_text(json.dumps(config, indent=1))
    if (out / "pred-r64b8.npy").exists():
        print(f"{args.model_id}/{args.fold}: done before")
        return
    t0 = time.time()
    student = student_of(ScoreFormula.from_meta(meta).check_weight, recipe)
    fit(student, [rows], progress=not args.quiet, checkpoint=out / "train.ckpt")
    student.save(out / "full.safetensors", name=f"{args.model_id}-{args.fold}")
    minutes = max(time.time() - t0, student.log.seconds) / 60
    _, test = fold_split(sets, args.fold, {**config, "da": False})
    if test:
        save_estimates(out, "r64b8", student, test)
    else:  # the ``all`` fold: the student that ships, nothing held out to predict
        np.save(out / "pred-r64b8.npy", np.zeros(0))
    log = {
        "minutes": minutes,
        "cpu": cpu_name(),
        "train_rows": len(rows),
        "log": asdict(student.log),
    }
    (out / "log.json").write_text(json.dumps(log))
    for p in out.glob("train.ckpt*"):
        p.unlink()
    print(f"{args.model_id}/{args.fold}: trained on {len(rows)} labels in {minutes:.1f} min")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("label", "run"))
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--teacher", default="rtm15", help="variant under .cache/estimator/")
    ap.add_argument("--fold", required=True, choices=("lodo-qe22", "lodo-news", "all"))
    ap.add_argument(
        "--shipped",
        type=Path,
        help="the teacher as it ships, whose blend and span threshold the labels follow: a "
        "file, or rtm15-e5s (the round-4 default, from git; the teacher of st4-e5s) "
        "(default: the package's default estimator)",
    )
    ap.add_argument("--pool", type=int, default=12000, help="judged-set translations to label")
    ap.add_argument("--corrupt", type=float, default=0.3, help="share of them also corrupted")
    ap.add_argument("--pool-name", default="", help="name of a pool made with other settings")
    ap.add_argument(
        "--model-id", default="st4", help="the model's name: its folder under .cache/estimator/"
    )
    ap.add_argument("--layers", type=int, default=STUDENT.layers)
    ap.add_argument("--epochs", type=float, default=STUDENT.epochs)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--rank-weight",
        type=float,
        default=STUDENT.rank_weight,
        help="weight of the pairwise loss that orders translations of one source (a "
        "corruption and its parent among them) as the teacher does",
    )
    ap.add_argument(
        "--synthetic",
        type=float,
        default=STUDENT.synthetic,
        help="share of the labels that also get a fresh corruption, held below its parent's "
        "score by the recipe's margin (no teacher label of its own)",
    )
    ap.add_argument(
        "--synthetic-kinds", default="", help="those corruptions' kinds, a,b (empty: all)"
    )
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    if args.shipped is None:
        args.shipped = shipped_estimator().path
    elif str(args.shipped) == RTM15_FILE[0]:
        args.shipped = git_file(*RTM15_FILE)
    sets = load_sets(args.data_dir)
    sets["data_dir"] = args.data_dir
    {"label": cmd_label, "run": cmd_run}[args.command](args, sets)


if __name__ == "__main__":
    sys.exit(main())
