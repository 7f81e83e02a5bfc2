"""``xlscore evaluate``: agreement of the score with the human judgments of a TSV."""

from __future__ import annotations

import argparse
import json
import sys

from xlscore.cli.options import (
    add_model_options,
    at_least,
    build_scorer,
)
from xlscore.errors import InputError


def add_evaluate_parser(sub) -> None:
    """Register ``xlscore evaluate``."""
    p = sub.add_parser(
        "evaluate",
        help="agreement with human judgments",
        description="Score a TSV of human-judged translations (columns seg_id, "
        "system, source, translation, human_score; see the shared "
        "data README) and report per-segment Kendall/Spearman, "
        "global Kendall, pairwise and system-level agreement with "
        "95% bootstrap intervals.",
    )
    p.add_argument("--data", required=True, help="TSV of judged translations")
    p.add_argument(
        "--include-human",
        action="store_true",
        help="rank human translations (is_human_translation = 1) with MT",
    )
    p.add_argument(
        "--n-boot", type=at_least(1), default=1000, help="bootstrap resamples (default 1000)"
    )
    p.add_argument("--folds", type=at_least(2), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    add_model_options(p)
    p.set_defaults(func=cmd_evaluate)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from xlscore.evaluation.agreement import LABELS, STATISTICS, agreement, read_judgments

    every = read_judgments(args.data, include_human=True)
    rows = every if args.include_human else [r for r in every if not r.is_human]
    if not rows:
        raise InputError("no judged translations", path=args.data)
    scorer = build_scorer(args)
    if scorer.estimator is not None and scorer.estimator.trained_on(every):
        print(
            f"xlscore: warning: {scorer.estimator.signature()} was trained on {args.data}; "
            "these figures measure how well it fits its training data, not how it does on "
            "unseen data",
            file=sys.stderr,
        )
    if not args.quiet:
        print(f"xlscore: scoring {len(rows)} judged translations", file=sys.stderr)
    corpus = scorer.prepare(
        [r.source for r in rows], [r.translation for r in rows], progress=not args.quiet
    )
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.seg_id, []).append(i)
    paper = scorer.paper.score_prepared(corpus)
    metrics = {"xlscore": scorer.final.finish(corpus, paper, groups.values())}
    if scorer.estimator is not None:
        metrics["the paper's method (anchor F1)"] = paper
    elif scorer.paper.maps.mode == "corpus" and not scorer.paper.multilingual:
        metrics["xlscore, map cross-fitted by document"] = scorer.final.blend_consensus(
            corpus,
            scorer.paper.score_cross_fitted(corpus, [r.doc for r in rows], folds=args.folds),
            groups.values(),
        )
    seg = [r.seg_id for r in rows]
    sysn = [r.system for r in rows]
    human = [r.human for r in rows]
    reports = {
        k: agreement(seg, sysn, human, [x.score for x in v], n_boot=args.n_boot)
        for k, v in metrics.items()
    }
    signature = scorer.signature()
    if args.format == "json":
        json.dump(
            {
                "signature": signature,
                "data": str(args.data),
                "metrics": {
                    k: {
                        "segments": rep.n_segments,
                        "skipped": rep.n_skipped,
                        "systems": rep.n_systems,
                        **{s: vars(rep[s]) for s in STATISTICS},
                    }
                    for k, rep in reports.items()
                },
            },
            sys.stdout,
            indent=1,
        )
        print()
        return 0
    rep0 = next(iter(reports.values()))
    print(
        f"{len(rows)} translations, {rep0.n_systems} systems, {rep0.n_segments} segments "
        f"with unequal human scores ({rep0.n_skipped} skipped); 95% bootstrap intervals, "
        f"{args.n_boot} resamples\n"
    )
    w = max(len(LABELS[s]) for s in STATISTICS)
    print(f"{'statistic':<{w}}  " + "  ".join(f"{k[:40]:>40}" for k in reports))
    for s in STATISTICS:
        print(f"{LABELS[s]:<{w}}  " + "  ".join(f"{rep[s]!s:>40}" for rep in reports.values()))
    print(f"\nsignature: {signature}")
    return 0
