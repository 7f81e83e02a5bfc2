"""Can the similarity come from the cross-encoder's own pass? (issue 34, item 1)

The default adds ``5 x`` the all-words BERTScore F1 of e5@9, a separate pass of e5's 9 layers
over each side, to its estimator; without it the estimator ranks far fewer of the hand-written
challenge pairs right. A one-pass default would instead take the greedy-matching F1 between
the source's and the translation's pieces from the states of the pass that already reads the
pair (source and translation together), at some depth ``d``. This script measures, for each
depth, how many challenge pairs that in-pass similarity ranks right, alone and added to an
estimate as the default adds e5@9's (with the same foreign-text penalty and check findings),
under the ship gate's challenge rule:

* ``base``: the untrained e5-small read as a cross-encoder: what a one-pass model whose
  lowest ``d`` layers stay e5's own would have for free, added to the default's estimate;
* ``teacher``: the default's estimator's own (fine-tuned) layers, added to its estimate;
* ``student``: the 4-layer student ``st4-e5s``'s own layers, added to its estimate.

Each in-pass similarity gets the weight that gives it the spread e5@9's has at weight 5
(standard deviations on the first ``--calibrate`` WMT19 IT training pairs, data no gate
reads), and every weight of ``--weights`` is tried too; on the same training pairs, how well
it agrees with e5@9's similarity (Spearman), a way to choose the depth without the challenge
set.

    python experiments/inpass_similarity.py --data-dir ../shared/data

Writes ``results/inpass-similarity.md`` (a few minutes on 2 cores).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from _results import cpu_name, write_markdown
from combine import pair_wins, weights
from gate import CHALLENGE_FLOOR, floor_outcomes
from scipy.stats import spearmanr

from xlscore import XLScorer
from xlscore.estimator.checks import reliable_findings
from xlscore.estimator.crossencoder import pass_similarity
from xlscore.estimator.model import DEFAULT, QualityEstimator
from xlscore.evaluation.challenge import read_challenge
from xlscore.evaluation.gate import failing_categories
from xlscore.final_score import SIMILARITY_ENCODER
from xlscore.results import penalised

#: the weight of e5@9's similarity in the default, and of each check finding
E5_WEIGHT, CHECK_WEIGHT = 5.0, 0.25
STUDENT = "st4-e5s"
CHALLENGE = Path(__file__).resolve().parent.parent / "data" / "challenge" / "challenge.tsv"


@torch.no_grad()
def inpass_f1(est: QualityEstimator, sources: list[str], translations: list[str]) -> np.ndarray:
    """``[pairs, layers + 1]``: each pair's greedy-matching F1 between its source and its
    translation pieces (:func:`~xlscore.estimator.crossencoder.pass_similarity`), from the
    hidden states after each layer of ``est``'s encoder reading the pair (0: the embeddings).
    One pair per pass, float32, no padding."""
    encoded, _ = est._encode(list(zip(sources, translations)), est.max_length)
    encoder = est.model.encoder.float().eval()
    out = []
    for e in encoded:
        ids = torch.tensor([e.ids])
        states = encoder(
            input_ids=ids, attention_mask=torch.ones_like(ids), output_hidden_states=True
        ).hidden_states
        side = torch.tensor([e.side])
        out.append([float(pass_similarity(h, side)[0]) for h in states])
    return np.array(out)


def e5_similarity(sources: list[str], translations: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The default's similarity (e5@9 all-words F1 with the foreign-text penalty) and each
    pair's share of foreign words."""
    res = XLScorer(multilingual=SIMILARITY_ENCODER, variant="all", estimator=None).score(
        sources, translations
    )
    return np.array([r.score for r in res]), np.array([r.foreign for r in res])


