"""The ship gate: may a candidate estimator become the default?

    python experiments/gate.py CANDIDATE --data-dir ../shared/data --file CANDIDATE.safetensors

``CANDIDATE`` names a variant of the estimator protocol whose leave-one-dataset-out fold
predictions are in ``results/folds/CANDIDATE/`` (``python experiments/estimator.py export``):
``lodo-news`` (trained without newstest2021, tested on its MQM: per-segment and system
Kendall) and ``lodo-qe22`` (trained without WMT22 dev, tested on it: Spearman, and word MCC on
its tags when the model has a word head). ``--file``: the candidate trained on everything, as
it would ship, for the hand-written challenge set (no training file has its sentences). The
candidate's real-MT figures are those of the score as that file ships it: its meaning blend,
similarity weight, check weight and span threshold applied to the fold predictions
(:func:`xlscore.final_score.estimator_score`, the similarity from
:func:`estimator.e5_similarity`).

It is compared with the earlier defaults (:data:`REFERENCES`): on real MT with the round-2
default's recipe retrained in the same folds (``results/folds/qe-e5s/``), on the challenge
set with the files as they shipped, read from git. Verdict (:mod:`xlscore.evaluation.gate`):
FAIL when a real-MT figure is significantly worse than the reference's (paired bootstrap,
95%), or when on the challenge set the candidate is significantly worse than the round-3
default in a category or overall (paired sign test, p < 0.05) or ranks fewer than 8 in 10 of a
category's pairs right (:func:`xlscore.evaluation.gate.challenge_checks`); INCOMPLETE when a fold or
the file is missing (nothing ships); else PASS. Exit status 0 for PASS, 1 for FAIL, 2 for
INCOMPLETE. Writes ``results/gate.md`` (``--out``: another name).
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import folds
import numpy as np
from _protocol import CACHE, TEST_OF, load_sets
from _results import code_digest, write_markdown
from estimator import baseline_tests, e5_similarity, pass_similarity

from xlscore.errors import ModelError
from xlscore.estimator.checks import reliable_findings
from xlscore.estimator.model import FLOOR, read_metadata
from xlscore.evaluation.gate import (
    ALPHA,
    CATEGORY_FLOOR,
    Check,
    challenge_checks,
    compare_scores,
    compare_tags,
)
from xlscore.final_score import estimator_score
from xlscore.io.cache import sha256_file

ROOT = Path(__file__).resolve().parent.parent
CHALLENGE = ROOT / "data" / "challenge" / "challenge.tsv"


@dataclass(frozen=True)
class Reference:
    """An earlier default: its recipe's fold predictions (``results/folds/FOLDS``; ``None``:
    not a real-MT reference) and its shipped file at a commit of this repository, with the
    digest it shipped with."""

    name: str
    folds: str | None
    commit: str
    path: str
    sha256: str
    #: its real-MT figures are of the score as its file ships it (meaning blend, similarity,
    #: checks), as the candidate's are; else of its folds' estimates alone
    as_shipped: bool = False


REFERENCES = (
    Reference(
        "qe-e5s",
        "qe-e5s",
        "2a16ff6",
        "xlscore/estimators/qe-e5s.safetensors",
        "9dce2a90870e59d046f2e25cda62eda370df7564df515cd3061a363b81f38ad5",
    ),
    Reference(
        "adq-e5s",
        None,  # the round-3 default is the challenge set's reference, not real MT's
        "9773141",
        "xlscore/estimator/weights/adq-e5s.safetensors",
        "b90ec3c973a9b391e7e6af5ffdc730b0685c92ea560f6ad196475d7e5ac922fb",
    ),
    Reference(
        "rtm15-e5s",
        "rtm15",  # the round-4 default: the teacher its students are distilled from
        "e26b7a6",
        "xlscore/estimator/weights/rtm15-e5s.safetensors",
        "5e865b0386da2691ebd78a848650ff8196983b6da7eeeece8f89031bddcc8fdf",
        as_shipped=True,
    ),
)
#: the reference the candidate must not be significantly worse than on the challenge set
CHALLENGE_FLOOR = "adq-e5s"
#: the rows each real-MT statistic is read on
FIGURES = (
    ("lodo-news", "newstest2021 MQM", "seg_kendall"),
    ("lodo-news", "newstest2021 MQM", "sys_kendall"),
    ("lodo-qe22", "WMT22 dev", "spearman"),
    ("lodo-qe22", "WMT22 dev tags", "word_mcc"),
)


def reference_file(ref: Reference) -> Path:
    """The reference's shipped file, taken from git once into the experiment cache and
    checked against its digest."""
    out = CACHE.parent / "gate" / f"{ref.name}-{ref.sha256[:12]}.safetensors"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        data = subprocess.run(
            ["git", "show", f"{ref.commit}:{ref.path}"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        out.write_bytes(data)
    if sha256_file(out) != ref.sha256:
        raise SystemExit(f"{out}: not the file {ref.name} shipped with (digest differs)")
    return out


@dataclass(frozen=True)
class Shipping:
    """How a candidate file turns its estimate into the score users get: ``score = estimate
    + meaning_blend * meaning - similarity_weight * (1 - similarity) - check_weight *
    findings`` and error spans at ``span_threshold``."""

    similarity_weight: float
    span_threshold: float | None
    meaning_blend: float = 0.0
    check_weight: float = 0.0
    #: the similarity from the file's own pass at this depth (0: the e5@9 pass)
    similarity_depth: int = 0


def shipping(path: Path | None) -> Shipping:
    """The candidate file's similarity weight and span threshold, read from its metadata
    (without loading the model); no file: no similarity, the folds' own threshold."""
    if path is None:
        return Shipping(0.0, None)
    try:
        meta = read_metadata(path)
    except ModelError as err:
        raise SystemExit(str(err)) from None
    recipe = meta.get("recipe") or {}
    return Shipping(
        float(meta.get("similarity_weight", 0.0)),
        recipe.get("span_threshold"),
        float(meta.get("meaning_blend", 0.0)),
        float(meta.get("check_weight", 0.0)),
        int(meta.get("similarity_depth", 0)),
    )


