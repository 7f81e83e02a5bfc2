"""Run by tests/test_batch_cluster.py in a fresh Python process (a clean Ray state): start a
simulated 3-node cluster, score a file three times -- cleanly, killing one worker process
mid-job, and with a unit that kills its worker whenever it is tried (then run again) -- and
print what happened as one JSON line."""

import json
import os
import signal
import sys
from pathlib import Path


def main(path: str, out: str, en: str, ru: str) -> None:
    os.environ["RAY_AUTH_MODE"] = "disabled"  # a throwaway cluster on this machine
    import ray
    from ray.cluster_utils import Cluster

    from xlscore.batch.distributed import score_dataset
    from xlscore.errors import XLScoreError

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

        # a unit that kills its worker each time it is tried: after a few restarts the job
        # stops, keeping the other units' files; the same job run again then finishes them
        import xlscore.batch.distributed as distributed

        real = distributed._ScoreUnits

        class DiesOnUnit3(real):
            def __call__(self, batch):
                if json.loads(batch["unit"][0])["index"] == 3:
                    os._exit(1)
                return super().__call__(batch)

        distributed._ScoreUnits = DiesOnUnit3
        try:
            score_dataset(path, f"{out}/doomed", scorer=config, workers=2, rows_per_file=6)
            doomed = ""
        except XLScoreError as err:
            doomed = str(err)
        finally:
            distributed._ScoreUnits = real
        # finished units wait in the stage until the consensus pass writes the part files
        doomed_parts = len(list(Path(f"{out}/doomed").glob("_stage/part-*.parquet")))
        resumed = score_dataset(path, f"{out}/doomed", scorer=config, workers=2, rows_per_file=6)
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
                "doomed": doomed,
                "doomed_parts": doomed_parts,
                "resumed": [resumed.units, resumed.skipped_units],
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
