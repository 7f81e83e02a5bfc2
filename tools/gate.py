"""The ship gate: may a candidate estimator become the default? (issue 51)

    python tools/gate.py CANDIDATE --data-dir ../shared/data --file CANDIDATE.safetensors

``CANDIDATE`` names a variant of the estimator protocol whose fold models have read every
judged set of :mod:`sets` (``results/folds/CANDIDATE/``: ``python tools/sets.py predict``;
each set read by the fold model that never saw it): eight many-systems sets (per-segment
Kendall; six of news, two of TED talks) and three single-translation sets (Spearman), and the
en-ru biomedical MQM (validation only: per-segment Kendall over its 107 sources with three
distinct scores, and Spearman over its 2,124 MT rows; it gates as every other set, but is not
in the mean).
``--file``: the candidate as it ships (trained on everything), for its blend — meaning head,
similarity and check weights, span threshold, read from its metadata and applied to the fold
predictions exactly as the scorer applies them (:func:`xlscore.scoring.blend.estimator_score`) —
and for the hand-written challenge set.

The candidate is judged the way users meet it: on the many-systems sets the engines of each
source are scored together, so that its consensus weight (if any) enters there; a
single-translation set's rows are scored one at a time (:meth:`rule.SetData.scores`).

The candidate is compared with **what ships** (issue 83): the package's default estimator
(:func:`xlscore.estimator.model.shipped`), read by its recipe's fold models
(:data:`SHIPPED_FOLDS`) with its file's blend. It **fails** when

* on any set it is significantly worse than what ships: the 95% lower bound of the paired
  difference (bootstrap over sources; over translations on a single-translation set) is
  below ``-MARGIN`` (:data:`MARGIN`, 0.01), each set read by a model that never saw it;
* its word tags on the WMT22 dev tags are significantly worse than what ships (MCC, paired
  bootstrap), or it has none (users would lose the error spans);
* on the challenge set it ranks fewer than 80% of all pairs or 50% of a category's pairs right
  (:func:`xlscore.evaluation.gate.floor_checks`): the challenge set is a floor, not what sets
  the blend.

Reported beside, not gating: each set against the plain recipe's sentence head
(:data:`PLAIN`), the mean over the sets, and the talks figures against their targets
(:data:`TALKS_TARGET`: the estimate alone, issue 72). A floor that what ships already fails is a
target, not a gate: round 7's talks floor was failed by the default itself, and so stopped
every candidate, better or not. An arithmetic candidate (the same weights in another precision
or runtime) has its own gate, :mod:`gate_arithmetic`.

INCOMPLETE (nothing ships) when a set's predictions or the file are missing; else PASS. Exit
status 0 for PASS, 1 for FAIL, 2 for INCOMPLETE. Writes ``results/gate.md`` (``--out``: another
name). The earlier defaults' challenge figures are shown beside the candidate's (taken from git
at their commits, checked by digest).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import folds
from _protocol import CACHE, RTM15_FILE, git_file
from _results import code_digest, write_markdown
from rule import Blend, SetData, load_data, mean_of
from sets import load_validation_sets

from xlscore.errors import ModelError, XLScoreError
from xlscore.estimator.formula import ScoreFormula
from xlscore.estimator.model import read_metadata, shipped
from xlscore.estimator.span_tagger import SpanTagger
from xlscore.evaluation.gate import MARGIN, compare_tags, floor_checks
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
        RTM15_FILE[0],
        "rtm15",  # the round-4 default: the teacher its students are distilled from
        *RTM15_FILE[1:],
        as_shipped=True,
    ),
)
#: the fold predictions of the recipe each shipped default was trained by
SHIPPED_FOLDS = {"rtm15-all-e5s": "rtm15"}
#: the plain recipe's sentence head (issue 61), reported beside
PLAIN = "plain-s0"
#: the per-segment Kendall of the estimate alone aimed at on each talks set (issue 72): a
#: target reported beside its value, not a gate (issue 83)
TALKS_TARGET = {"talks-ende": 0.06, "talks": 0.08}


def reference_file(ref: Reference) -> Path:
    """The reference's shipped file, from git (:func:`_protocol.git_file`)."""
    return git_file(ref.name, ref.commit, ref.path, ref.sha256)


