"""Would signals outside the estimator help its score? The estimator's held-out predictions
(``estimator.py run``) blended with the multilingual e5 all-words BERTScore (``estimator.py
baselines``) and with the explicit checks (xlscore.estimator.checks), the weights chosen on
validation data only.

    python experiments/combine.py --data-dir ../shared/data --variant adq
    python experiments/combine.py --data-dir ../shared/data --variant rt --check-weights 0 \
        --e5-weights 0,0.5,1,2,3,5,10

For each LODO fold, the weights are the ones that agree best with the humans on the *other*
LODO fold's held-out predictions (WMT22 dev Spearman chooses the weights used on newstest, and
newstest per-segment Kendall those used on WMT22), so no figure comes from data that chose its
own weights. Blend: ``estimator + m * meaning + a * e5 F1 (with the foreign-word penalty) - b *
checks``, ``meaning`` being the output of a meaning head (the corruption margins' own head;
``--meaning-blends``) whose weight ``m`` is chosen first, as the largest of its grid that keeps
the validation statistic, and the validation Spearman over all translations, within
``BLEND_TOLERANCE`` of the estimate alone (real-MT agreement must not fall for the sake of the
margins), and
``checks`` being the number of findings of the checks that measured precise (numbers; a
negation of the source missing from the translation). The hand-written challenge set is
scored with each fold's model and each fold's chosen weights. With ``--gate-rule`` the
similarity and check weights are chosen only among the blends whose challenge outcomes with
the fold's model pass the ship gate's challenge rule (:mod:`xlscore.evaluation.gate`): the
meaning checks as a constraint, real-MT agreement as the objective; this is how the shipped
blend was chosen. Writes ``experiments/results/combine-VARIANT.md`` (``-gated`` added with
``--gate-rule``).
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np
from _protocol import CACHE, fold_split, load_sets
from _results import code_digest, write_markdown
from estimator import e5_similarity
from estimator_tables import fold_challenge
from gate import floor_outcomes

from xlscore.estimator.checks import reliable_findings
from xlscore.evaluation.agreement import agreement
from xlscore.evaluation.gate import failing_categories
from xlscore.io.cache import sha256_file

E5_WEIGHTS = (0.0, 2.0, 5.0, 10.0, 20.0, 40.0)
CHECK_WEIGHTS = (0.0, 0.25, 0.5, 1.0)
TEST = {"lodo-news": "news", "lodo-qe22": "qe22"}
STAT = {"news": "seg_kendall", "qe22": "global_spearman"}
#: how far below the estimate alone a meaning blend may take the validation statistic
BLEND_TOLERANCE = 0.005


def stats(rows, pred, n_boot: int = 0) -> dict:
    """Every agreement statistic of ``pred`` with the humans on these rows."""
    return agreement(
        [r.seg_id for r in rows],
        [r.system for r in rows],
        [r.human for r in rows],
        list(pred),
        n_boot=n_boot,
    )


def stat(rows, pred, name: str, n_boot: int = 0):
    """The agreement statistic ``name`` of ``pred`` with the humans on these rows."""
    return stats(rows, pred, n_boot)[name]


def fold_signals(sets: dict, variant: dict[str, str], suffix: str) -> dict[str, tuple]:
    """Per LODO fold (``variant``: the variant whose fold to read), its held-out test rows and
    their signals: the estimate (predictions ``suffix``), the e5 F1, the reliable check
    findings and the meaning head's output (zeros without a meaning head)."""
    data = {}
    for fold, test in TEST.items():
        cfg = json.loads((CACHE / variant[fold] / "config.json").read_text())
        f = CACHE / variant[fold] / fold / f"pred-{suffix}.npy"
        if not f.exists():
            raise SystemExit(f"missing {f}: run estimator.py run first")
        rows = fold_split(sets, fold, cfg)[1]
        parts = np.load(f.with_name(f"parts-{suffix}.npy"))
        data[fold] = (
            rows,
            np.load(f),
            e5_similarity(sets, test)[0],
            np.array([reliable_findings(r.source, r.translation) for r in rows]),
            parts[:, 2] if parts.shape[1] > 2 else np.zeros(len(rows)),
        )
    return data


