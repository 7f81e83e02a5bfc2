"""The consensus pass of a batch job (:mod:`xlscore.batch.distributed`): every source's
candidates gathered across the staged units with a Ray Data ``groupby`` on a digest of the
source text, their consensus blended into their scores as ``xlscore score`` blends it
(:func:`xlscore.scoring.consensus.group_consensus`), and each unit's final part file written.

Rows are engines' translations of one source only when the input says so, as the files'
positions say it for ``xlscore score``: a row takes part only with a value in the engine
column, and the ``k``-th row of each engine with a given source (in input order) is one
segment with the ``k``-th row of every other engine with that source. Rows without an
engine, and a corpus whose sources merely repeat, get no consensus.

The two task functions run on Ray's workers, so they live in this module of the installed
package.
"""

from __future__ import annotations

import json
from pathlib import Path

from xlscore.batch.console import progress_bar
from xlscore.batch.output import STAGE
from xlscore.batch.session import Job
from xlscore.io.pairfiles import PairColumns, Unit, read_unit
from xlscore.io.partfiles import part_path, write_part


def consensus_rows(batch, stage: str, columns: dict, allow_empty: bool) -> dict:
    """Consensus pass, step 1 (a Ray Data task per unit): the unit's rows that can take part
    in a consensus -- scored, no error, no flag, an engine named -- each with its source's
    key (a digest of the source as given), its place (unit, row), its engine, its
    translation and its score before the consensus, read from the unit's staged part
    file."""
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
        if score is not None and error is None and not flags and rows.engines[k]
    ]
    return {
        "key": np.array(
            [hashlib.sha256(rows.sources[k].encode("utf-8")).hexdigest() for k in keep],
            dtype=object,
        ),
        "unit": np.array([unit.index] * len(keep), dtype=np.int64),
        "row": np.array(keep, dtype=np.int64),
        "engine": np.array([rows.engines[k] for k in keep], dtype=object),
        "translation": np.array([rows.translations[k] for k in keep], dtype=object),
        "score": np.array([staged["score"][k] for k in keep], dtype=np.float64),
    }


def _segments(group) -> list[list[int]]:
    """One source's rows (positions in ``group``) cut into segments, in input order: each
    engine's ``k``-th row with this source is in the ``k``-th segment."""
    import numpy as np

    segments: dict[int, list[int]] = {}
    seen: dict[str, int] = {}
    for i in np.lexsort((group["row"], group["unit"])).tolist():
        engine = str(group["engine"][i])
        segments.setdefault(seen.get(engine, 0), []).append(i)
        seen[engine] = seen.get(engine, 0) + 1
    return list(segments.values())


def alike_engines(group) -> dict:
    """Consensus pass, step 2 (Ray Data ``map_groups``): for each two engines with a row in
    one segment of this source, in how many segments both have one (``both``) and in how many
    their texts are alike (``alike``: the same or nearly the same,
    :func:`xlscore.scoring.consensus.alike`), from which the driver finds the engines that are
    copies of another, as ``xlscore score`` does
    (:func:`xlscore.scoring.consensus.duplicate_engines`)."""
    import numpy as np

    from xlscore.scoring.consensus import alike, row_hash

    counts: dict[tuple[str, str], list[int]] = {}
    sums: dict[str, int] = {}
    for k, engine in enumerate(group["engine"]):
        h = row_hash(str(group["key"][k]), str(group["translation"][k]))
        sums[str(engine)] = (sums.get(str(engine), 0) + h) % 2**64
    for members in _segments(group):
        texts = {str(group["engine"][i]): str(group["translation"][i]) for i in members}
        names = sorted(texts)
        same = alike([texts[n] for n in names])
        for x, a in enumerate(names):
            for y in range(x + 1, len(names)):
                c = counts.setdefault((a, names[y]), [0, 0])
                c[0] += 1
                c[1] += bool(same[x, y])
    # each engine's rows of this source as a multiset hash (the engine set that signs the
    # consensus, :func:`engines_from_counts`): a row of its own, with no second engine
    pairs = [(a, b, c[0], c[1]) for (a, b), c in counts.items()]
    pairs += [(e, "", -1, int(np.uint64(h).astype(np.int64))) for e, h in sorted(sums.items())]
    return {
        "a": np.array([p[0] for p in pairs], dtype=object),
        "b": np.array([p[1] for p in pairs], dtype=object),
        "both": np.array([p[2] for p in pairs], dtype=np.int64),
        "alike": np.array([p[3] for p in pairs], dtype=np.int64),
    }


