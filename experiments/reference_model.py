"""A model that reads a reference (issue 84, parts 2 and 3): the estimator's e5 cross-encoder
trained on human judgments of translations that have a human reference, reading the reference
where the estimator reads the source; then used twice on the many-engine sets — against the
human reference (beside chrF and e5 F1 against it), and with each engine's translation judged
against the other engines' translations of its source (a neural consensus, beside today's chrF
consensus).

    python experiments/reference_model.py train --data-dir ../shared/data --model-id ref1
    python experiments/reference_model.py score --data-dir ../shared/data --model-id ref1 \
        --consensus
    python experiments/reference_model.py report --data-dir ../shared/data --model-id ref1 \
        --students tsc1

**Training rows** (``train``), each with a human translation of its source as its reference:
en-ru newstest2021 DA (without the 527 sources the en-ru MQM file judges; reference ``refA``,
else ``refB``), en-de newstest2020 and zh-en newstest2020/2021 MQM (``--sources`` sources of
each drawn with a fixed seed; reference the first of the source's human translations by name,
the others stay as candidates; en-de newstest2021 is left out: its sources are en-ru
newstest's). No en-ru MQM row, no talks row and no biomedical row is trained on, so the model
reads en-ru newstest MQM, both talks sets and the biomedical set as held out; it may not read
the other pairs' newstest sets or en-ru DA (trained on).

**Reading** (``score``): the rows of :mod:`sets` (those of ``results/baselines.md``), each MT
row against the human reference of ``baselines.references`` (the en-de talks have none), and
with ``--consensus`` every ordered pair of a source's consensus voters
(:class:`~xlscore.scoring.consensus.Voters`, copies of one engine one voter) for the neural
consensus: a candidate's agreement is its mean score with each other voter's translation as
the reference (``--references SET=K``: the K next voters only, :func:`references_of`). Scores
are cached under ``experiments/.cache/reference/MODEL_ID/`` as they come (an interrupted run
resumes). ``report`` adds chrF and e5-small F1 against the reference, the e5 F1 between voters
as another consensus, and the students' table (``teacher_student.py``), and writes its
section of ``results/estimator.md``.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from dataclasses import asdict, replace
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
import numpy as np
from _protocol import CACHE, DA_FILE, da_shared_sources
from _results import cpu_name, into_estimator_md
from baselines import ALONE, DEFAULT, references, sentence_chrf
from rule import SetData, load_data
from sets import MQM, load_validation_sets

from xlscore.estimator.recipe import PLAIN
from xlscore.io.judgments import Judgment, read_judgments, sample_sources, split_sets
from xlscore.scoring.consensus import blend as consensus_blend

FOLDER = CACHE.parent / "reference"
#: its section of ``results/estimator.md``
SECTION = "## A model that reads a reference (issue 84)"
#: references a candidate of the linear-time neural consensus (:func:`references_of`)
LINEAR = 4
#: the many-engine sets it reads (never trained on) and the single-row reading of the bio set
SETS = ("news", "talks", "talks-ende", "bio", "bio-rows")
#: the multi-pair MQM releases trained on (en-de newstest2021 shares en-ru newstest's sources)
RELEASES = (("en-de", "newstest2020"), ("zh-en", "newstest2020"), ("zh-en", "newstest2021"))
RECIPE = replace(
    PLAIN, rank_weight=1.0, batching="source", epochs=1.0, max_length=192, delta_rank=0
)


def referenced(rows: list[Judgment]) -> list[Judgment]:
    """``rows`` with the reference in the source's place: a row's own ``reference`` where the
    file gives one (the human translation equal to it leaves), else the first human translation
    of its source by system name (which leaves the candidates); sources with none leave."""
    humans: dict[str, dict[str, str]] = {}
    for r in rows:
        if r.is_human:
            humans.setdefault(r.seg_id, {})[r.system] = r.translation
    out = []
    for r in rows:
        if r.reference:
            ref, who = r.reference, None
        else:
            named = humans.get(r.seg_id, {})
            who = min(named) if named else None
            ref = named.get(who, "") if who else ""
        if not ref or r.system == who or r.translation == ref:
            continue
        out.append(replace(r, source=ref, reference=""))
    return out


def training_sets(data_dir: Path, sources: int) -> list[list[Judgment]]:
    """The training sets (one per pair and release), each row's source its reference."""
    shared = da_shared_sources(data_dir)
    da = [
        r for r in read_judgments(data_dir / DA_FILE, include_human=True) if r.seg_id not in shared
    ]
    # DA's human translations are named refA / refB: refA first, refB where refA is missing
    out = [referenced(da)]
    mqm = read_judgments(data_dir / MQM, include_human=True)
    for rows in split_sets(mqm):
        if (rows[0].lp, rows[0].release) in RELEASES:
            out.append(referenced(sample_sources(rows, sources)))
    return [rows for rows in out if rows]