def challenge_signals(folder: Path, blend: float = 0.0):
    """Estimator scores (from the fold's saved challenge predictions, plus ``blend`` x its
    meaning head's output), e5 F1 and findings of the challenge set's good and bad
    translations."""
    from xlscore import XLScorer
    from xlscore.evaluation.challenge import read_challenge

    tsv = Path(__file__).resolve().parent.parent / "data" / "challenge" / "challenge.tsv"
    cases = read_challenge(tsv)
    src, mt = [c.source for c in cases] * 2, [c.good for c in cases] + [c.bad for c in cases]
    key = f"{sha256_file(tsv)[:8]}-{code_digest()}"
    cache = CACHE / "baselines" / f"e5-all-challenge-{key}.npy"
    if not cache.exists():
        res = XLScorer(multilingual="pack:e5-small", variant="all", estimator=None).score(src, mt)
        np.save(cache, np.array([r.score for r in res]))
    checks = np.array([reliable_findings(s, t) for s, t in zip(src, mt)])
    return cases, challenge_estimates(folder, cases, blend), np.load(cache), checks


def challenge_estimates(folder: Path, cases, blend: float = 0.0) -> np.ndarray | None:
    """A fold model's saved challenge predictions plus ``blend`` x its meaning head's output
    (``None`` without a model)."""
    saved = fold_challenge(folder, cases)
    if saved is None:
        return None
    est = np.array(saved["scores"])
    return est + blend * np.array(saved["meaning"]) if blend else est


def choose_blend(rows, pred, meaning, name: str, grid: tuple[float, ...]) -> float:
    """The largest meaning blend of ``grid`` whose statistic ``name`` on these validation rows,
    and their Spearman over all translations (the meaning head's output is not comparable
    across sources, which a within-source statistic cannot see), are each at most
    :data:`BLEND_TOLERANCE` below those of ``pred`` alone (0 when none is)."""
    names = dict.fromkeys((name, "global_spearman"))
    alone = stats(rows, pred)

    def keeps(m: float) -> bool:
        got = stats(rows, pred + m * meaning)
        return all(got[k].value >= alone[k].value - BLEND_TOLERANCE for k in names)

    return max((m for m in grid if keeps(m)), default=0.0)


def pair_wins(scores: np.ndarray, n: int) -> np.ndarray:
    """Whether each challenge pair's good translation scores above its bad one (``scores``:
    the ``n`` good translations, then the ``n`` bad ones)."""
    return scores[:n] > scores[n:]


def weights(text: str) -> tuple[float, ...]:
    """A comma-separated grid of weights."""
    return tuple(float(x) for x in text.split(","))


