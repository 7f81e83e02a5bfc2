"""The report page's two plots as inline SVG (matplotlib figures made without pyplot, so no
backend or global state of the caller's matplotlib is touched).

* ``distribution``: one row per engine, each segment's score a dot (rows never share space),
  the engine's mean a black bar with its value written beside the row;
* ``length``: the mean score of each engine in bins of source length of equal counts, as
  dots side by side per bin (no lines: bins are categories, and no bin is drawn empty).

Plots carry no input text: engines are numbered ``E1``, ``E2``... (the page names them in an
escaped legend). Each row or engine's marks sit in an SVG group with a fixed id
(``dist-E1``, ``len-E1``...), so a test can find and measure them.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import numpy as np

from xlscore.results import ScoreResult

#: engine colours (the plots and the page use the same ones)
COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
#: the widest a plot is drawn (inches at 72 px each: 640 px)
WIDTH = 8.9


def colour(k: int) -> str:
    """Engine ``k``'s colour (0-based)."""
    return COLOURS[k % len(COLOURS)]


def _svg(fig) -> str:
    """A matplotlib figure as an inline ``<svg>`` element (no XML prolog, fixed ids)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg") :]


def _jitter(n: int) -> np.ndarray:
    """``n`` vertical offsets in [-0.27, 0.27], spread evenly and deterministically."""
    if n <= 1:
        return np.zeros(n)
    return ((np.arange(n) * 0.618034) % 1.0 - 0.5) * 0.54


def distribution_figure(scores: Mapping[str, np.ndarray]):
    """Segment scores per engine, one row each (engine 1 on top), means marked."""
    from matplotlib.figure import Figure

    names = list(scores)
    n = len(next(iter(scores.values())))
    fig = Figure(figsize=(WIDTH, 0.55 + 0.5 * len(names)))
    ax = fig.subplots()
    alpha = 0.85 if n <= 50 else max(0.15, 0.85 * (50 / n) ** 0.5)
    size = 26 if n <= 50 else 10
    for k, name in enumerate(names):
        y = len(names) - 1 - k
        v = scores[name]
        dots = ax.scatter(v, y + _jitter(len(v)), s=size, color=colour(k), alpha=alpha, lw=0)
        dots.set_gid(f"dist-E{k + 1}")
        mean = float(v.mean())
        bar = ax.plot([mean, mean], [y - 0.36, y + 0.36], color="black", lw=2.2)[0]
        bar.set_gid(f"dist-mean-E{k + 1}")
        ax.annotate(
            f"mean {mean:+.2f}",
            (1.0, y),
            xycoords=("axes fraction", "data"),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_yticks(range(len(names)), [f"E{len(names) - y}" for y in range(len(names))])
    ax.set_ylim(-0.5, len(names) - 0.5)
    for y in range(len(names) - 1):
        ax.axhline(y + 0.5, color="#e4e4e4", lw=0.8)
    ax.set_xlabel("segment score (each dot a segment; black bar: the mean)")
    ax.spines[["top", "right"]].set_visible(False)
    fig.subplots_adjust(left=0.06, right=0.87, top=0.97, bottom=0.62 / fig.get_figheight())
    return fig


def length_bins(lengths: np.ndarray, most: int = 5) -> list[np.ndarray]:
    """Segment indices in bins of source length of (near) equal counts, shortest first: at
    most ``most`` bins and at least four segments each where there are that many; no bin is
    empty and equal lengths share a bin."""
    order = np.argsort(lengths, kind="stable")
    count = max(1, min(most, len(lengths) // 4))
    bins: list[list[int]] = []
    for part in np.array_split(order, count):
        if not len(part):
            continue
        # a length cut between two bins moves whole into the earlier one
        if bins and lengths[bins[-1][-1]] == lengths[part[0]]:
            bins[-1].extend(int(i) for i in part)
        else:
            bins.append([int(i) for i in part])
    return [np.array(sorted(b, key=lambda i: (lengths[i], i))) for b in bins]


def length_figure(scores: Mapping[str, np.ndarray], lengths: np.ndarray):
    """Each engine's mean score per bin of source length, dots side by side per bin."""
    from matplotlib.figure import Figure

    names = list(scores)
    bins = length_bins(lengths)
    fig = Figure(figsize=(WIDTH, 2.9))
    ax = fig.subplots()
    step = 0.7 / max(1, len(names))
    for k, name in enumerate(names):
        xs = [b + (k - (len(names) - 1) / 2) * step for b in range(len(bins))]
        means = [float(scores[name][idx].mean()) for idx in bins]
        dots = ax.scatter(xs, means, s=34, color=colour(k), zorder=3, lw=0)
        dots.set_gid(f"len-E{k + 1}")
    labels = [
        f"{lengths[idx].min()}–{lengths[idx].max()} words\n{len(idx)} segment"
        + ("s" if len(idx) != 1 else "")
        for idx in bins
    ]
    ax.set_xticks(range(len(bins)), labels)
    ax.set_xlim(-0.6, len(bins) - 0.4)
    for b in range(len(bins) - 1):
        ax.axvline(b + 0.5, color="#e4e4e4", lw=0.8)
    ax.set_ylabel("mean score")
    ax.spines[["top", "right"]].set_visible(False)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.96, bottom=0.22)
    return fig


def page_plots(
    names: list[str],
    source_lengths: Sequence[int],
    results: Sequence[Mapping[str, ScoreResult]],
) -> dict[str, str]:
    """The page's two plots as ``{"distribution": svg, "length": svg}``."""
    import matplotlib

    scores = {n: np.array([by[n].score for by in results], dtype=float) for n in names}
    lengths = np.asarray(source_lengths, dtype=int)
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "xlscore", "font.size": 9}):
        return {
            "distribution": _svg(distribution_figure(scores)),
            "length": _svg(length_figure(scores, lengths)),
        }
