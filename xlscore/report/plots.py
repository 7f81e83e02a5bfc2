"""Figures (matplotlib, object-oriented: no display needed).

* :func:`alignment_map` - the paper's Figure 3: a source sentence and its translations in the
  common space after alignment, reduced to 2-D with UMAP, dashed lines joining anchor pairs,
  each translation's F1 in the legend;
* :func:`correlation_distributions` - the paper's Figure 4: distributions of the per-segment
  Spearman and Kendall values of several metrics;
* :func:`layer_curves` - agreement as a function of the hidden layer.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from xlscore.errors import InputError

_COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]


def _save(fig: Figure, path: str | os.PathLike | None) -> Figure:
    if path is not None:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    return fig


def alignment_map(
    scorer,
    source: str,
    translations: Sequence[str],
    *,
    labels: Sequence[str] | None = None,
    path: str | os.PathLike | None = None,
    variant: str | None = None,
    seed: int = 0,
    title: str | None = None,
) -> Figure:
    """Plot a source and its translations in the aligned space (UMAP to 2-D).

    English words are black, each translation's words (mapped by the scorer's alignment) take
    a colour; dashed lines join anchor pairs; the legend gives each translation's F1.
    ``labels`` name the translations (default ``MT1``, ``MT2``, ...).
    """
    import umap

    if isinstance(translations, str) or not translations:
        raise InputError("alignment_map needs a list of at least one translation")
    corpus = scorer.prepare([source] * len(translations), list(translations))
    aligner = scorer.paper.maps.choose(corpus)
    results = scorer.paper.score_prepared(corpus, variant, aligner=aligner)
    mapped = scorer.paper.map_vectors(corpus.mt, aligner)
    src = corpus.src[0]
    blocks = [src.vectors, *mapped]
    points = torch.nn.functional.normalize(torch.cat(blocks).float(), dim=-1).numpy()
    n = len(points)
    reducer = umap.UMAP(
        n_components=2,
        n_neighbors=max(2, min(15, n - 1)),
        min_dist=0.3,
        metric="cosine",
        random_state=seed,
        init="random" if n < 6 else "spectral",
    )
    xy = reducer.fit_transform(points) if n > 3 else points[:, :2]
    offsets = np.cumsum([0] + [len(b) for b in blocks])
    labels = list(labels) if labels is not None else [f"MT{i + 1}" for i in range(len(mapped))]

    fig = Figure(figsize=(9, 7))
    ax = fig.add_subplot()
    en_xy = xy[offsets[0] : offsets[1]]
    ax.scatter(en_xy[:, 0], en_xy[:, 1], c="black", marker="s", s=28, label="source (English)")
    for (x, y), w in zip(en_xy, src.words):
        ax.annotate(w, (x, y), fontsize=8, xytext=(3, 3), textcoords="offset points")
    for k, (mt, res) in enumerate(zip(corpus.mt, results)):
        color = _COLORS[k % len(_COLORS)]
        pts = xy[offsets[k + 1] : offsets[k + 2]]
        ax.scatter(
            pts[:, 0],
            pts[:, 1],
            c=color,
            s=22,
            alpha=0.85,
            label=f"{labels[k]}: F1 = {res.f1:.3f} ({res.n_anchors} anchors)",
        )
        for (x, y), w in zip(pts, mt.words):
            ax.annotate(
                w, (x, y), fontsize=7, color=color, xytext=(3, -8), textcoords="offset points"
            )
        for e, r in corpus.anchors[k].pairs:
            ax.plot(
                [en_xy[e, 0], pts[r, 0]],
                [en_xy[e, 1], pts[r, 1]],
                ls="--",
                lw=0.8,
                color=color,
                alpha=0.7,
            )
    ax.set_xticks([])
    ax.set_yticks([])
    ax.legend(loc="best", fontsize=8)
    ax.set_title(
        title or f"Source and translations after alignment (UMAP)\n{source[:90]}", fontsize=10
    )
    return _save(fig, path)


def correlation_distributions(
    values: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    path: str | os.PathLike | None = None,
    title: str = "Per-segment correlation with human scores",
) -> Figure:
    """Box plots of per-segment values: ``values[statistic][metric] = [...]``, e.g.
    ``{"Spearman": {"anchors": [...], ...}, "Kendall": {...}}``; one panel per statistic."""
    stats = list(values)
    fig = Figure(figsize=(5 * len(stats), 4.5))
    for i, stat in enumerate(stats):
        ax = fig.add_subplot(1, len(stats), i + 1)
        names = list(values[stat])
        data = [np.asarray(values[stat][m], dtype=float) for m in names]
        ax.boxplot(data, showmeans=True)
        ax.set_xticks(range(1, len(names) + 1), names, rotation=25, ha="right", fontsize=8)
        ax.axhline(0, color="grey", lw=0.8, ls=":")
        ax.set_title(
            f"{stat} (means: " + ", ".join(f"{d.mean():+.2f}" for d in data) + ")", fontsize=9
        )
        ax.set_ylim(-1.05, 1.05)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return _save(fig, path)


def layer_curves(
    curves: Mapping[str, Mapping[int, float]],
    *,
    ylabel: str,
    path: str | os.PathLike | None = None,
    title: str = "",
    marks: Mapping[str, int] | None = None,
) -> Figure:
    """One line per encoder: ``curves[name][layer] = value``; ``marks`` circles a chosen layer."""
    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    for k, (name, curve) in enumerate(curves.items()):
        layers = sorted(curve)
        color = _COLORS[k % len(_COLORS)]
        ax.plot(layers, [curve[L] for L in layers], marker="o", color=color, label=name)
        if marks and name in marks:
            L = marks[name]
            ax.scatter([L], [curve[L]], s=160, facecolors="none", edgecolors=color, lw=2)
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("hidden layer (0 = embeddings)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    return _save(fig, path)
