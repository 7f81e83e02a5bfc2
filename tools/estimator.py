"""The quality estimator's protocol: how well it agrees with human judgments on data it never
saw, and what each choice in its recipe does.

Data (``--data-dir``, the shared data folder; nothing is copied into the repository):
``news`` WMT21 newstest MQM (14 MT systems + 2 human translations per source, with the raters'
error spans), ``qe22`` WMT22 QE dev (one MT per source, news, with its word-level tags),
``da`` WMT21 newstest source-based DA (1,002 sources, about 8.5 systems each; ranking pairs
only), ``it`` WMT19 QE IT-domain HTER (train split, with the post-edits as second
translations; ``it-test`` its test split, for evaluation only).

Whenever newstest MQM is tested (``lodo-news``, ``cv-news-K``), the DA rows of the tested
sources are left out of training (the DA file names the MQM segment of each of its 527 shared
sources); corruptions (``--synthetic``) are made from training rows only.

Folds: leave one data set out (``lodo-news``: train on qe22 + it, test on news; ``lodo-qe22``;
``lodo-it``: train on news + qe22, test on it-test) and 4-fold cross-validation by document
inside news and qe22 (``cv-news-K``: train on every other set plus the other news documents).
Evaluation uses machine translations only. Every fold's model is trained with the variant's
recipe, which was fixed before the fold's test data were looked at; nothing is tuned on a
test fold.

    python tools/estimator.py run --data-dir ../shared/data --model-id ce --folds lodo
    python tools/estimator.py run --data-dir ../shared/data --model-id ce-noit --no-it \
        --folds lodo-qe22,lodo-news,cv-news
    python tools/estimator.py baselines --data-dir ../shared/data
    python tools/estimator.py compress --data-dir ../shared/data --model-id ce \
        [--shipped-only]
    python tools/estimator.py report --data-dir ../shared/data --suffix r64b8
    python tools/estimator.py export --data-dir ../shared/data --model-id ce

``run`` saves each fold (the uncompressed delta and the predictions) under
``experiments/.cache/estimator/`` (or ``$XLSCORE_EXPERIMENT_CACHE``) as soon as it is done and
skips finished folds when started again; ``compress`` predicts with the delta compressed at
every rank and width (``--shipped-only``: at the shipped rank, int8, what ``export`` reads);
``report`` (:mod:`estimator_report`) writes ``results/estimator.md`` and ``.csv`` from whatever
has been run. A fold takes 10-25 minutes on 2 CPU cores with the sentence head alone, 45-90
minutes with the adequacy recipe (DA pairs, corruptions, features, word head). The sets, the
folds and the cache are defined in :mod:`_protocol`.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, fields, replace
from pathlib import Path

import numpy as np
from _protocol import CACHE, LODO, MULTILINGUAL, K, fold_names, fold_split, load_sets, split
from _results import cpu_name

from xlscore.cli.options import recipe_type
from xlscore.estimator.recipe import RECIPES
from xlscore.io.judgments import sample_sources
from xlscore.training.loop import Recipe

IT_SAMPLE = 5000  # IT sources used in training (of 15,089), with their post-edits
RANKS = (8, 16, 32, 64, 128)


def _complete(config: dict) -> dict:
    """A variant's configuration with recipe fields added since it was written at their
    defaults (so that older runs stay comparable)."""
    return {
        **config,
        "da": config.get("da", False),
        "multilingual": config.get("multilingual", []),
        "talks": config.get("talks", False),
        "talks_spans": config.get("talks_spans", False),
        "multilingual_sources": config.get("multilingual_sources", 0),
        "recipe": asdict(Recipe.from_dict(config["recipe"])),
    }


def cmd_run(args, sets) -> None:
    from xlscore.estimator.model import QualityEstimator
    from xlscore.training import fit

    recipe = replace(
        RECIPES[args.recipe],
        **{
            f.name: getattr(args, f.name)
            for f in fields(Recipe)
            if getattr(args, f.name, None) is not None
        },
        delta_rank=0,
    )
    folder = CACHE / args.model_id
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "recipe": asdict(recipe),
        "it": not args.no_it,
        "it_sample": args.it_sample,
        "da": args.da,
        "multilingual": [x for x in args.multilingual.split(",") if x],
        "talks": args.talks,
        "talks_spans": args.talks_spans,
        "multilingual_sources": args.multilingual_sources,
        "note": args.note,
        **({"start_from": args.start_from} if recipe.heads_only else {}),
    }
    cfg_file = folder / "config.json"
    if cfg_file.exists() and _complete(json.loads(cfg_file.read_text())) != config:
        raise SystemExit(f"{cfg_file} holds another configuration; use another --model-id")
    cfg_file.write_text(json.dumps(config, indent=1))
    for fold in fold_names(args.folds):
        out = folder / fold
        if (out / "pred-full.npy").exists():
            print(f"{args.model_id}/{fold}: done before")
            continue
        out.mkdir(exist_ok=True)
        train, test = fold_split(sets, fold, config)
        t0 = time.time()
        est = QualityEstimator(recipe=recipe)
        start = None
        if recipe.heads_only:
            if not args.start_from:
                raise SystemExit("a heads_only recipe needs --start-from MODEL_ID")
            start = QualityEstimator.load(CACHE / args.start_from / fold / "full.safetensors")
        fit(est, train, progress=not args.quiet, checkpoint=out / "train.ckpt", start=start)
        est.save(out / "full.safetensors", name=f"{args.model_id}-{fold}")
        # a resumed run: its training loop's time over every part (the log carries it on)
        minutes = max(time.time() - t0, est.log.seconds) / 60
        if test:
            save_estimates(out, "full", est, test)
        else:  # the ``all`` fold: nothing held out to predict
            np.save(out / "pred-full.npy", np.zeros(0))
        (out / "log.json").write_text(
            json.dumps(
                {
                    "minutes": minutes,
                    "cpu": cpu_name(),
                    "device": device_name(est.device),
                    "train_rows": sum(map(len, train)),
                    "log": asdict(est.log),
                }
            )
        )
        for p in out.glob("train.ckpt*"):
            p.unlink()
        print(
            f"{args.model_id}/{fold}: trained on {sum(map(len, train))} rows in {minutes:.1f} min"
        )
        if test:
            compress_fold(out, test, [args.ship_rank])


def device_name(device) -> str:
    """Where a model trained: ``cpu``, or the GPU's name (the log's ``cpu`` names the host's
    processor either way)."""
    import torch

    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return str(device)


def save_estimates(out: Path, suffix: str, est, test: list) -> None:
    """A fold model's predictions on its test rows (``pred-SUFFIX.npy``), their base and
    adequacy parts and the meaning head's raw output (``parts-SUFFIX.npy``) and each word's
    error probabilities (``words-SUFFIX.json``: per row, ``[start, end, probability, minor,
    major]`` per word)."""
    res = est.estimate([r.source for r in test], [r.translation for r in test])
    np.save(out / f"parts-{suffix}.npy", np.array([[e.base, e.adequacy, e.meaning] for e in res]))
    (out / f"words-{suffix}.json").write_text(
        json.dumps(
            [
                [
                    [w.start, w.end, round(w.probability, 4), round(w.minor, 4), round(w.major, 4)]
                    for w in e.words
                ]
                for e in res
            ]
        )
    )
    np.save(out / f"pred-{suffix}.npy", np.array([e.score for e in res]))


def compress_fold(out: Path, test: list, ranks, bits=(8,)) -> None:
    """Predictions of a fold's model with its delta compressed at each rank."""
    from xlscore.estimator import delta
    from xlscore.estimator.model import QualityEstimator

    full = QualityEstimator.load(out / "full.safetensors")
    tuned = {k: v.detach().clone() for k, v in full._weights().items()}
    base_est = QualityEstimator(recipe=full.recipe)
    base = {
        k: v.detach().clone()
        for k, v in base_est.model.named_parameters()
        if k in tuned and k.startswith("encoder.") and not k.startswith("encoder.embeddings.")
    }
    changed = {k: tuned[k] for k in base}
    changed.update({k: v for k, v in tuned.items() if not k.startswith("encoder.")})
    for r in ranks:
        for b in bits:
            if (out / f"pred-r{r}b{b}.npy").exists():
                continue
            d = delta.compress(base, changed, rank=r, bits=b)
            base_est._apply(d, base)
            base_est.fitted = True
            save_estimates(out, f"r{r}b{b}", base_est, test)
            (out / f"size-r{r}b{b}.txt").write_text(str(delta.delta_bytes(d)))
            print(f"  rank {r} int{b}: {delta.delta_bytes(d) / 1e6:.1f} MB")


