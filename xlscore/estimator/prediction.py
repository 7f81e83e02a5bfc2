"""Prediction: what a trained estimator says of each translation of a corpus
(:func:`predict_pairs`, :class:`Estimate`), in three steps that can run apart: the distinct
pairs read into pieces (:func:`read_pairs`, CPU work), their forward passes
(:class:`PassQueue`, the model), and the estimates made of the passes' outputs
(:func:`estimates_of`, CPU work). :mod:`xlscore.scoring.blocks` runs the CPU steps in worker
processes beside the passes.

Each distinct normalised pair is encoded once and read in a forward pass whose shape depends only
on the pair's own length (:func:`xlscore.encoders.arithmetic.batch_shape`), so that a pair's
score is bit-identical whatever else is predicted with it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import torch

from xlscore.encoders import arithmetic
from xlscore.errors import LongInputWarning, XLScoreError
from xlscore.estimator.spans import (
    ErrorSpan,
    WordError,
    decode_spans,
    move_spans,
    move_words,
    word_errors,
)
from xlscore.text.pairs import DistinctPairs, check_corpus, distinct_pairs

if TYPE_CHECKING:
    from xlscore.estimator.crossencoder import Encoded
    from xlscore.estimator.network import EstimatorNetwork
    from xlscore.estimator.span_tagger import Pointer


@dataclass(frozen=True)
class Estimate:
    """What the estimator says of one translation: ``score`` (as :meth:`QualityEstimator.predict`
    gives it) and its two parts, ``base`` (the sentence head) and ``adequacy`` (what the
    word head and the blended meaning head add; 0 for an estimator
    without them), the predicted ``error_spans`` and each word's error probabilities ``words``
    (character offsets into the translation as given; empty for an estimator without a word
    head), and ``meaning``, the meaning head's raw output before its blend (0 without one)."""

    score: float
    base: float
    adequacy: float
    error_spans: tuple[ErrorSpan, ...] = ()
    words: tuple[WordError, ...] = ()
    meaning: float = 0.0


@dataclass
class PairInputs:
    """The distinct normalised pairs of a list of pairs as the estimator reads them.

    Attributes:
        unique: the distinct normalised ``(source, translation)`` pairs.
        order: for each given pair, the index of its distinct pair.
        first: for each distinct pair, the position of the first given pair that is it.
        encoded: each distinct pair's pieces (cut to the estimator's ``max_length``).
        cut: the distinct pairs that were cut.
    """

    unique: list[tuple[str, str]]
    order: list[int]
    first: dict[int, int]
    encoded: list[Encoded]
    cut: list[int]


@dataclass
class PassOutputs:
    """What the forward passes gave for each distinct pair of a :class:`PairInputs`: its score,
    its three parts (sentence head, adequacy, meaning) and, with details, its translation
    pieces' word-error probabilities; ``waiting`` counts the pairs not yet read."""

    scores: np.ndarray
    parts: np.ndarray
    word_probs: dict[int, np.ndarray] = field(default_factory=dict)
    waiting: int = 0

    @classmethod
    def empty(cls, n: int) -> PassOutputs:
        """Outputs for ``n`` distinct pairs, all waiting."""
        return cls(np.zeros(n, dtype=np.float64), np.zeros((n, 3), dtype=np.float64), {}, n)


def read_pairs(
    est: EstimatorNetwork, sources: Sequence[str], translations: Sequence[str]
) -> PairInputs:
    """The distinct normalised pairs of two parallel lists, each read into pieces once."""
    return read_distinct(est, distinct_pairs(sources, translations))


def read_distinct(est: EstimatorNetwork, pairs: DistinctPairs) -> PairInputs:
    """Pairs normalised and de-duplicated already (:func:`~xlscore.text.pairs.distinct_pairs`,
    as the scorer prepares a block), each distinct pair read into pieces once."""
    encoded, cut = est._encode(pairs.unique, est.max_length)
    return PairInputs(pairs.unique, pairs.order, dict(enumerate(pairs.first)), encoded, cut)


