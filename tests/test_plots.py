"""Figures are written and show what they claim."""

import numpy as np

from xlscore.report.plots import correlation_distributions, layer_curves


def test_correlation_distributions(tmp_path):
    rng = np.random.default_rng(0)
    values = {
        s: {"a": rng.uniform(-1, 1, 50).tolist(), "b": rng.uniform(-1, 1, 30).tolist()}
        for s in ("Spearman", "Kendall")
    }
    fig = correlation_distributions(values, path=tmp_path / "d.png")
    assert (tmp_path / "d.png").read_bytes()[:4] == b"\x89PNG"
    assert len(fig.axes) == 2
    title = fig.axes[0].get_title()
    assert f"{np.mean(values['Spearman']['a']):+.2f}" in title


def test_layer_curves(tmp_path):
    fig = layer_curves(
        {"x": {0: 0.1, 1: 0.3, 2: 0.2}}, ylabel="k", marks={"x": 1}, path=tmp_path / "l.png"
    )
    line = fig.axes[0].lines[0]
    assert list(line.get_xdata()) == [0, 1, 2] and list(line.get_ydata()) == [0.1, 0.3, 0.2]
    assert (tmp_path / "l.png").stat().st_size > 1000