def cmd_compress(args, sets) -> None:
    folder = CACHE / args.model_id
    cfg = json.loads((folder / "config.json").read_text())
    for fold in fold_names(args.folds):
        out = folder / fold
        if not (out / "full.safetensors").exists():
            continue
        _, test = fold_split(sets, fold, cfg)
        print(f"{args.model_id}/{fold}")
        if args.shipped_only:
            compress_fold(out, test, (args.ship_rank,))
        else:
            compress_fold(out, test, RANKS, bits=(8, 16))


def cmd_soup(args, sets) -> None:
    """Seed soups and ensembles of variants that differ only in their seed (``--members
    A,B``): for each fold all members have, the weights averaged (a soup: one model) and the
    predictions averaged after standardising each (an ensemble: several models), saved as the
    variants ``A+soupN`` and ``A+ensN``."""
    from xlscore.estimator.model import QualityEstimator

    members = args.members.split(",")
    cfgs = [json.loads((CACHE / m / "config.json").read_text()) for m in members]
    strip = [{**c, "recipe": {**c["recipe"], "seed": 0}, "note": ""} for c in cfgs]
    if any(s != strip[0] for s in strip):
        raise SystemExit("soup members must differ only in their seed")
    n = len(members)
    names = {"soup": f"{members[0]}+soup{n}", "ens": f"{members[0]}+ens{n}"}
    for kind, name in names.items():
        (CACHE / name).mkdir(exist_ok=True)
        (CACHE / name / "config.json").write_text(
            json.dumps(
                {
                    **cfgs[0],
                    "note": (
                        "weights averaged over "
                        if kind == "soup"
                        else "standardised predictions averaged over "
                    )
                    + ", ".join(f"`{m}`" for m in members),
                },
                indent=1,
            )
        )
    for fold in LODO + tuple(f"cv-{t}-{k}" for t in ("news", "qe22") for k in range(K)):
        if not all((CACHE / m / fold / "pred-full.npy").exists() for m in members):
            continue
        _, test = fold_split(sets, fold, cfgs[0])
        preds = [np.load(CACHE / m / fold / "pred-full.npy") for m in members]
        (CACHE / names["ens"] / fold).mkdir(exist_ok=True)
        np.save(
            CACHE / names["ens"] / fold / "pred-full.npy",
            np.mean([(p - p.mean()) / p.std() for p in preds], axis=0),
        )
        out = CACHE / names["soup"] / fold
        if (out / "pred-full.npy").exists():
            continue
        models = [QualityEstimator.load(CACHE / m / fold / "full.safetensors") for m in members]
        params = [dict(m.model.named_parameters()) for m in models]
        import torch

        with torch.no_grad():
            for k, p in params[0].items():
                p.copy_(sum(q[k] for q in params) / n)
        out.mkdir(exist_ok=True)
        np.save(
            out / "pred-full.npy",
            models[0].predict([r.source for r in test], [r.translation for r in test]),
        )
        print(f"{names['soup']}/{fold} done")


