"""How alike real, distinct engines are (issue 82): the evidence behind the consensus's
near-copy rule (:func:`xlscore.scoring.consensus.alike`, :func:`~xlscore.scoring.consensus.copied`).

Two translations of one source are *alike* when, normalised, they are at most ``k``
character edits apart; two engines are merged as copies (one voter in the consensus) when
they are alike in more than half the sources both translated. For every judged set with
several systems per source and every two distinct systems, the table gives the largest
share of alike sources over all pairs and how many pairs a rule would merge, for the shipped
``k`` (:func:`~xlscore.scoring.consensus.near_edits`) and looser and stricter ones; and the
share of exactly equal texts, which the rule of issue 71 already merged on. A synthetic
near-copy of one engine (a punctuation mark changed in every output, or a word dropped)
shows what each rule catches.

    python experiments/near_copies.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import csv
import gzip
import itertools
import math
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from xlscore.scoring.consensus import NEAR_EDITS, NEAR_EDITS_MIN, copied, copy_groups, near_edits
from xlscore.text.edits import within
from xlscore.text.words import normalize_text

csv.field_size_limit(sys.maxsize)

#: the judged files with several systems per source
SETS = (
    "wmt21-enru-mqm-newstest2021.tsv",
    "wmt21-enru-da-newstest2021.tsv",
    "bio-enru-mqm.tsv.gz",
    "enru-general.tsv.gz",
    "multilingual/mqm.tsv.gz",
    "multilingual/mqm-ted-zhen.tsv.gz",
    "multilingual/mqm-ted-ende.tsv.gz",
)

#: the rules compared: name -> the most edits apart alike texts may be, from their lengths
RULES: dict[str, Callable[[str, str], int]] = {
    "the same text": lambda a, b: 0,
    f"shipped: ≤ max({NEAR_EDITS_MIN}, {NEAR_EDITS:.0%})": near_edits,
    "≤ 1": lambda a, b: 1,
    "≤ 2": lambda a, b: 2,
    "≤ max(2, 2%)": lambda a, b: max(2, int(0.02 * max(len(a), len(b)))),
    "≤ max(2, 5%)": lambda a, b: max(2, int(0.05 * max(len(a), len(b)))),
}


def _open(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def read_outputs(path: Path) -> dict[str, dict[str, str]]:
    """``{source key: {system: normalised translation}}`` of a file (its language pair and
    set, where it has them, are part of the key)."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    with _open(path) as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            key = "|".join(row.get(k) or "" for k in ("lp", "set", "seg_id"))
            out[key][row["system"]] = normalize_text(row["translation"])
    return out


