"""The consensus pass of a batch job (:mod:`xlscore.batch.distributed`): every source's
candidates gathered across the staged units with a Ray Data ``groupby`` on a digest of the
source text, their consensus blended into their scores as ``xlscore score`` blends it
(:func:`xlscore.metric.consensus.group_consensus`), and each unit's final part file written.

The two task functions run on Ray's workers, so they live in this module of the installed
package.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from xlscore.batch.console import progress_bar
from xlscore.batch.output import STAGE
from xlscore.io.pairfiles import PairColumns, Unit, read_unit
from xlscore.io.partfiles import part_path, write_part


def consensus_rows(batch, stage: str, columns: dict, allow_empty: bool) -> dict:
    """Consensus pass, step 1 (a Ray Data task per unit): the unit's rows that can take part
    in a consensus -- scored, no error, no flag -- each with its source's key (a digest of
    the source as given), its place (unit, row), its translation and its score before the
    consensus, read from the unit's staged part file."""
    import hashlib

    import numpy as np
    import pyarrow.parquet as pq

    unit = Unit.from_dict(json.loads(batch["unit"][0]))
    rows = read_unit(unit, PairColumns(**columns), allow_empty=allow_empty)
    staged = pq.read_table(
        part_path(Path(stage), unit.index), columns=["score", "flags", "error"]
    ).to_pydict()
    keep = [
        k
        for k, (score, flags, error) in enumerate(
            zip(staged["score"], staged["flags"], staged["error"])
        )
        if score is not None and error is None and not flags
    ]
    return {
        "key": np.array(
            [hashlib.sha256(rows.sources[k].encode("utf-8")).hexdigest() for k in keep],
            dtype=object,
        ),
        "unit": np.array([unit.index] * len(keep), dtype=np.int64),
        "row": np.array(keep, dtype=np.int64),
        "translation": np.array([rows.translations[k] for k in keep], dtype=object),
        "score": np.array([staged["score"][k] for k in keep], dtype=np.float64),
    }


def consensus_group(group, weight: float, least: int) -> dict:
    """Consensus pass, step 2 (Ray Data ``map_groups``): one source's candidates, in input
    order, with their agreement and blended scores
    (:func:`xlscore.metric.consensus.group_consensus`, as ``xlscore score`` takes them);
    nothing for a source with fewer than ``least`` candidates."""
    import numpy as np

    from xlscore.metric.consensus import group_consensus

    order = np.lexsort((group["row"], group["unit"]))
    if len(order) < least:
        order = order[:0]
    texts = [str(t) for t in group["translation"][order]]
    agree, scores = (
        group_consensus(texts, [float(s) for s in group["score"][order]], weight)
        if len(order)
        else ([], [])
    )
    return {
        "unit": group["unit"][order],
        "row": group["row"][order],
        "score": np.array(scores, dtype=np.float64),
        "consensus": np.array(agree, dtype=np.float64),
    }


def finish_consensus(
    ray,
    units: Sequence[Unit],
    done: set[int],
    extras: dict,
    pool: dict,
    out: Path,
    key: str,
    signature: str,
    weight: float,
    progress: bool,
) -> None:
    """The consensus pass: gather every source's candidates across the staged units with a
    Ray Data ``groupby`` on the source's digest, blend each group's consensus into its
    scores, and write each unit's final part file (the staged one with its ``score`` and
    ``consensus`` replaced); the stage is removed once every part file is written."""
    import shutil

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from xlscore.final_score import CONSENSUS_MIN

    stage = out / STAGE
    ds = ray.data.from_items(
        [{"unit": json.dumps(u.to_dict())} for u in units], override_num_blocks=max(1, len(units))
    )
    rows = ds.map_batches(
        consensus_rows,
        batch_size=1,
        fn_kwargs={
            "stage": str(stage),
            "columns": extras["columns"],
            "allow_empty": extras["allow_empty"],
        },
        num_cpus=pool["cpus"],
    )
    blended = rows.groupby("key").map_groups(
        consensus_group,
        fn_kwargs={"weight": weight, "least": CONSENSUS_MIN},
        batch_format="numpy",
        num_cpus=pool["cpus"],
    )
    changes: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    with progress_bar(sum(u.rows for u in units), progress, "consensus") as bar:
        for batch in blended.iter_batches(batch_size=None, batch_format="numpy"):
            for u in np.unique(batch["unit"]):
                at = batch["unit"] == u
                changes.setdefault(int(u), []).append(
                    (batch["row"][at], batch["score"][at], batch["consensus"][at])
                )
            bar.update(len(batch["unit"]))
    for u in units:
        if u.index in done:
            continue
        table = pq.read_table(part_path(stage, u.index))
        score = table.column("score").to_pylist()
        consensus = table.column("consensus").to_pylist()
        for at, s, c in changes.get(u.index, []):
            for k, sk, ck in zip(at.tolist(), s.tolist(), c.tolist()):
                score[k], consensus[k] = sk, ck
        for name, values in (("score", score), ("consensus", consensus)):
            i = table.schema.get_field_index(name)
            table = table.set_column(i, table.schema.field(i), pa.array(values, pa.float64()))
        write_part(out, u, table.replace_schema_metadata(None), signature=signature, job=key)
    shutil.rmtree(stage, ignore_errors=True)
