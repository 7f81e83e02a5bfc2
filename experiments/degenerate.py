"""Degenerate output (issue 71, point 4): the tagged set ``data/degenerate/degenerate.tsv``
scored one translation at a time by the offline default, with and without the degenerate rule
(:mod:`xlscore.checks.degenerate`); and, with ``--data-dir``, how often the rule fires on real
en-ru machine translation.

    python experiments/degenerate.py --data-dir ../shared/data

The set was written for this issue, with the rules in view: it shows what the rule does on the
cases it was made for, and that the sound translations beside them (short answers, repeated
words a source repeats, acronyms, names) raise no finding; it does not measure the rule on
unseen garbage. The real-data figure is the honest side: every finding on judged MT is a
false alarm unless the judges marked an error there. Writes ``results/degenerate.md``.
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
from _results import cpu_name, write_markdown

from xlscore import XLScorer
from xlscore.checks.degenerate import degeneracy
from xlscore.scoring.blend import estimator_score
from xlscore.text.words import normalize_text

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "data" / "degenerate" / "degenerate.tsv"
#: the en-ru judged files whose machine translations the false-alarm count reads
JUDGED = (
    "wmt21-enru-mqm-newstest2021.tsv",
    "wmt21-enru-da-newstest2021.tsv",
    "wmt22-enru-mqm-dev.tsv",
)


def read_set(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def without_rule(scorer: XLScorer, r) -> float:
    """The score the pair would get without the degenerate rule (the checks kept)."""
    est = scorer.estimator
    assert est is not None
    findings = sum(f.counts for f in r.findings if f.check != "degenerate")
    return estimator_score(
        r.estimate,
        foreign=r.foreign,
        similarity=r.similarity,
        weight=est.similarity_weight,
        floor=est.floor,
        findings=findings,
        check_weight=est.check_weight,
    )


def tagged_table(scorer: XLScorer, rows: list[dict]) -> tuple[str, str]:
    """The tagged set: per kind, bad ranked below its own good translation and below every
    good translation of the set (the filtering use: garbage must not score as typical), with
    and without the rule, flagged, and the sound translations' false alarms."""
    bad = [r for r in rows if r["kind"] != "sound"]
    sound = [r for r in rows if r["kind"] == "sound"]
    good_r = scorer.score([r["source"] for r in bad], [r["good"] for r in bad])
    bad_r = scorer.score([r["source"] for r in bad], [r["bad"] for r in bad])
    sound_r = scorer.score([r["source"] for r in sound], [r["good"] for r in sound])
    kinds = list(dict.fromkeys(r["kind"] for r in bad))
    lines = [
        "| kind | pairs | its good above bad: no rule / the rule | bad below every good "
        "translation: no rule / the rule | bad flagged `degenerate` | bad's mean score: no "
        "rule / the rule |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lowest = min(r.score for r in good_r)
    lowest_before = min(without_rule(scorer, r) for r in good_r)
    for kind in kinds:
        at = [i for i, r in enumerate(bad) if r["kind"] == kind]
        before = sum(without_rule(scorer, good_r[i]) > without_rule(scorer, bad_r[i]) for i in at)
        after = sum(good_r[i].score > bad_r[i].score for i in at)
        flagged = sum("degenerate" in bad_r[i].flags for i in at)
        under_b = sum(without_rule(scorer, bad_r[i]) < lowest_before for i in at)
        under_a = sum(bad_r[i].score < lowest for i in at)
        mean_b = sum(without_rule(scorer, bad_r[i]) for i in at) / len(at)
        mean_a = sum(bad_r[i].score for i in at) / len(at)
        lines.append(
            f"| {kind} | {len(at)} | {before} / {after} | {under_b} / {under_a} | "
            f"{flagged}/{len(at)} | {mean_b:+.3f} / {mean_a:+.3f} |"
        )
    alarms = [
        (r["source"], r["good"])
        for r, res in zip(sound, sound_r)
        if any(f.check == "degenerate" for f in res.findings)
    ]
    good_alarms = sum(any(f.check == "degenerate" for f in g.findings) for g in good_r)
    note = (
        f"Sound translations with a degenerate finding: {len(alarms)} of {len(sound)} "
        f"(short answers, repeats the source makes, acronyms, names, numbers), and "
        f"{good_alarms} of the {len(good_r)} good translations beside the bad ones."
    )
    return "\n".join(lines), note


def real_data(data_dir: Path) -> str:
    """How often each kind fires on the distinct en-ru machine translations of the judged
    files, with each finding listed."""
    seen: set[tuple[str, str]] = set()
    for name in JUDGED:
        with open(data_dir / name, encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                if r.get("is_human_translation", "0") != "1":
                    seen.add((r["source"], r["translation"]))
    it = data_dir / "wmt19-enru-qe-it"
    for part in ("dev", "test"):
        src = (it / f"{part}.src").read_text(encoding="utf-8").splitlines()
        mt = (it / f"{part}.mt").read_text(encoding="utf-8").splitlines()
        seen.update(zip(src, mt))
    kinds: Counter[str] = Counter()
    found = []
    flagged = 0
    for s, t in sorted(seen):
        d = degeneracy(normalize_text(s), normalize_text(t))
        flagged += d.flagged
        for f in d.findings:
            kinds[f.message.split(":")[0]] += 1
            found.append(f"* {f.message} (share {d.share:.2f}): “{s[:90]}” → “{t[:90]}”")
    counts = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none"
    return (
        f"{len(seen)} distinct en-ru machine translations ({', '.join(JUDGED)}, the WMT19 IT "
        f"dev and test sets): findings {sum(kinds.values())} ({counts}); flagged "
        f"`degenerate` {flagged}.\n\n" + "\n".join(found)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, help="../shared/data: the real-data count")
    ap.add_argument("--set", type=Path, default=SET)
    args = ap.parse_args()
    scorer = XLScorer.offline(consensus=False, fields="score,evidence", dtype="fp32")
    table, note = tagged_table(scorer, read_set(args.set))
    body = (
        f"Scorer: `{scorer.signature()}`, one translation at a time (no consensus), fp32; "
        f"{cpu_name()}.\n\n## The tagged set (`data/degenerate/degenerate.tsv`)\n\n"
        f"{table}\n\n{note}\n"
    )
    if args.data_dir:
        body += f"\n## Real machine translation\n\n{real_data(args.data_dir)}\n"
    write_markdown("degenerate", body, title="Degenerate output")


if __name__ == "__main__":
    main()