def cmd_wise(args, sets) -> None:
    """Weight interpolations (WiSE-FT) between two fine-tunes from one start (``--members
    PLAIN,MULTITASK``: same base, same head sizes): for each ``--alpha`` and each fold both
    have, every weight both models have is ``(1 - alpha) * PLAIN + alpha * MULTITASK`` and
    the heads only the multi-task model has (word, meaning) are its own; saved as the variant
    ``MULTITASK+wiseA`` (A: alpha in hundredths) with its predictions on the fold's test rows,
    as :func:`cmd_run` saves a fold."""
    from xlscore.estimator.model import QualityEstimator

    plain, multi = args.members.split(",")
    cfg = json.loads((CACHE / multi / "config.json").read_text())
    for alpha in (float(a) for a in args.alpha.split(",")):
        name = f"{multi}+wise{round(alpha * 100)}"
        (CACHE / name).mkdir(exist_ok=True)
        (CACHE / name / "config.json").write_text(
            json.dumps(
                {**cfg, "note": f"weights (1 - {alpha:g}) x `{plain}` + {alpha:g} x `{multi}`"},
                indent=1,
            )
        )
        for fold in fold_names(args.folds):
            out = CACHE / name / fold
            ends = [CACHE / m / fold / "full.safetensors" for m in (plain, multi)]
            if (out / "pred-full.npy").exists() or not all(f.exists() for f in ends):
                continue
            b = interpolate(*(QualityEstimator.load(f) for f in ends), alpha)
            out.mkdir(parents=True, exist_ok=True)
            b.save(out / "full.safetensors", name=f"{name}-{fold}")
            _, test = fold_split(sets, fold, cfg)
            if test:
                save_estimates(out, "full", b, test)
            else:
                np.save(out / "pred-full.npy", np.zeros(0))
            print(f"{name}/{fold} done")


