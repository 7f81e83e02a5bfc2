"""The rule for every part of the score (issue 51): a part enters only if it lowers no set's
figure significantly and raises the mean over the sets; its weight is the one with the best mean.

    python tools/rule.py --data-dir ../shared/data --model-id rtm15

The sets are :mod:`sets`' (each read by the variant's fold model that never saw it); a set's
figure is per-segment Kendall (many-systems sets) or Spearman (single-translation sets; MLQE-PE
the mean over its pairs), and the **mean** is their plain mean over the eleven sets a weight
may be chosen on (the biomedical set, validation only, is reported in the sets table, never
chosen on: :data:`sets.VALIDATION_ONLY`). The score of
a blend is :func:`xlscore.scoring.blend.estimator_score` of the sentence head's estimate plus
``meaning`` × the meaning head's output, minus ``similarity`` × (1 − the untrained e5
similarity) (without it, the foreign-word share pulls the estimate towards the floor, as the
scorer does), minus ``checks`` per reliable check finding.

The parts are tried in the order of :data:`ORDER`, cheapest first (the checks and the meaning
head come from the estimator's own pass; the similarity needs a second encoder pass), each on
top of what entered before: every weight of its grid is scored on every set, the weight with
the best mean is taken, and the part enters if that mean is above the mean without it and no
set is significantly lower (paired bootstrap, 95%: per-segment Kendall resampling sources,
Spearman resampling translations within each pair). A part that needs a second encoder pass
(:data:`SECOND_PASS`: it costs about a quarter of the default's time) must be worth it: it
must raise the mean significantly (the 95% interval of the mean of the per-set differences,
from their bootstrap intervals by the normal approximation, above zero).

Writes ``results/rule-VARIANT.md`` and ``results/sets-VARIANT.md`` (every set's figures for
the default as shipped, its parts and the rule's blend).
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from _results import write_markdown
from sets import Parts, ValidationSet, load_validation_sets, parts, predictions

from xlscore.checks.degenerate import FLAG_SHARE
from xlscore.estimator.model import FLOOR
from xlscore.evaluation.agreement import agreement
from xlscore.evaluation.gate import (
    Check,
    compare_grouped_spearman,
    compare_scores,
    grouped_spearman,
)
from xlscore.scoring.blend import estimator_score
from xlscore.scoring.consensus import Voters, copy_engines

#: the order the parts are tried in, and each one's weights
ORDER = ("checks", "meaning", "similarity", "consensus")
GRID = {
    "checks": (0.1, 0.25, 0.5, 1.0),
    "meaning": (0.005, 0.01, 0.02, 0.05),
    "similarity": (0.5, 1.0, 2.0, 3.0, 5.0),
    "consensus": (0.25, 0.5, 1.0, 1.5, 2.0, 3.0),
}
#: the parts that need an encoder pass of their own
SECOND_PASS = ("similarity",)
N_BOOT = 1000


@dataclass(frozen=True)
class Blend:
    """The weights of the score's parts on top of the sentence head."""

    meaning: float = 0.0
    similarity: float = 0.0
    checks: float = 0.0
    consensus: float = 0.0

    def __str__(self) -> str:
        parts = [f"{w:g}×{n}" for n, w in (("meaning", self.meaning),
                 ("sim", self.similarity), ("checks", self.checks),
                 ("consensus", self.consensus)) if w]  # fmt: skip
        return "head" + "".join(f" + {p}" for p in parts) if parts else "sentence head alone"