def trade_table(
    data: dict, grid: tuple[float, ...], signal: int, what: str, without: str
) -> list[str]:
    """Every weight of ``grid`` of one signal (``signal``: its place in a fold's tuple; the
    signals ``without`` left out) on each fold's held-out predictions: what the choice
    traded."""
    news, qe22 = data["lodo-news"], data["lodo-qe22"]
    out = [
        f"Each {what} alone ({without}), on the held-out predictions of both folds:",
        "",
        f"| {what} | newstest per-seg Kendall | newstest system Kendall | WMT22 dev Spearman |",
        "| --- | --- | --- | --- |",
    ]
    for x in grid:
        on_news = stats(news[0], news[1] + x * news[signal])
        on_qe22 = stat(qe22[0], qe22[1] + x * qe22[signal], "global_spearman")
        out.append(
            f"| {x:g} | {on_news['seg_kendall'].value:+.3f} "
            f"| {on_news['sys_kendall'].value:+.3f} | {on_qe22.value:+.3f} |"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--variant", required=True)
    ap.add_argument(
        "--qe22-variant",
        help="variant whose lodo-qe22 fold to use (default: "
        "--variant), when --variant has no such fold",
    )
    ap.add_argument("--suffix", default="r64b8", help="which predictions (full, r64b8)")
    ap.add_argument(
        "--e5-weights",
        type=weights,
        default=E5_WEIGHTS,
        help="grid of the e5 F1's weight, comma-separated",
    )
    ap.add_argument(
        "--check-weights",
        type=weights,
        default=CHECK_WEIGHTS,
        help="grid of the checks' weight, comma-separated (0: no checks)",
    )
    ap.add_argument(
        "--meaning-blends",
        type=weights,
        default=(0.0,),
        help="grid of the meaning head's weight, comma-separated (variants with a meaning head)",
    )
    ap.add_argument(
        "--gate-rule",
        action="store_true",
        help="choose the similarity and check weights only among the blends whose challenge "
        "outcomes (with the fold's model) pass the ship gate's challenge rule",
    )
    args = ap.parse_args()
    variant = {"lodo-news": args.variant, "lodo-qe22": args.qe22_variant or args.variant}
    reference = None
    if args.gate_rule:
        reference = floor_outcomes()
    notes: list[str] = []
    data = fold_signals(load_sets(args.data_dir), variant, args.suffix)
    grid = list(itertools.product(args.e5_weights, args.check_weights))
    lines = [
        "| fold (test set) | weights (meaning, e5 F1, checks) chosen on | m | a | b | statistic | "
        "estimator alone | blend | challenge: estimator alone | challenge: blend |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for fold, other in (("lodo-news", "lodo-qe22"), ("lodo-qe22", "lodo-news")):
        v_rows, v_pred, v_e5, v_chk, v_mean = data[other]
        v_stat = STAT[TEST[other]]
        m = choose_blend(v_rows, v_pred, v_mean, v_stat, args.meaning_blends)
        v_pred = v_pred + m * v_mean
        cases, c_est, c_e5, c_chk = challenge_signals(CACHE / variant[fold] / fold)
        c_mixed = challenge_estimates(CACHE / variant[fold] / fold, cases, m)
        n = len(cases)
        allowed = grid
        if reference is not None:
            if c_mixed is None:
                raise SystemExit(
                    f"{variant[fold]} {fold}: no challenge predictions for --gate-rule"
                )
            phen = [c.phenomenon for c in cases]
            allowed = [
                w
                for w in grid
                if not failing_categories(
                    pair_wins(c_mixed + w[0] * c_e5 - w[1] * c_chk, n), phen, reference
                )
            ]
            if not allowed:
                notes.append(f"{fold}: no blend of the grid passes the gate's challenge rule")
                allowed = grid
        a, b = max(
            allowed,
            key=lambda w: stat(v_rows, v_pred + w[0] * v_e5 - w[1] * v_chk, v_stat).value,
        )
        rows, pred, e5, chk, mean = data[fold]
        name = STAT[TEST[fold]]
        mixed = pred + m * mean + a * e5 - b * chk
        alone, blend = stats(rows, pred, 1000), stats(rows, mixed, 1000)
        ch = ["", ""]
        if c_est is not None:
            for k, s in enumerate((c_est, c_mixed + a * c_e5 - b * c_chk)):
                ch[k] = f"{int(pair_wins(s, n).sum())}/{n}"
        lines.append(
            f"| `{variant[fold]}` {fold} ({TEST[fold]}) | `{variant[other]}` {other} "
            f"({v_stat}) | {m:g} | {a:g} | {b:g} | {name} | "
            f"{alone[name]} | {blend[name]} | {ch[0]} | {ch[1]} |"
        )
        for extra in ("global_spearman", "sys_kendall") if TEST[fold] == "news" else ():
            lines.append(f"| | | | | | {extra} | {alone[extra]} | {blend[extra]} | | |")
    lines += [f"\n{x}" for x in notes]
    lines += ["", *trade_table(data, args.e5_weights, 2, "e5 weight", "no checks")]
    if args.meaning_blends != (0.0,):
        meaning = trade_table(data, args.meaning_blends, 4, "meaning blend", "no e5, no checks")
        lines += ["", *meaning]
    body = (
        f"Predictions `{args.suffix}`; 95% bootstrap intervals "
        "over segments. Grid: m in "
        + ", ".join(f"{x:g}" for x in args.meaning_blends)
        + "; a in "
        + ", ".join(f"{x:g}" for x in args.e5_weights)
        + "; b in "
        + ", ".join(f"{x:g}" for x in args.check_weights)
        + (
            ". The similarity and check weights are chosen only among the blends that pass "
            "the ship gate's challenge rule with the fold's model (`--gate-rule`)"
            if args.gate_rule
            else ""
        )
        + ". Challenge: raw scores (no flags "
        "or foreign-word penalty on the estimator; the e5 F1 carries its own), good above "
        "bad.\n\n" + "\n".join(lines)
    )
    write_markdown(
        f"combine-{args.variant}" + ("-gated" if args.gate_rule else ""),
        body,
        title="Blending the estimator with the pipeline's signals",
    )


if __name__ == "__main__":
    main()