class PassQueue:
    """Forward passes of an estimator over the distinct pairs of any number of
    :class:`PairInputs`: each pair waits with the others of its shape
    (:func:`~xlscore.encoders.arithmetic.batch_shape`) until a pass of that shape is full, so
    that passes over many small inputs are as full as over one large input, and each pair's
    result is the same whatever it shared its pass with.

    Args:
        est: the trained estimator.
        details: keep each pair's word-error probabilities (for its error spans).
    """

    def __init__(self, est: EstimatorNetwork, details: bool) -> None:
        self.est, self.details = est, details
        self.waiting: dict[tuple[int, int], list[tuple[PassOutputs, int, Encoded]]] = {}

    def add(self, encoded: Sequence[Encoded], outputs: PassOutputs) -> None:
        """Queue the pairs ``encoded``; their results go to ``outputs`` at the same positions.
        They are queued by length and then by their pieces, so that the passes do not depend
        on the order they came in."""
        dev, longest = self.est.device.type, self.est.max_length
        for k in sorted(range(len(encoded)), key=lambda k: _order(encoded[k])):
            shape = arithmetic.batch_shape(len(encoded[k]), dev, longest)
            self.waiting.setdefault(shape, []).append((outputs, k, encoded[k]))

    def add_all(self, inputs: PairInputs) -> PassOutputs:
        """Queue every distinct pair of ``inputs``; returns the outputs they fill."""
        outputs = PassOutputs.empty(len(inputs.unique))
        self.add(inputs.encoded, outputs)
        return outputs

    def run(
        self,
        *,
        flush: bool,
        progress: bool = False,
        on_pairs: Callable[[int], None] | None = None,
    ) -> int:
        """Run every full pass (with ``flush``, every pass that has a pair waiting); returns
        the number of pairs read. ``on_pairs``: called with the number of pairs each pass
        read."""
        from tqdm.auto import tqdm

        todo = []
        for (rows, width), queue in self.waiting.items():
            end = len(queue) if flush else len(queue) - len(queue) % rows
            todo += [(rows, width, queue[s : min(s + rows, end)]) for s in range(0, end, rows)]
            del queue[:end]
        self.waiting = {shape: queue for shape, queue in self.waiting.items() if queue}
        if not todo:
            return 0
        est = self.est
        model = est._predictor()
        est.model.eval()
        with arithmetic.inference(est.arithmetic, est.device):
            for rows, width, members in tqdm(
                todo, desc="estimating", unit="batch", disable=not progress, leave=False
            ):
                self._read(model, rows, width, members)
                if on_pairs is not None:
                    on_pairs(len(members))
        return sum(len(m) for _, _, m in todo)

    def _read(
        self,
        model: torch.nn.Module,
        rows: int,
        width: int,
        members: list[tuple[PassOutputs, int, Encoded]],
    ) -> None:
        """One forward pass of shape ``(rows, width)`` over ``members``, its results stored."""
        est, n = self.est, len(members)
        batch = est._batch([e for _, _, e in members], rows, width)
        if not est.model.extended:
            pred = model(*batch[:2])[:n].float().cpu().numpy()
            split = np.zeros((n, 3))
            split[:, 0] = pred
            word_logits = None
        else:
            pred_t, word_logits, split_t = model(*batch, parts=True)
            pred = pred_t[:n].float().cpu().numpy()
            split = split_t[:n].float().cpu().numpy()
        probs = (
            torch.softmax(word_logits[:n].float(), -1).cpu().numpy()
            if self.details and word_logits is not None
            else None
        )
        for r, (out, k, enc) in enumerate(members):
            out.scores[k] = pred[r]
            out.parts[k] = split[r]
            if probs is not None:
                keep = np.asarray(enc.side) == 2
                out.word_probs[k] = probs[r, : len(enc)][keep]
            out.waiting -= 1


def _order(e: Encoded) -> tuple:
    """Where a pair goes among the others queued with it: by length, then by its pieces."""
    return (len(e), e.ids, e.side, e.evidence)


def warn_cut(
    est: EstimatorNetwork,
    inputs: PairInputs,
    where: Callable[[int], str] | None = None,
    stacklevel: int = 3,
) -> None:
    """Warn of the pairs of ``inputs`` cut to the estimator's ``max_length``, naming the
    first five (``where``: how to name the pair at a position; default ``pair N``)."""
    cut = inputs.cut
    if not cut:
        return
    named = where or (lambda k: f"pair {k + 1}")
    said = "; ".join(named(inputs.first[i]) for i in cut[:5]) + (" ..." if len(cut) > 5 else "")
    warnings.warn(
        f"{len(cut)} pair(s) longer than the {est.max_length} pieces the estimator reads "
        f"were cut, the longer side's end first ({said}); the paper's columns and the "
        "similarity read them whole",
        LongInputWarning,
        stacklevel=stacklevel,
    )


