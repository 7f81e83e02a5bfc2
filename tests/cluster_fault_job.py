"""Run by tests/test_batch_cluster.py in a fresh Python process (a clean Ray state): start a
simulated 3-node cluster, score a file twice -- cleanly, then killing one worker process
mid-job -- and print what happened as one JSON line."""

import json
import os
import signal
import sys


def main(path: str, out: str, en: str, ru: str) -> None:
    os.environ["RAY_AUTH_MODE"] = "disabled"  # a throwaway cluster on this machine
    import ray
    from ray.cluster_utils import Cluster

    from xlscore.batch.distributed import score_dataset

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    try:
        nodes = len([n for n in ray.nodes() if n["Alive"]])
        config = {"en_model": en, "ru_model": ru, "estimator": None, "alignment": "dictionary"}
        clean = score_dataset(path, f"{out}/clean", scorer=config, workers=2, rows_per_file=6)
        killed: list[int] = []

        def kill_a_worker(report):
            if not killed:
                os.kill(report.worker_pid, signal.SIGKILL)
                killed.append(report.worker_pid)

        faulty = score_dataset(
            path, f"{out}/faulty", scorer=config, workers=2, rows_per_file=6, on_unit=kill_a_worker
        )
    finally:
        ray.shutdown()
        cluster.shutdown()
    print(
        "RESULT "
        + json.dumps(
            {
                "nodes": nodes,
                "killed": killed,
                "units": [clean.units, faulty.units],
                "faulty_reports": [[r.unit, r.worker_pid] for r in faulty.reports],
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