def cmd_train(args) -> None:
    from xlscore.estimator.model import QualityEstimator
    from xlscore.training import fit

    out = FOLDER / args.model_id
    out.mkdir(parents=True, exist_ok=True)
    if (out / "full.safetensors").exists():
        print(f"{out}: trained before")
        return
    train = training_sets(args.data_dir, args.sources)
    recipe = replace(RECIPE, epochs=args.epochs)
    print(
        f"{sum(map(len, train))} rows: "
        + ", ".join(f"{s[0].lp} {s[0].release or s[0].kind} {len(s)}" for s in train)
    )
    t0 = time.time()
    est = QualityEstimator(recipe=recipe)
    fit(est, train, progress=not args.quiet, checkpoint=out / "train.ckpt")
    est.save(out / "full.safetensors", name=f"reference-{args.model_id}")
    (out / "log.json").write_text(
        json.dumps(
            {
                "minutes": max(time.time() - t0, est.log.seconds) / 60,
                "cpu": cpu_name(),
                "train_rows": sum(map(len, train)),
                "sources": args.sources,
                "recipe": asdict(recipe),
                "log": asdict(est.log),
            }
        )
    )
    for p in out.glob("train.ckpt*"):
        p.unlink()


def _sets(data_dir: Path, keys: tuple[str, ...] = SETS) -> list[SetData]:
    data = load_data(data_dir, "rtm15", load_validation_sets(data_dir, set(keys)), strict=True)
    return sorted(data, key=lambda d: SETS.index(d.set.key))


def references_of(n: int, i: int, k: int) -> list[int]:
    """The voters (of ``n``, in their sorted order) whose texts are voter ``i``'s references:
    every other one (``k`` 0 or ``k`` >= ``n`` - 1), else the ``k`` next in that order,
    cyclically (linear time: ``n x k`` passes)."""
    if k <= 0 or k >= n - 1:
        return [j for j in range(n) if j != i]
    return [(i + step) % n for step in range(1, k + 1)]


def voter_pairs(d: SetData, k: int = 0) -> list[tuple[str, str]]:
    """The (reference, candidate) pairs of each source's voters' texts, ``k`` references a
    candidate (:func:`references_of`)."""
    pairs = []
    for voters in d.voters:
        if voters is not None:
            t = voters.texts
            pairs += [(t[j], t[i]) for i in range(len(t)) for j in references_of(len(t), i, k)]
    return pairs


def cmd_score(args) -> None:
    from xlscore.estimator.model import QualityEstimator

    out = FOLDER / args.model_id
    est = QualityEstimator.load(out / "full.safetensors", dtype="fp32")
    cache_file = out / "pairs.json"
    known: dict[str, float] = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    timing = {}
    for d in _sets(args.data_dir, args.sets):
        refs, _ = references(args.data_dir, d)
        pairs = [(f, r.translation) for f, r in zip(refs, d.set.rows) if f]
        if d.set.kind == "systems" and args.consensus:
            pairs += voter_pairs(d, args.references.get(d.set.key, 0))
        todo = list(dict.fromkeys(p for p in pairs if json.dumps(p) not in known))
        print(f"{d.set.key}: {len(pairs)} pairs, {len(todo)} to score")
        t0 = time.time()
        for at in range(0, len(todo), 2000):  # saved as it goes
            part = todo[at : at + 2000]
            got = est.predict([p[0] for p in part], [p[1] for p in part], progress=not args.quiet)
            known.update({json.dumps(p): float(s) for p, s in zip(part, got)})
            tmp = cache_file.with_suffix(".tmp")  # replaced whole: a killed run loses no score
            tmp.write_text(json.dumps(known))
            tmp.replace(cache_file)
        if todo:
            timing[d.set.key] = (len(todo), time.time() - t0)
    if timing:
        (out / f"timing-{int(time.time())}.json").write_text(
            json.dumps({"cpu": cpu_name(), "sets": timing})
        )