def copies_from_counts(batches) -> dict[str, str]:
    """The engines that are copies of another (the same or nearly the same text in more than
    half the segments both have, two segments or more:
    :func:`xlscore.scoring.consensus.duplicate_engines`' rule), from :func:`alike_engines`'
    batches, each mapped to the first in name order of its group of copies."""
    from xlscore.scoring.consensus import copied, copy_groups

    both: dict[tuple[str, str], int] = {}
    alike: dict[tuple[str, str], int] = {}
    for batch in batches:
        for a, b, n, k in zip(batch["a"], batch["b"], batch["both"], batch["alike"]):
            if not b:  # an engine's multiset hash (:func:`engines_from_counts`)
                continue
            both[a, b] = both.get((a, b), 0) + int(n)
            alike[a, b] = alike.get((a, b), 0) + int(k)
    pairs = [p for p, n in both.items() if copied(alike[p], n)]
    return copy_groups(sorted({e for p in both for e in p}), pairs)


def engines_from_counts(batches) -> str:
    """The engine set the consensus read (:func:`xlscore.scoring.consensus.engine_set`), from
    each engine's multiset hashes in :func:`alike_engines`' batches: what ``xlscore score``
    signs for the same rows."""
    from xlscore.scoring.consensus import engine_set

    sums: dict[str, int] = {}
    for batch in batches:
        for a, b, k in zip(batch["a"], batch["b"], batch["alike"]):
            if not b:
                sums[a] = (sums.get(a, 0) + int(k)) % 2**64
    return engine_set(sums.values())


def _warn_copies(copies: dict[str, str]) -> None:
    """A :class:`~xlscore.errors.DuplicateEnginesWarning` for each group of engines that are
    copies of another, as ``xlscore score`` gives it."""
    import warnings

    from xlscore.errors import DuplicateEnginesWarning

    for root in sorted(set(copies.values())):
        group = sorted(e for e, r in copies.items() if r == root)
        warnings.warn(
            f"engines {' and '.join(group)} gave the same or nearly the same translation in "
            "most segments (is one a copy of the other?): where they agree they count once in "
            "the consensus",
            DuplicateEnginesWarning,
            stacklevel=2,
        )


def consensus_group(group, weight: float, floor: float, copies: dict[str, str]) -> dict:
    """Consensus pass, step 3 (Ray Data ``map_groups``): one source's rows cut into segments
    (:func:`_segments`), each segment's agreement and blended scores
    (:func:`xlscore.scoring.consensus.group_consensus`, as ``xlscore score`` takes them, with
    the engines that are copies of another, ``copies``, one voter where they agree: nothing
    for a segment of too few voters)."""
    import numpy as np

    from xlscore.scoring.consensus import group_consensus

    at: list[int] = []
    agree: list[float | None] = []
    scores: list[float] = []
    shifts: list[float] = []
    for members in _segments(group):
        before = [float(group["score"][i]) for i in members]
        a, s = group_consensus(
            [str(group["translation"][i]) for i in members],
            before,
            weight,
            floor,
            [str(group["engine"][i]) for i in members],
            copies,
        )
        if a and a[0] is not None:  # else too few voters: no consensus
            at += members
            agree += a
            scores += s
            shifts += [after - b for after, b in zip(s, before)]  # as ``score`` computes it
    return {
        "unit": group["unit"][at],
        "row": group["row"][at],
        "score": np.array(scores, dtype=np.float64),
        "consensus": np.array(agree, dtype=np.float64),
        "consensus_shift": np.array(shifts, dtype=np.float64),
    }


