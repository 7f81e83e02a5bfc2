"""Meaning-error penalties that fire rarely (issue 51, item 4): a critical-error output and the
word head's major spans, each measured for its precision on real MT and its effect under the
rule (:mod:`rule`).

    python experiments/penalties.py predict --data-dir ../shared/data --variant rtm15
    python experiments/penalties.py report --data-dir ../shared/data --variant rtm15

**The critical-error output** is a logistic regression on the vector the sentence head reads
(the mean of the estimator's last layer over the pair's pieces: no pass of its own), trained on
the WMT22 en-de critical-error labels (``multilingual/ced.tsv.gz``; rows whose source is in an
en-ru file are left out, the OK rows cut to :data:`CED_OK` by a seeded draw), one per fold model,
its L2 strength chosen by 5-fold cross-validation on those labels. **The word head's major
spans**: the largest error probability among a translation's words that the head sees as major
rather than minor (a major span fires at that threshold).

``predict`` reads every set of :mod:`sets` (and the labels) with the fold model that never saw
it, once, and writes each row's two signals to ``results/folds/VARIANT/penalties/SET.tsv``;
``report`` (from git alone) writes ``results/penalties-VARIANT.md``: for each signal and
threshold, how often it fires on each set and its **precision** on the sets with rated spans
(share of the fired translations in which a rater marked a major or critical accuracy error,
beside that share over all translations), then the rule: each signal as a penalty ``w`` ×
[signal ≥ threshold] on top of the shipped blend, its (threshold, weight) chosen by the mean over
the nine sets, entering only if that mean rises and no set is significantly lower.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
from pathlib import Path

import numpy as np
import torch
from _protocol import CACHE, RTM15_FILE, git_file
from _results import write_markdown
from checks import ACCURACY
from rule import Blend, SetData, load_data, mean_difference, mean_of
from sets import FOLDS, ValidationSet, _rows_of, load_validation_sets

from xlscore.encoders.words import normalize_text
from xlscore.io.judgments import read_judgments

#: OK rows of the critical-error labels kept (all BAD rows are)
CED_OK = 4000
#: the thresholds each signal is tried at (high: the penalty should fire rarely)
THRESHOLDS = {"critical": (0.5, 0.7, 0.9, 0.97), "major": (0.7, 0.9, 0.97, 0.99, 0.995)}
WEIGHTS = (0.25, 0.5, 1.0, 2.0)
#: the blend the penalties are tried on top of (the shipped default's)
SHIPPED = Blend(meaning=0.005, checks=0.25)
SPANS_EN_RU = "wmt21-enru-mqm-newstest2021-spans.tsv"
SPANS_MULTI = "multilingual/mqm-spans.tsv.gz"


# ------------------------------------------------------------------ predict
class PooledCapture:
    """The vector the sentence head reads, for every pair an estimator pass reads, keyed by
    the pair's piece ids (the pass dedupes and reorders pairs)."""

    def __init__(self, est) -> None:
        self.est = est
        self.by_ids: dict[tuple[int, ...], np.ndarray] = {}
        self._seqs: list = []

    def __enter__(self) -> PooledCapture:
        est, real_batch = self.est, self.est._batch

        def batch(seqs, rows=None, width=None):
            self._seqs = list(seqs)
            return real_batch(seqs, rows, width)

        def hook(_module, inputs):
            pooled = inputs[0].detach().float().cpu().numpy()
            for s, v in zip(self._seqs, pooled, strict=False):
                self.by_ids[tuple(s.ids)] = v.astype(np.float32)

        est._batch = batch
        self._handle = est.model.head.register_forward_pre_hook(hook)
        return self

    def __exit__(self, *exc) -> None:
        del self.est._batch
        self._handle.remove()

    def vectors(self, sources: list[str], translations: list[str]) -> np.ndarray:
        """The captured vector of each pair, in order."""
        pairs = [(normalize_text(s), normalize_text(t)) for s, t in zip(sources, translations)]
        encoded, _ = self.est._encode(pairs, self.est.max_length)
        return np.stack([self.by_ids[tuple(e.ids)] for e in encoded])


def read_ced(data_dir: Path) -> tuple[list[str], list[str], np.ndarray]:
    """The critical-error labels (1 = critical error) used to train the output."""
    rows = [r for r in read_judgments(data_dir / "multilingual" / "ced.tsv.gz") if not r.source_in]
    bad = [r for r in rows if r.human < 0]
    ok = [r for r in rows if r.human >= 0]
    ok = random.Random(0).sample(ok, min(CED_OK, len(ok)))
    picked = bad + ok
    return ([r.source for r in picked], [r.translation for r in picked],
            np.array([1.0] * len(bad) + [0.0] * len(ok)))  # fmt: skip