@dataclass(frozen=True)
class Shipping:
    """How a file turns its estimate into the score users get (:class:`rule.Blend`) and its
    error spans' threshold."""

    blend: Blend
    span_threshold: float | None
    tagger: SpanTagger | None = None


def shipping(path: Path) -> Shipping:
    """A file's blend, span threshold and span tagger, read from its metadata (without
    loading the model)."""
    try:
        meta = read_metadata(path)
    except ModelError as err:
        raise SystemExit(str(err)) from None
    recipe = meta.get("recipe") or {}
    f = ScoreFormula.from_meta(meta, path)
    blend = Blend(f.meaning_blend, f.similarity_weight, f.check_weight, f.consensus_weight)
    return Shipping(
        blend, recipe.get("span_threshold"), SpanTagger.from_meta(meta.get("span_tagger"), path)
    )


def arithmetic_of(est, dtype: str) -> contextlib.AbstractContextManager:
    """The block in which an estimator loaded in ``dtype`` (fp32 for ``int8``) computes in
    ``dtype``: the refused int8 candidate is the tools' own (:mod:`_int8`)."""
    if dtype != "int8":
        return contextlib.nullcontext()
    from _int8 import int8_predictions

    return int8_predictions(est)


def challenge_outcomes(path: Path, dtype: str = "fp32") -> dict[str, list[bool]]:
    """Per category, whether the default scorer with this estimator file, computing in
    ``dtype`` (``int8``: :mod:`_int8`'s candidate), ranks each challenge pair right (cached by
    the digests of the file, the challenge set and the package's code, and by the dtype and
    the CPU's kind)."""
    from xlscore import XLScorer
    from xlscore.encoders.arithmetic import cpu_kind
    from xlscore.evaluation.challenge import read_challenge, run_challenge

    key = f"{sha256_file(path)[:16]}-{sha256_file(CHALLENGE)[:8]}-{code_digest()}"
    cache = CACHE.parent / "gate" / f"challenge-{key}-{dtype}-{cpu_kind()}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    scorer = XLScorer.offline(estimator=str(path), dtype="fp32" if dtype == "int8" else dtype)
    with arithmetic_of(scorer.estimator, dtype):
        table = run_challenge(scorer, read_challenge(CHALLENGE))
    won = {k: list(v.won) for k, v in table.items()}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(won))
    return won


def word_tags(data_dir: Path, variant: str, ships: Shipping, rows: list):
    """The WMT22 dev gold tags of ``rows`` (that set's rows) and a variant's predicted tags,
    from its leave-WMT22-out fold's word error probabilities (``None`` without them): at the
    file's threshold (its recipe's when the file has none), or, when the file ships a span
    tagger, by the tagger fitted without that set (``folds/VARIANT/span-tagger-lodo-qe22.json``,
    written by ``span_tagger.py``)."""
    tags = folds.read_tags(data_dir / "wmt22-enru-word-dev.tsv")
    got = folds.read_fold(variant, "lodo-qe22", rows)
    tag_rows = [tags[r.seg_id] for r in rows]
    if got is None:
        return tag_rows, None
    if ships.tagger is not None:
        tagger = folds.fold_tagger(variant, "lodo-qe22")
        if tagger is None:
            raise SystemExit(
                f"{variant}: the file ships a span tagger but the fold has none: run "
                "span_tagger.py first"
            )
        return tag_rows, [
            folds.tokens_hit(t.tokens, tagger.spans(r.source, r.translation, w))
            for r, t, w in zip(rows, tag_rows, got[1])
        ]
    threshold = ships.span_threshold
    if threshold is None:
        threshold = float(folds.config(variant)["recipe"].get("span_threshold", 0.5))
    return tag_rows, folds.tags_at(tag_rows, got[1], threshold)


@dataclass(frozen=True)
class TalksFigures:
    """A talks set's figures beside their target (reported, not gating)."""

    label: str
    alone: float
    target: float
    together: float
    today_alone: float
    today: float