@functools.cache
def _e5():
    from xlscore.encoders.encoder import Encoder

    return Encoder.load("pack:e5-small", dtype="fp32")


def e5_f1(hyps: list[str], refs: list[str]) -> np.ndarray:
    """BERTScore F1 of each hypothesis against its reference with the untrained e5-small's
    last layer (sub-word tokens, special tokens left out, no idf)."""
    from xlscore.encoders.bertscore import score_pairs

    texts = list(dict.fromkeys(hyps + refs))
    vecs = dict(zip(texts, (v[1:-1] for _, v in _e5().embed_tokens(texts))))
    return score_pairs([vecs[h] for h in hyps], [vecs[r] for r in refs])[2].numpy()


def neural_agreement(d: SetData, known: dict[str, float], k: int = 0) -> np.ndarray:
    """Each row's mean reference-model score against ``k`` other voters of its source
    (:func:`references_of`; 0 where no consensus is taken)."""
    out = np.zeros(len(d.set.rows))
    for idx, voters in zip(d.groups, d.voters):
        if voters is None:
            continue
        t = voters.texts
        mine = [
            np.mean([known[json.dumps((t[j], t[i]))] for j in references_of(len(t), i, k)])
            for i in range(len(t))
        ]
        out[idx] = voters.per_candidate(mine)
    return out


def with_agreement(d: SetData, alone: np.ndarray, agreement: np.ndarray, w: float) -> np.ndarray:
    """The engines of each source scored together with ``agreement`` blended in at weight
    ``w`` (the scorer's blend, :func:`xlscore.scoring.consensus.blend`, per source)."""
    out = alone.copy()
    for idx, voters in zip(d.groups, d.voters):
        if voters is not None and w:
            out[idx] = consensus_blend(alone[idx].tolist(), agreement[idx].tolist(), w)
    return out


def _cells(d: SetData, cols: dict[str, np.ndarray | None]) -> tuple[list[str], list[str]]:
    """A set's figure and (many-engine sets) system Kendall of each column, formatted (``—``
    for a column not computed)."""
    fig = ["—" if v is None else f"{d.figure(v):+.3f}" for v in cols.values()]
    if d.set.kind != "systems":
        return fig, []
    return fig, ["—" if v is None else f"{d.system_kendall(v):+.3f}" for v in cols.values()]


def _lines(
    d: SetData, label: str, cols: dict[str, np.ndarray | None], diffs: list[str]
) -> list[str]:
    fig, sys_k = _cells(d, cols)
    n_src = len({r.seg_id for r in d.set.rows})
    stat = "per-segment Kendall" if d.set.kind == "systems" else "Spearman over rows"
    lines = [
        f"| {label} | {len(d.set.rows)} ({n_src} sources) | {stat} | {' | '.join(fig + diffs)} |"
    ]
    if sys_k:
        engines = len({r.system for r in d.set.rows})
        empty = " |" * len(diffs)  # under the difference columns
        lines.append(f"| | {engines} engines | system Kendall | {' | '.join(sys_k)} |{empty}")
    return lines