def read_it(data_dir: Path, n: int) -> tuple[list[str], list[str]]:
    """The first ``n`` WMT19 IT training pairs."""
    folder = data_dir / "wmt19-enru-qe-it"
    src = (folder / "train.src").read_text(encoding="utf-8").splitlines()[:n]
    mt = (folder / "train.mt").read_text(encoding="utf-8").splitlines()[:n]
    return src, mt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--calibrate", type=int, default=1000, help="WMT19 IT training pairs")
    ap.add_argument("--weights", type=weights, default=(1.0, 3.0, 10.0, 30.0))
    args = ap.parse_args()
    torch.manual_seed(0)
    cases = read_challenge(CHALLENGE)
    n = len(cases)
    src = [c.source for c in cases] * 2
    mt = [c.good for c in cases] + [c.bad for c in cases]
    phen = [c.phenomenon for c in cases]
    reference = floor_outcomes()
    e5, foreign = e5_similarity(src, mt)
    findings = np.array([reliable_findings(s, t) for s, t in zip(src, mt)], dtype=float)
    cal_src, cal_mt = read_it(args.data_dir, args.calibrate)
    cal_e5, cal_foreign = e5_similarity(cal_src, cal_mt)
    spread = E5_WEIGHT * float(cal_e5.std())

    teacher = QualityEstimator.load(DEFAULT, precision="fp32")
    student = QualityEstimator.load(STUDENT, precision="fp32")
    base = QualityEstimator(teacher.base, precision="fp32")
    estimate = {"teacher": teacher.predict(src, mt), "student": student.predict(src, mt)}
    checks = CHECK_WEIGHT * findings

    def verdict(scores: np.ndarray) -> tuple[int, str]:
        won = pair_wins(scores, n)
        fails = failing_categories(list(won), phen, reference)
        return int(won.sum()), ", ".join(sorted(fails)) or "passes"

    def count(scores: np.ndarray, category: str) -> str:
        won = pair_wins(scores, n)
        mine = [w for w, p in zip(won, phen) if p == category]
        return f"{sum(mine)}/{len(mine)}"

    lines = [
        "| pass (its estimate) | depth | Spearman with e5@9 (IT training pairs) | similarity "
        "alone | weight k | estimate + k × similarity − checks | antonym | role swap | gate's "
        "challenge rule | best of the weight grid |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in ("teacher", "student"):
        score = estimate[name] - E5_WEIGHT * (1 - e5) - checks
        total, rule = verdict(score)
        lines.append(
            f"| {name}'s estimate + {E5_WEIGHT:g} × e5@9 (separate pass) − checks | — | 1 | "
            f"{verdict(e5)[0]} | {E5_WEIGHT:g} | {total} | {count(score, 'antonym')} | "
            f"{count(score, 'role_swap')} | {rule} | — |"
        )
        total, rule = verdict(estimate[name] - checks)
        lines.append(
            f"| {name}'s estimate − checks, no similarity | — | — | — | 0 | {total} | "
            f"{count(estimate[name] - checks, 'antonym')} | "
            f"{count(estimate[name] - checks, 'role_swap')} | {rule} | — |"
        )
    for name, model, est in (
        ("base e5 (teacher's estimate)", base, estimate["teacher"]),
        ("teacher", teacher, estimate["teacher"]),
        ("student", student, estimate["student"]),
    ):
        f1 = inpass_f1(model, src, mt)
        cal = inpass_f1(model, cal_src, cal_mt)
        for d in range(f1.shape[1]):
            sim = penalised(f1[:, d], foreign, -1.0)
            cal_sim = penalised(cal[:, d], cal_foreign, -1.0)
            k = spread / float(cal_sim.std())
            rho = spearmanr(cal_sim, cal_e5).statistic
            score = est - k * (1 - sim) - checks
            total, rule = verdict(score)
            grid = [verdict(est - w * (1 - sim) - checks) for w in args.weights]
            best = max(range(len(grid)), key=lambda j: grid[j][0])
            lines.append(
                f"| {name} | {d} | {rho:.3f} | {verdict(sim)[0]} | {k:.1f} | {total} | "
                f"{count(score, 'antonym')} | {count(score, 'role_swap')} | {rule} | "
                f"{grid[best][0]} at k = {args.weights[best]:g} ({grid[best][1]}) |"
            )
    body = (
        f"CPU: {cpu_name()}. {n} challenge pairs; a pair is won when its good translation "
        "scores above its bad one. Similarities carry the default's foreign-text penalty; "
        f"checks: {CHECK_WEIGHT:g} per reliable check finding, as the default. Weight k: the "
        f"spread of {E5_WEIGHT:g} × e5@9 on the first {args.calibrate} WMT19 IT training "
        "pairs. The gate's challenge rule names the categories that fail it (significantly "
        f"below `{CHALLENGE_FLOOR}`, sign test p < 0.05, or under 8 in 10 right). Depth d: "
        "the states after d layers of the pass that reads source and translation together "
        "(0: the embeddings).\n\n" + "\n".join(lines) + "\n"
    )
    write_markdown("inpass-similarity", body, title="A similarity from the pass itself")


if __name__ == "__main__":
    main()
