"""The quality estimator's protocol: how well it agrees with human judgments on data it never
saw, and what each choice in its recipe does.

Data (``--data-dir``, the shared data folder; nothing is copied into the repository):
``news`` WMT21 newstest MQM (14 MT systems + 2 human translations per source), ``qe22`` WMT22
QE dev (one MT per source, news), ``it`` WMT19 QE IT-domain HTER (train split, with the
post-edits as second translations; ``it-test`` its test split, for evaluation only).

Folds: leave one data set out (``lodo-news``: train on qe22 + it, test on news; ``lodo-qe22``;
``lodo-it``: train on news + qe22, test on it-test) and 4-fold cross-validation by document
inside news and qe22 (``cv-news-K``: train on every other set plus the other news documents).
Evaluation uses machine translations only. Every fold's model is trained with the variant's
recipe, which was fixed before the fold's test data were looked at; nothing is tuned on a
test fold.

    python experiments/estimator.py run --data-dir ../shared/data --variant ce --folds lodo
    python experiments/estimator.py run --data-dir ../shared/data --variant ce-noit --no-it \
        --folds lodo-qe22,lodo-news,cv-news
    python experiments/estimator.py baselines --data-dir ../shared/data
    python experiments/estimator.py compress --data-dir ../shared/data --variant ce
    python experiments/estimator.py report --data-dir ../shared/data --suffix r64b8

``run`` saves each fold (the uncompressed delta and the predictions) under
``experiments/.cache/estimator/`` (or ``$XLSCORE_EXPERIMENT_CACHE``) as soon as it is done and skips finished folds when started
again; ``report`` writes ``results/estimator.md`` and ``.csv`` from whatever has been run.
A fold takes 10-25 minutes on 2 CPU cores.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict, fields
from pathlib import Path

import numpy as np
from _results import write_csv, write_markdown

from xlscore.corpus import assign_folds
from xlscore.evaluate import agreement, read_judgments
from xlscore.judgments import sample_sources
from xlscore.training import Recipe

CACHE = Path(os.environ.get("XLSCORE_EXPERIMENT_CACHE")
             or Path(__file__).resolve().parent / ".cache" / "estimator")
K = 4                      # cross-validation folds (by document)
IT_SAMPLE = 5000           # IT sources used in training (of 15,089), with their post-edits
RANKS = (8, 16, 32, 64, 128)
LODO = ("lodo-qe22", "lodo-news", "lodo-it")
TEST_OF = {"lodo-qe22": "qe22", "lodo-news": "news", "lodo-it": "it-test"}


def load_sets(data_dir: Path) -> dict[str, list]:
    """Every judged set, human translations and post-edits included."""
    return {
        "news": read_judgments(data_dir / "wmt21-enru-mqm-newstest2021.tsv", include_human=True),
        "qe22": read_judgments(data_dir / "wmt22-enru-mqm-dev.tsv", include_human=True),
        "it": read_judgments(data_dir / "wmt19-enru-qe-it" / "train", include_human=True),
        "it-test": read_judgments(data_dir / "wmt19-enru-qe-it" / "test"),
    }


def fold_names(which: str) -> list[str]:
    names = []
    for part in which.split(","):
        if part == "lodo":
            names += list(LODO)
        elif part in ("cv-news", "cv-qe22"):
            names += [f"{part}-{k}" for k in range(K)]
        else:
            names.append(part)
    return names


def split(sets: dict[str, list], fold: str, use_it: bool, it_sample: int
          ) -> tuple[list[list], list]:
    """Training sets and test rows (machine translations only) of a fold."""
    it = [sample_sources(sets["it"], it_sample)] if use_it else []
    mt = lambda rows: [r for r in rows if not r.is_human]  # noqa: E731
    if fold == "lodo-qe22":
        return [sets["news"]] + it, mt(sets["qe22"])
    if fold == "lodo-news":
        return [sets["qe22"]] + it, mt(sets["news"])
    if fold == "lodo-it":
        return [sets["news"], sets["qe22"]], sets["it-test"]
    name, k = fold.rsplit("-", 1)
    target = name.removeprefix("cv-")
    folds = assign_folds([r.doc for r in sets[target]], K, seed=0)
    train = [r for r in sets[target] if folds[r.doc] != int(k)]
    test = [r for r in sets[target] if folds[r.doc] == int(k)]
    others = [sets[n] for n in ("news", "qe22") if n != target]
    return [train] + others + it, mt(test)


def _complete(config: dict) -> dict:
    """A variant's configuration with recipe fields added since it was written at their
    defaults (so that older runs stay comparable)."""
    return {**config, "recipe": asdict(Recipe.from_dict(config["recipe"]))}


def cmd_run(args, sets) -> None:
    from xlscore.estimator import QualityEstimator

    recipe = Recipe(**{f.name: getattr(args, f.name) for f in fields(Recipe)
                       if getattr(args, f.name, None) is not None}, delta_rank=0)
    folder = CACHE / args.variant
    folder.mkdir(parents=True, exist_ok=True)
    config = {"recipe": asdict(recipe), "it": not args.no_it, "it_sample": args.it_sample,
              "note": args.note}
    cfg_file = folder / "config.json"
    if cfg_file.exists() and _complete(json.loads(cfg_file.read_text())) != config:
        raise SystemExit(f"{cfg_file} holds another configuration; use another --variant")
    cfg_file.write_text(json.dumps(config, indent=1))
    for fold in fold_names(args.folds):
        out = folder / fold
        if (out / "pred-full.npy").exists():
            print(f"{args.variant}/{fold}: done before")
            continue
        out.mkdir(exist_ok=True)
        train, test = split(sets, fold, not args.no_it, args.it_sample)
        t0 = time.time()
        est = QualityEstimator(recipe=recipe)
        est.fit(train, progress=not args.quiet, checkpoint=out / "train.ckpt")
        est.save(out / "full.safetensors", name=f"{args.variant}-{fold}")
        minutes = (time.time() - t0) / 60
        pred = est.predict([r.source for r in test], [r.translation for r in test])
        np.save(out / "pred-full.npy", pred)
        (out / "log.json").write_text(json.dumps({"minutes": minutes, "train_rows": sum(map(len, train)),
                                                  "log": asdict(est.log)}))
        for p in out.glob("train.ckpt*"):
            p.unlink()
        print(f"{args.variant}/{fold}: trained on {sum(map(len, train))} rows in {minutes:.1f} min")
        compress_fold(out, test, [args.ship_rank])


def compress_fold(out: Path, test: list, ranks, bits=(8,)) -> None:
    """Predictions of a fold's model with its delta compressed at each rank."""
    from xlscore import delta
    from xlscore.estimator import QualityEstimator

    full = QualityEstimator.load(out / "full.safetensors")
    tuned = {k: v.detach().clone() for k, v in full.model.named_parameters()}
    base_est = QualityEstimator()
    base = {k: v.detach().clone() for k, v in base_est.model.named_parameters()
            if k in tuned and not k.startswith(("head.", "encoder.embeddings."))}
    changed = {k: tuned[k] for k in base}
    changed.update({k: v for k, v in tuned.items() if k.startswith("head.")})
    for r in ranks:
        for b in bits:
            f = out / f"pred-r{r}b{b}.npy"
            if f.exists():
                continue
            d = delta.compress(base, changed, rank=r, bits=b)
            base_est._apply(d, base)
            base_est.fitted = True
            np.save(f, base_est.predict([x.source for x in test], [x.translation for x in test]))
            (out / f"size-r{r}b{b}.txt").write_text(str(delta.delta_bytes(d)))
            print(f"  rank {r} int{b}: {delta.delta_bytes(d) / 1e6:.1f} MB")


