"""Batch scoring on Ray Data: files of (source, translation) pairs in, Parquet out, on one
machine or a cluster, with the numbers ``xlscore score`` gives.

:func:`score_dataset` plans the input into units (:mod:`xlscore.io.pairfiles`), and runs Ray
Data ``map_batches`` over them with a pool of actors (``ActorPoolStrategy``), one scorer per
actor. Each actor call reads one unit, scores it and returns its rows; the driver writes each
unit's rows to its own part file once all of them have arrived, so a unit retried after a
worker died is written once, and a job started again skips the finished files.

The score of a pair must not depend on which worker scored it or with what else:

* the corpus map (``alignment="corpus"``, the default) is fitted in a first pass: each unit
  returns its anchor-pair statistics (a d x d cross-covariance and a few sums,
  :meth:`xlscore.paper.mapping.Maps.map_statistics`), the driver adds them up in unit order
  and solves once (:meth:`~xlscore.paper.mapping.Maps.map_from_statistics`) -- the map of the
  whole corpus, equal to a local fit up to float summation order. Any map (corpus,
  dictionary, a saved one) and a user-trained estimator are then sent to the workers once,
  through the object store;
* the quality estimator's forward passes have shapes fixed by each pair's own length
  (:func:`xlscore.encoders.arithmetic.batch_shape`), so its predictions are bit-identical whatever a
  unit holds;
* the consensus across engines (:mod:`xlscore.scoring.consensus`, on by default as in
  ``xlscore score``) needs every candidate of a source in one place, wherever its rows are:
  each unit's scores before the consensus are staged in ``output/_stage/``, then a Ray Data
  ``groupby`` on a digest of the source text gathers the candidates of each source across
  all units and files (:func:`~xlscore.batch.actors.consensus_rows`,
  :func:`~xlscore.batch.actors.consensus_group`), and the driver writes each unit's final
  part file with the blended scores. Rows with the same source text are one source's
  candidates, as the lines of ``xlscore score -t ... -t ...`` are;
* settings whose statistics come from the whole corpus in a form that does not add up
  (``idf``, ``rescale``) are refused.

Ray runs offline and quietly: usage statistics off, no dashboard, Ray's temporary files under
one known folder, and for a Ray instance started here an authentication token kept in this
process's environment, never written to the home folder (:mod:`xlscore.batch.session`).

This module is the plan and the driver's side; the actors are in :mod:`xlscore.batch.actors`
and the output folder's manifest in :mod:`xlscore.batch.output`.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xlscore.batch.actors import _MapStatistics, _ScoreUnits
from xlscore.batch.consensus_pass import finish_consensus
from xlscore.batch.console import native_lines_to, progress_bar, ray_data_console_muted
from xlscore.batch.output import (
    MANIFEST,
    MAP_FILE,
    RAY_LOG,
    STAGE,
    _count_errors,
    _prepare_output,
    _write_manifest,
)
from xlscore.batch.session import Job, _import_ray, ray_session
from xlscore.errors import XLScoreError
from xlscore.io.outputs import check_output_folder
from xlscore.io.pairfiles import ROWS_PER_FILE, PairColumns, Unit, discover, plan_units
from xlscore.io.partfiles import finished_units, job_key, output_schema, write_part

__all__ = [
    "DEFAULT_COLUMNS",
    "MANIFEST",
    "MAP_FILE",
    "RAY_TESTED",
    "BatchSummary",
    "UnitReport",
    "ray_session",
    "score_dataset",
]

#: the Ray versions this module is tested with (the ``ray`` extra pins the same)
RAY_TESTED = "2.60"
#: how many times a dead worker is started again, and a unit retried, before the job stops
RETRIES = 3
#: the default column names (:class:`PairColumns` is frozen, so one instance is shared)
DEFAULT_COLUMNS = PairColumns()
_REFUSED = {
    "idf": "idf weights come from the whole corpus",
    "rescale": "the rescaling baseline samples pairs across the whole corpus",
}


@dataclass
class UnitReport:
    """What the driver learns about one finished unit."""

    unit: int
    rows: int
    errors: int
    worker_pid: int
    host: str
    peak_rss_mb: float
    seconds: float


@dataclass
class BatchSummary:
    """The outcome of :func:`score_dataset`."""

    output: Path
    signature: str
    rows: int
    units: int
    skipped_units: int
    error_rows: int
    first_errors: list[str] = field(default_factory=list)
    reports: list[UnitReport] = field(default_factory=list)
    seconds: float = 0.0
    #: lines Ray's native core logged during the job other than its known notice, kept off
    #: the console in ``output/_ray.log`` (:mod:`xlscore.batch.console`)
    ray_lines: int = 0

    def peak_rss_mb_by_worker(self) -> dict[str, float]:
        """Largest resident memory each worker process reached (MB), by ``host:pid``."""
        out: dict[str, float] = {}
        for r in self.reports:
            key = f"{r.host}:{r.worker_pid}"
            out[key] = max(out.get(key, 0.0), r.peak_rss_mb)
        return out


def _checked_config(scorer: dict | None) -> dict:
    config = dict(scorer or {})
    for key, why in _REFUSED.items():
        if config.get(key):
            raise XLScoreError(
                f"batch scoring does not support {key}: {why}; use `xlscore score` for it"
            )
    for key in ("en_model", "ru_model", "multilingual", "alignment", "estimator", "lexicon"):
        value = config.get(key)
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise XLScoreError(
                f"batch scoring needs {key} as a name or a path (each worker "
                f"loads its own), not a {type(value).__name__}"
            )
    return config


def score_dataset(
    inputs: str | os.PathLike | Sequence[str | os.PathLike],
    output: str | os.PathLike,
    *,
    scorer: dict | None = None,
    columns: PairColumns = DEFAULT_COLUMNS,
    workers: int = 1,
    gpus_per_worker: float = 0.0,
    cpus_per_worker: float | None = None,
    threads_per_worker: int | None = None,
    rows_per_file: int = ROWS_PER_FILE,
    allow_empty: bool = False,
    keep_text: bool = False,
    overwrite: bool = False,
    ray_address: str | None = None,
    temp_dir: str | os.PathLike | None = None,
    progress: bool = False,
    on_unit: Callable[[UnitReport], None] | None = None,
) -> BatchSummary:
    """Score every (source, translation) row of ``inputs`` on Ray, writing
    ``output/part-NNNNNN.parquet`` files. Output that a previous run of the same job finished
    is kept and not scored again.

    Args:
        inputs: Parquet, JSON-lines or TSV files, or folders of them.
        output: the folder of part files; another job's output there is an error unless
            ``overwrite``.
        scorer: settings by name (:meth:`xlscore.XLScorer.preset`: ``preset`` and what it
            changes), as names and paths (default: the offline default scorer); every worker
            builds the same scorer.
        columns: which input columns hold the id, engine, source and translation.
        workers: actors in the pool.
        gpus_per_worker, cpus_per_worker: each actor's share (CPUs default to less than one
            each when the workers would fill the machine, so that reading is never starved).
        threads_per_worker: torch threads per actor.
        rows_per_file: rows per work unit and output file.
        allow_empty: score empty texts instead of reporting them in the ``error`` column.
        keep_text: write the two texts beside the scores.
        ray_address: ``"auto"`` or an address to join a running cluster; default: this
            process's Ray, or a local one.
        temp_dir: Ray's temporary files (default ``TMPDIR/xlscore-ray-UID``).
        progress: show a progress bar.
        on_unit: called on the driver as each unit is written.

    Returns:
        The job's summary: units and rows scored, kept and in error.
    """
    from xlscore.scoring.scorer import XLScorer

    t0 = time.perf_counter()
    files = discover(inputs)
    given = [inputs] if isinstance(inputs, (str, os.PathLike)) else inputs
    check_output_folder(output, given, files)  # before Ray or a model: it would lose an input
    _import_ray()  # before anything slow: say at once if Ray is missing
    config = _checked_config(scorer)
    if workers < 1:
        raise XLScoreError("workers must be at least 1")
    units = plan_units(files, columns, rows_per_file)
    driver = XLScorer.preset(**config)  # checks the settings, and fits or loads the map
    settings = _job_settings(config, columns, allow_empty, keep_text, driver.signature())
    key = job_key(files, units, settings)
    out = Path(output)
    _prepare_output(out, key, settings, len(units), overwrite)
    done = finished_units(out, key, units)
    with (
        ray_session(ray_address, temp_dir=temp_dir) as ray,
        native_lines_to(out / RAY_LOG) as native,
        ray_data_console_muted(),
        _stopped_by_ray(ray, out),
    ):
        pool = _pool_options(ray, workers, gpus_per_worker, cpus_per_worker, threads_per_worker)
        extras = {"columns": vars(columns), "allow_empty": allow_empty, "keep_text": keep_text}
        job = Job(ray, config, extras, pool, out, key, units, progress)
        summary = _run(job, driver, done, on_unit)
    summary.ray_lines = native.unexpected
    kept = {u.index for u in units} - {r.unit for r in summary.reports}
    summary.error_rows += _count_errors(out, kept)
    summary.seconds = time.perf_counter() - t0
    _write_manifest(out, key, settings, len(units), signature=summary.signature, complete=True)
    return summary


def _job_settings(
    config: dict, columns: PairColumns, allow_empty: bool, keep_text: bool, signature: str
) -> dict:
    """What a job's output depends on beside its inputs (in its key and manifest): the
    scorer's settings and signature, the columns read, and the output's schema."""
    return {
        "scorer": config,
        "columns": vars(columns),
        "allow_empty": allow_empty,
        "keep_text": keep_text,
        "signature": signature,
        "schema": str(output_schema(keep_text)),
    }


def _run(job: Job, driver, done: set[int], on_unit) -> BatchSummary:
    """A job's passes in its Ray session: the map (if the fields need one), the units not yet
    scored, and with a consensus the pass that blends it into every unit's scores."""
    est = job.config.get("estimator")
    if isinstance(est, (str, os.PathLike)) and str(est).endswith(".safetensors"):
        job.extras["estimator"] = job.ray.put(Path(est).read_bytes())
    aligner = _alignment(job, driver)
    if aligner is not None:
        job.extras["aligner"] = job.ray.put(aligner)
    signature = driver.signature()
    weight = driver.final.consensus_weight
    # with a consensus, units are scored into the stage, then finished all together
    units = job.units
    scored_to = job.out / STAGE if weight and len(done) < len(units) else job.out
    staged = finished_units(scored_to, job.key, units) if scored_to != job.out else done
    todo = [u for u in units if u.index not in staged]
    scored_to.mkdir(exist_ok=True)
    summary = BatchSummary(job.out, signature, job.rows, len(units), len(units) - len(todo), 0)
    _score_units(job, todo, scored_to, signature, summary, on_unit)
    if scored_to != job.out:
        summary.signature = finish_consensus(job, done, signature, weight, driver.final.floor)
    return summary