def run_passes(
    est: EstimatorNetwork,
    inputs: PairInputs,
    *,
    details: bool,
    progress: bool = False,
    on_pairs: Callable[[int], None] | None = None,
) -> PassOutputs:
    """Every forward pass over ``inputs`` alone, in a :class:`PassQueue` of their own
    (``details``, ``progress`` and ``on_pairs`` as the queue takes them)."""
    queue = PassQueue(est, details)
    outputs = queue.add_all(inputs)
    queue.run(flush=True, progress=progress, on_pairs=on_pairs)
    return outputs


def estimates_of(
    est: EstimatorNetwork,
    inputs: PairInputs,
    outputs: PassOutputs,
    translations: Sequence[str],
    pointed: Sequence[Sequence[Pointer]] | None = None,
) -> list[Estimate]:
    """The :class:`Estimate` of each given pair from its distinct pair's pass outputs: the
    word errors and error spans of each distinct pair made once (engines often agree word for
    word), then moved onto each translation as given (``translations``). ``pointed``: what the
    rule checks' findings of each pair point at (the span tagger runs the checks itself
    without it)."""
    unique, order, first = inputs.unique, inputs.order, inputs.first
    threshold, tagger = est.recipe.span_threshold, est.tagger
    errors = {
        k: word_errors(unique[k][1], inputs.encoded[k].translation_offsets(), probs)
        for k, probs in outputs.word_probs.items()
    }
    # with a span tagger, each distinct pair's spans are made on the text the model read
    tagged = (
        {
            k: tagger.spans(*unique[k], w, None if pointed is None else pointed[first[k]])
            for k, w in errors.items()
        }
        if tagger is not None
        else {}
    )
    estimates = []
    # Python floats of the whole arrays at once (the same values as indexing each)
    scores, parts = outputs.scores.tolist(), outputs.parts.tolist()
    for i, k in enumerate(order):
        words: tuple[WordError, ...] = ()
        spans: tuple[ErrorSpan, ...] = ()
        if k in errors:
            words = move_words(errors[k], unique[k][1], translations[i])
            spans = (
                move_spans(tagged[k], unique[k][1], translations[i])
                if tagger is not None
                else decode_spans(translations[i], words, threshold)
            )
        estimates.append(Estimate(scores[k], parts[k][0], parts[k][1], spans, words, parts[k][2]))
    return estimates


def predict_pairs(
    est: EstimatorNetwork,
    sources: Sequence[str],
    translations: Sequence[str],
    *,
    progress: bool,
    details: bool,
    checked: bool = False,
    on_pairs: Callable[[int], None] | None = None,
    where: Callable[[int], str] | None = None,
    pointed: Sequence[Sequence[Pointer]] | None = None,
    forwarded: tuple[PairInputs, PassOutputs] | None = None,
) -> tuple[np.ndarray, list[Estimate]]:
    """The scores of the trained ``est`` for each pair, and with ``details`` the
    :class:`Estimate` of each pair. Each distinct normalised pair is read once, in a pass of a
    shape fixed by its own length. ``checked=True``: the caller has already validated the two
    lists. ``on_pairs``: called with the number of pairs each pass has read (for progress).
    ``where``: how a warning names the pair at a position (default: ``pair N``).
    ``pointed``: what the rule checks' findings of each pair point at (the span tagger runs
    the checks itself without it). ``forwarded``: these pairs' inputs (:func:`read_pairs`)
    and their outputs, read already by a :class:`PassQueue` (with ``details``)."""
    if not est.fitted:
        raise XLScoreError("the estimator is not trained: fit it or load a trained one")
    if not checked:
        sources, systems = check_corpus(sources, translations)
        translations = systems[""]
    if forwarded is not None:
        inputs, outputs = forwarded
    else:
        inputs = read_pairs(est, sources, translations)
        outputs = run_passes(est, inputs, details=details, progress=progress, on_pairs=on_pairs)
    warn_cut(est, inputs, where, stacklevel=4)
    if not inputs.order:
        return np.zeros(0), []
    scores = outputs.scores[inputs.order]
    if not details:
        return scores, []
    return scores, estimates_of(est, inputs, outputs, translations, pointed)