def cmd_compress(args, sets) -> None:
    folder = CACHE / args.variant
    cfg = json.loads((folder / "config.json").read_text())
    for fold in fold_names(args.folds):
        out = folder / fold
        if not (out / "full.safetensors").exists():
            continue
        _, test = split(sets, fold, cfg["it"], cfg["it_sample"])
        print(f"{args.variant}/{fold}")
        compress_fold(out, test, RANKS, bits=(8, 16))


def cmd_soup(args, sets) -> None:
    """Seed soups and ensembles of variants that differ only in their seed (``--members
    A,B``): for each fold all members have, the weights averaged (a soup: one model) and the
    predictions averaged after standardising each (an ensemble: several models), saved as the
    variants ``A+soupN`` and ``A+ensN``."""
    from xlscore.estimator import QualityEstimator

    members = args.members.split(",")
    cfgs = [json.loads((CACHE / m / "config.json").read_text()) for m in members]
    strip = [{**c, "recipe": {**c["recipe"], "seed": 0}, "note": ""} for c in cfgs]
    if any(s != strip[0] for s in strip):
        raise SystemExit("soup members must differ only in their seed")
    n = len(members)
    names = {"soup": f"{members[0]}+soup{n}", "ens": f"{members[0]}+ens{n}"}
    for kind, name in names.items():
        (CACHE / name).mkdir(exist_ok=True)
        (CACHE / name / "config.json").write_text(json.dumps(
            {**cfgs[0], "note": ("weights averaged over " if kind == "soup" else
                                 "standardised predictions averaged over ")
             + ", ".join(f"`{m}`" for m in members)}, indent=1))
    for fold in LODO + tuple(f"cv-{t}-{k}" for t in ("news", "qe22") for k in range(K)):
        if not all((CACHE / m / fold / "pred-full.npy").exists() for m in members):
            continue
        _, test = split(sets, fold, cfgs[0]["it"], cfgs[0]["it_sample"])
        preds = [np.load(CACHE / m / fold / "pred-full.npy") for m in members]
        (CACHE / names["ens"] / fold).mkdir(exist_ok=True)
        np.save(CACHE / names["ens"] / fold / "pred-full.npy",
                np.mean([(p - p.mean()) / p.std() for p in preds], axis=0))
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
        np.save(out / "pred-full.npy",
                models[0].predict([r.source for r in test], [r.translation for r in test]))
        print(f"{names['soup']}/{fold} done")