def challenge_outcomes(path: Path) -> dict[str, list[bool]]:
    """Per category, whether the default scorer with this estimator file ranks each challenge
    pair right (cached by the digests of the file, the challenge set and the package's
    code)."""
    from xlscore import XLScorer
    from xlscore.evaluation.challenge import read_challenge, run_challenge

    key = f"{sha256_file(path)[:16]}-{sha256_file(CHALLENGE)[:8]}-{code_digest()}"
    cache = CACHE.parent / "gate" / f"challenge-{key}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    table = run_challenge(XLScorer.offline(estimator=str(path)), read_challenge(CHALLENGE))
    won = {k: list(v.won) for k, v in table.items()}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(won))
    return won


def floor_outcomes() -> dict[str, list[bool]]:
    """The challenge outcomes of :data:`CHALLENGE_FLOOR`, the reference of the gate's challenge
    rule, as it shipped."""
    (ref,) = [r for r in REFERENCES if r.name == CHALLENGE_FLOOR]
    return challenge_outcomes(reference_file(ref))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidate", help="variant name under results/folds/")
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--file", type=Path, help="the candidate trained on everything")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument(
        "--out", default="gate", help="results file name (default gate: results/gate.md)"
    )
    args = ap.parse_args()
    sets = load_sets(args.data_dir)
    ships = shipping(args.file)
    base = baseline_tests(sets)
    tests = {fold: base[TEST_OF[fold]] for fold in ("lodo-news", "lodo-qe22")}
    tags = folds.read_tags(args.data_dir / "wmt22-enru-word-dev.tsv")
    tag_rows = [tags[r.seg_id] for r in tests["lodo-qe22"]]
    gold = [t.gold for t in tag_rows]
    problems: list[str] = []
    incomplete: list[str] = []
    checks: list[tuple[str, str, Check]] = []

    def tags_of(name: str, words: list, threshold: float | None = None) -> list | None:
        recipe = folds.config(name)["recipe"]
        if threshold is None:
            threshold = float(recipe.get("span_threshold", 0.5))
        return folds.tags_at(tag_rows, words, threshold)

    @functools.cache
    def findings(fold: str) -> np.ndarray:
        """The reliable check findings of each test row of ``fold`` (shared by the candidate
        and the references)."""
        return np.array([reliable_findings(r.source, r.translation) for r in tests[fold]])

    def as_shipped(fold: str, got: tuple | None, ships: Shipping = ships) -> tuple | None:
        """A model's fold predictions turned into the score its file ships (by default the
        candidate's) with the file's similarity and check weights
        (:func:`xlscore.final_score.estimator_score`)."""
        if got is None:
            return got
        sim, foreign = (
            pass_similarity(args.file, sets, TEST_OF[fold])
            if ships.similarity_depth
            else e5_similarity(sets, TEST_OF[fold])
        )
        found = findings(fold) if ships.check_weight else None
        pred = estimator_score(
            np.asarray(got[0]),
            foreign=foreign,
            similarity=sim,
            weight=ships.similarity_weight,
            floor=FLOOR,
            findings=found,
            check_weight=ships.check_weight,
        )
        return [float(x) for x in pred], got[1]

    cand = {
        fold: as_shipped(fold, folds.read_fold(args.candidate, fold, rows, ships.meaning_blend))
        for fold, rows in tests.items()
    }
    for fold, got in cand.items():
        if got is None:
            incomplete.append(f"candidate fold {fold} not exported")
    for ref in REFERENCES:
        if ref.folds is None:
            continue
        # each fold's predictions once (as the reference's file ships them, when it says so)
        ref_ships = shipping(reference_file(ref)) if ref.as_shipped else None
        theirs_of = {
            fold: folds.read_fold(ref.folds, fold, rows)
            if ref_ships is None
            else as_shipped(
                fold, folds.read_fold(ref.folds, fold, rows, ref_ships.meaning_blend), ref_ships
            )
            for fold, rows in tests.items()
        }
        for fold, test_name, stat in FIGURES:
            mine, theirs = cand[fold], theirs_of[fold]
            if theirs is None:
                incomplete.append(f"{ref.name}: fold {fold} not exported")
                continue
            if mine is None:
                continue
            rows = tests[fold]
            if stat == "word_mcc":
                a = tags_of(args.candidate, mine[1], ships.span_threshold)
                b = tags_of(ref.folds, theirs[1], ref_ships.span_threshold if ref_ships else None)
                if b is None:
                    continue  # the reference has no word head: nothing to fall below
                a = a if a is not None else [[False] * len(g) for g in gold]
                check = compare_tags(gold, a, b, n_boot=args.boot)
            else:
                check = compare_scores(
                    stat,
                    [r.seg_id for r in rows],
                    [r.system for r in rows],
                    [r.human for r in rows],
                    mine[0],
                    theirs[0],
                    n_boot=args.boot,
                )
            checks.append((ref.name, test_name, check))
            if check.worse:
                problems.append(f"{stat} on {test_name} significantly below {ref.name}'s")
    latin = None
    if cand["lodo-qe22"] is not None:
        a = tags_of(args.candidate, cand["lodo-qe22"][1], ships.span_threshold)
        if a is not None:
            latin = compare_tags(gold, a, folds.latin_tags(tag_rows), n_boot=args.boot)

    won: dict[str, dict[str, list[bool]]] = {}
    if args.file is None:
        incomplete.append("no --file: the challenge set was not run")
    else:
        won[args.candidate] = challenge_outcomes(args.file)
    for ref in REFERENCES:
        won[ref.name] = challenge_outcomes(reference_file(ref))
    ch_checks = []
    if args.candidate in won:
        ch_checks = challenge_checks(won[args.candidate], won[CHALLENGE_FLOOR])
        for c in ch_checks:
            if c.worse:
                problems.append(
                    f"challenge {c.category}: significantly below {CHALLENGE_FLOOR}'s "
                    f"({c.candidate} against {c.reference} of {c.total}, sign test p = {c.p:.3f})"
                )
            if c.below_floor:
                problems.append(
                    f"challenge {c.category}: {c.candidate} of {c.total}, below the floor of "
                    f"{c.floor}"
                )

    verdict = "FAIL" if problems else "INCOMPLETE" if incomplete else "PASS"
    digest = sha256_file(args.file) if args.file else "—"
    body = [
        f"Candidate `{args.candidate}`; file `{args.file or '—'}`, SHA-256 `{digest}`.",
        "",
        "Its real-MT figures are of the score as the file ships it: the fold models' estimates"
        + (
            f" plus {ships.meaning_blend:g} × their meaning head's output"
            if ships.meaning_blend
            else ""
        )
        + (
            f" minus {ships.similarity_weight:g} × (1 − similarity)"
            + (
                f" (the F1 of the file's own pass after {ships.similarity_depth} layers)"
                if ships.similarity_depth
                else ""
            )
            if ships.similarity_weight
            else " pulled towards the floor by the share of foreign words (no similarity)"
        )
        + (
            f" minus {ships.check_weight:g} per reliable check finding"
            if ships.check_weight
            else ""
        )
        + (
            f", error spans at probability {ships.span_threshold:g}."
            if ships.span_threshold is not None
            else "."
        ),
        "",
        f"**Verdict: {verdict}**",
        "",
    ]
    body += [f"* fails: {p}" for p in problems]
    body += [f"* missing: {m}" for m in dict.fromkeys(incomplete)]
    body += [
        "",
        "### Real MT (each model trained without the test set; paired bootstrap over "
        f"segments, {args.boot} resamples)",
        "",
        "| reference | test set | statistic | candidate | reference | candidate − reference "
        "| significantly worse |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for ref_name, test_name, c in checks:
        body.append(
            f"| {ref_name} | {test_name} | {c.statistic} | {c.candidate} | {c.reference} "
            f"| {c.delta} | {'**yes**' if c.worse else 'no'} |"
        )
    if latin is not None:
        body.append(
            f"| rule: Latin letter (not gating) | WMT22 dev tags | word_mcc | {latin.candidate} "
            f"| {latin.reference} | {latin.delta} | {'yes' if latin.worse else 'no'} |"
        )
    cats = list(next(iter(won.values()))) if won else []
    if cats:
        names = list(won)
        by_cat = {c.category: c for c in ch_checks}
        extra = (
            f" | only `{CHALLENGE_FLOOR}` right / only the candidate right | sign test p "
            "| floor | fails |"
            if ch_checks
            else " |"
        )
        body += [
            "",
            "### Challenge set (pairs ranked right per category; the candidate fails a category "
            f"where it is significantly worse than `{CHALLENGE_FLOOR}`, p < {ALPHA:g}, or "
            f"ranks fewer than {CATEGORY_FLOOR:.0%} of its pairs right)",
            "",
            "| category | " + " | ".join(f"`{n}`" for n in names) + extra,
            "|" + " --- |" * (len(names) + 1 + (4 if ch_checks else 0)),
        ]
        for cat in [*cats, "all"]:
            cells = [
                str(sum(won[n].get(cat, [])))
                if cat != "all"
                else str(sum(map(sum, won[n].values())))
                for n in names
            ]
            if cat == "all":
                cells = [f"**{x}**" for x in cells]
            row = f"| {'**all**' if cat == 'all' else cat} | " + " | ".join(cells)
            c = by_cat.get(cat)
            if c is not None:
                row += (
                    f" | {c.losses} / {c.gains} | {c.p:.3f} | {c.floor or '—'} "
                    f"| {'**yes**' if c.fails else 'no'}"
                )
            body.append(row + " |")
    write_markdown(args.out, "\n".join(body), title="Ship gate")
    return {"PASS": 0, "FAIL": 1, "INCOMPLETE": 2}[verdict]


if __name__ == "__main__":
    sys.exit(main())
