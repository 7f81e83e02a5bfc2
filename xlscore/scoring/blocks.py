"""The estimator's fields scored in blocks, the CPU work beside the model's passes.

When the score is the estimator's and no field needs another encoder (the default's fields,
``score`` and ``evidence``), :meth:`XLScorer.iter_score
<xlscore.scoring.scorer.XLScorer.iter_score>` cuts the corpus into blocks of whole segments (every
engine's translation of a source in one block, so that the consensus sees them together). Each
block is prepared (words, anchors, rule checks) and its distinct pairs read into pieces; the pieces
wait in a :class:`~xlscore.estimator.prediction.PassQueue`, where pairs of many blocks fill each
forward pass of their shape; once its passes are read, the block's results are made (error spans,
evidence, consensus, offsets). With ``workers=N`` the preparing and the finishing run in ``N``
worker processes while the main process runs the passes, so that a GPU is kept busy, and on a CPU
the workers' share of the cores runs beside the model's; with ``workers=0`` the same steps run in
turn in this process. The steps are :class:`BlockPipeline`'s, which the scorer builds once from
its components (its plan, anchoring, rule checks and blend) and holds as ``XLScorer.blocks``.

The passes are the same whatever the number of workers and however fast each is: blocks enter
the queue in order, at most :data:`WINDOW` are in flight, and passes that are not full are run
only where nothing more could fill them, at the end of each chunk
(:func:`~xlscore.text.pairs.segment_chunks`) or when the window waits on them; a chunk is
computed whole, from its first block, also when a run resumes inside it. Each pass has a shape
set by its pairs' own length (:mod:`xlscore.encoders.arithmetic`), each pair's CPU work depends
on the pair alone and the consensus on its segment. The results are therefore the same to the
last bit with any number of workers, and in a run resumed at any segment.

The workers are forked from the main process, so they share its loaded tables and never load a
model; this needs the ``fork`` start method (Linux; macOS allows it too). A worker's warnings
are given again in the main process, a worker's error is raised there, and a worker that dies
stops the run with an error naming its exit code.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from multiprocessing.reduction import ForkingPickler
from typing import TYPE_CHECKING, Any

import torch

from xlscore.errors import XLScoreError
from xlscore.estimator.prediction import PassOutputs, PassQueue
from xlscore.results import ScoreResult, on_given_texts
from xlscore.scoring.corpus import PreparedCorpus
from xlscore.scoring.pair_parts import without_paper_columns
from xlscore.text.pairs import CHUNK_PAIRS, distinct_pairs, segment_chunks, segment_pairs

if TYPE_CHECKING:
    from xlscore.estimator.crossencoder import Encoded
    from xlscore.estimator.prediction import PairInputs
    from xlscore.scoring.anchoring import Anchoring
    from xlscore.scoring.blend import ScoreBlend
    from xlscore.scoring.plan import Plan
    from xlscore.scoring.rule_checks import RuleChecks


#: pairs per block handed to a worker, by kind of device (the pass queue fills each pass from
#: as many blocks as it takes)
BLOCK_PAIRS = {"cpu": 256, "cuda": 1024}
#: blocks in flight at most, whatever the number of workers (so that the passes, and with them
#: the results to the last bit, do not depend on it)
WINDOW = 32

#: the pipeline, engine names and copied engines the next workers fork with (set only while
#: they start)
_JOB: tuple[BlockPipeline, list[str], Mapping[str, str]] | None = None


def _naming(first: int, names: Sequence[str]) -> Callable[[int], str]:
    """How a warning names the pair at position ``k`` of segments whose first is ``first``
    (0-based), their engines ``names`` in turn: ``segment 3`` (1-based), with ``, engine
    NAME`` when the engines have names."""

    def named(k: int) -> str:
        engine = names[k % len(names)]
        return f"segment {first + k // len(names) + 1}" + (f", engine {engine}" if engine else "")

    return named


def blocks(
    n_segments: int, n_engines: int, start: int, chunk_pairs: int, block_pairs: int
) -> list[tuple[int, int, bool]]:
    """Blocks ``(a, b, last)`` of whole segments ``[a, b)`` covering every chunk
    (:func:`~xlscore.text.pairs.segment_chunks`) that ends after ``start``, about
    ``block_pairs`` pairs each; ``last``: the block ends its chunk."""
    out = []
    step = max(1, block_pairs // max(1, n_engines))
    for a, b in segment_chunks(n_segments, n_engines, chunk_pairs):
        if b > start:
            out += [(c, min(c + step, b), c + step >= b) for c in range(a, b, step)]
    return out


class _Blocks:
    """The CPU work of blocks, kept between a block's two steps: ``read`` (prepare it and
    read its distinct pairs into pieces, which are returned) and ``finish`` (its results from
    its passes' outputs)."""

    def __init__(
        self, pipeline: BlockPipeline, names: list[str], copies: Mapping[str, str]
    ) -> None:
        self.pipeline, self.names, self.copies = pipeline, names, copies
        self.kept: dict[int, tuple] = {}

    def do(self, kind: str, j: int, payload: Any) -> tuple[str, Any]:
        """One step of block ``j``; returns the reply's kind (``read`` or ``done``) and
        content."""
        pipeline = self.pipeline
        if kind == "read":
            a, src, mt = payload
            corpus = pipeline.read(src, mt)
            inputs = pipeline.final.estimator_inputs(corpus)
            self.kept[j] = (a, corpus, inputs)
            return "read", inputs.encoded
        a, corpus, inputs = self.kept.pop(j)
        scores, parts, probs = payload
        out = PassOutputs(scores, parts, probs, 0)
        results = pipeline.finish(
            corpus,
            None,
            a,
            self.names,
            forwarded=(inputs, out),
            copies=self.copies,
        )
        return "done", results


class _InProcess:
    """The blocks' CPU work done here, a step at a time as replies are asked for: a block
    whose passes are read is finished before the next is prepared, so that its results come out
    as soon as they can (which steps run first changes no pass: see the module's docstring)."""

    def __init__(
        self, pipeline: BlockPipeline, names: list[str], copies: Mapping[str, str]
    ) -> None:
        self.work = _Blocks(pipeline, names, copies)
        self.tasks: list[tuple[str, int, Any]] = []

    def send(self, kind: str, j: int, payload: Any) -> None:
        self.tasks.append((kind, j, payload))

    def reply(self) -> tuple[str, int, Any, list]:
        k = next((k for k, t in enumerate(self.tasks) if t[0] == "finish"), 0)
        kind, j, payload = self.tasks.pop(k)
        done, reply = self.work.do(kind, j, payload)
        return done, j, reply, []  # its warnings were given as they came

    def close(self) -> None:
        self.tasks.clear()


class _Workers:
    """The blocks' CPU work in worker processes forked from this one, block ``j`` in worker
    ``j % n`` (which keeps what its two steps share)."""

    def __init__(
        self, pipeline: BlockPipeline, names: list[str], copies: Mapping[str, str], n: int
    ) -> None:
        global _JOB
        ctx = mp.get_context("fork")
        self.replies: Any = ctx.Queue()
        self.tasks = [ctx.Queue() for _ in range(n)]
        _JOB = (pipeline, names, copies)
        try:
            self.procs = [
                ctx.Process(
                    target=_serve, args=(t, self.replies), daemon=True, name=f"xlscore-worker-{w}"
                )
                for w, t in enumerate(self.tasks)
            ]
            with warnings.catch_warnings():  # forking beside torch's threads is meant here
                warnings.simplefilter("ignore", DeprecationWarning)
                for p in self.procs:
                    p.start()
        finally:
            _JOB = None

    def send(self, kind: str, j: int, payload: Any) -> None:
        self.tasks[j % len(self.tasks)].put((kind, j, payload))

    def reply(self) -> tuple[str, int, Any, list]:
        """The next worker's reply; a worker that died is an error."""
        while True:
            try:
                return self.replies.get(timeout=1.0)
            except queue.Empty:
                dead = [p for p in self.procs if not p.is_alive()]
                if dead:
                    raise XLScoreError(
                        f"worker process {dead[0].name} stopped (exit code "
                        f"{dead[0].exitcode}); if the system ran out of memory, use fewer "
                        "workers"
                    ) from None

    def close(self) -> None:
        for t in self.tasks:
            t.put(None)
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()


class BlockPipeline:
    """The blocks' pipeline, built once by :class:`xlscore.XLScorer` from its components: the
    plan (which parts run), the anchoring, the rule checks and the blend (with the estimator
    whose passes the blocks feed). ``read`` prepares a block, ``finish`` makes its results
    from its passes' outputs, ``score`` runs a corpus through them in blocks, here or in
    worker processes (see the module's docstring).

    Args:
        plan: which parts run (:class:`~xlscore.scoring.plan.Plan`).
        anchoring: the words and anchors of each pair.
        rule_checks: the rule checks, run once per distinct pair.
        final: the blend of each pair's parts into its score (its estimator included).
    """

    def __init__(
        self, plan: Plan, anchoring: Anchoring, rule_checks: RuleChecks, final: ScoreBlend
    ) -> None:
        self.plan = plan
        self.anchoring = anchoring
        self.rule_checks = rule_checks
        self.final = final

    def runs_in_blocks(self) -> bool:
        """Whether the fields are scored in blocks: the score is the estimator's and no
        field needs a model in the main process beside it (the paper's columns, the similarity,
        the evidence by word alignment)."""
        return not self.plan.beside_estimator()

    def check_workers(self, workers: int) -> None:
        """Refuse ``workers`` that cannot run: not a whole number, no ``fork`` start method, or a
        scorer whose work needs a model beside the estimator's, which only the main process
        holds."""
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
            raise XLScoreError(f"workers must be a whole number of processes, not {workers!r}")
        if not workers:
            return
        if "fork" not in mp.get_all_start_methods():
            raise XLScoreError(
                "worker processes need the 'fork' start method, which this platform lacks: "
                "score without workers"
            )
        needs = self.plan.beside_estimator()
        if needs:
            raise XLScoreError(
                "worker processes run the CPU work of the estimator's fields only; "
                + " and ".join(needs)
                + " need(s) an encoder in the main process: score without workers, or leave "
                "those fields out (fields='score,evidence')"
            )

    def read(self, src: list[str], mt: list[str], progress: bool = False) -> PreparedCorpus:
        """Pairs prepared for the score without the paper's columns: normalised and
        de-duplicated once (:func:`~xlscore.text.pairs.distinct_pairs`), both sides cut into
        words, anchored (with word translation when the evidence is computed) and checked: the CPU
        work before the estimator's pass, which every later step reads."""
        corpus = self.anchoring.prepare(
            distinct_pairs(src, mt),
            vectors=self.plan.similarity,
            translate=self.plan.evidence,
            progress=progress,
        )
        self.rule_checks.run(corpus)
        return corpus

    def finish(
        self,
        corpus: PreparedCorpus,
        core: list[ScoreResult] | None,
        first: int,
        names: Sequence[str],
        on_pairs: Callable[[int], None] | None = None,
        forwarded: tuple[PairInputs, PassOutputs] | None = None,
        copies: Mapping[str, str] | None = None,
    ) -> list[ScoreResult]:
        """The results of prepared segments (each segment's ``names`` engines in turn, the first
        segment ``first``): the final score and consensus of each, every offset moved onto the
        texts as given (``corpus.pairs.given``), here and nowhere else.

        Args:
            corpus: the segments' pairs, prepared and checked.
            core: the paper's columns of each pair (``None``: without them).
            first: the first segment (0-based), for warnings.
            names: the engines of each segment.
            on_pairs: told how many pairs each estimator pass has read.
            forwarded: the estimator's inputs and pass outputs, when read already.
            copies: the engines that are copies of another, over the whole corpus
                (:func:`xlscore.scoring.consensus.copy_engines`).

        Returns:
            One result per pair, in the corpus's order.
        """
        n = len(names)
        results = self.final.finish(
            corpus,
            core if core is not None else without_paper_columns(corpus, self.plan.evidence),
            [range(k, k + n) for k in range(0, len(corpus), n)],
            on_pairs=on_pairs,
            where=_naming(first, names),
            forwarded=forwarded,
            engines=[names[k % n] for k in range(len(corpus))],
            copies=copies,
        )
        # the components' offsets are into the normalised texts: moved here, once
        pairs = corpus.distinct()
        return [
            on_given_texts(r, s, t, seen)
            for r, s, t, seen in zip(results, *pairs.given, zip(pairs.sources, pairs.translations))
        ]

    def score(
        self,
        sources: list[str],
        systems: dict[str, list[str]],
        *,
        workers: int = 0,
        start: int = 0,
        chunk_pairs: int = CHUNK_PAIRS,
        on_pairs: Callable[[int], None] | None = None,
        copies: Mapping[str, str] | None = None,
    ) -> Iterator[tuple[int, dict[str, ScoreResult]]]:
        """``(segment index, {engine: result})`` from segment ``start``, in order, as
        :meth:`~xlscore.scoring.scorer.XLScorer.iter_score` gives them, scored in blocks of
        :data:`BLOCK_PAIRS` pairs (at most ``chunk_pairs``) with the CPU work in ``workers``
        processes (0: in this one, else as :meth:`check_workers` allows, which the caller,
        :meth:`~xlscore.scoring.scorer.XLScorer.iter_score`, has checked); see the module's
        docstring. ``on_pairs``: told of each block's pairs from ``start`` as they are
        yielded; ``copies``: the engines that are copies of another (:meth:`finish`)."""
        copies = copies or {}
        est = self.final.estimator
        if est is None or not self.runs_in_blocks():
            raise XLScoreError("this scorer's fields are not scored in blocks")
        names = list(systems)
        size = min(BLOCK_PAIRS.get(est.device.type, BLOCK_PAIRS["cpu"]), chunk_pairs)
        todo = blocks(len(sources), len(names), start, chunk_pairs, size)
        work = (
            _Workers(self, names, copies, workers) if workers else _InProcess(self, names, copies)
        )
        threads = torch.get_num_threads()
        if workers and est.device.type != "cpu":
            torch.set_num_threads(1)  # the passes run on the device: the cores are the workers'
        passes = PassQueue(est, details=True)
        read: dict[int, list[Encoded]] = {}  # blocks prepared, waiting their turn in the queue
        outputs: dict[int, PassOutputs] = {}  # blocks in the queue, waiting their passes
        done: dict[int, list[ScoreResult]] = {}
        sent = added = shown = 0

        def deliver() -> None:  # blocks whose every pair is read go back to be finished
            for j in [j for j, out in outputs.items() if not out.waiting]:
                out = outputs.pop(j)
                work.send("finish", j, (out.scores, out.parts, out.word_probs))

        try:
            while shown < len(todo):
                while sent < min(len(todo), shown + WINDOW):
                    a, b, _ = todo[sent]
                    work.send("read", sent, (a, *segment_pairs(sources, systems, a, b)))
                    sent += 1
                if added == sent and shown in outputs:
                    passes.run(flush=True)  # the window is full and waits on these passes
                    deliver()
                    continue
                kind, j, payload, caught = work.reply()
                for w in caught:
                    warnings.warn(w.message, w.category, stacklevel=2)
                if kind == "error":
                    raise payload
                if kind == "read":
                    read[j] = payload
                    while added in read:  # in block order, whatever order the workers finish in
                        encoded = read.pop(added)
                        out = outputs[added] = PassOutputs.empty(len(encoded))
                        passes.add(encoded, out)
                        passes.run(flush=todo[added][2])  # a chunk's last block: its passes end
                        deliver()
                        added += 1
                    continue
                done[j] = payload
                while shown in done:
                    a, b, _ = todo[shown]
                    results, n = done.pop(shown), len(names)
                    shown += 1
                    if on_pairs is not None and b > max(a, start):
                        on_pairs((b - max(a, start)) * n)  # before its segments, as they are done
                    for i in range(max(a, start), b):
                        k = (i - a) * n
                        yield i, dict(zip(names, results[k : k + n]))
        finally:
            work.close()
            torch.set_num_threads(threads)


def _serve(tasks: Any, replies: Any) -> None:
    """A worker's loop: the steps of its blocks until told to stop (``None``), each reply
    with the warnings the step gave."""
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    torch.set_num_threads(1)
    assert _JOB is not None
    work = _Blocks(*_JOB)
    while (task := tasks.get()) is not None:
        kind, j, payload = task
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                kind, reply = work.do(kind, j, payload)
            except Exception as err:  # handed to the main process whole
                kind, reply = "error", _picklable(err)
        replies.put((kind, j, reply, [_picklable_warning(w) for w in caught]))
    os._exit(0)  # the forked copy of the main process's models is never cleaned up here


def _picklable(err: BaseException) -> BaseException:
    """``err`` if it survives pickling, else an :class:`XLScoreError` with its traceback."""
    try:  # what the queue will do with it (between forked copies of this process)
        ForkingPickler.loads(ForkingPickler.dumps(err))
        return err
    except Exception:
        return XLScoreError("a worker process failed:\n" + "".join(traceback.format_exception(err)))


def _picklable_warning(w: warnings.WarningMessage) -> warnings.WarningMessage:
    """A recorded warning reduced to what the main process gives again."""
    message = w.message if isinstance(w.message, Warning) else UserWarning(str(w.message))
    try:
        ForkingPickler.dumps(message)
    except Exception:
        message = UserWarning(str(message))
    return warnings.WarningMessage(message, w.category, "", 0)