@dataclass(frozen=True)
class SetData:
    """A set with a variant's predictions and the model-independent parts of its rows."""

    set: ValidationSet
    base: np.ndarray
    meaning: np.ndarray
    parts: Parts

    def scores(self, blend: Blend) -> np.ndarray:
        """The score of every row under a blend: on a many-systems set the engines of each
        source are scored together, so that the consensus enters there (as the scorer adds
        it: :func:`xlscore.scoring.consensus.blend`); a single-translation set's rows are
        scored one at a time. (The scorer also leaves flagged translations, untranslated or
        in another language, out of the consensus; the parts files do not record those
        flags, so here every row takes part but the degenerate ones.) As in the scorer, a
        source needs :data:`CONSENSUS_MIN` voters, and the consensus takes no score
        below the floor."""
        alone = self._alone(blend)
        if not blend.consensus or self.set.kind != "systems":
            return alone
        out = alone.copy()
        for idx, voters in zip(self.groups, self.voters):
            if voters is not None:
                out[idx] = voters.blend(alone[idx].tolist(), blend.consensus, FLOOR)
        return out

    @functools.cached_property
    def groups(self) -> list[np.ndarray]:
        """The positions of each source's rows (the degenerate ones left out, as flagged)."""
        by: dict[str, list[int]] = {}
        for i, r in enumerate(self.set.rows):
            if self.parts.degenerate[i] < FLAG_SHARE:
                by.setdefault(r.seg_id, []).append(i)
        return [np.array(v) for v in by.values()]

    @functools.cached_property
    def voters(self) -> list[Voters | None]:
        """Each source's candidates as the consensus counts them, the set's systems scored
        together (systems that are copies of each other one voter where they agree;
        ``None``: too few voters for a consensus)."""
        rows = self.set.rows
        segments = {s: k for k, s in enumerate(dict.fromkeys(r.seg_id for r in rows))}
        by: dict[str, list[str]] = {}
        for r in rows:
            by.setdefault(r.system, [""] * len(segments))[segments[r.seg_id]] = r.translation
        copies = copy_engines(by)
        return [
            Voters.of([rows[i].translation for i in idx], [rows[i].system for i in idx], copies)
            for idx in self.groups
        ]

    @functools.cached_property
    def agreement(self) -> np.ndarray:
        """Each row's chrF agreement (0..1) with the other engines' translations of its
        source (0 where no consensus is taken)."""
        out = np.zeros(len(self.set.rows))
        for idx, voters in zip(self.groups, self.voters):
            if voters is not None:
                out[idx] = voters.candidates_agreement()
        return out

    def _alone(self, blend: Blend) -> np.ndarray:
        """The score of every row scored on its own."""
        return np.asarray(
            estimator_score(
                self.base + blend.meaning * self.meaning,
                foreign=self.parts.foreign,
                similarity=self.parts.similarity,
                weight=blend.similarity,
                floor=FLOOR,
                findings=self.parts.findings,
                check_weight=blend.checks,
                degenerate=self.parts.degenerate,
            )
        )

    @functools.cached_property
    def _cols(self) -> tuple[list[str], list[str], list[float]]:
        rows = self.set.rows
        return [r.seg_id for r in rows], [r.system for r in rows], [r.human for r in rows]

    def figure(self, scores: np.ndarray) -> float:
        """The set's figure: per-segment Kendall or (grouped) Spearman."""
        if self.set.kind == "systems":
            seg, sys_, hum = self._cols
            return agreement(seg, sys_, hum, scores, n_boot=0)["seg_kendall"].value
        return grouped_spearman(self.set.groups, self._cols[2], scores)

    def system_kendall(self, scores: np.ndarray) -> float:
        seg, sys_, hum = self._cols
        return agreement(seg, sys_, hum, scores, n_boot=0)["sys_kendall"].value

    def compare(self, a: np.ndarray, b: np.ndarray, n_boot: int = N_BOOT) -> Check:
        """Paired bootstrap of the set's figure, ``a`` against ``b``."""
        seg, sys_, hum = self._cols
        if self.set.kind == "systems":
            return compare_scores("seg_kendall", seg, sys_, hum, a, b, n_boot=n_boot)
        return compare_grouped_spearman(self.set.groups, hum, a, b, n_boot=n_boot)


def load_data(
    data_dir: Path,
    variant: str,
    sets: list[ValidationSet] | None = None,
    partial: bool = False,
    strict: bool = False,
) -> list[SetData]:
    """Every set (``sets``: those already read) with the variant's predictions. A set not
    predicted is ``SystemExit`` naming it, but with ``partial`` it is left out, and so is a
    validation-only set (read by variants from issue 84 on) unless ``strict``."""
    out = []
    for vs in sets if sets is not None else load_validation_sets(data_dir):
        got = predictions(variant, vs)
        if got is None and (partial or not (vs.tunes or strict)):
            continue
        if got is None:
            raise SystemExit(
                f"{variant} has no predictions on {vs.key}: python tools/sets.py predict "
                f"--data-dir {data_dir} --model-id {variant}"
            )
        out.append(SetData(vs, got[0], got[1], parts(vs)))
    return out


