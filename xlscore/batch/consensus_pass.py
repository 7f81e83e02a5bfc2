"""The consensus pass of a batch job (:mod:`xlscore.batch.distributed`): every source's
candidates gathered across the staged units with a Ray Data ``groupby`` on a digest of the
source text, their consensus blended into their scores as ``xlscore score`` blends it
(:func:`xlscore.metric.consensus.group_consensus`), and each unit's final part file written.

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
from collections.abc import Sequence
from pathlib import Path

from xlscore.batch.console import progress_bar
from xlscore.batch.output import STAGE
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
    they give the same text (``alike``; :func:`xlscore.text.words.normalize_text`), from
    which the driver finds the engines that are copies of another, as ``xlscore score`` does
    (:func:`xlscore.metric.consensus.duplicate_engines`)."""
    import numpy as np

    from xlscore.text.words import normalize_text

    counts: dict[tuple[str, str], list[int]] = {}
    for members in _segments(group):
        texts = {
            str(group["engine"][i]): normalize_text(str(group["translation"][i])) for i in members
        }
        names = sorted(texts)
        for x, a in enumerate(names):
            for b in names[x + 1 :]:
                c = counts.setdefault((a, b), [0, 0])
                c[0] += 1
                c[1] += bool(texts[a]) and texts[a] == texts[b]
    return {
        "a": np.array([a for a, _ in counts], dtype=object),
        "b": np.array([b for _, b in counts], dtype=object),
        "both": np.array([c[0] for c in counts.values()], dtype=np.int64),
        "alike": np.array([c[1] for c in counts.values()], dtype=np.int64),
    }


def copies_from_counts(batches) -> dict[str, str]:
    """The engines that are copies of another (the same text in more than half the segments
    both have, two segments or more: :func:`xlscore.metric.consensus.duplicate_engines`'
    rule), from :func:`alike_engines`' batches, each mapped to the first in name order of its
    group of copies."""
    from xlscore.metric.consensus import copied, copy_groups

    both: dict[tuple[str, str], int] = {}
    alike: dict[tuple[str, str], int] = {}
    for batch in batches:
        for a, b, n, k in zip(batch["a"], batch["b"], batch["both"], batch["alike"]):
            both[a, b] = both.get((a, b), 0) + int(n)
            alike[a, b] = alike.get((a, b), 0) + int(k)
    pairs = [p for p, n in both.items() if copied(alike[p], n)]
    return copy_groups(sorted({e for p in both for e in p}), pairs)


def _warn_copies(copies: dict[str, str]) -> None:
    """A :class:`~xlscore.errors.DuplicateEnginesWarning` for each group of engines that are
    copies of another, as ``xlscore score`` gives it."""
    import warnings

    from xlscore.errors import DuplicateEnginesWarning

    for root in sorted(set(copies.values())):
        group = sorted(e for e, r in copies.items() if r == root)
        warnings.warn(
            f"engines {' and '.join(group)} gave the same translation in most segments (is one "
            "a copy of the other?): where they agree they count once in the consensus",
            DuplicateEnginesWarning,
            stacklevel=2,
        )


def consensus_group(group, weight: float, floor: float, copies: dict[str, str]) -> dict:
    """Consensus pass, step 3 (Ray Data ``map_groups``): one source's rows cut into segments
    (:func:`_segments`), each segment's agreement and blended scores
    (:func:`xlscore.metric.consensus.group_consensus`, as ``xlscore score`` takes them, with
    the engines that are copies of another, ``copies``, one voter where they agree: nothing
    for a segment of too few voters)."""
    import numpy as np

    from xlscore.metric.consensus import group_consensus

    at: list[int] = []
    agree: list[float | None] = []
    scores: list[float] = []
    for members in _segments(group):
        a, s = group_consensus(
            [str(group["translation"][i]) for i in members],
            [float(group["score"][i]) for i in members],
            weight,
            floor,
            [str(group["engine"][i]) for i in members],
            copies,
        )
        if a and a[0] is not None:  # else too few voters: no consensus
            at += members
            agree += a
            scores += s
    return {
        "unit": group["unit"][at],
        "row": group["row"][at],
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
    floor: float,
    progress: bool,
) -> None:
    """The consensus pass: gather every source's candidates across the staged units with a
    Ray Data ``groupby`` on the source's digest, find the engines that are copies of another
    over the whole input (:func:`alike_engines`), blend each group's consensus into its
    scores, and write each unit's final part file (the staged one with its ``score`` and
    ``consensus`` replaced); the stage is removed once every part file is written.
    ``floor``: the lowest score there is (the consensus takes no score below it)."""
    import shutil

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

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
    grouped = rows.groupby("key")
    copies = copies_from_counts(
        grouped.map_groups(alike_engines, batch_format="numpy", num_cpus=pool["cpus"]).iter_batches(
            batch_size=None, batch_format="numpy"
        )
    )
    _warn_copies(copies)
    blended = grouped.map_groups(
        consensus_group,
        fn_kwargs={"weight": weight, "floor": floor, "copies": copies},
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