def cmd_report(args) -> None:
    from baselines import with_reference

    out = FOLDER / args.model_id
    known: dict[str, float] = json.loads((out / "pairs.json").read_text())
    log = json.loads((out / "log.json").read_text())
    ref_lines: list[str] = []
    cons_lines: list[str] = []
    for d in _sets(args.data_dir):
        refs, note = references(args.data_dir, d)
        if any(refs):
            rd, rr = (d, refs) if all(refs) else with_reference(d, refs)
            hyps = [r.translation for r in rd.set.rows]
            model = np.array([known[json.dumps((f, h))] for f, h in zip(rr, hyps)])
            chrf = sentence_chrf(hyps, rr)
            cols = {"model": model, "chrf": chrf, "e5": e5_f1(hyps, rr)}
            ref_lines += _lines(
                rd, f"{rd.set.label} ({note})", cols, [str(rd.compare(model, chrf).delta)]
            )
        if d.set.kind != "systems":
            continue
        alone, together = d.scores(ALONE), d.scores(DEFAULT)
        linear = neural_agreement(d, known, LINEAR)
        try:  # every other voter a reference, where scored
            neural, every = neural_agreement(d, known), True
        except KeyError:
            neural, every = linear, False
        pairs = voter_pairs(d)
        f1 = e5_f1([c for _, c in pairs], [r for r, _ in pairs])
        e5 = neural_agreement(d, {json.dumps(p): float(v) for p, v in zip(pairs, f1)})
        half = d.scores(replace(DEFAULT, consensus=1.0))
        cols = {
            "chrF consensus": d.agreement,
            f"neural consensus, {LINEAR} references": linear,
            "neural consensus, every other voter": neural if every else None,
            "estimate alone": alone,
            "today: estimate + 2 x chrF consensus": together,
            "estimate + 2 x neural": with_agreement(d, alone, neural, 2.0),
            "estimate + 1 x chrF + 1 x neural": with_agreement(d, half, neural, 1.0),
            "e5 F1 consensus": e5,
            "estimate + 2 x e5 F1": with_agreement(d, alone, e5, 2.0),
        }
        diffs = [
            str(d.compare(cols[k], together).delta)
            for k in ("estimate + 2 x neural", "estimate + 2 x e5 F1")
        ]
        cons_lines += _lines(d, d.set.label, cols, diffs)
    ref_head = (
        "| set | rows | statistic | reference model | chrF | e5-small F1 | model minus chrF "
        "[95% interval] |\n| --- | --- | --- | --- | --- | --- | --- |"
    )
    cons_head = (
        f"| set | rows | statistic | chrF consensus alone | neural consensus alone, {LINEAR} "
        "references | neural consensus alone, every other voter | estimate alone | today: "
        "estimate + 2 x chrF consensus | estimate + 2 x neural consensus | estimate + 1 x chrF "
        "+ 1 x neural | e5 F1 consensus alone | estimate + 2 x e5 F1 consensus | (estimate + "
        "2 x neural) minus today [95% interval] | (estimate + 2 x e5 F1) minus today |\n"
        + "| --- " * 14
        + "|"
    )
    timing = [json.loads(f.read_text()) for f in sorted(out.glob("timing-*.json"))]
    speed = [
        f"{k}: {n} pairs in {s:.0f} s ({n / s:.1f} pairs/s, {t['cpu']})"
        for t in timing
        for k, (n, s) in t["sets"].items()
    ]
    text = [
        f"Model `{args.model_id}`: the estimator's cross-encoder (`pack:e5-small`) trained "
        f"{log['minutes']:.0f} minutes on {log['cpu']} over {log['train_rows']} judged "
        "translations that have a human reference (en-ru newstest2021 DA without the en-ru "
        f"MQM file's sources; en-de newstest2020, zh-en newstest2020 and 2021 MQM, "
        f"{log['sources']} sources each), reading the reference where the estimator reads the "
        "source. It never trained on a row of the sets below (`experiments/reference_model.py`).",
        "",
        "### Against the human reference",
        "",
        "Each machine translation scored against a human translation of its source, beside "
        "sacreBLEU's sentence chrF and e5-small's BERTScore F1 against the same reference. The "
        "difference: paired bootstrap of the set's figure over sources (1000 resamples).",
        "",
        ref_head,
        *ref_lines,
        "",
        "### Candidates as each other's references",
        "",
        "With the engines of a source scored together, each engine's translation judged by the "
        "reference model against other voters' translations as references (the mean; copies "
        "of one engine one voter, as today's consensus counts them): every other voter, or "
        f"the {LINEAR} next voters in their sorted order (n x {LINEAR} passes, linear time); "
        "beside today's chrF consensus and the untrained e5-small's BERTScore F1 between the "
        "voters (one e5 pass per translation, then a greedy matching per pair). The estimate "
        "is the shipped default's without consensus (`rtm15`'s fold predictions, head + 0.25 x "
        "checks); a blend adds `weight x sd x z(agreement)` per source (the scorer's consensus "
        "blend, here per candidate), the neural and e5 agreements (every other voter where "
        "scored) at chrF's weight 2: no weight was tuned here. Per-segment Kendall over the "
        "sources with three distinct human scores; the differences: paired bootstrap over "
        "sources.",
        "",
        cons_head,
        *cons_lines,
        "",
        "Cost: a pair (a reference and a translation) is one pass of the 12-layer model, "
        "n x (n - 1) pairs a source for n engines with every other voter as a reference. "
        "Speed of the reference model on this machine's two cores as it scored (the "
        "references first, then the voters' pairs; runs cut short and resumed are not "
        "listed):",
        "",
        *(f"* {s}" for s in speed),
    ]
    if args.students:
        text += ["", "### Students of its labels", "", *student_table(args.data_dir, args.students)]
    body = "\n".join(text)
    print(body)
    into_estimator_md(SECTION, body)


