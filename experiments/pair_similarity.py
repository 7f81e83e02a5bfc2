"""Does the default keep its agreement with people when its similarity is read from e5 reading
the pair together, instead of e5 reading each side alone? (issue 34)

The default's estimator freezes e5's lowest 4 layers, so a pass over the pair could share them
with an untouched e5 branch up to layer 9 and take the similarity there (17 layer-passes per
token instead of 21; not built). Before building it: the gate's real-MT figures of the
default's fold predictions (``results/folds/rtm15``) with that similarity — the greedy-matching
F1 over untrained e5's states after ``--depth`` layers of the pair read together
(:func:`inpass_similarity.inpass_f1`), foreign text penalised, at the spread-matched weight of
``results/inpass-similarity.md`` — against the same predictions as the default ships them
(e5@9 over each side, weight 5), paired bootstrap over segments. The challenge set's figure
for the same score is that file's "base e5" row.

    python experiments/pair_similarity.py --data-dir ../shared/data

Writes ``results/pair-similarity.md`` (a few minutes on 2 cores).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import folds
import numpy as np
from _protocol import CACHE, TEST_OF, load_sets
from _results import code_digest, cpu_name, write_markdown
from estimator import baseline_tests, e5_similarity
from gate import FIGURES, REFERENCES, reference_file, shipping
from inpass_similarity import inpass_f1

from xlscore.estimator.checks import reliable_findings
from xlscore.estimator.model import FLOOR, QualityEstimator
from xlscore.evaluation.gate import compare_scores
from xlscore.final_score import estimator_score
from xlscore.results import penalised


def pair_similarity(sets: dict, test: str, depth: int, foreign: np.ndarray) -> np.ndarray:
    """Untrained e5's greedy-matching F1 after ``depth`` layers of each test row of ``test``
    read as a pair, penalised by each row's share of ``foreign`` words (cached)."""
    f = CACHE / "baselines" / f"pair-e5-{code_digest()}-{test}.npy"
    if not f.exists():
        rows = baseline_tests(sets)[test]
        base = QualityEstimator(precision="fp32")
        f1 = inpass_f1(base, [r.source for r in rows], [r.translation for r in rows])
        np.save(f, f1)
    return penalised(np.load(f)[:, depth], foreign, -1.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--depth", type=int, default=9)
    ap.add_argument("--weight", type=float, default=4.6, help="see results/inpass-similarity.md")
    ap.add_argument("--boot", type=int, default=1000)
    args = ap.parse_args()
    sets = load_sets(args.data_dir)
    (ref,) = [r for r in REFERENCES if r.name == "rtm15-e5s"]
    ships = shipping(reference_file(ref))
    base = baseline_tests(sets)
    lines = [
        "| test set | statistic | pair read together (depth "
        f"{args.depth}, weight {args.weight:g}) | as the default ships (e5@9 per side, weight "
        f"{ships.similarity_weight:g}) | difference | significantly worse |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for fold, test_name, stat in FIGURES:
        if stat == "word_mcc":
            continue  # the similarity does not touch the word tags
        rows = base[TEST_OF[fold]]
        got = folds.read_fold(ref.folds, fold, rows, ships.meaning_blend)
        if got is None:
            raise SystemExit(f"results/folds/{ref.folds}/{fold}.tsv is missing")
        found = np.array([reliable_findings(r.source, r.translation) for r in rows])
        e5, foreign = e5_similarity(sets, TEST_OF[fold])
        pair = pair_similarity(sets, TEST_OF[fold], args.depth, foreign)

        def score(sim: np.ndarray, weight: float, got=got, found=found, foreign=foreign):
            return estimator_score(
                np.asarray(got[0]),
                foreign=foreign,
                similarity=sim,
                weight=weight,
                floor=FLOOR,
                findings=found,
                check_weight=ships.check_weight,
            )

        check = compare_scores(
            stat,
            [r.seg_id for r in rows],
            [r.system for r in rows],
            [r.human for r in rows],
            list(score(pair, args.weight)),
            list(score(e5, ships.similarity_weight)),
            n_boot=args.boot,
        )
        a, b, d = check.candidate, check.reference, check.delta
        lines.append(
            f"| {test_name} | {stat} | {a.value:+.3f} [{a.low:+.3f}, {a.high:+.3f}] | "
            f"{b.value:+.3f} [{b.low:+.3f}, {b.high:+.3f}] | {d.value:+.3f} [{d.low:+.3f}, "
            f"{d.high:+.3f}] | {'**yes**' if check.worse else 'no'} |"
        )
    body = (
        f"CPU: {cpu_name()}. The default's fold predictions (`results/folds/{ref.folds}`, each "
        "model trained without the test set) plus its meaning blend, minus its check weight "
        f"per reliable finding ({ships.meaning_blend:g}, {ships.check_weight:g}), and minus "
        "weight × (1 − similarity) with each similarity; paired bootstrap over segments, "
        f"{args.boot} resamples.\n\n" + "\n".join(lines) + "\n"
    )
    write_markdown(
        "pair-similarity", body, title="The default with its similarity read from the pair"
    )


if __name__ == "__main__":
    main()