def mean_of(figures: list[float]) -> float:
    return float(np.mean(figures))


def mean_difference(checks: list[Check]) -> tuple[float, float, float]:
    """The mean over sets of the paired differences, with a 95% interval from the per-set
    bootstrap intervals (independent sets, normal approximation)."""
    mean = mean_of([c.delta.value for c in checks])
    se = np.sqrt(sum(((c.delta.high - c.delta.low) / (2 * 1.96)) ** 2 for c in checks))
    se /= len(checks)
    return mean, mean - 1.96 * se, mean + 1.96 * se


def apply_rule(data: list[SetData]) -> tuple[Blend, list[str]]:
    """The blend the rule chooses, and the Markdown lines that show every step (on the sets a
    weight may be chosen on: the validation-only sets are left out)."""
    data = [d for d in data if d.set.tunes]
    blend = Blend()
    lines = []
    heads = " | ".join(d.set.key for d in data)
    for part in ORDER:
        before = [d.figure(d.scores(blend)) for d in data]
        lines += [
            f"### {part} (on top of: {blend})",
            "",
            f"| weight | mean | {heads} |",
            "| --- | --- |" + " --- |" * len(data),
            f"| 0 | {mean_of(before):+.4f} | " + " | ".join(f"{x:+.3f}" for x in before) + " |",
        ]
        best = None
        for w in GRID[part]:
            trial = replace(blend, **{part: w})
            figs = [d.figure(d.scores(trial)) for d in data]
            lines.append(
                f"| {w:g} | {mean_of(figs):+.4f} | " + " | ".join(f"{x:+.3f}" for x in figs) + " |"
            )
            if best is None or mean_of(figs) > best[1]:
                best = (trial, mean_of(figs))
        assert best is not None
        trial, m = best
        checks = [d.compare(d.scores(trial), d.scores(blend)) for d in data]
        lower = [d.set.key for d, c in zip(data, checks) if c.worse]
        gain = mean_difference(checks)
        worth = part not in SECOND_PASS or gain[1] > 0
        enters = m > mean_of(before) and not lower and worth
        lines += [
            "",
            f"Best mean at {getattr(trial, part):g}: {m:+.4f} against {mean_of(before):+.4f} "
            "without it; paired against without it, per set (difference [95% interval]): "
            + "; ".join(f"{d.set.key} {c.delta}" for d, c in zip(data, checks))
            + f"; the mean {gain[0]:+.4f} [{gain[1]:+.4f}, {gain[2]:+.4f}]. "
            + (
                f"**Enters** at {getattr(trial, part):g}."
                if enters
                else "**Stays out**: "
                + (
                    f"significantly lower on {', '.join(lower)}"
                    if lower
                    else "the mean does not rise"
                    if m <= mean_of(before)
                    else "it needs a second encoder pass and does not raise the mean significantly"
                )
                + "."
            ),
            "",
        ]
        if enters:
            blend = trial
    return blend, lines


def consensus_elsewhere(data: list[SetData], blend: Blend) -> dict[str, float]:
    """For each set, the consensus weight (0 or one of the grid's) that gives the best mean
    over the *other* sets on top of ``blend``: the weight a set's figure with consensus is
    reported at, so that no set's figure comes from a weight chosen on it (a validation-only
    set's: the weight chosen on every set a weight may be chosen on)."""
    weights = (0.0, *GRID["consensus"])
    tuned = [d for d in data if d.set.tunes]
    figs = {w: [d.figure(d.scores(replace(blend, consensus=w))) for d in tuned] for w in weights}
    out = {}
    for d in data:
        k = next((k for k, t in enumerate(tuned) if t is d), len(tuned))
        others = {w: mean_of(f[:k] + f[k + 1 :]) for w, f in figs.items()}
        out[d.set.key] = max(weights, key=lambda w: (others[w], -w))
    return out


Column = Blend | None | Callable[[SetData], np.ndarray]