def alike_counts(groups: dict[str, dict[str, str]]) -> dict[tuple[str, str], list[int]]:
    """For every two systems: ``[sources both translated, alike by each rule...]``."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0] * (1 + len(RULES)))
    for by in groups.values():
        names = sorted(n for n in by if by[n])
        for a, b in itertools.combinations(names, 2):
            c = counts[a, b]
            c[0] += 1
            for x, rule in enumerate(RULES.values(), start=1):
                k = rule(by[a], by[b])
                c[x] += within(by[a], by[b], k)
    return counts


def _groups(systems, counts, x: int) -> dict[str, frozenset[str]]:
    """Each system's group of copies (itself alone when it has none) when the pairs alike by
    rule ``x`` in most sources are merged, as the consensus merges them (:func:`copy_groups`)."""
    pairs = [p for p, c in counts.items() if copied(c[x], c[0])]
    root = copy_groups(sorted(systems), pairs)
    return {s: frozenset(t for t in systems if root.get(t, t) == root.get(s, s)) for s in systems}


def _punctuation_changed(text: str, k: int) -> str:
    """The text with one punctuation mark changed (which one: by ``k``)."""
    for mark, other in ((",", ";"), (".", "!"), ("—", "-"), (":", ",")):
        at = [m.start() for m in re.finditer(re.escape(mark), text)]
        if at:
            i = at[k % len(at)]
            return text[:i] + other + text[i + 1 :]
    return text + "."


def _word_dropped(text: str, k: int) -> str:
    words = text.split()
    return (
        text if len(words) < 2 else " ".join(w for i, w in enumerate(words) if i != k % len(words))
    )


def caught(groups: dict[str, dict[str, str]], system: str, change) -> list[float]:
    """Share of ``system``'s outputs alike, by each rule, to the same output changed by
    ``change`` (a synthetic near-copy)."""
    hits, n = [0] * len(RULES), 0
    for k, by in enumerate(groups.values()):
        text = by.get(system, "")
        if not text:
            continue
        near = normalize_text(change(text, k))
        n += 1
        for x, rule in enumerate(RULES.values()):
            hits[x] += within(text, near, rule(text, near))
    return [h / max(n, 1) for h in hits]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("experiments/results/near-copies.md"))
    args = parser.parse_args(argv)
    rules = list(RULES)
    lines = [
        "# How alike distinct engines are: the near-copy rule (issue 82)",
        "",
        "Written by `python experiments/near_copies.py --data-dir ../shared/data`. Two",
        "translations of one source are alike when, normalised, they are at most k character",
        "edits apart; two engines are merged as copies when they are alike in more than half the",
        "sources both translated. Each cell: the largest share of alike sources over every two",
        "distinct systems of the set, and (in brackets) how many pairs the rule would merge and",
        "how many systems would then be in a group of copies (:func:`copy_groups`: merged pairs",
        "joined) other than the one the exact rule of issue 71 (the same text) puts them in.",
        "",
        "| set | systems | pairs | " + " | ".join(rules) + " | the most alike pair, shipped rule |",
        "| --- | --- | --- | " + " | ".join("---" for _ in rules) + " | --- |",
    ]
    shipped = 1 + rules.index(next(r for r in rules if r.startswith("shipped")))
    catches = []
    for name in SETS:
        path = args.data_dir / name
        if not path.exists():
            print(f"{name}: not found, left out", file=sys.stderr)
            continue
        t0 = time.perf_counter()
        groups = read_outputs(path)
        counts = alike_counts(groups)
        systems = {s for pair in counts for s in pair}
        cells = []
        exact = _groups(systems, counts, 1)
        for x in range(1, 1 + len(rules)):
            top = max(c[x] / c[0] for c in counts.values())
            merged = sum(copied(c[x], c[0]) for c in counts.values())
            beyond = sum(_groups(systems, counts, x)[s] != exact[s] for s in systems)
            cells.append(f"{top:.3f} ({merged}; {beyond})")
        pair = max(counts, key=lambda p: counts[p][shipped] / counts[p][0])
        c = counts[pair]
        lines.append(
            f"| {name} | {len(systems)} | {len(counts)} | "
            + " | ".join(cells)
            + f" | {pair[0]} / {pair[1]}: {c[shipped]} of {c[0]} (same text: {c[1]}) |"
        )
        print(lines[-1], f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
        merged = [p for p, c in counts.items() if copied(c[shipped], c[0])]
        for p in merged:
            lines.append(
                f"| ↳ merged by the shipped rule | | | {p[0]} / {p[1]}: alike {counts[p][shipped]}"
                f" of {counts[p][0]}, the same text {counts[p][1]} | |" + " | " * (len(rules) - 2)
            )
        if name == SETS[0]:
            machines = sorted(s for s in systems if not s.lower().startswith("ref"))
            most = max(machines, key=lambda s: sum(s in by for by in groups.values()))
            for kind, change in (
                ("a punctuation mark changed", _punctuation_changed),
                ("a word dropped", _word_dropped),
            ):
                catches.append((name, most, kind, caught(groups, most, change)))
    lines += [
        "",
        "## What each rule catches: an engine against a near-copy of itself",
        "",
        "| set, engine | the copy's change, in every output | " + " | ".join(rules) + " |",
        "| --- | --- | " + " | ".join("---" for _ in rules) + " |",
    ]
    for name, system, kind, shares in catches:
        lines.append(
            f"| {name}, {system} | {kind} | " + " | ".join(f"{s:.3f}" for s in shares) + " |"
        )
    lines += [
        "",
        "A copy with one punctuation mark changed per line is merged by every rule but the",
        "exact one; a copy with a word dropped only by the loose rules, which also merge",
        "distinct systems into groups the exact rule does not form (a system and a metrics-task",
        "variant of it, runs of one system, a human translation and its revision). The shipped",
        f"rule (at most max({NEAR_EDITS_MIN}, {math.floor(NEAR_EDITS * 100)}% of the characters)"
        " edits) is the loosest of",
        "these that puts no system of any judged set in another group than the exact rule:",
        "the pairs it merges beyond the exact rule's are pairs of one group already.",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
