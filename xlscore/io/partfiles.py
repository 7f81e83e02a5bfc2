"""The output of a batch job: one Parquet file per work unit of
:mod:`xlscore.io.pairfiles`, ``part-NNNNNN.parquet`` (rows in input order), with one schema
for every file (:func:`output_schema`), written to a temporary name and renamed, with the
signature and the job's key in its metadata: a job started again skips the files that are
complete (:func:`finished_units`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from xlscore.io import schema
from xlscore.io.pairfiles import Unit, UnitRows

META_SIGNATURE, META_JOB, META_UNIT = b"xlscore.scoring.signature", b"xlscore.job", b"xlscore.unit"


def output_schema(keep_text: bool):
    """The Arrow schema of every output file: ``id``, ``engine``, the result's columns
    (:mod:`xlscore.io.schema`: the keys of what ``xlscore score --format json`` writes per
    row), the row's ``error``, and optionally the two texts."""
    import pyarrow as pa

    fields = [("id", pa.string()), ("engine", pa.string())]
    fields += [(c.name, schema.arrow_type(c.kind)) for c in schema.COLUMNS]
    fields.append(("error", pa.string()))
    if keep_text:
        fields += [("source", pa.string()), ("translation", pa.string())]
    return pa.schema(fields)


def unit_table(rows: UnitRows, results: dict[int, dict], keep_text: bool):
    """One unit's output table: ``results`` maps row positions to
    :meth:`ScoreResult.to_dict` values; rows without one carry their problem."""
    import pyarrow as pa

    schema = output_schema(keep_text)
    score_fields = [
        f.name for f in schema if f.name not in ("id", "engine", "error", "source", "translation")
    ]
    cols: dict[str, list] = {f.name: [] for f in schema}
    for k in range(len(rows.ids)):
        cols["id"].append(rows.ids[k])
        cols["engine"].append(rows.engines[k])
        res = results.get(k)
        for name in score_fields:
            cols[name].append(None if res is None else res[name])
        cols["error"].append(rows.problems[k])
        if keep_text:
            cols["source"].append(rows.sources[k])
            cols["translation"].append(rows.translations[k])
    return pa.table(cols, schema=schema)


def part_path(out_dir: Path, unit: int) -> Path:
    return out_dir / f"part-{unit:06d}.parquet"


def write_part(out_dir: Path, unit: Unit, table, *, signature: str, job: str) -> Path:
    """Write a unit's table to its part file, atomically, with the signature, the job's key
    and the unit in the file's metadata."""
    import pyarrow.parquet as pq

    meta = dict(table.schema.metadata or {})
    meta.update(
        {
            META_SIGNATURE: signature.encode(),
            META_JOB: job.encode(),
            META_UNIT: json.dumps(unit.to_dict()).encode(),
        }
    )
    path = part_path(out_dir, unit.index)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table.replace_schema_metadata(meta), tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def finished_units(out_dir: Path, job: str, units: Sequence[Unit]) -> set[int]:
    """Units whose part file is complete and was written by this job (same key, same row
    count); temporary files of an interrupted write are removed."""
    import pyarrow.parquet as pq

    for tmp in out_dir.glob(".part-*.tmp"):
        tmp.unlink(missing_ok=True)
    done = set()
    for u in units:
        path = part_path(out_dir, u.index)
        if not path.exists():
            continue
        try:
            f = pq.ParquetFile(path)
        except (OSError, ValueError):
            continue  # damaged: written again
        meta = f.schema_arrow.metadata or {}
        if meta.get(META_JOB) == job.encode() and f.metadata.num_rows == u.rows:
            done.add(u.index)
    return done


def job_key(files: Sequence[Path], units: Sequence[Unit], settings: dict) -> str:
    """Digest of what a job's output depends on: each input file's path, size and
    modification time, the units, and the settings (scorer, columns, options)."""
    h = hashlib.sha256()
    for f in files:
        st = f.stat()
        h.update(f"{f}\x00{st.st_size}\x00{st.st_mtime_ns}\n".encode())
    h.update(json.dumps([u.to_dict() for u in units], sort_keys=True).encode())
    h.update(json.dumps(settings, sort_keys=True, default=str).encode())
    return h.hexdigest()[:20]