def interpolate(plain, multi, alpha: float):
    """``multi`` (a :class:`QualityEstimator`) with every weight ``plain`` has too set to
    ``(1 - alpha) * plain + alpha * multi`` (the heads only ``multi`` has stay its own), its
    stored delta taken again from the new weights; returns ``multi``."""
    import torch

    theirs = dict(plain.model.named_parameters())
    with torch.no_grad():
        for k, p in multi.model.named_parameters():
            if k in theirs:
                if theirs[k].shape != p.shape:
                    raise SystemExit(f"{k}: the two models differ in shape")
                p.copy_((1 - alpha) * theirs[k] + alpha * p)
    return multi.recompress(multi.recipe.delta_rank, multi.recipe.delta_bits)


def baseline_tests(sets: dict) -> dict[str, list]:
    """The test rows the unsupervised baselines are scored on, by test set name."""
    return {
        "news": [r for r in sets["news"] if not r.is_human],
        "qe22": sets["qe22"],
        "it-test": sets["it-test"],
    }


def _e5_all():
    from xlscore import XLScorer

    return XLScorer.offline(multilingual="pack:e5-small", variant="all", estimator=None)


def e5_similarity(sets: dict, test: str, progress: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Of each test row of ``test`` (``news``, ``qe22``, ``it-test``): the multilingual e5
    all-words F1 with the foreign-word penalty (the similarity a shipped estimator's
    ``similarity_weight`` blends in) and the share of foreign words (which pulls an
    estimate without similarity towards the floor); computed once into the experiment
    cache."""
    f = CACHE / "baselines" / f"e5-all-{test}.npy"
    g = CACHE / "baselines" / f"foreign-{test}.npy"
    if not (f.exists() and g.exists()):
        f.parent.mkdir(parents=True, exist_ok=True)
        rows = baseline_tests(sets)[test]
        res = _e5_all().score(
            [r.source for r in rows], [r.translation for r in rows], progress=progress
        )
        np.save(f, np.array([r.score for r in res]))
        np.save(g, np.array([r.foreign for r in res]))
    return np.load(f), np.load(g)


def cmd_baselines(args, sets) -> None:
    """Unsupervised rows: the paper's anchor F1 (the previous default), multilingual e5
    all-words F1, the character length ratio (translation / source, log)."""
    from xlscore import XLScorer

    folder = CACHE / "baselines"
    folder.mkdir(parents=True, exist_ok=True)
    tests = baseline_tests(sets)
    for t in tests:
        e5_similarity(sets, t, progress=not args.quiet)
    scorers = {"anchors": lambda: XLScorer.offline(estimator=None)}
    for name, make in scorers.items():
        scorer = None
        for t, rows in tests.items():
            f = folder / f"{name}-{t}.npy"
            if f.exists():
                continue
            scorer = scorer or make()
            res = scorer.score(
                [r.source for r in rows], [r.translation for r in rows], progress=not args.quiet
            )
            np.save(f, np.array([r.score for r in res]))
    for t, rows in tests.items():
        np.save(
            folder / f"length-{t}.npy",
            np.array([np.log((len(r.translation) + 1) / (len(r.source) + 1)) for r in rows]),
        )


# ---------------------------------------------------------------------- frozen features
FEATURES = (
    "anchor_p",
    "anchor_r",
    "anchor_f1",
    "all_p",
    "all_r",
    "all_f1",
    "e5_all_f1",
    "e5_cosine",
    "anchor_share_src",
    "anchor_share_mt",
    "foreign",
    "flagged",
    "unmatched_share",
    "numbers_missing",
    "numbers_added",
    "log_char_ratio",
    "log_word_ratio",
)


def pair_features(rows: list, progress: bool) -> np.ndarray:
    """The frozen pipeline's signals for each pair (no training involved): the paper's P/R/F1
    (anchors and all words, two encoders, dictionary map), e5 all-words F1 and sentence
    cosine, anchor coverage, foreign share, flags, evidence counts, length ratios."""
    from xlscore import XLScorer

    src, mt = [r.source for r in rows], [r.translation for r in rows]
    two = XLScorer.offline(estimator=None, alignment="dictionary")
    corpus = two.prepare(src, mt, progress=progress)
    anchors, every = (
        two.paper.score_prepared(corpus, "anchors"),
        two.paper.score_prepared(corpus, "all"),
    )
    multi = XLScorer.offline(multilingual="pack:e5-small", variant="all", estimator=None)
    e5_all = multi.score(src, mt, progress=progress)
    cos = (multi.en.embed_sentences(src) * multi.en.embed_sentences(mt)).sum(1).numpy()
    out = []
    for k, (a, w, e) in enumerate(zip(anchors, every, e5_all)):
        s_words, m_words = corpus.src[k].words, corpus.mt[k].words
        n_src = sum(any(c.isalnum() for c in x) for x in s_words) or 1
        n_mt = sum(any(c.isalnum() for c in x) for x in m_words) or 1
        ev = a.evidence
        out.append(
            [
                a.precision,
                a.recall,
                a.f1,
                w.precision,
                w.recall,
                w.f1,
                e.f1,
                cos[k],
                a.n_anchors / n_src,
                a.n_anchors / n_mt,
                a.foreign,
                float(bool(a.flags)),
                len(ev.unmatched_source) / n_src,
                len(ev.numbers_missing),
                len(ev.numbers_added),
                np.log((len(mt[k]) + 1) / (len(src[k]) + 1)),
                np.log(n_mt / n_src),
            ]
        )
    return np.asarray(out, dtype=np.float64)


def cmd_features(args, sets) -> None:
    """Features of every pair of every set (cached), then the feature head on each LODO fold:
    gradient-boosted trees on the features, trained on the fold's training sets (targets:
    normal scores per set), saved as the variant ``features``."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from xlscore.training.loop import normal_scores

    folder = CACHE / "features"
    folder.mkdir(parents=True, exist_ok=True)
    feats = {}
    for name in ("news", "qe22", "it", "it-test"):
        rows = sample_sources(sets[name], args.it_sample) if name == "it" else sets[name]
        f = folder / f"x-{name}.npy"
        if not f.exists():
            np.save(f, pair_features(rows, not args.quiet))
        feats[name] = {(r.seg_id, r.system, r.translation): x for r, x in zip(rows, np.load(f))}
    (folder / "config.json").write_text(
        json.dumps(
            {
                "recipe": asdict(Recipe()),
                "it": True,
                "it_sample": args.it_sample,
                "note": "no fine-tuning: gradient-boosted trees over the frozen pipeline's "
                "features (" + ", ".join(FEATURES) + ")",
            },
            indent=1,
        )
    )

    def matrix(rows):
        table = {}
        for d in feats.values():
            table.update(d)
        return np.stack([table[(r.seg_id, r.system, r.translation)] for r in rows])

    for fold in LODO:
        train, test = split(sets, fold, True, args.it_sample)
        x = np.concatenate([matrix(t) for t in train])
        y = np.concatenate([normal_scores([r.human for r in t]) for t in train])
        model = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, random_state=0).fit(
            x, y
        )
        (folder / fold).mkdir(exist_ok=True)
        np.save(folder / fold / "pred-full.npy", model.predict(matrix(test)))
        print(f"features/{fold}: trained on {len(y)} rows")


