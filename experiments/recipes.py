"""Training recipes compared where the estimate fails: the two TED talks sets beside the news
sets (issue 72).

    python experiments/recipes.py --data-dir ../shared/data rtm15 plain-s0 plain-talks ...

Each variant's figures come from its committed fold predictions (``results/folds/VARIANT/``,
``tools/sets.py``): every set read by the fold model that never trained on it, each talks
set among them (a variant trained with the talks trains each fold on the talks set it does not
read). Per variant:

* **each talks set**: per-segment Kendall of the **estimate** (the score of each translation on
  its own: the sentence head with the shipped default's check weight, no consensus) and of the
  **blend** (the same with the engines of a source scored together, at the default's consensus
  weight), and the blend's system Kendall;
* **news**: the mean per-segment Kendall over the six news sets with many engines per source,
  estimate and blend, and the blend's paired difference from ``rtm15``'s (today's recipe) with
  its 95% interval (:func:`rule.mean_difference`);
* **WMT22 dev**: Spearman of the estimate (one translation per source);
* **challenge**: the hand-written minimal pairs ranked right by the default scorer with the
  variant's ``lodo-qe22`` fold model (a model never trained on them); ``—`` when that model is
  not kept;
* **word MCC**: the word head's tags on the WMT22 dev tags (its ``lodo-qe22`` fold, at the
  recipe's span threshold); ``—`` for a recipe without a word head.

A second table gives each news set with many engines per source on its own (estimate and
blend), so that a recipe whose ``lodo-qe22`` fold is not trained yet still shows the news sets
its ``lodo-news`` fold reads. A cell is ``—`` where the fold that reads it has not been trained
yet.

Writes ``results/recipes.md`` and the same table into ``results/estimator.md``'s section
*Recipes on the talks*.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
import folds
from _protocol import CACHE, RTM15_FILE, git_file
from _results import RECIPES_SECTION, into_estimator_md, write_markdown
from gate import Shipping, challenge_outcomes, shipping, word_tags
from rule import Blend, SetData, load_data, mean_difference, mean_of
from sets import load_validation_sets

from xlscore.estimator.model import shipped
from xlscore.evaluation.gate import mcc_of_counts, token_counts

#: the talks sets, in the table's order
TALKS = ("talks-ende", "talks")
#: today's recipe, which the news mean is compared with
TODAY = "rtm15"
#: the news sets with many engines per source
NEWS = ("news", "da", "ende20", "ende21", "zhen20", "zhen21")


def fold_file(variant: str) -> Path | None:
    """The variant's ``lodo-qe22`` fold model, if kept (``rtm15``'s from git)."""
    if variant == "rtm15":
        return git_file(*RTM15_FILE)
    f = CACHE / variant / "lodo-qe22" / "full.safetensors"
    return f if f.exists() else None


def word_mcc(data_dir: Path, variant: str, qe22: SetData) -> float | None:
    """The word head's MCC on the WMT22 dev tags at the recipe's span threshold (the gate's
    tags of a file without a threshold of its own)."""
    tag_rows, predicted = word_tags(data_dir, variant, Shipping(Blend(), None), list(qe22.set.rows))
    if predicted is None:
        return None
    return float(mcc_of_counts(token_counts(predicted, [t.gold for t in tag_rows]).sum(0)))


def read_sets(data_dir: Path, variant: str, judged: list) -> dict[str, SetData]:
    """The sets a variant's folds have read so far, by key (a recipe whose ``lodo-qe22``
    fold is still training has only its ``lodo-news`` fold's sets: the others show ``—``)."""
    return {d.set.key: d for d in load_data(data_dir, variant, judged, partial=True)}