def talks_targets(
    data: list[SetData], ref_data: list[SetData], blend: Blend, ref_blend: Blend
) -> list[TalksFigures]:
    """On each talks set both models have read: the candidate's estimate alone (its blend
    without the consensus) and with the engines scored together, and what ships, beside
    :data:`TALKS_TARGET`."""
    theirs = {e.set.key: e for e in ref_data}
    out = []
    for d in data:
        if d.set.key not in TALKS_TARGET or d.set.key not in theirs:
            continue
        e = theirs[d.set.key]
        out.append(
            TalksFigures(
                d.set.label,
                d.figure(d.scores(replace(blend, consensus=0.0))),
                TALKS_TARGET[d.set.key],
                d.figure(d.scores(blend)),
                e.figure(e.scores(replace(ref_blend, consensus=0.0))),
                e.figure(e.scores(ref_blend)),
            )
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidate", help="variant name under results/folds/")
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--file", type=Path, help="the candidate as it ships")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument(
        "--out", default="gate", help="results file name (default gate: results/gate.md)"
    )
    args = ap.parse_args()
    problems: list[str] = []
    incomplete: list[str] = []
    if args.file is None:
        incomplete.append("no --file: the blend and the challenge set are unknown")
    ships = shipping(args.file) if args.file else Shipping(Blend(), None)
    today = shipped()
    today_folds = SHIPPED_FOLDS[today.name]
    ref_ships = shipping(today.path)
    judged = load_validation_sets(args.data_dir)  # read once for both models
    try:
        data = load_data(args.data_dir, args.candidate, judged, strict=True)
    except SystemExit as err:
        incomplete.append(str(err))
        data = []
    ref_data: list[SetData] = load_data(args.data_dir, today_folds, judged, strict=True)
    # the plain head's fold models are not kept: a set read after they were gone has no column
    plain = {d.set.key: d for d in load_data(args.data_dir, PLAIN, judged, partial=True)}

    rows = []
    cand_figs, ref_figs = [], []
    for d, e in zip(data, ref_data, strict=False):
        mine, theirs = d.scores(ships.blend), e.scores(ref_ships.blend)
        head = plain[d.set.key].scores(Blend()) if d.set.key in plain else None
        versus = d.compare(mine, theirs, n_boot=args.boot)
        below = versus.below(MARGIN)
        if below:
            problems.append(
                f"{d.set.label}: {versus.delta} against what ships reaches below -{MARGIN}"
            )
        if d.set.tunes:  # the mean leaves the validation-only sets out, as the rule's does
            cand_figs.append(d.figure(mine))
            ref_figs.append(e.figure(theirs))
        check = d.compare(mine, head, n_boot=args.boot) if head is not None else None
        sys_k = (
            f"{d.system_kendall(mine):+.3f} / {e.system_kendall(theirs):+.3f} / "
            + (f"{d.system_kendall(head):+.3f}" if head is not None else "—")
            if d.set.kind == "systems"
            else "—"
        )
        together = "on" if ships.blend.consensus and d.set.kind == "systems" else "off"
        versus_plain = f"{check.reference.value:+.3f} | {check.delta}" if check else "— | —"
        rows.append(
            f"| {d.set.label} | {together} | {versus.statistic} | {versus.candidate} "
            f"| {versus.reference.value:+.3f} | {versus.delta} | {'**yes**' if below else 'no'} "
            f"| {versus_plain} | {sys_k} |"
        )
    talks = talks_targets(data, ref_data, ships.blend, ref_ships.blend)

    qe22 = [list(d.set.rows) for d in ref_data if d.set.key == "qe22"]
    word = latin = None
    if qe22 and data:
        rows_, cand_tags = word_tags(args.data_dir, args.candidate, ships, qe22[0])
        _, ref_tags = word_tags(args.data_dir, today_folds, ref_ships, qe22[0])
        if cand_tags is None and ref_tags is not None:
            problems.append(
                "no word tags: the candidate has no word head, so users would lose the error spans"
            )
        if cand_tags is not None and ref_tags is not None:
            gold = [t.gold for t in rows_]
            word = compare_tags(gold, cand_tags, ref_tags, n_boot=args.boot)
            latin = compare_tags(gold, cand_tags, folds.latin_tags(rows_), n_boot=args.boot)
            if word.worse:
                problems.append(
                    f"word MCC on the WMT22 dev tags significantly below {today.name}'s"
                )

    won: dict[str, dict[str, list[bool]]] = {}
    if args.file is not None:
        won[args.candidate] = challenge_outcomes(args.file)
    unreadable: list[str] = []
    for other in REFERENCES:
        try:
            won[other.name] = challenge_outcomes(reference_file(other))
        except XLScoreError as err:  # a file of settings this xlscore no longer has
            unreadable.append(f"`{other.name}` ({err})")
    floors = floor_checks(won[args.candidate]) if args.candidate in won else []
    for c in floors:
        if c.fails:
            problems.append(
                f"challenge {c.category}: {c.won} of {c.total} right, below the floor of {c.floor}"
            )

    verdict = "FAIL" if problems else "INCOMPLETE" if incomplete else "PASS"
    digest = sha256_file(args.file) if args.file else "—"
    body = [
        f"Candidate `{args.candidate}`; file `{args.file or '—'}`, SHA-256 `{digest}`; "
        f"its score: {ships.blend}"
        + (
            f", error spans by its span tagger ({ships.tagger.signature()}; on the WMT22 dev tags "
            "the tagger fitted without them)"
            if ships.tagger
            else f", error spans at probability {ships.span_threshold:g}"
            if ships.span_threshold
            else ""
        )
        + f". What ships: `{today.name}` (folds `{today_folds}`): {ref_ships.blend}.",
        "",
        f"**Verdict: {verdict}**",
        "",
        *[f"* fails: {p}" for p in problems],
        *[f"* missing: {m}" for m in dict.fromkeys(incomplete)],
        "",
        "### Every judged set (each read by the fold model that never saw it; paired bootstrap, "
        f"{args.boot} resamples; fails when the difference's 95% lower bound is below "
        f"-{MARGIN})",
        "",
        f"| set | consensus | statistic | candidate | what ships (`{today.name}`) "
        f"| candidate − what ships | fails | the plain sentence head (`{PLAIN}`, not gating) "
        "| candidate − plain head | system Kendall: candidate / what ships / plain head |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
    ]
    if data and ref_data:
        body.append(
            f"| **mean over the sets** (not gating; validation-only sets apart) | | "
            f"| **{mean_of(cand_figs):+.4f}** "
            f"| **{mean_of(ref_figs):+.4f}** | {mean_of(cand_figs) - mean_of(ref_figs):+.4f} "
            "| | | | |"
        )
    if talks:
        body += [
            "",
            "### Talks targets (spoken domain; reported, not gating: per-segment Kendall)",
            "",
            "| set | candidate's estimate alone | target | met | with the consensus | "
            f"`{today.name}` alone | `{today.name}` with the consensus |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            *[
                f"| {t.label} | {t.alone:+.3f} | {t.target:+.3f} | "
                f"{'yes' if t.alone >= t.target else 'no'} | {t.together:+.3f} "
                f"| {t.today_alone:+.3f} | {t.today:+.3f} |"
                for t in talks
            ],
        ]
    if word is not None and latin is not None:
        body += [
            "",
            "### Word level (WMT22 dev tags, MCC over the task's tokens)",
            "",
            f"Candidate {word.candidate}; `{today.name}` {word.reference} (difference "
            f"{word.delta}{', **significantly worse**' if word.worse else ''}); the Latin-letter "
            f"rule {latin.reference} (not gating).",
        ]
    if won:
        names = list(won)
        by_cat = {c.category: c for c in floors}
        body += [
            "",
            "### Challenge set (pairs ranked right; the floor: 80% of all pairs, 50% of each "
            "category's)",
            "",
            "| category | " + " | ".join(f"`{n}`" for n in names) + " | floor | fails |",
            "|" + " --- |" * (len(names) + 3),
        ]
        for cat in [*next(iter(won.values())), "all"]:
            cells = [
                str(sum(won[n].get(cat, [])) if cat != "all" else sum(map(sum, won[n].values())))
                for n in names
            ]
            c = by_cat.get(cat)
            body.append(
                f"| {cat} | "
                + " | ".join(cells)
                + (
                    f" | {c.floor} of {c.total} | {'**yes**' if c.fails else 'no'} |"
                    if c
                    else " | | |"
                )
            )
    if unreadable:
        body += [
            "",
            "Earlier defaults this xlscore can no longer load, so without a challenge column: "
            + "; ".join(unreadable)
            + ".",
        ]
    write_markdown(args.out, "\n".join(body), title="Ship gate")
    return {"PASS": 0, "FAIL": 1, "INCOMPLETE": 2}[verdict]


if __name__ == "__main__":
    sys.exit(main())