#: the sets of the student table: (key, statistic) — every set the students may read
STUDENT_SETS = ("news", "talks-ende", "talks", "bio", "bio-rows", "qe22", "it", "mlqe")


def student_table(data_dir: Path, students: list[str]) -> list[str]:
    """Each student's figures beside today's (``rtm15``) on every set it may read, from the
    committed fold predictions (:mod:`sets`): many-engine sets per-segment Kendall of the
    estimate / the blend (system Kendall of the blend), single-translation sets Spearman."""
    judged = load_validation_sets(data_dir, set(STUDENT_SETS))
    head = "| estimator | " + " | ".join(STUDENT_SETS) + " |"
    lines = [head, "| --- |" + " --- |" * len(STUDENT_SETS)]
    for variant in ["rtm15", *students]:
        got = {d.set.key: d for d in load_data(data_dir, variant, judged, partial=True)}
        cells = []
        for key in STUDENT_SETS:
            d = got.get(key)
            if d is None:
                cells.append("—")
            elif d.set.kind == "systems":
                alone, together = d.scores(ALONE), d.scores(DEFAULT)
                cells.append(
                    f"{d.figure(alone):+.3f} / {d.figure(together):+.3f} "
                    f"({d.system_kendall(together):+.3f})"
                )
            else:
                cells.append(f"{d.figure(d.scores(ALONE)):+.3f}")
        lines.append(f"| `{variant}` | " + " | ".join(cells) + " |")
    return [
        "Reference-free estimators (no reference, no other engine) trained on the reference "
        "model's labels of `enru-general` outputs (`experiments/teacher_student.py`), beside "
        "today's default (`rtm15`): `tsc1` on those labels alone (variant c), `tsa1` on them "
        "and then on a protocol fold's human rows (variant a: `tsc1`'s encoder, a new head, "
        "the default's human rows of the fold, en-ru MQM and DA without IT). Each set read by "
        "a model that never trained on it: `tsc1` trained on no judged row, `tsa1`'s sets are "
        "read by the fold model that left them out, and their teacher trained on none of "
        "these sets. Many-engine "
        "sets: per-segment Kendall of the estimate / of the default's blend with the engines "
        "together (system Kendall of the blend); `bio-rows`, WMT22 dev (`qe22`), IT and MLQE-PE: "
        "Spearman of the estimate.",
        "",
        *lines,
    ]


def _per_set(value: str) -> dict[str, int]:
    """``talks=4,talks-ende=4`` as ``{"talks": 4, "talks-ende": 4}``."""
    return {k: int(v) for k, v in (part.split("=") for part in value.split(",") if part)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("train", "score", "report"))
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--model-id", default="ref1")
    ap.add_argument("--sources", type=int, default=500, help="sources of each MQM release")
    ap.add_argument("--epochs", type=float, default=RECIPE.epochs)
    ap.add_argument("--consensus", action="store_true", help="score: the voters' pairs too (slow)")
    ap.add_argument(
        "--references",
        type=_per_set,
        default={},
        help="SET=K,...: K other voters as a candidate's references on that set (default all)",
    )
    ap.add_argument("--sets", type=lambda v: tuple(v.split(",")), default=SETS)
    ap.add_argument("--students", nargs="*", default=[], help="report: student variants")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    {"train": cmd_train, "score": cmd_score, "report": cmd_report}[args.command](args)


if __name__ == "__main__":
    main()