def pass_over(est, sources: list[str], translations: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """One estimator pass: each pair's pooled vector and the largest error probability among
    its words that the word head sees as major rather than minor (a major span at that
    threshold)."""
    with PooledCapture(est) as cap:
        res = est.estimate(sources, translations, progress=True)
        pooled = cap.vectors(sources, translations)
    major = np.array(
        [max((w.probability for w in e.words if w.major >= w.minor), default=0.0) for e in res]
    )
    return pooled, major


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression (full-batch L-BFGS on standardised inputs); returns
    the weights and bias on the raw inputs."""
    mu, sd = x.mean(0), x.std(0) + 1e-6
    xt = torch.tensor((x - mu) / sd, dtype=torch.float64)
    yt = torch.tensor(y, dtype=torch.float64)
    w = torch.zeros(x.shape[1], dtype=torch.float64, requires_grad=True)
    b = torch.zeros((), dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(xt @ w + b, yt)
        loss = loss + l2 * (w @ w) / 2
        loss.backward()
        return loss

    opt.step(closure)
    wr = w.detach().numpy() / sd
    return wr, float(b.detach()) - float(wr @ mu)


def probability(x: np.ndarray, model: tuple[np.ndarray, float]) -> np.ndarray:
    return 1 / (1 + np.exp(-(x @ model[0] + model[1])))


def auc(y: np.ndarray, p: np.ndarray) -> float:
    """Area under the ROC curve (rank statistic)."""
    order = np.argsort(p, kind="stable")
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum()))


def choose_l2(x: np.ndarray, y: np.ndarray) -> tuple[float, dict[float, float]]:
    """The L2 strength with the best 5-fold cross-validated AUC on the labels."""
    folds = np.random.default_rng(0).permutation(len(y)) % 5
    aucs = {}
    for l2 in (1e-3, 1e-2, 1e-1, 1.0):
        p = np.zeros(len(y))
        for k in range(5):
            m = fit_logistic(x[folds != k], y[folds != k], l2)
            p[folds == k] = probability(x[folds == k], m)
        aucs[l2] = auc(y, p)
    return max(aucs, key=aucs.get), aucs


def cmd_predict(args) -> None:
    from distill import teacher

    sets = load_validation_sets(args.data_dir)
    out = FOLDS / args.variant / "penalties"
    out.mkdir(parents=True, exist_ok=True)
    ced = read_ced(args.data_dir)
    info = {}
    for fold in ("lodo-news", "lodo-qe22"):
        est = teacher(args.variant, fold, git_file(*RTM15_FILE))
        est.meaning_blend = 0.0
        cache = CACHE.parent / "penalties" / args.variant / fold
        cache.mkdir(parents=True, exist_ok=True)
        f = cache / "ced.npy"
        if not f.exists():
            np.save(f, pass_over(est, ced[0], ced[1])[0])
        x = np.load(f)
        l2, aucs = choose_l2(x, ced[2])
        model = fit_logistic(x, ced[2], l2)
        info[fold] = {"l2": l2, "cv_auc": aucs, "rows": len(ced[2]), "bad": int(ced[2].sum())}
        for vs in (s for s in sets if s.fold == fold):
            f = cache / f"{vs.key}.npz"
            if not f.exists():
                pooled, major = pass_over(est, [r.source for r in vs.rows],
                                          [r.translation for r in vs.rows])  # fmt: skip
                np.savez(f, pooled=pooled, major=major)
            got = np.load(f)
            crit = probability(got["pooled"].astype(np.float64), model)
            lines = ["seg_id\tsystem\tcritical\tmajor"]
            lines += [f"{r.seg_id}\t{r.system}\t{c:.5f}\t{m:.5f}"
                      for r, c, m in zip(vs.rows, crit, got["major"], strict=True)]  # fmt: skip
            (out / f"{vs.key}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
            print(f"{vs.key}: {len(vs.rows)} rows -> {out / (vs.key + '.tsv')}")
    (out / "ced.json").write_text(json.dumps(info, indent=1) + "\n")


# ------------------------------------------------------------------ report
def grave_errors(data_dir: Path, vs: ValidationSet) -> np.ndarray | None:
    """Whether a rater marked a major or critical accuracy error in each row of a set (``None``
    for a set without rated spans)."""
    if vs.key == "news":
        path, opener = data_dir / SPANS_EN_RU, open
    elif vs.key in ("ende20", "ende21", "zhen20", "zhen21"):
        path, opener = data_dir / SPANS_MULTI, gzip.open
    else:
        return None
    grave: dict[tuple[str, str], bool] = {}
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            key = (r["seg_id"], r["system"])
            hit = any(
                x["severity"].lower() in ("major", "critical")
                and (x["category"] in ACCURACY or x["category"].startswith(("Accuracy", "Non-tr")))
                for x in json.loads(r["spans"])
            )
            grave[key] = grave.get(key, False) or hit
    return np.array([grave.get((r.seg_id, r.system), False) for r in vs.rows])


def signals(variant: str, vs: ValidationSet) -> dict[str, np.ndarray]:
    f = FOLDS / variant / "penalties" / f"{vs.key}.tsv"
    if not f.exists():
        raise SystemExit(f"{f} missing: run python experiments/penalties.py predict first")
    picked = _rows_of(f, vs)
    return {k: np.array([float(p[k]) for p in picked]) for k in THRESHOLDS}


def cmd_report(args) -> None:
    data = load_data(args.data_dir, args.variant)
    sig = [signals(args.variant, d.set) for d in data]
    grave = [grave_errors(args.data_dir, d.set) for d in data]
    info = json.loads((FOLDS / args.variant / "penalties" / "ced.json").read_text())
    keys = " | ".join(d.set.key for d in data)
    labels = "; ".join(
        f"{fold}: {v['rows']} rows ({v['bad']} critical), L2 {v['l2']:g} "
        f"(5-fold AUC on the labels {max(v['cv_auc'].values()):.3f})"
        for fold, v in info.items()
    )
    lines = [
        f"Variant `{args.variant}`; every set read by the fold model that never saw it "
        f"(`experiments/sets.py`). The critical-error output's training labels: {labels}.",
        "",
        "### How often each signal fires, and its precision",
        "",
        "Fired: share of each set's translations at or above the threshold. Precision: of the "
        "fired translations on the sets with rated spans, the share in which a rater marked a "
        "major or critical accuracy error (all: that share over every translation of those "
        "sets).",
        "",
        f"| signal | threshold | {keys} | precision (fired) | all |",
        "| --- | --- |" + " --- |" * len(data) + " --- | --- |",
    ]
    for name, ts in THRESHOLDS.items():
        for t in ts:
            fired = [s[name] >= t for s in sig]
            hit = sum(int((f & g).sum()) for f, g in zip(fired, grave) if g is not None)
            n = sum(int(f.sum()) for f, g in zip(fired, grave) if g is not None)
            base = np.concatenate([g for g in grave if g is not None])
            lines.append(
                f"| {name} | {t:g} | "
                + " | ".join(f"{f.mean():.1%}" for f in fired)
                + f" | {hit / n if n else float('nan'):.1%} ({hit}/{n}) | {base.mean():.1%} |"
            )
    lines += ["", "### Under the rule (on top of the shipped blend: " + str(SHIPPED) + ")", ""]
    before = [d.figure(d.scores(SHIPPED)) for d in data]
    lines += [
        f"| signal | threshold | weight | mean | {keys} |",
        "| --- | --- | --- | --- |" + " --- |" * len(data),
        f"| none | | | {mean_of(before):+.4f} | " + " | ".join(f"{x:+.3f}" for x in before) + " |",
    ]
    verdicts = []
    for name, ts in THRESHOLDS.items():
        best = None
        for t in ts:
            for w in WEIGHTS:
                sc = [penalised(d, s[name], t, w) for d, s in zip(data, sig)]
                figs = [d.figure(x) for d, x in zip(data, sc)]
                lines.append(f"| {name} | {t:g} | {w:g} | {mean_of(figs):+.4f} | "
                             + " | ".join(f"{x:+.3f}" for x in figs) + " |")  # fmt: skip
                if best is None or mean_of(figs) > best[0]:
                    best = (mean_of(figs), t, w, sc)
        assert best is not None
        m, t, w, sc = best
        checks = [d.compare(x, d.scores(SHIPPED)) for d, x in zip(data, sc)]
        lower = [d.set.key for d, c in zip(data, checks) if c.worse]
        gain = mean_difference(checks)
        enters = m > mean_of(before) and not lower
        verdicts.append(
            f"**{name}**: best mean at threshold {t:g}, weight {w:g}: {m:+.4f} against "
            f"{mean_of(before):+.4f}; per set (difference [95% interval]): "
            + "; ".join(f"{d.set.key} {c.delta}" for d, c in zip(data, checks))
            + f"; the mean {gain[0]:+.4f} [{gain[1]:+.4f}, {gain[2]:+.4f}]. "
            + verdict(enters, lower)
        )
    lines += ["", *[v + "\n" for v in verdicts]]
    write_markdown(
        f"penalties-{args.variant}", "\n".join(lines), title="Rare meaning-error penalties"
    )


def verdict(enters: bool, lower: list[str]) -> str:
    if enters:
        return "**Enters.**"
    if lower:
        return f"**Stays out**: significantly lower on {', '.join(lower)}."
    return "**Stays out**: the mean does not rise."


def penalised(d: SetData, signal: np.ndarray, threshold: float, weight: float) -> np.ndarray:
    """The shipped blend's scores minus ``weight`` where the signal reaches the threshold."""
    return d.scores(SHIPPED) - weight * (signal >= threshold)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["predict", "report"])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--variant", default="rtm15")
    args = ap.parse_args()
    {"predict": cmd_predict, "report": cmd_report}[args.command](args)


if __name__ == "__main__":
    main()
