"""Make the shipped estimator file from a finished fold of ``estimator.py run``: the fold's
model with its delta compressed as the package ships it (rank 64, int8), and the meaning blend,
similarity weight and check weight chosen on validation data (today's by ``rule.py``).

    python tools/ship.py --model-id rtm15 --fold all --meaning-blend 0.005 \\
        --check-weight 0.25 --span-threshold 0.7 --name rtm15-all-e5s \\
        -o xlscore/estimator/weights/rtm15-all-e5s.safetensors

Prints the file's SHA-256 for :data:`xlscore.estimator.model.SHIPPED`.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, replace
from pathlib import Path

from _protocol import CACHE

from xlscore.errors import ModelError, XLScoreError
from xlscore.estimator.model import QualityEstimator
from xlscore.estimator.span_tagger import SpanTagger
from xlscore.training.loop import Recipe


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model-id", default="", help="the model's name: its folder under .cache/estimator/"
    )
    ap.add_argument("--fold", default="all", help="e.g. lodo-news (default: all)")
    ap.add_argument("--similarity-weight", type=float, default=0.0)
    ap.add_argument(
        "--check-weight", type=float, default=0.0, help="score lost per reliable check finding"
    )
    ap.add_argument(
        "--meaning-blend", type=float, default=0.0, help="weight of the meaning head, if any"
    )
    ap.add_argument(
        "--consensus-weight",
        type=float,
        default=0.0,
        help="weight of the candidates' consensus when three or more are scored together",
    )
    ap.add_argument(
        "--from-file",
        type=Path,
        help="start from this estimator file instead of a cached fold (e.g. one trained on a "
        "lent GPU, or a shipped file whose formula changes)",
    )
    ap.add_argument(
        "--span-threshold",
        type=float,
        help="error probability from which a word is in a predicted span (default: "
        "the fold's recipe)",
    )
    ap.add_argument(
        "--span-tagger",
        type=Path,
        help="a span tagger's JSON (span_tagger.py --out): the word head joined with the rules",
    )
    ap.add_argument("--name", required=True, help="the estimator's name in signatures")
    ap.add_argument("--output", "-o", required=True, type=Path)
    args = ap.parse_args()
    source = args.from_file or CACHE / args.model_id / args.fold / "full.safetensors"
    if not source.is_file():
        raise SystemExit(
            f"{source} does not exist: run estimator.py run --model-id "
            f"{args.model_id} --folds {args.fold} first"
        )
    model = QualityEstimator.load(source, dtype="fp32")
    shipped = Recipe()
    if (model.recipe.delta_rank, model.recipe.delta_bits) != (
        shipped.delta_rank,
        shipped.delta_bits,
    ):
        # (a student is trained compressed as it ships: its fold predictions are of that file)
        model.recompress(shipped.delta_rank, shipped.delta_bits)
    if args.span_threshold is not None:
        model.recipe = replace(model.recipe, span_threshold=args.span_threshold)
        model.meta["recipe"] = asdict(model.recipe)
    if args.span_tagger is not None:
        try:
            model.tagger = SpanTagger.from_meta(
                json.loads(args.span_tagger.read_text(encoding="utf-8")), args.span_tagger
            )
        except (OSError, ValueError, ModelError) as err:
            raise SystemExit(f"--span-tagger: {err}") from None
    model.similarity_weight = args.similarity_weight
    if args.check_weight < 0:
        raise SystemExit("--check-weight must not be negative")
    model.check_weight = args.check_weight
    if args.consensus_weight < 0:
        raise SystemExit("--consensus-weight must not be negative")
    model.consensus_weight = args.consensus_weight
    try:
        model.meaning_blend = args.meaning_blend
    except XLScoreError as err:
        raise SystemExit(f"--meaning-blend: {err}") from None
    try:
        path = model.save(args.output, name=args.name)
    except XLScoreError as err:
        raise SystemExit(str(err)) from None
    print(f"{path}: {path.stat().st_size / 1e6:.1f} MB, sha256 {model.digest}")


if __name__ == "__main__":
    main()
