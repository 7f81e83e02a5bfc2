"""The Ray actors of a batch job (:mod:`xlscore.batch.distributed`): each builds the scorer
once per worker process, then reads one unit of pairs per call and returns its map statistics
(pass 1) or its scored rows with the worker's report (pass 2).

Ray sends these classes to the workers by reference, so they live in this module of the
installed package.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import tempfile
import time
from pathlib import Path

from xlscore.io.pairfiles import PairColumns, Unit, UnitRows, read_unit
from xlscore.io.partfiles import unit_table


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


class _Worker:
    """Base of the Ray actors: builds the scorer once per process."""

    def __init__(self, config: dict, threads: int | None, extras: dict) -> None:
        import ray
        import torch

        from xlscore.scoring.scorer import XLScorer

        if threads:
            torch.set_num_threads(int(threads))
        config = dict(config)
        if "estimator" in extras:  # a user-trained estimator sent by the driver
            path = Path(tempfile.mkdtemp(prefix="xlscore-est-")) / "estimator.safetensors"
            path.write_bytes(ray.get(extras["estimator"]))
            config["estimator"] = str(path)
        if "aligner" in extras:  # the map, sent once through the object store
            config["alignment"] = ray.get(extras["aligner"])
        self.columns = PairColumns(**extras["columns"])
        self.allow_empty = bool(extras["allow_empty"])
        self.scorer = XLScorer.preset(**config)
        self.pid, self.host = os.getpid(), socket.gethostname()

    def _rows(self, batch) -> tuple[Unit, UnitRows, list[int]]:
        unit = Unit.from_dict(json.loads(batch["unit"][0]))
        rows = read_unit(unit, self.columns, allow_empty=self.allow_empty)
        good = [k for k, p in enumerate(rows.problems) if p is None]
        return unit, rows, good


class _MapStatistics(_Worker):
    """Pass 1: a unit's anchor-pair statistics for the corpus map."""

    def __call__(self, batch) -> dict:
        import numpy as np

        unit, rows, good = self._rows(batch)
        stats = {"n_pairs": 0}
        if good:
            corpus = self.scorer.prepare(
                [rows.sources[k] for k in good], [rows.translations[k] for k in good]
            )
            stats = self.scorer.paper.maps.map_statistics(corpus)
        return {
            "unit": np.array([unit.index]),
            "stats": np.array([json.dumps({k: np.asarray(v).tolist() for k, v in stats.items()})]),
        }


class _ScoreUnits(_Worker):
    """Pass 2: a unit's rows, scored, as an Arrow table with the worker's report."""

    def __init__(self, config: dict, threads: int | None, extras: dict) -> None:
        super().__init__(config, threads, extras)
        self.keep_text = bool(extras["keep_text"])

    def __call__(self, batch):
        import pyarrow as pa

        t0 = time.perf_counter()
        unit, rows, good = self._rows(batch)
        results = {}
        if good:
            scored = self.scorer.score(
                [rows.sources[k] for k in good], [rows.translations[k] for k in good]
            )
            results = {k: r.to_dict() for k, r in zip(good, scored)}
        table = unit_table(rows, results, self.keep_text)
        n = table.num_rows
        report = {
            "unit": unit.index,
            "rows": n,
            "errors": n - len(good),
            "worker_pid": self.pid,
            "host": self.host,
            "peak_rss_mb": _peak_rss_mb(),
            "seconds": time.perf_counter() - t0,
        }
        return (
            table.append_column("_unit", pa.array([unit.index] * n, pa.int64()))
            .append_column("_row", pa.array(range(n), pa.int64()))
            .append_column("_report", pa.array([json.dumps(report)] * n))
        )