def cmd_baselines(args, sets) -> None:
    """Unsupervised rows: the paper's anchor F1 (the previous default), multilingual e5
    all-words F1, the character length ratio (translation / source, log)."""
    from xlscore import XLScorer

    folder = CACHE / "baselines"
    folder.mkdir(parents=True, exist_ok=True)
    tests = {"news": [r for r in sets["news"] if not r.is_human], "qe22": sets["qe22"],
             "it-test": sets["it-test"]}
    scorers = {"anchors": lambda: XLScorer.offline(estimator=None),
               "e5-all": lambda: XLScorer(multilingual="pack:e5-small", variant="all",
                                          estimator=None)}
    for name, make in scorers.items():
        scorer = None
        for t, rows in tests.items():
            f = folder / f"{name}-{t}.npy"
            if f.exists():
                continue
            scorer = scorer or make()
            res = scorer.score([r.source for r in rows], [r.translation for r in rows],
                               progress=not args.quiet)
            np.save(f, np.array([r.score for r in res]))
    for t, rows in tests.items():
        np.save(folder / f"length-{t}.npy",
                np.array([np.log((len(r.translation) + 1) / (len(r.source) + 1))
                          for r in rows]))


# ---------------------------------------------------------------------- frozen features
FEATURES = ("anchor_p", "anchor_r", "anchor_f1", "all_p", "all_r", "all_f1", "e5_all_f1",
            "e5_cosine", "anchor_share_src", "anchor_share_mt", "foreign", "flagged",
            "unmatched_share", "numbers_missing", "numbers_added", "log_char_ratio",
            "log_word_ratio")


def pair_features(rows: list, progress: bool) -> np.ndarray:
    """The frozen pipeline's signals for each pair (no training involved): the paper's P/R/F1
    (anchors and all words, two encoders, dictionary map), e5 all-words F1 and sentence
    cosine, anchor coverage, foreign share, flags, evidence counts, length ratios."""
    from xlscore import XLScorer

    src, mt = [r.source for r in rows], [r.translation for r in rows]
    two = XLScorer.offline(estimator=None, alignment="dictionary")
    corpus = two.prepare(src, mt, progress=progress)
    anchors, every = two.score_prepared(corpus, "anchors"), two.score_prepared(corpus, "all")
    multi = XLScorer(multilingual="pack:e5-small", variant="all", estimator=None)
    e5_all = multi.score(src, mt, progress=progress)
    cos = (multi.en.embed_sentences(src) * multi.en.embed_sentences(mt)).sum(1).numpy()
    out = []
    for k, (a, w, e) in enumerate(zip(anchors, every, e5_all)):
        s_words, m_words = corpus.src[k].words, corpus.mt[k].words
        n_src = sum(any(c.isalnum() for c in x) for x in s_words) or 1
        n_mt = sum(any(c.isalnum() for c in x) for x in m_words) or 1
        ev = a.evidence
        out.append([a.precision, a.recall, a.f1, w.precision, w.recall, w.f1, e.f1, cos[k],
                    a.n_anchors / n_src, a.n_anchors / n_mt, a.foreign, float(bool(a.flags)),
                    len(ev.unmatched_source) / n_src, len(ev.numbers_missing),
                    len(ev.numbers_added),
                    np.log((len(mt[k]) + 1) / (len(src[k]) + 1)), np.log(n_mt / n_src)])
    return np.asarray(out, dtype=np.float64)