#: the columns the consensus pass changes in a staged part file
BLENDED = ("score", "consensus", "consensus_shift")


def finish_consensus(job: Job, done: set[int], signature: str, weight: float, floor: float) -> str:
    """The consensus pass: gather every source's candidates across the staged units with a
    Ray Data ``groupby`` on the source's digest, find the engines that are copies of another
    over the whole input (:func:`alike_engines`), blend each group's consensus into its
    scores, and write each unit's final part file (the staged one with its ``score`` and
    ``consensus`` replaced); the stage is removed once every part file is written.
    ``floor``: the lowest score there is (the consensus takes no score below it). Returns
    the signature the part files carry: ``signature`` with the engine set the consensus
    read (``|engines:N#DIGEST``) when three or more engines took part."""
    import shutil

    import numpy as np
    import pyarrow.parquet as pq

    from xlscore.scoring.consensus import CONSENSUS_MIN

    stage, units, pool = job.out / STAGE, job.units, job.pool
    ds = job.ray.data.from_items(
        [{"unit": json.dumps(u.to_dict())} for u in units], override_num_blocks=max(1, len(units))
    )
    rows = ds.map_batches(
        consensus_rows,
        batch_size=1,
        fn_kwargs={
            "stage": str(stage),
            "columns": job.extras["columns"],
            "allow_empty": job.extras["allow_empty"],
        },
        num_cpus=pool["cpus"],
    )
    grouped = rows.groupby("key")
    counted = list(
        grouped.map_groups(alike_engines, batch_format="numpy", num_cpus=pool["cpus"]).iter_batches(
            batch_size=None, batch_format="numpy"
        )
    )
    copies = copies_from_counts(counted)
    _warn_copies(copies)
    engines = engines_from_counts(counted)
    if int(engines.split("#")[0]) >= CONSENSUS_MIN:  # the scores depend on the other engines
        signature += f"|engines:{engines}"
    blended = grouped.map_groups(
        consensus_group,
        fn_kwargs={"weight": weight, "floor": floor, "copies": copies},
        batch_format="numpy",
        num_cpus=pool["cpus"],
    )
    changes: dict[int, list[tuple[np.ndarray, ...]]] = {}
    with progress_bar(job.rows, job.progress, "consensus") as bar:
        for batch in blended.iter_batches(batch_size=None, batch_format="numpy"):
            for u in np.unique(batch["unit"]):
                at = batch["unit"] == u
                changes.setdefault(int(u), []).append(
                    (batch["row"][at], *(batch[c][at] for c in BLENDED))
                )
            bar.update(len(batch["unit"]))
    for u in units:
        if u.index not in done:
            table = _with_changes(
                pq.read_table(part_path(stage, u.index)), changes.get(u.index, [])
            )
            write_part(job.out, u, table, signature=signature, job=job.key)
    shutil.rmtree(stage, ignore_errors=True)
    return signature


def _with_changes(table, changes: list[tuple]):
    """A staged unit's table with the consensus pass's ``changes`` (each the rows and their
    new :data:`BLENDED` values) written in, its metadata dropped (the part file's is set when
    it is written)."""
    import pyarrow as pa

    columns = {c: table.column(c).to_pylist() for c in BLENDED}
    for at, *values in changes:
        for c, v in zip(BLENDED, values):
            for k, x in zip(at.tolist(), v.tolist()):
                columns[c][k] = x
    for name, column in columns.items():
        i = table.schema.get_field_index(name)
        table = table.set_column(i, table.schema.field(i), pa.array(column, pa.float64()))
    return table.replace_schema_metadata(None)