def row(
    data_dir: Path, variant: str, data: dict[str, SetData], blend: Blend, today: dict[str, SetData]
) -> list[str]:
    """One variant's cells from its sets (``data``, :func:`read_sets`; ``today``:
    :data:`TODAY`'s, for the paired news check)."""
    alone = replace(blend, consensus=0.0)
    cells = [f"`{variant}`"]
    for key in TALKS:
        d = data.get(key)
        if d is None:
            cells.append("—")
            continue
        together = d.scores(blend)
        cells.append(
            f"{d.figure(d.scores(alone)):+.3f} / {d.figure(together):+.3f} "
            f"({d.system_kendall(together):+.3f})"
        )
    if all(k in data for k in NEWS):
        news = [data[k] for k in NEWS]
        diff = mean_difference(
            [d.compare(d.scores(blend), today[d.set.key].scores(blend)) for d in news]
        )
        cells.append(
            f"{mean_of([d.figure(d.scores(alone)) for d in news]):+.4f} / "
            f"{mean_of([d.figure(d.scores(blend)) for d in news]):+.4f} "
            f"({diff[0]:+.4f} [{diff[1]:+.4f}, {diff[2]:+.4f}])"
        )
    else:
        cells.append("—")
    qe22 = data.get("qe22")
    cells.append(f"{qe22.figure(qe22.scores(alone)):+.3f}" if qe22 else "—")
    model = fold_file(variant)
    if model is None:
        cells.append("—")
    else:
        won = challenge_outcomes(model)
        cells.append(f"{sum(map(sum, won.values()))} of {sum(map(len, won.values()))}")
    mcc = word_mcc(data_dir, variant, qe22) if qe22 else None
    cells.append("—" if mcc is None else f"{mcc:+.3f}")
    cells.append(folds.config(variant).get("note", "") or "")
    return cells


def news_row(variant: str, data: dict[str, SetData], blend: Blend) -> list[str]:
    """One variant's per-segment Kendall on each news set with many engines per source
    (``data``, :func:`read_sets`), estimate / blend (``—`` where the fold that reads the set
    has not been trained yet)."""
    alone = replace(blend, consensus=0.0)
    cells = [f"`{variant}`"]
    for key in NEWS:
        d = data.get(key)
        cells.append(
            "—"
            if d is None
            else f"{d.figure(d.scores(alone)):+.3f} / {d.figure(d.scores(blend)):+.3f}"
        )
    return cells


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="+", help="variant names under results/folds/")
    ap.add_argument("--data-dir", required=True, type=Path)
    args = ap.parse_args()
    default = shipping(shipped().path).blend
    judged = load_validation_sets(args.data_dir)
    today = read_sets(args.data_dir, TODAY, judged)
    sets = {v: today if v == TODAY else read_sets(args.data_dir, v, judged) for v in args.variants}
    lines = [
        "Each figure from the fold model that never trained on the set (`tools/sets.py`); "
        f"the default's blend ({default}): the **estimate** is it without the consensus, the "
        "**blend** with the engines of a source scored together. Talks and news: per-segment "
        "Kendall (system Kendall of the blend in brackets); WMT22 dev: Spearman; challenge: "
        "minimal pairs ranked right with the `lodo-qe22` fold model; word MCC: the word head on "
        "the WMT22 dev tags at its recipe's threshold.",
        "",
        "| recipe | en-de talks: estimate / blend (system) | zh-en talks: estimate / blend "
        f"(system) | news many-engine mean: estimate / blend (blend − `{TODAY}`'s [95%]) "
        "| WMT22 dev | challenge | word MCC "
        "| what it is |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        *[
            "| " + " | ".join(row(args.data_dir, v, sets[v], default, today)) + " |"
            for v in args.variants
        ],
        "",
        "Each news set with many engines per source on its own (estimate / blend, per-segment "
        "Kendall): the `lodo-news` fold reads en-ru newstest MQM and DA and en-de newstest2021, "
        "the `lodo-qe22` fold the other three.",
        "",
        "| recipe | " + " | ".join(NEWS) + " |",
        "| --- |" + " --- |" * len(NEWS),
        *["| " + " | ".join(news_row(v, sets[v], default)) + " |" for v in args.variants],
    ]
    body = "\n".join(lines)
    write_markdown("recipes", body, title="Training recipes on the talks (issue 72)")
    into_estimator_md(RECIPES_SECTION, body)


if __name__ == "__main__":
    main()
