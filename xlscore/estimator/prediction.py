"""Prediction: what a trained estimator says of each translation of a corpus
(:func:`predict_pairs`, :class:`Estimate`).

Each distinct normalised pair is encoded once and read in a forward pass whose shape depends only
on the pair's own length (:func:`xlscore.encoders.arithmetic.plan_passes`), so that a pair's score
is bit-identical whatever else is predicted with it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from xlscore.metric.corpus import check_corpus
from xlscore.text.words import normalize_text

if TYPE_CHECKING:
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
) -> tuple[np.ndarray, list[Estimate]]:
    """The scores of the trained ``est`` for each pair, and with ``details`` the
    :class:`Estimate` of each pair. Each distinct normalised pair is read once, in a pass of a
    shape fixed by its own length. ``checked=True``: the caller has already validated the two
    lists. ``on_pairs``: called with the number of pairs each pass has read (for progress).
    ``where``: how a warning names the pair at a position (default: ``pair N``).
    ``pointed``: what the rule checks' findings of each pair point at (the span tagger runs
    the checks itself without it)."""
    if not est.fitted:
        raise XLScoreError("the estimator is not trained: fit it or load a trained one")
    if not checked:
        sources, systems = check_corpus(sources, translations)
        translations = systems[""]
    keys: dict[tuple[str, str], int] = {}
    first: dict[int, int] = {}
    order = []
    for i, pair in enumerate(zip(sources, translations)):
        k = keys.setdefault((normalize_text(pair[0]), normalize_text(pair[1])), len(keys))
        first.setdefault(k, i)
        order.append(k)
    unique = list(keys)
    encoded, cut = est._encode(unique, est.max_length)
    if cut:
        named = where or (lambda k: f"pair {k + 1}")
        said = "; ".join(named(first[i]) for i in cut[:5]) + (" ..." if len(cut) > 5 else "")
        warnings.warn(
            f"{len(cut)} pair(s) longer than the {est.max_length} pieces the estimator reads "
            f"were cut, the longer side's end first ({said}); the paper's columns and the "
            "similarity read them whole",
            LongInputWarning,
            stacklevel=3,
        )
    # passes of one shape per width (xlscore.encoders.arithmetic.plan_passes), rows in text order
    passes = arithmetic.plan_passes(
        [len(x) for x in encoded], est.device.type, est.max_length, key=lambda k: unique[k]
    )
    out = np.zeros(len(unique), dtype=np.float64)
    parts = np.zeros((len(unique), 3), dtype=np.float64)
    word_probs: dict[int, np.ndarray] = {}
    dtype = est.arithmetic
    model = est._predictor(dtype)
    from tqdm.auto import tqdm

    est.model.eval()
    with arithmetic.inference(dtype, est.device):
        for rows, width, members in tqdm(
            passes, desc="estimating", unit="batch", disable=not progress, leave=False
        ):
            batch = est._batch([encoded[k] for k in members], rows, width)
            n = len(members)
            if not est.model.extended:
                pred = model(*batch[:2])
                out[members] = pred[:n].float().cpu().numpy()
                parts[members, 0] = out[members]
            else:
                pred, word_logits, split = model(*batch, parts=True)
                out[members] = pred[:n].float().cpu().numpy()
                parts[members] = split[:n].float().cpu().numpy()
                if details and word_logits is not None:
                    probs = torch.softmax(word_logits[:n].float(), -1).cpu().numpy()
                    for r, k in enumerate(members):
                        keep = np.asarray(encoded[k].side) == 2
                        word_probs[k] = probs[r, : len(encoded[k])][keep]
            if on_pairs is not None:
                on_pairs(n)
    if not order:
        return np.zeros(0), []
    if not details:
        return out[order], []
    estimates = []
    threshold, tagger = est.recipe.span_threshold, est.tagger
    # the word errors of each distinct pair once (engines often agree word for word), moved
    # onto each translation as given
    errors = {
        k: word_errors(unique[k][1], encoded[k].translation_offsets(), probs)
        for k, probs in word_probs.items()
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
        estimates.append(
            Estimate(
                float(out[k]),
                float(parts[k, 0]),
                float(parts[k, 1]),
                spans,
                words,
                float(parts[k, 2]),
            )
        )
    return out[order], estimates
