"""The output folder of a batch job: its manifest (which job's output it holds, and whether
the job completed), made ready for a job or refused when another job's output is there, and
the error rows of the part files a previous run of the job wrote.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from xlscore.errors import XLScoreError
from xlscore.io.partfiles import part_path

MANIFEST = "_xlscore_job.json"
MAP_FILE = "_xlscore_map.npz"
#: Ray's native log lines of the last run (:mod:`xlscore.batch.console`)
RAY_LOG = "_ray.log"
#: the folder where the units' scores before the consensus wait for it
STAGE = "_stage"


def _count_errors(out: Path, units: set[int]) -> int:
    """Error rows in the part files a previous run wrote."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    return sum(
        int(
            pc.sum(
                pc.is_valid(pq.read_table(part_path(out, u), columns=["error"]).column("error"))
            ).as_py()
            or 0
        )
        for u in units
    )


def _prepare_output(out: Path, key: str, settings: dict, n_units: int, overwrite: bool) -> None:
    """Make the output folder ready for this job; another job's output in it is an error
    unless ``overwrite`` (then it is removed)."""
    manifest = out / MANIFEST
    if out.exists() and not out.is_dir():
        raise XLScoreError(f"{out} exists and is not a folder")
    if manifest.exists():
        try:
            old = json.loads(manifest.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
        if old.get("job") != key:
            if not overwrite:
                raise XLScoreError(
                    f"{out} holds the output of another job (other inputs or "
                    f"settings); give a new folder or --overwrite"
                )
            for f in [*out.glob("part-*.parquet"), out / MAP_FILE, manifest]:
                f.unlink(missing_ok=True)
            shutil.rmtree(out / STAGE, ignore_errors=True)
    elif out.exists() and any(out.glob("part-*.parquet")):
        if not overwrite:
            raise XLScoreError(
                f"{out} holds part files that xlscore did not record; give a "
                f"new folder or --overwrite"
            )
        for f in out.glob("part-*.parquet"):
            f.unlink()
    out.mkdir(parents=True, exist_ok=True)
    _write_manifest(out, key, settings, n_units, signature=None, complete=False)


def _write_manifest(
    out: Path, key: str, settings: dict, n_units: int, *, signature: str | None, complete: bool
) -> None:
    from xlscore.io.cache import atomic_write_bytes

    data = {
        "job": key,
        "units": n_units,
        "complete": complete,
        "signature": signature,
        "settings": settings,
    }
    atomic_write_bytes(out / MANIFEST, json.dumps(data, indent=1, default=str).encode())