# ---------------------------------------------------------------------- export
def cmd_export(args, sets) -> None:
    """Write each finished LODO fold's predictions on its test rows to
    ``results/folds/VARIANT/FOLD.tsv.xz`` (segment, system, score, the word error
    probabilities as ``start:end:p:minor:major`` items, and with a meaning head its raw
    output, ``meaning``): what :mod:`gate` reads, small enough
    to commit, so that a fold is trained once."""
    from estimator_report import load_words
    from folds import FOLDS, fold_path, word_items, write_table

    folder = CACHE / args.model_id
    cfg = json.loads((folder / "config.json").read_text())
    out = FOLDS / args.model_id
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(cfg, indent=1, sort_keys=True) + "\n")
    for fold in LODO:
        pred_file = folder / fold / f"pred-{args.suffix}.npy"
        if not pred_file.exists():
            continue
        _, test = fold_split(sets, fold, cfg)
        pred = np.load(pred_file)
        words = load_words(folder / fold, args.suffix) or [()] * len(test)
        meaning = None
        if Recipe.from_dict(cfg["recipe"]).meaning_weight:
            meaning = np.load(folder / fold / f"parts-{args.suffix}.npy")[:, 2]
        lines = ["seg_id\tsystem\tscore\twords" + ("\tmeaning" if meaning is not None else "")]
        for k, (r, p, w) in enumerate(zip(test, pred, words, strict=True)):
            items = word_items(w)
            extra = "" if meaning is None else f"\t{meaning[k]:.6f}"
            lines.append(f"{r.seg_id}\t{r.system}\t{p:.6f}\t{items}{extra}")
        write_table(fold_path(args.model_id, fold), lines)
        log = folder / fold / "log.json"
        if log.exists():
            (out / f"{fold}.log.json").write_text(log.read_text())
        written = fold_path(args.model_id, fold)
        print(f"{args.model_id}/{fold}: {len(test)} predictions -> {written}")


