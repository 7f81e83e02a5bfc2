"""The ship gate for an arithmetic (issue 83): may the shipped estimator run in another
precision or runtime than float32?

    python tools/gate_arithmetic.py int8 --data-dir ../shared/data

An arithmetic candidate is the same weights computed otherwise (``int8``: ONNX Runtime's int8
encoder, :mod:`_int8`, refused; ``bf16``, what ``auto`` runs on CPUs with AMX), so it needs no
fold retraining: it is judged against the
same file in float32, on this CPU, by what users get (the file's blend; the engines of a
source scored together on the many-systems sets: :class:`rule.SetData`).

It **fails** when

* on a set the shipped weights never trained on — both TED talks sets and the en-ru biomedical
  MQM (validation only: read here, never tuned on; per source and over all its MT rows) — its
  figure may be below float32's by more
  than 0.01 (:data:`xlscore.evaluation.gate.MARGIN`): the 95% lower bound of the paired
  difference (bootstrap over sources) is below -0.01;
* on any other judged set (all read by weights that trained on them) the Kendall tau-b
  between its scores and float32's is below :data:`AGREE` (the same order of translations);
* on the challenge set it ranks fewer than 80% of all pairs or 50% of a category's pairs
  right, or fewer pairs than float32;
* on the tagged degenerate set (``data/degenerate/degenerate.tsv``) fewer good translations
  score above their bad twin, or fewer bad ones below every good one, than in float32.

Exit status 0 for PASS, 1 for FAIL. Predictions are cached per CPU kind under the experiment
cache (a candidate's numbers depend on the kernels that ran). Writes ``results/gate-DTYPE.md``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
import scipy.stats
from _protocol import CACHE
from _results import cpu_name, write_markdown
from gate import arithmetic_of, challenge_outcomes, shipping
from rule import SetData
from sets import VALIDATION_ONLY, ValidationSet, _write_parts, load_validation_sets, parts

from xlscore.encoders.arithmetic import cpu_kind
from xlscore.estimator.model import shipped
from xlscore.evaluation.gate import MARGIN, floor_checks
from xlscore.io.cache import sha256_file

ROOT = Path(__file__).resolve().parent.parent
#: what ships: the package's default estimator
SHIPPED = shipped().path
DEGENERATE = ROOT / "data" / "degenerate" / "degenerate.tsv"
#: sets the shipped weights never trained on (the talks files' rule; the biomedical file)
HELD_OUT = ("talks", "talks-ende", *VALIDATION_ONLY)
#: the least Kendall between the candidate's scores and float32's on a set trained on
AGREE = 0.95


def loaded(dtype: str) -> str:
    """The dtype the estimator is loaded in: the int8 candidate is made from float32."""
    return "fp32" if dtype == "int8" else dtype


def predicted(vs: ValidationSet, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """The shipped file's estimate (meaning head apart) and meaning output on a set's rows in
    ``dtype`` on this CPU, cached."""
    folder = CACHE.parent / "gate-arithmetic" / f"{sha256_file(SHIPPED)[:12]}-{cpu_kind()}"
    f = folder / f"{vs.key}-{dtype}.npz"
    if not f.exists():
        from xlscore.estimator.model import QualityEstimator

        est = QualityEstimator.load(str(SHIPPED), dtype=loaded(dtype), device="cpu")
        est.meaning_blend = 0.0  # the meaning head apart, as the fold files keep it
        with arithmetic_of(est, dtype):
            res = est.estimate([r.source for r in vs.rows], [r.translation for r in vs.rows],
                               progress=True)  # fmt: skip
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(f, base=[e.score for e in res], meaning=[e.meaning for e in res])
        print(f"{vs.key} {dtype}: {len(res)} predictions -> {f}", flush=True)
    got = np.load(f)
    return got["base"], got["meaning"]


def degenerate_counts(dtype: str) -> dict[str, tuple[int, int, int]]:
    """Per kind of the tagged degenerate set: pairs, good above its bad twin, bad below every
    good translation (each translation scored on its own by the default in ``dtype``)."""
    from xlscore import XLScorer

    with open(DEGENERATE, encoding="utf-8", newline="") as f:
        tagged = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    rows = [r for r in tagged if r["kind"] != "sound"]
    scorer = XLScorer.offline(estimator=str(SHIPPED), dtype=loaded(dtype))
    src = [r["source"] for r in rows]
    with arithmetic_of(scorer.estimator, dtype):
        good = [r.score for r in scorer.score(src, [r["good"] for r in rows])]
        bad = [r.score for r in scorer.score(src, [r["bad"] for r in rows])]
    out = {}
    for kind in dict.fromkeys(r["kind"] for r in rows):
        at = [i for i, r in enumerate(rows) if r["kind"] == kind]
        above = sum(good[i] > bad[i] for i in at)
        out[kind] = (len(at), above, sum(bad[i] < min(good) for i in at))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dtype", choices=["int8", "bf16", "fp16"])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--out", help="results file name (default gate-DTYPE)")
    args = ap.parse_args()
    blend = shipping(SHIPPED).blend
    sets = load_validation_sets(args.data_dir)
    problems: list[str] = []
    held, agree = [], []
    for vs in sets:
        _write_parts(vs)  # the model-independent parts (once; a new set's the first time)
        one = {d: SetData(vs, *predicted(vs, d), parts(vs)) for d in ("fp32", args.dtype)}
        ref, mine = one["fp32"].scores(blend), one[args.dtype].scores(blend)
        tau = float(scipy.stats.kendalltau(mine, ref).statistic)
        change = float(np.abs(mine - ref).mean())
        if vs.key in HELD_OUT:
            c = one[args.dtype].compare(mine, ref, n_boot=args.boot)
            fails = c.below(MARGIN)
            if fails:
                problems.append(f"{vs.label}: {c.delta} against float32 reaches below -{MARGIN}")
            held.append(
                f"| {vs.label} | {len(vs.rows)} | {c.statistic} | {c.candidate} | "
                f"{c.reference.value:+.3f} | {c.delta} | {tau:.3f} | "
                f"{'**yes**' if fails else 'no'} |"
            )
        else:
            if tau < AGREE:
                problems.append(f"{vs.label}: Kendall with float32's scores {tau:.3f} < {AGREE}")
            agree.append(
                f"| {vs.label} | {len(vs.rows)} | {tau:.3f} | {change:.4f} | "
                f"{'**yes**' if tau < AGREE else 'no'} |"
            )
    won = {d: challenge_outcomes(SHIPPED, d) for d in ("fp32", args.dtype)}
    floors = floor_checks(won[args.dtype])
    problems += [f"challenge {c.category}: {c.won} of {c.total}" for c in floors if c.fails]
    total = {d: sum(map(sum, w.values())) for d, w in won.items()}
    if total[args.dtype] < total["fp32"]:
        problems.append(f"challenge: {total[args.dtype]} right, float32 {total['fp32']}")
    degen = {d: degenerate_counts(d) for d in ("fp32", args.dtype)}
    for col, what in ((1, "good above its bad twin"), (2, "bad below every good")):
        n = {d: sum(v[col] for v in degen[d].values()) for d in degen}
        if n[args.dtype] < n["fp32"]:
            problems.append(f"degenerate set: {what} {n[args.dtype]}, float32 {n['fp32']}")

    verdict = "FAIL" if problems else "PASS"
    body = [
        f"Candidate: the shipped estimator `{SHIPPED.name}` (SHA-256 "
        f"`{sha256_file(SHIPPED)}`) in **{args.dtype}**, against the same file in float32; "
        f"its score: {blend}. CPU: {cpu_name()} (kind `{cpu_kind()}`).",
        "",
        f"**Verdict: {verdict}**",
        "",
        *[f"* fails: {p}" for p in problems],
        "",
        f"### Sets the weights never trained on (paired bootstrap, {args.boot} resamples; "
        f"fails when the difference's 95% lower bound is below -{MARGIN})",
        "",
        f"| set | rows | statistic | {args.dtype} | float32 | {args.dtype} − float32 | "
        "Kendall with float32's scores | fails |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        *held,
        "",
        f"### Sets the weights trained on (the same order as float32: Kendall tau-b of the "
        f"scores over the set's rows at least {AGREE})",
        "",
        "| set | rows | Kendall with float32's scores | mean score change | fails |",
        "| --- | --- | --- | --- | --- |",
        *agree,
        "",
        "### Challenge set (pairs ranked right; floor: 80% of all pairs, 50% of each "
        "category's, and no fewer than float32)",
        "",
        f"| category | float32 | {args.dtype} | floor |",
        "| --- | --- | --- | --- |",
        *[
            f"| {c.category} | "
            + (str(total["fp32"]) if c.category == "all" else str(sum(won["fp32"][c.category])))
            + f" | {c.won} | {c.floor} of {c.total} |"
            for c in floors
        ],
        "",
        "### Tagged degenerate set (pairs; good above its bad twin; bad below every good)",
        "",
        f"| kind | float32 | {args.dtype} |",
        "| --- | --- | --- |",
        *[
            f"| {k} | {degen['fp32'][k][0]}; {degen['fp32'][k][1]}; {degen['fp32'][k][2]} | "
            f"{v[0]}; {v[1]}; {v[2]} |"
            for k, v in degen[args.dtype].items()
        ],
    ]
    write_markdown(args.out or f"gate-{args.dtype}", "\n".join(body), title="Arithmetic gate")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