def cmd_features(args, sets) -> None:
    """Features of every pair of every set (cached), then the feature head on each LODO fold:
    gradient-boosted trees on the features, trained on the fold's training sets (targets:
    normal scores per set), saved as the variant ``features``."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from xlscore.training import normal_scores

    folder = CACHE / "features"
    folder.mkdir(parents=True, exist_ok=True)
    feats = {}
    for name in ("news", "qe22", "it", "it-test"):
        rows = sample_sources(sets[name], args.it_sample) if name == "it" else sets[name]
        f = folder / f"x-{name}.npy"
        if not f.exists():
            np.save(f, pair_features(rows, not args.quiet))
        feats[name] = {(r.seg_id, r.system, r.translation): x for r, x in zip(rows, np.load(f))}
    (folder / "config.json").write_text(json.dumps(
        {"recipe": asdict(Recipe()), "it": True, "it_sample": args.it_sample,
         "note": "no fine-tuning: gradient-boosted trees over the frozen pipeline's "
                 "features (" + ", ".join(FEATURES) + ")"}, indent=1))

    def matrix(rows):
        table = {}
        for d in feats.values():
            table.update(d)
        return np.stack([table[(r.seg_id, r.system, r.translation)] for r in rows])

    for fold in LODO:
        train, test = split(sets, fold, True, args.it_sample)
        x = np.concatenate([matrix(t) for t in train])
        y = np.concatenate([normal_scores([r.human for r in t]) for t in train])
        model = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05,
                                              random_state=0).fit(x, y)
        (folder / fold).mkdir(exist_ok=True)
        np.save(folder / fold / "pred-full.npy", model.predict(matrix(test)))
        print(f"features/{fold}: trained on {len(y)} rows")


# ---------------------------------------------------------------------- report
STATS = {"news": ("global_spearman", "seg_kendall", "sys_kendall"),
         "qe22": ("global_spearman",), "it-test": ("global_spearman",)}
LABEL = {"global_spearman": "Spearman", "seg_kendall": "per-seg Kendall",
         "sys_kendall": "system Kendall"}


def _agreement(rows: list, pred: np.ndarray):
    return agreement([r.seg_id for r in rows], [r.system for r in rows],
                     [r.human for r in rows], list(pred), n_boot=1000)


def collect(sets, variant: str, suffix: str) -> dict[str, tuple[str, list, np.ndarray]]:
    """``{test set: (how, rows, predictions)}`` for the folds a variant has run."""
    folder = CACHE / variant
    cfg = json.loads((folder / "config.json").read_text())
    out = {}
    for fold in LODO:
        f = folder / fold / f"pred-{suffix}.npy"
        if f.exists():
            _, test = split(sets, fold, cfg["it"], cfg["it_sample"])
            out[("LODO", TEST_OF[fold])] = (test, np.load(f))
    for target in ("news", "qe22"):
        parts = [(k, folder / f"cv-{target}-{k}" / f"pred-{suffix}.npy") for k in range(K)]
        parts = [(k, p) for k, p in parts if p.exists()]
        if parts:     # folds not run yet are left out, and the row says how many there are
            rows, preds = [], []
            for k, p in parts:
                rows += split(sets, f"cv-{target}-{k}", cfg["it"], cfg["it_sample"])[1]
                preds.append(np.load(p))
            how = "CV" if len(parts) == K else f"CV, {len(parts)} of {K} folds"
            out[(how, target)] = (rows, np.concatenate(preds))
    return out


def cmd_report(args, sets) -> None:
    lines, csv_rows = [], []
    variants = sorted(p.name for p in CACHE.iterdir() if (p / "config.json").exists()) \
        if CACHE.exists() else []
    header = "| variant | protocol | test set | " + " | ".join(
        f"{LABEL[s]} [95% CI]" for s in ("global_spearman", "seg_kendall", "sys_kendall")) + " |"
    lines += [header, "|" + " --- |" * 6]
    base_dir = CACHE / "baselines"
    rows_of = {"news": [r for r in sets["news"] if not r.is_human], "qe22": sets["qe22"],
               "it-test": sets["it-test"]}
    entries = []
    for name in ("anchors", "e5-all", "length"):
        for t, rows in rows_of.items():
            f = base_dir / f"{name}-{t}.npy"
            if f.exists():
                entries.append((f"unsupervised: {name}", "no training", t, rows, np.load(f)))
    for v in variants:
        for (how, t), (rows, pred) in sorted(collect(sets, v, args.suffix).items()):
            entries.append((v, how, t, rows, pred))
    for name, how, t, rows, pred in entries:
        a = _agreement(rows, pred)
        cells = [str(a[s]) if s in STATS[t] else "" for s in
                 ("global_spearman", "seg_kendall", "sys_kendall")]
        lines.append(f"| {name} | {how} | {t} | " + " | ".join(cells) + " |")
        csv_rows.append([name, how, t] + [a[s].value if s in STATS[t] else "" for s in
                                          ("global_spearman", "seg_kendall", "sys_kendall")])
    notes = []
    for v in variants:
        cfg = json.loads((CACHE / v / "config.json").read_text())
        if v == "features":
            notes.append(f"* `{v}`: {cfg['note']}")
            continue
        changed = {k: val for k, val in cfg["recipe"].items()
                   if k != "delta_rank" and getattr(Recipe(), k) != val}
        notes.append(f"* `{v}`: recipe defaults" + (f" except {changed}" if changed else "")
                     + (f", IT data ({cfg['it_sample']} sources with post-edits)" if cfg["it"]
                        else ", no IT data") + (f" — {cfg['note']}" if cfg.get("note") else ""))
    comp = (compression_table(sets, variants) + "\n" + sensitivity_table(variants) + "\n"
            + number_check_table(sets, variants))
    body = ("Predictions " + ("of the uncompressed fine-tune" if args.suffix == "full" else
                              f"with the delta compressed ({args.suffix})")
            + "; machine translations only; 95% bootstrap intervals over segments (1000 "
              "resamples). LODO: trained without the test set; CV: 4 folds by document, "
              "every other set in training.\n\n" + "\n".join(lines) + "\n\nVariants:\n\n"
            + "\n".join(notes) + "\n" + comp)
    write_markdown("estimator", body, title="Quality estimator: agreement with human judgments "
                                            "on data it was not trained on")
    write_csv("estimator", ["variant", "protocol", "test", "spearman", "seg_kendall",
                            "sys_kendall"], csv_rows)


def sensitivity_table(variants) -> str:
    """How often each variant's lodo-qe22 model (trained on news + IT) puts the correct
    translation above a corrupted one: the challenge set's phenomena and the demo's flaws."""
    from xlscore.challenge import read_challenge
    from xlscore.estimator import QualityEstimator

    root = Path(__file__).resolve().parent.parent / "data"
    cases = read_challenge(root / "challenge" / "challenge.tsv")
    import csv

    with open(root / "demo" / "demo.tsv", encoding="utf-8", newline="") as fh:
        demo = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    src = [c.source for c in cases] * 2 + [r["source"] for r in demo]
    mt = [c.good for c in cases] + [c.bad for c in cases] + [r["translation"] for r in demo]
    phenomena = list(dict.fromkeys(c.phenomenon for c in cases))
    flaws = ("meaning", "omission", "literal")
    lines = ["| variant | " + " | ".join(phenomena) + " | demo: " + " | demo: ".join(flaws)
             + " |", "|" + " --- |" * (1 + len(phenomena) + len(flaws))]
    for v in variants:
        model = CACHE / v / "lodo-qe22" / "full.safetensors"
        f = CACHE / v / "lodo-qe22" / "sensitivity.npy"
        if not f.exists():
            if not model.exists():
                continue
            np.save(f, QualityEstimator.load(model).predict(src, mt))
        p = np.load(f)
        n = len(cases)
        wins = {ph: sum(p[k] > p[n + k] for k, c in enumerate(cases) if c.phenomenon == ph)
                for ph in phenomena}
        by: dict[str, dict[str, float]] = {}
        for r, x in zip(demo, p[2 * n:]):
            by.setdefault(r["id"], {})[r["quality"]] = x
        demo_wins = [sum(d["good"] > d[fl] for d in by.values()) for fl in flaws]
        lines.append(f"| {v} | " + " | ".join(f"{wins[ph]}/10" for ph in phenomena) + " | "
                     + " | ".join(f"{w}/12" for w in demo_wins) + " |")
    return ("\n### Sensitivity to single errors (each variant's lodo-qe22 model, raw predictions, "
            "no flags)\n\n" + "\n".join(lines))


def _number_mismatches(source: str, translation: str) -> int:
    """Digit strings on one side only, each occurrence counted (as the evidence reports)."""
    from collections import Counter

    from xlscore.anchors import is_number
    from xlscore.words import split_words

    a, b = (Counter(w.text for w in split_words(t) if is_number(w.text))
            for t in (source, translation))
    return sum(((a - b) + (b - a)).values())


def number_check_table(sets, variants, weights=(0.25, 0.5, 1.0)) -> str:
    """Would an explicit check help? Each LODO prediction minus ``weight`` normal-score units
    per number on one side only, against the prediction alone (weights fixed beforehand)."""
    lines = ["| variant | test set | statistic | no check | " + " | ".join(
        f"−{w} per number" for w in weights) + " |", "|" + " --- |" * (4 + len(weights))]
    for v in variants:
        for (how, t), (rows, pred) in sorted(collect(sets, v, "full").items()):
            if how != "LODO" or t == "it-test":
                continue
            m = np.array([_number_mismatches(r.source, r.translation) for r in rows])
            for stat in ("global_spearman", "seg_kendall") if t == "news" else ("global_spearman",):
                vals = [agreement([r.seg_id for r in rows], [r.system for r in rows],
                                  [r.human for r in rows], list(pred - w * m), n_boot=0)[stat]
                        for w in (0.0, *weights)]
                lines.append(f"| {v} | {t} ({(m > 0).mean():.1%} with a mismatch) | {LABEL[stat]} | "
                             + " | ".join(f"{x.value:+.3f}" for x in vals) + " |")
    return ("\n### An explicit number check on top of the estimator (LODO, uncompressed)\n\n"
            + "\n".join(lines))


def compression_table(sets, variants) -> str:
    """Agreement of each compressed delta next to the full fine-tune, for the folds that have
    the predictions."""
    out = []
    for v in variants:
        for fold in LODO:
            d = CACHE / v / fold
            sizes = sorted(d.glob("size-r*.txt"), key=lambda p: (int(p.stem.split("r")[1].split("b")[0]), p.stem))
            if len(sizes) < 2:
                continue
            cfg = json.loads((CACHE / v / "config.json").read_text())
            _, test = split(sets, fold, cfg["it"], cfg["it_sample"])
            stat = "seg_kendall" if fold == "lodo-news" else "global_spearman"
            full = np.load(d / "pred-full.npy")
            rows = [f"| full fine-tune | {21.4 * 2:.1f} (fp16) | {_agreement(test, full)[stat]} | |"]
            for s in sizes:
                tag = s.stem.removeprefix("size-")
                pred = np.load(d / f"pred-{tag}.npy")
                r, b = tag[1:].split("b")
                rows.append(f"| rank {r}, {'int8' if b == '8' else 'fp16'} factors | "
                            f"{int(s.read_text()) / 1e6:.1f} | {_agreement(test, pred)[stat]} | "
                            f"{np.abs(pred - full).max():.3f} |")
            out.append(f"\n### Compressing the delta: `{v}`, {fold} ({LABEL[stat]})\n\n"
                       "| delta | MB | agreement [95% CI] | largest change of a prediction |\n"
                       "| --- | --- | --- | --- |\n" + "\n".join(rows))
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["run", "baselines", "features", "soup", "compress",
                                        "report"])
    ap.add_argument("--members", help="soup: variants that differ only in their seed, A,B")
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--variant", default="ce")
    ap.add_argument("--folds", default="lodo", help="lodo, cv-news, cv-qe22 or fold names")
    ap.add_argument("--no-it", action="store_true", help="leave the IT data out of training")
    ap.add_argument("--it-sample", type=int, default=IT_SAMPLE)
    ap.add_argument("--ship-rank", type=int, default=Recipe().delta_rank)
    ap.add_argument("--suffix", default="full", help="report: which predictions (full, r64b8)")
    ap.add_argument("--note", default="")
    ap.add_argument("--quiet", action="store_true")
    for f in fields(Recipe):
        if f.name not in ("delta_rank", "delta_bits"):
            ap.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=None)
    args = ap.parse_args()
    sets = load_sets(args.data_dir)
    {"run": cmd_run, "baselines": cmd_baselines, "features": cmd_features, "soup": cmd_soup,
     "compress": cmd_compress, "report": cmd_report}[args.command](args, sets)


if __name__ == "__main__":
    main()