@contextlib.contextmanager
def _stopped_by_ray(ray, out: Path) -> Iterator[None]:
    """Ray's own failures (a unit whose worker died more than :data:`RETRIES` times, a lost
    node, ...) as one line that says the finished files are kept; Ray's full report is
    appended to ``out/_ray.log``."""
    from ray.data.exceptions import UserCodeException

    try:
        yield
    except (ray.exceptions.RayError, UserCodeException) as err:
        report = str(err).strip()
        with contextlib.suppress(OSError), open(out / RAY_LOG, "a", encoding="utf-8") as fh:
            fh.write(f"{type(err).__name__}: {report}\n")
        first = report.splitlines()[0] if report else type(err).__name__
        raise XLScoreError(
            f"Ray stopped the job: {first[:300]}; the files it finished are kept under {out}: "
            f"the same command continues from them (Ray's report: {out / RAY_LOG})"
        ) from None


def _pool_options(ray, workers: int, gpus: float, cpus: float | None, threads: int | None) -> dict:
    """Resources of each actor and its torch threads (default: on a one-node Ray, the
    node's CPUs shared among the workers; on a cluster, the CPUs each worker reserves)."""
    available = float(ray.cluster_resources().get("CPU", 1.0))
    if cpus is None:
        # a whole CPU each where one is left over to read and to run Ray's own tasks, else
        # a share of what remains (a 2-actor job on 2 CPUs would otherwise starve the reads)
        cpus = 1.0 if available >= workers + 1 else max(0.1, min(1.0, (available - 1) / workers))
    if threads is None:
        one_node = len([n for n in ray.nodes() if n.get("Alive")]) == 1
        threads = max(1, int(available // workers)) if one_node else max(1, round(cpus))
    if gpus and float(ray.cluster_resources().get("GPU", 0.0)) < gpus:
        raise XLScoreError(
            f"--gpus-per-worker {gpus:g}, but the Ray cluster has "
            f"{ray.cluster_resources().get('GPU', 0):g} GPUs"
        )
    return {"workers": workers, "cpus": cpus, "gpus": gpus, "threads": threads}


def _map_batches(job: Job, units: Sequence[Unit], cls, config: dict):
    """Ray Data over ``units`` (one unit per call) with a fixed pool of ``cls`` actors (no
    more than there are units), each built from ``config`` and the job's extras."""
    ray, pool = job.ray, job.pool
    ds = ray.data.from_items(
        [{"unit": json.dumps(u.to_dict())} for u in units], override_num_blocks=max(1, len(units))
    )
    with warnings.catch_warnings():
        # Ray 2.60 names no parameter for restarts and warns that the catch-all for remote
        # options goes in 2.64; the ``ray`` extra pins 2.60
        warnings.filterwarnings("ignore", message=".*ray_remote_args. is deprecated")
        return ds.map_batches(
            cls,
            batch_size=1,
            compute=ray.data.ActorPoolStrategy(size=min(pool["workers"], len(units))),
            fn_constructor_args=(config, pool["threads"], job.extras),
            num_cpus=pool["cpus"],
            num_gpus=pool["gpus"] or None,
            # a dead actor is started again and its unit retried, a few times: Ray Data's
            # default (for ever) would loop without end on a unit that kills its worker
            max_restarts=RETRIES,
            max_task_retries=RETRIES,
        )


def _alignment(job: Job, driver):
    """The map every worker uses (``None`` for a single multilingual encoder, or when the
    paper's columns are not computed: :mod:`xlscore.fields`): a saved one,
    the dictionary map, or the corpus map -- from a previous run of this job, else fitted in
    a first pass over the data. The driver's scorer then carries it, for the signature."""
    if driver.settings.multilingual is not None or "paper" not in driver.fields:
        return None  # (the paper's scorer is not built for it)
    maps = driver.paper.maps
    if maps.mode == "fixed":
        return maps.fixed
    if maps.mode == "dictionary":
        return maps.dictionary_map()
    path, units = job.out / MAP_FILE, job.units
    if path.exists():
        aligner = maps.load_map(path)
        if aligner.meta.get("job") == job.key:
            maps.last = aligner
            return aligner
    stats_of: dict[int, dict] = {}
    ds = _map_batches(job, units, _MapStatistics, {**job.config, "estimator": None})
    with progress_bar(job.rows, job.progress, "fitting the map") as bar:
        sizes = {u.index: u.rows for u in units}
        for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
            for unit, stats in zip(batch["unit"], batch["stats"]):
                stats_of[int(unit)] = json.loads(stats)
                bar.update(sizes[int(unit)])
    # summed in unit order, so that the map does not depend on which unit finished first
    aligner = maps.map_from_statistics(stats_of[u.index] for u in units)
    aligner.meta["job"] = job.key
    aligner.save(path)
    maps.last = aligner
    return aligner


def _score_units(
    job: Job, todo: Sequence[Unit], out: Path, signature: str, summary: BatchSummary, on_unit
) -> None:
    """Pass 2: score the units not yet written; write each unit's part file once all its
    rows have arrived."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not todo:
        return
    by_index = {u.index: u for u in todo}
    pending: dict[int, list] = {}
    seen: dict[int, set] = {}
    with progress_bar(job.rows, job.progress, "scoring") as bar:
        bar.update(job.rows - sum(u.rows for u in todo))
        ds = _map_batches(job, todo, _ScoreUnits, job.config)
        for block in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            for unit_id in sorted(set(block.column("_unit").to_pylist())):
                pending.setdefault(unit_id, []).append(
                    block.filter(pc.equal(block.column("_unit"), unit_id))
                )
                seen.setdefault(unit_id, set()).update(
                    pending[unit_id][-1].column("_row").to_pylist()
                )
                unit = by_index[unit_id]
                if len(seen[unit_id]) < unit.rows:
                    continue
                # rows in input order, each once (a retried call may have sent some already)
                table = pa.concat_tables(pending.pop(unit_id))
                rows = table.column("_row").to_numpy()
                _, first = np.unique(rows, return_index=True)
                table = table.take(pa.array(first))
                del seen[unit_id]
                report = UnitReport(**json.loads(table.column("_report")[0].as_py()))
                table = table.drop_columns(["_unit", "_row", "_report"])
                write_part(out, unit, table, signature=signature, job=job.key)
                summary.reports.append(report)
                summary.error_rows += report.errors
                if report.errors and len(summary.first_errors) < 5:
                    errs = [e for e in table.column("error").to_pylist() if e]
                    summary.first_errors += errs[: 5 - len(summary.first_errors)]
                bar.update(unit.rows)
                if on_unit is not None:
                    on_unit(report)
    if pending:
        raise XLScoreError(f"Ray returned incomplete output for units {sorted(pending)}")
