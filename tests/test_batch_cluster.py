"""Fault tolerance on a simulated 3-node Ray cluster (``ray.cluster_utils.Cluster``): a
worker process killed mid-job, its units retried, the output complete with no row lost or
duplicated and equal to a clean run's. The cluster runs from a fresh Python process
(``cluster_fault_job.py``), as a user's driver would, away from the Ray state of other
tests. A unit that kills its worker whenever it is tried stops the job after a few restarts.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.slow  # Ray, a browser or a notebook kernel: the full run only


def test_a_killed_worker_loses_and_duplicates_nothing(tmp_path, wordpiece_dir, unigram_dir):
    path = tmp_path / "pairs.jsonl"
    words = ["кусок", "бумага", "кот", "сложенный", "что-то", "стол"]
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(96):
            fh.write(
                json.dumps(
                    {
                        "source": f"the cat sat on a mat {i} times",
                        "translation": f"{words[i % 6]} {words[(i * 5) % 6]} {i}",
                        "engine": "e",
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    home = tmp_path / "home"
    home.mkdir()
    job = Path(__file__).with_name("cluster_fault_job.py")
    r = subprocess.run(
        [sys.executable, str(job), str(path), str(tmp_path), str(wordpiece_dir), str(unigram_dir)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "HOME": str(home)},
    )
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert r.returncode == 0 and line, r.stderr[-3000:]
    res = json.loads(line[7:])
    assert res["nodes"] == 3 and res["units"] == [16, 16] and len(res["killed"]) == 1
    # every unit written once; the units the killed actor held were retried by the process
    # Ray started in its place (two actors + one restart)
    assert sorted(u for u, _ in res["faulty_reports"]) == list(range(16))
    assert len({pid for _, pid in res["faulty_reports"]}) >= 3
    a, b = pq.read_table(tmp_path / "clean"), pq.read_table(tmp_path / "faulty")
    ids = b.column("id").to_pylist()
    assert len(ids) == len(set(ids)) == 96
    assert ids == a.column("id").to_pylist()
    assert np.allclose(a.column("score").to_numpy(), b.column("score").to_numpy(), atol=1e-6)
    assert a.column("anchors").to_pylist() == b.column("anchors").to_pylist()
    # a unit that kills its worker every time: after a few restarts the job stops with one
    # line saying the finished files are kept (Ray's default would retry it for ever), and
    # the same job run again scores only what is missing
    assert res["doomed"].startswith("Ray stopped the job: ")
    assert "the same command continues from them" in res["doomed"]
    assert 0 < res["doomed_parts"] < 16
    assert res["resumed"] == [16, res["doomed_parts"]]
    c = pq.read_table(tmp_path / "doomed")
    assert c.column("id").to_pylist() == a.column("id").to_pylist()
