"""Levers on the recipe (issue 51, item 5), judged by the rule's sets on the leave-newstest-out
fold: weight averaging of two seeds (a soup: one model) and their prediction ensemble (two
models), COMET's recipe (layer-wise learning-rate decay 0.95, the encoder frozen for the first
0.3 epoch) and the ranking loss within sources (``--rank-weight 1``), each against ``rtm15``,
the recipe of the shipped default.

    python experiments/recipes.py --data-dir ../shared/data

Each candidate is a variant trained with ``estimator.py run --folds lodo-news`` (the commands
are in ``docs/estimator.md``); its model reads the three sets that fold never saw — en-ru
newstest2021 MQM and DA, en-de newstest2021 MQM (:mod:`sets`) — compressed as the default
ships, and is scored as the default is (sentence head + 0.005 × meaning head − 0.25 per check
finding). Its predictions are written to ``results/folds/VARIANT/SET.tsv`` (read back when
there), so the table is made again from git alone. Only one fold: on 2 CPU cores the other
(leave-WMT22-out, about 50 minutes a variant) was not trained, so these are three of the nine
sets, validation figures for a choice, not held-out ones.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from _protocol import CACHE, RTM15_FILE, git_file
from _results import write_markdown
from rule import Blend, SetData, mean_difference, mean_of
from sets import _fold_file, load_validation_sets, parts, predict_set, predictions

#: the shipped default's blend
SHIPPED = Blend(meaning=0.005, checks=0.25)
#: the candidates: name -> (what it is, the variants whose models it averages)
CANDIDATES = {
    "rtm15": ("the shipped default's recipe (seed 0)", ("rtm15",)),
    "rtm15r1": ("the same recipe, seed 1", ("rtm15r1",)),
    "rtm15+soup2": ("weights of seeds 0 and 1 averaged (one model)", ("rtm15", "rtm15r1")),
    "rtm15c": ("COMET's recipe: layer decay 0.95, encoder frozen for 0.3 epoch", ("rtm15c",)),
    "rtm15rk": ("ranking loss within sources, weight 1", ("rtm15rk",)),
}
FOLD = "lodo-news"


def _model(members: tuple[str, ...]):
    """The fold model of one variant, or the weight average of several, as it would ship
    (compressed at the default's rank and width)."""
    import torch
    from distill import teacher

    models = [teacher(m, FOLD, git_file(*RTM15_FILE)) for m in members]
    est = models[0]
    if len(models) > 1:
        params = [dict(m.model.named_parameters()) for m in models]
        with torch.no_grad():
            for k, p in params[0].items():
                p.copy_(sum(q[k] for q in params) / len(params))
    est.meaning_blend = 0.0
    return est


def predict(name: str, members: tuple[str, ...], sets: list) -> None:
    """Write a candidate's predictions on each set (once)."""
    todo = [vs for vs in sets if not _fold_file(name, vs).exists()]
    if not todo:
        return
    missing = [m for m in members if not (CACHE / m / FOLD / "full.safetensors").exists()]
    if missing:
        raise SystemExit(f"{missing[0]} has no {FOLD} model: run estimator.py run first")
    est = _model(members)
    for vs in todo:
        predict_set(est, name, vs)


def standardised(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / x.std()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    args = ap.parse_args()
    sets = [vs for vs in load_validation_sets(args.data_dir) if vs.fold == FOLD]
    data: dict[str, list[SetData]] = {}
    for name, (_, members) in CANDIDATES.items():
        if name != "rtm15":  # rtm15's are the committed predictions of the rule
            predict(name, members, sets)
        data[name] = []
        for vs in sets:
            got = predictions(name, vs)
            assert got is not None
            data[name].append(SetData(vs, got[0], got[1], parts(vs)))
    scores = {name: [d.scores(SHIPPED) for d in ds] for name, ds in data.items()}
    # the ensemble: the two seeds' standardised scores averaged (two models' cost)
    scores["rtm15+ens2"] = [(standardised(a) + standardised(b)) / 2
                            for a, b in zip(scores["rtm15"], scores["rtm15r1"])]  # fmt: skip
    keys = [vs.key for vs in sets]
    lines = [
        "| candidate | what it is | mean | "
        + " | ".join(f"{k} per-seg | {k} system" for k in keys)
        + " | against rtm15: per set (difference [95% interval]) | mean difference |",
        "| --- | --- | --- |" + " --- | --- |" * len(keys) + " --- | --- |",
    ]
    what = {n: w for n, (w, _) in CANDIDATES.items()}
    what["rtm15+ens2"] = "standardised scores of seeds 0 and 1 averaged (two models)"
    ref = data["rtm15"]  # the sets, in order
    for name, xs in scores.items():
        figs = [d.figure(x) for d, x in zip(ref, xs)]
        sys_ = [d.system_kendall(x) for d, x in zip(ref, xs)]
        cells = " | ".join(f"{f:+.3f} | {s:+.3f}" for f, s in zip(figs, sys_))
        versus, gain = "", ""
        if name != "rtm15":
            checks = [d.compare(x, b) for d, x, b in zip(ref, xs, scores["rtm15"])]
            versus = "; ".join(f"{d.set.key} {c.delta}" for d, c in zip(ref, checks))
            m, lo, hi = mean_difference(checks)
            gain = f"{m:+.4f} [{lo:+.4f}, {hi:+.4f}]"
        lines.append(f"| `{name}` | {what[name]} | {mean_of(figs):+.4f} | {cells} | {versus} "
                     f"| {gain} |")  # fmt: skip
    body = [
        "The leave-newstest-out fold's three sets (`experiments/sets.py`), each candidate scored "
        "as the shipped default is (sentence head + 0.005 × meaning head − 0.25 per check "
        "finding); per-segment Kendall (tau-b, sources with at least three distinct human "
        "scores) and system Kendall; the mean is over the three per-segment figures. Paired "
        "bootstrap over sources against `rtm15` (1,000 resamples).",
        "",
        *lines,
    ]
    write_markdown(f"recipes-{FOLD}", "\n".join(body), title="Levers on the recipe")


if __name__ == "__main__":
    main()