# ---------------------------------------------------------------------- report
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "command",
        choices=["run", "baselines", "features", "soup", "wise", "compress", "export", "report"],
    )
    ap.add_argument(
        "--members",
        help="soup: variants that differ only in their seed, A,B; wise: PLAIN,MULTITASK",
    )
    ap.add_argument("--alpha", default="0.25,0.5,0.75", help="wise: the multi-task end's weights")
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument(
        "--model-id", default="ce", help="the model's name: its folder under .cache/estimator/"
    )
    ap.add_argument("--folds", default="lodo", help="lodo, cv-news, cv-qe22 or fold names")
    ap.add_argument("--no-it", action="store_true", help="leave the IT data out of training")
    ap.add_argument(
        "--da", action="store_true", help="train on the newstest DA set too (ranking pairs only)"
    )
    ap.add_argument(
        "--multilingual",
        default="",
        help="train on these multi-pair files too ("
        + ", ".join(MULTILINGUAL)
        + "), comma-separated",
    )
    ap.add_argument(
        "--talks",
        action="store_true",
        help="train on the talks files too, each fold on the one it does not read "
        "(lodo-news: the zh-en talks, lodo-qe22: the en-de talks, every other fold both)",
    )
    ap.add_argument(
        "--talks-spans",
        action="store_true",
        help="with --talks: the raters' spans of the talks too (word labels)",
    )
    ap.add_argument(
        "--multilingual-sources",
        type=int,
        default=0,
        help="that many sources of each multi-pair and talks set, drawn at random (0: all)",
    )
    ap.add_argument(
        "--recipe",
        choices=sorted(RECIPES),
        default="default",
        help="run: the recipe the other recipe options change (plain: issue 61's)",
    )
    ap.add_argument(
        "--start-from",
        default="",
        help="run, heads_only recipes: the model whose fold models the heads learn on",
    )
    ap.add_argument("--it-sample", type=int, default=IT_SAMPLE)
    ap.add_argument("--ship-rank", type=int, default=Recipe().delta_rank)
    ap.add_argument(
        "--shipped-only",
        action="store_true",
        help="compress: only the shipped rank (int8), not every rank and width",
    )
    ap.add_argument("--suffix", default="full", help="report: which predictions (full, r64b8)")
    ap.add_argument("--note", default="")
    ap.add_argument("--quiet", action="store_true")
    for f in fields(Recipe):
        if f.name not in ("delta_rank", "delta_bits"):
            ap.add_argument(
                "--" + f.name.replace("_", "-"), type=recipe_type(f.default), default=None
            )
    args = ap.parse_args()
    sets: dict = {**load_sets(args.data_dir), "data_dir": args.data_dir}
    if args.command == "report":
        from estimator_report import cmd_report

        cmd_report(args, sets)
        return
    {
        "run": cmd_run,
        "baselines": cmd_baselines,
        "features": cmd_features,
        "soup": cmd_soup,
        "wise": cmd_wise,
        "compress": cmd_compress,
        "export": cmd_export,
    }[args.command](args, sets)


if __name__ == "__main__":
    main()