def sets_table(data: list[SetData], columns: dict[str, Column]) -> list[str]:
    """Every set's figure (and system Kendall) for each named blend (``None``: the untrained
    similarity alone; a function: the scores it gives each set), and the means over the sets a
    choice may be made on; the validation-only sets below the means, not in them."""
    names = list(columns)

    def rows(d: SetData) -> tuple[list[float], list[str]]:
        scores = {
            n: d.parts.similarity if b is None else d.scores(b) if isinstance(b, Blend) else b(d)
            for n, b in columns.items()
        }
        vals = [d.figure(scores[n]) for n in names]
        stat = "per-segment Kendall" if d.set.kind == "systems" else "Spearman"
        n_src = len({r.seg_id for r in d.set.rows})
        size = (
            f"{len(d.set.rows)} ({n_src} sources)"
            if d.set.kind == "systems"
            else str(len(d.set.rows))
        )
        out = [
            f"| {d.set.label} | {size} | {stat} | " + " | ".join(f"{v:+.3f}" for v in vals) + " |"
        ]
        if d.set.kind == "systems":
            out.append(
                "| | | system Kendall | "
                + " | ".join(f"{d.system_kendall(scores[n]):+.3f}" for n in names)
                + " |"
            )
        return vals, out

    out = [
        "| set | rows | statistic | " + " | ".join(names) + " |",
        "| --- | --- | --- |" + " --- |" * len(names),
    ]
    tuned = [d for d in data if d.set.tunes]
    figs = []
    for d in tuned:
        vals, lines = rows(d)
        figs.append(vals)
        out += lines
    many = [v for d, v in zip(tuned, figs) if d.set.kind == "systems"]
    for label, stat, of in (
        ("the many-systems sets", "per-segment Kendall", many),
        ("the sets", "per-segment Kendall / Spearman", figs),
    ):
        out.append(
            f"| **mean over {label}** | | {stat} | "
            + " | ".join(f"**{mean_of([v[k] for v in of]):+.4f}**" for k in range(len(names)))
            + " |"
        )
    for d in data:
        if not d.set.tunes:
            out += rows(d)[1]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument(
        "--model-id", default="rtm15", help="the model's name: its folder under .cache/estimator/"
    )
    args = ap.parse_args()
    data = load_data(args.data_dir, args.model_id)
    blend, lines = apply_rule(data)
    intro = [
        f"Variant `{args.model_id}`; every figure from the fold model that never saw the set "
        "(`tools/sets.py`). The weights are chosen on these sets, so the chosen blend's "
        "figures are validation figures, not held-out ones.",
        "",
        f"**The rule's blend: {blend}** "
        f"(meaning {blend.meaning:g}, similarity {blend.similarity:g}, checks {blend.checks:g}).",
        "",
    ]
    write_markdown(
        f"rule-{args.model_id}",
        "\n".join(intro + lines),
        title="The rule for every part of the score",
    )
    write_sets(args.model_id, data, blend)


def write_sets(variant: str, data: list[SetData], blend: Blend) -> None:
    """``results/sets-VARIANT.md``: the rule's blend (with the consensus weight it chose, and
    with the one chosen on the other sets), without consensus, and its parts alone, on every
    set."""
    alone = replace(blend, consensus=0.0)
    elsewhere = consensus_elsewhere(data, alone)
    columns: dict[str, Column] = {
        f"the rule's blend ({blend})": blend,
        "the same, consensus weight chosen on the other sets": lambda d: d.scores(
            replace(alone, consensus=elsewhere[d.set.key])
        ),
        f"without consensus ({alone})": alone,
        "sentence head alone": Blend(),
        "consensus chrF alone (many-systems sets)": lambda d: (
            d.agreement if d.set.kind == "systems" else d.scores(Blend())
        ),
        "the untrained similarity alone": None,
    }
    body = [
        f"Variant `{variant}`: each set read by the fold model that never saw it "
        "(`tools/sets.py`: en-ru newstest MQM and DA, en-de newstest2021 and the en-de "
        "talks by the leave-newstest-out model, the rest by the leave-WMT22-out model; a variant "
        "trained with the talks trains each fold on the talks set it does not read); "
        "machine translations "
        "only; per-segment Kendall over the sources with at least three distinct human scores. "
        "Consensus enters on the many-systems sets only (the engines of a source scored "
        "together); a single-translation set's column is its score without it. The weight "
        "chosen on the other sets, per set: "
        + ", ".join(f"{k} {w:g}" for k, w in elsewhere.items())
        + ".",
        "",
        *sets_table(data, columns),
    ]
    write_markdown(f"sets-{variant}", "\n".join(body), title="Agreement on every judged set")


if __name__ == "__main__":
    main()
