"""The README's agreement figures beside a reference-based baseline (issue 82): sentence chrF of
each machine translation against the set's human reference, on the very rows and with the very
statistics of the README's table.

    python tools/baselines.py --data-dir ../shared/data

The rows are :mod:`sets`' (each set without the rows whose English source its reading fold
trained on; a many-engine set cut to the sources with at least three distinct human scores and,
but for newstest and the talks, to 250 of them; machine translations only), read by
:func:`rule.load_data`; the statistics are :class:`rule.SetData`'s: per-segment Kendall tau-b
averaged over sources and system Kendall (many-engine sets), Spearman (single-translation sets),
and the paired bootstrap of :meth:`rule.SetData.compare` (sources resampled).

The reference of a row is a human translation of its source that the set's file holds: the
``reference`` column where the file has one (en-ru newstest2021 MQM: ref-A), otherwise the
file's human-translation rows (``is_human_translation``), the one present for most of the set's
sources first and the next where it is missing; a source with none (5 of en-ru DA's 250) is
left out of the comparison, that set's figures shown on every row and on the rows with a
reference. The single-translation sets have none: WMT22 QE
dev and MLQE-PE release no reference, and the IT set's post-edits are edits *of* the scored
translation (its HTER label is computed from them), not an independent reference.

chrF is sacreBLEU's sentence chrF (character 6-grams, beta 2). Beside it, the default as the
README reports it (``rtm15``'s fold predictions; the rule's blend, head + 0.25 x checks +
2 x consensus, the engines of a source scored together; and without consensus).

The en-ru biomedical MQM (validation only: :data:`sets.VALIDATION_ONLY`) stands below the means,
in none of them, with its ``reference`` human translation as chrF's reference.

Writes ``results/baselines.md``.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
from _protocol import DA_FILE, TALKS
from _results import write_markdown
from rule import Blend, SetData, load_data, mean_of
from sets import BIO, MQM, VALIDATION_ONLY, Parts, load_validation_sets

from xlscore.io.judgments import read_judgments

#: the sets of the README's table, in its order
README_SETS = ("news", "da", "ende20", "ende21", "zhen20", "zhen21", "talks", "qe22", "mlqe", "it")
#: the shipped default's blend (``results/rule-rtm15.md``) and the same without consensus
DEFAULT = Blend(checks=0.25, consensus=2.0)
ALONE = Blend(checks=0.25)
#: where each many-engine set's human translations are (``None``: the ``reference`` column)
HUMAN_FILE = {
    "news": None,
    "da": DA_FILE,
    "ende20": MQM,
    "ende21": MQM,
    "zhen20": MQM,
    "zhen21": MQM,
    "talks": TALKS["talks"],
    "bio": BIO,
    "bio-rows": BIO,
}
#: why a set has no reference
NO_REFERENCE = {
    "qe22": "no reference released (WMT22 QE data)",
    "mlqe": "no reference released (MLQE-PE DA); its post-edits are edits of the scored MT",
    "it": "post-edits of the scored MT only (the HTER label is computed from them)",
}


def references(data_dir: Path, d: SetData) -> tuple[list[str], str]:
    """Each row's reference (``""`` where none) and a note of which human translations they
    are."""
    rows = d.set.rows
    name = HUMAN_FILE.get(d.set.key, "missing")
    if name == "missing":
        return [""] * len(rows), NO_REFERENCE.get(d.set.key, "no reference")
    if name is None:
        refs = [r.reference for r in rows]
        return refs, "the file's `reference` column (ref-A)"
    lp, release = rows[0].lp, rows[0].release
    humans: dict[str, dict[str, str]] = {}
    for r in read_judgments(data_dir / name, include_human=True):
        if r.is_human and r.lp == lp and r.release == release:
            humans.setdefault(r.system, {})[r.seg_id] = r.translation
    sources = {r.seg_id for r in rows}
    order = sorted(humans, key=lambda s: (-len(sources & humans[s].keys()), s))
    used: Counter[str] = Counter()
    refs = []
    for r in rows:
        who = next((s for s in order if r.seg_id in humans[s]), None)
        refs.append(humans[who][r.seg_id] if who else "")
        used[who or "none"] += 1
    note = ", ".join(f"{s} ({n} rows)" for s, n in used.most_common())
    return refs, f"the file's human translations: {note}"


def with_reference(d: SetData, refs: list[str]) -> tuple[SetData, list[str]]:
    """The set without the sources that have no reference (whole sources: a reference is a
    source's), and those rows' references."""
    keep = np.array([i for i, r in enumerate(refs) if r])
    p = d.parts
    parts = Parts(p.similarity[keep], p.foreign[keep], p.findings[keep], p.degenerate[keep])
    rows = tuple(d.set.rows[i] for i in keep)
    return SetData(replace(d.set, rows=rows), d.base[keep], d.meaning[keep], parts), [
        refs[i] for i in keep
    ]


def sentence_chrf(hypotheses: list[str], refs: list[str]) -> np.ndarray:
    """sacreBLEU's sentence chrF (0..100) of each hypothesis against its reference."""
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    return np.array([chrf.sentence_score(h, [r]).score for h, r in zip(hypotheses, refs)])


def beside_chrf(
    d: SetData, together: np.ndarray, alone: np.ndarray, refs: list[str], label: str
) -> tuple[list[str], dict[str, float], dict[str, float]]:
    """A set's lines beside chrF against ``refs`` (one for every row), and each column's
    figure and system Kendall (none on a single-translation reading)."""
    chrf = sentence_chrf([r.translation for r in d.set.rows], refs)
    cols = {"together": together, "alone": alone, "chrf": chrf}
    diff = d.compare(together, chrf)
    fig = {k: d.figure(v) for k, v in cols.items()}
    cells = " | ".join(f"{fig[k]:+.3f}" for k in cols)
    if d.set.kind != "systems":
        return [f"| {label} | {len(d.set.rows)} | Spearman | {cells} | {diff.delta} |"], fig, {}
    sys_k = {k: d.system_kendall(v) for k, v in cols.items()}
    n_src = len({r.seg_id for r in d.set.rows})
    return (
        [
            f"| {label} | {len(d.set.rows)} ({n_src} sources) | per-segment Kendall | {cells} | "
            f"{diff.delta} |",
            f"| | {len({r.system for r in d.set.rows})} engines | system Kendall | "
            + " | ".join(f"{sys_k[k]:+.3f}" for k in cols)
            + " | |",
        ],
        fig,
        sys_k,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--model-id", default="rtm15", help="the variant whose figures sit beside")
    args = ap.parse_args()
    order = (*README_SETS, *VALIDATION_ONLY)
    data = load_data(
        args.data_dir, args.model_id, load_validation_sets(args.data_dir, set(order)), strict=True
    )
    data.sort(key=lambda d: order.index(d.set.key))
    head = (
        "| set | rows | statistic | the default, engines together | the default, one at a time "
        "| chrF against the human reference | the default minus chrF [95% interval] |"
    )
    lines = [head, "| --- | --- | --- | --- | --- | --- | --- |"]
    notes = []
    partial: list[str] = []
    seg: dict[str, list[float]] = {"together": [], "alone": [], "chrf": []}
    sys_: dict[str, list[float]] = {"together": [], "alone": [], "chrf": []}
    spear: dict[str, list[float]] = {"together": [], "alone": []}
    validation: list[str] = []  # the validation-only sets: below the means, in none of them
    for d in data:
        together, alone = d.scores(DEFAULT), d.scores(ALONE)
        refs, note = references(args.data_dir, d)
        label = d.set.label
        notes.append(f"* {label}: {note}.")
        if not d.set.tunes:  # every row has a reference: the biomedical file's
            validation += beside_chrf(d, together, alone, refs, label)[0]
            continue
        if d.set.kind != "systems":
            fig = d.figure(together)
            spear["together"].append(fig)
            spear["alone"].append(d.figure(alone))
            lines.append(
                f"| {label} | {len(d.set.rows)} | Spearman | {fig:+.3f} | "
                f"{spear['alone'][-1]:+.3f} | – | – |"
            )
            continue
        if not all(refs):  # the figures on every row first, then on the rows with a reference
            n_src = len({r.seg_id for r in d.set.rows})
            lines.append(
                f"| {label} | {len(d.set.rows)} ({n_src} sources) | per-segment Kendall | "
                f"{d.figure(together):+.3f} | {d.figure(alone):+.3f} | – | |"
            )
            lines.append(
                f"| | | system Kendall | {d.system_kendall(together):+.3f} | "
                f"{d.system_kendall(alone):+.3f} | – | |"
            )
            d, refs = with_reference(d, refs)
            together, alone = d.scores(DEFAULT), d.scores(ALONE)
            label = f"… its sources with a reference ({d.set.key})"
            partial.append(d.set.key)
        rows, fig, sys_k = beside_chrf(d, together, alone, refs, label)
        lines += rows
        for key in fig:
            seg[key].append(fig[key])
            sys_[key].append(sys_k[key])
    many = len(seg["chrf"])
    lines += [
        f"| **mean over the {many} many-engine sets** | | per-segment Kendall | "
        + " | ".join(f"**{mean_of(seg[k]):+.4f}**" for k in ("together", "alone", "chrf"))
        + " | |",
        f"| **mean over the {many} many-engine sets** | | system Kendall | "
        + " | ".join(f"**{mean_of(sys_[k]):+.4f}**" for k in ("together", "alone", "chrf"))
        + " | |",
        f"| **mean over the {len(spear['together'])} single-translation sets** | | Spearman | "
        + " | ".join(f"**{mean_of(spear[k]):+.4f}**" for k in ("together", "alone"))
        + " | – | |",
        *validation,
    ]
    intro = [
        f"Variant `{args.model_id}` (the default: head + 0.25×checks + 2×consensus, each set "
        "read by the fold model that never saw it, `tools/sets.py`) beside sentence chrF "
        "(sacreBLEU, character 6-grams, beta 2) of each translation against a human reference "
        "of its source. Same rows as `results/sets-rtm15.md`: machine translations only; a "
        "many-engine set keeps the sources with at least three distinct human scores. The "
        "default's figures are recomputed here by the package as it is when this runs; where its "
        "consensus code changed since `results/sets-rtm15.md` was made, they differ from that "
        "file's.",
        "",
        "**Per-segment Kendall** is Kendall tau-b between the scores and the human scores of "
        "the engines' translations of one source, averaged over the sources (grouped by source: "
        "what mt-metrics-eval calls `average_by='item'`; its default, `average_by='none'`, pools "
        "every translation of every source into one correlation, which also rewards telling easy "
        "sources from hard ones). System Kendall: over the engines' mean scores. Spearman: over "
        "all translations (MLQE-PE: the mean of its seven pairs'). A mean is taken over one "
        "statistic only. The difference column: the paired bootstrap of per-segment Kendall "
        "(1000 resamples of sources; on the biomedical set's every-row reading, of Spearman "
        "over its rows). The biomedical set is validation only: below the means, in none.",
        "",
        *lines,
        "",
        "The references:",
        "",
        *notes,
        *(
            [
                "",
                f"The many-engine means take {', '.join(partial)} on its sources with a "
                "reference (the rows above them: every row, as in `results/sets-rtm15.md`).",
            ]
            if partial
            else []
        ),
        "",
        "**Published figures of COMET-QE, CometKiwi or OpenKiwi**: none for these rows. The "
        "many-engine rows are this project's subsets (sources with three distinct scores, 250 "
        "drawn of the larger sets, sources of the fold's training left out) with a per-source "
        "statistic, so a figure published for the full WMT test set is another set and, where "
        "it pools segments, another statistic. For the single-translation sets we found no "
        "published figure on the same split: the WMT22 QE findings (Zerva et al., 2022) report "
        "the test sets, not the en-ru dev set read here; MLQE-PE dev2021 is read as a 500-row "
        "draw of each pair; for the WMT19 IT test set we found no COMET-QE, CometKiwi or "
        "OpenKiwi figure to cite.",
    ]
    write_markdown(
        "baselines", "\n".join(intro), title="The agreement figures beside chrF with a reference"
    )


if __name__ == "__main__":
    main()
