"""Training a :class:`~xlscore.estimator.model.QualityEstimator` on judged data sets: the
examples encoded once, one fine-tune per seed of the soup
(:func:`xlscore.training.loop.train_loop`), their average, and the weights compressed as
the file stores them. Imported only when an estimator is trained, never on the scoring path.
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TypeVar

import torch

from xlscore.errors import XLScoreError
from xlscore.estimator.network import EstimatorNetwork
from xlscore.estimator.recipe import Recipe
from xlscore.io.judgments import Judgment, rows_digest
from xlscore.training.loop import (
    BatchTargets,
    TrainingLog,
    make_examples,
    piece_labels,
    plan_batches,
    plan_length_batches,
    set_shares,
    train_loop,
)

Estimator = TypeVar("Estimator", bound=EstimatorNetwork)


def fit(
    est: Estimator,
    datasets: Sequence[Sequence[Judgment]],
    *,
    progress: bool = False,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int = 200,
    corrupt: Callable[..., object] | None = None,
    start: EstimatorNetwork | None = None,
) -> Estimator:
    """Train an untrained estimator on judged data sets, in place (the runtime model has no
    ``fit``: training code stays off the scoring path).

    Args:
        est: the estimator (:class:`~xlscore.estimator.model.QualityEstimator`, untrained), its
            recipe what decides the training.
        datasets: each a list of :class:`Judgment`; human scores are put on one scale per
            set.
        progress: show a progress bar.
        checkpoint: a file to save progress in and resume from; with ``recipe.seeds`` > 1
            each member of the soup has its own (``CHECKPOINT.seedN``), kept until the
            caller removes them.
        checkpoint_every: steps between saves.
        corrupt: the synthetic corruption function (default
            :func:`xlscore.training.corruptions.corrupt` when ``recipe.synthetic`` > 0).
        start: the fitted estimator whose encoder and sentence head a ``heads_only``
            recipe keeps, training the word and meaning heads on its states.

    Returns:
        ``est``, trained, its weights compressed as its ``save`` stores them (so predictions
        before and after saving agree).
    """
    _check_fit(est, datasets, start)
    r = est.recipe
    examples, encoded = _encoded_examples(est, datasets, corrupt)
    data = [{"rows": len(d), "sha256": rows_digest(d)} for d in datasets]
    identity: dict = {"base": est.base_fingerprint, "data": data}
    if start is not None:
        identity["start"] = start.describe()
    trainable = est._trainable()
    if r.heads_only:  # the fitted encoder and sentence head stay as they are
        est.model.frozen_body = True
        for name, p in est.model.named_parameters():
            p.requires_grad = name.startswith(("word.", "meaning."))
    initial = {k: v.detach().clone() for k, v in trainable.items()}

    collate = _collator(est, examples, encoded)
    plan = _planner(examples, [len(x) for x in encoded], datasets, r)
    soup = {k: torch.zeros_like(v) for k, v in initial.items()}
    est.log = TrainingLog()
    for member in range(r.seeds):
        seed = r.seed + member
        with torch.no_grad():
            for k, p in trainable.items():
                p.copy_(initial[k])
        est.model.reset_head(seed, sentence=not r.heads_only)
        ckpt = _member_checkpoint(checkpoint, r.seeds, seed)
        log = train_loop(
            est.model,
            functools.partial(plan, seed=seed),
            collate,
            examples,
            r,
            head=est.model.head_modules(),
            device=est.device,
            checkpoint=ckpt,
            seed=seed,
            checkpoint_every=checkpoint_every,
            progress=progress,
            identity=identity,
        )
        for part in ("steps", "seconds", "epoch_loss", "epoch_parts"):  # the members' sum
            setattr(est.log, part, getattr(est.log, part) + getattr(log, part))
        for k, p in trainable.items():
            soup[k] += p.detach() / r.seeds
    _finish(est, trainable, soup, start, data)
    return est


def _member_checkpoint(checkpoint: str | os.PathLike | None, seeds: int, seed: int) -> Path | None:
    """A soup member's checkpoint: ``checkpoint`` itself with one seed, else its own
    ``CHECKPOINT.seedN``."""
    if checkpoint is None:
        return None
    return Path(checkpoint if seeds == 1 else f"{checkpoint}.seed{seed}")


def _check_fit(
    est: EstimatorNetwork,
    datasets: Sequence[Sequence[Judgment]],
    start: EstimatorNetwork | None,
) -> None:
    """Refuse what :func:`fit` cannot train: data not given as sets, an estimator already
    trained, a ``start`` model without a ``heads_only`` recipe; with ``heads_only``, take the
    start model's encoder and sentence head."""
    if not datasets or isinstance(datasets[0], Judgment):
        raise TypeError("fit takes a list of data sets, each a list of Judgment")
    if est.fitted:
        raise XLScoreError(
            "this estimator is already trained (or loaded); fit a new "
            "QualityEstimator on its base model instead"
        )
    if est.recipe.heads_only:
        _take_fitted(est, start)
    elif start is not None:
        raise XLScoreError("start: only a recipe with heads_only starts from a fitted model")


def _encoded_examples(
    est: EstimatorNetwork,
    datasets: Sequence[Sequence[Judgment]],
    corrupt: Callable[..., object] | None,
) -> tuple[list, list]:
    """The training examples (with the recipe's synthetic corruptions, if any) and their
    pairs encoded once, cut at the recipe's length."""
    r = est.recipe
    if corrupt is None and r.synthetic > 0:
        from xlscore.training.corruptions import corrupt
    examples = make_examples(datasets, r, corrupt)
    pairs = [(e.source, e.translation) for e in examples]
    encoded, _ = est._encode(pairs, min(r.max_length, est.max_length))
    return examples, encoded


def _planner(
    examples: list, lengths: list[int], datasets: Sequence[Sequence[Judgment]], r: Recipe
) -> Callable[..., list[list[int]]]:
    """The batches of an epoch for a seed: ``plan(epoch, seed=SEED)`` (by length, or by
    source with each data set's share of the batches, :func:`set_shares`)."""
    groups: list[set[int]] = [set() for _ in datasets]
    for e in examples:
        groups[e.dataset].add(e.group)
    units = [len(g - {-1}) for g in groups]
    shares = set_shares(units, [d[0].lp for d in datasets], r)

    def plan(epoch: int, *, seed: int) -> list[list[int]]:
        rng = random.Random(seed * 1000 + epoch)
        if r.batching == "length":
            return plan_length_batches(lengths, r.batch_size, rng)
        return plan_batches(examples, lengths, r.batch_size, rng, shares)

    return plan


def _finish(
    est: EstimatorNetwork,
    trainable: Mapping[str, torch.Tensor],
    soup: dict[str, torch.Tensor],
    start: EstimatorNetwork | None,
    data: list[dict],
) -> None:
    """The soup's average into ``est``'s weights, compressed as its file stores them, and the
    training's record in its metadata."""
    r = est.recipe
    with torch.no_grad():
        for k, p in trainable.items():
            p.copy_(soup[k])
            p.requires_grad = False
    est.model.frozen_body = False
    # the delta is taken from the base's own weights, not from ``start``; heads learnt on a
    # fitted model keep that model's delta as it was (compressing it again would move the
    # sentence score), the new heads beside it
    base = est._base_weights()
    est._delta = est._compress(base) if start is None else _beside(start, est, base)
    est.fitted = True
    est.name = "custom"
    # the training time stays out of the file, so that a rerun can give the same bytes
    est.meta = {
        "recipe": asdict(r),
        "data": data,
        **({"start": start.describe()} if start is not None else {}),
        "training": {"steps": est.log.steps, "epoch_loss": est.log.epoch_loss},
    }
    est.digest, est.path = None, None


def _collator(est: EstimatorNetwork, examples: list, encoded: list) -> Callable:
    """The training loop's ``collate``: example indices -> the model's padded inputs and the
    batch's targets (sentence targets and weights, groups, parents, ranks, the word labels of
    a model with a word head)."""

    def collate(rows: list[int]):
        pos = {j: k for k, j in enumerate(rows)}
        ex = [examples[j] for j in rows]
        batch = est._batch([encoded[j] for j in rows])
        labels = None
        if est.model.use_words:
            labels = torch.full(batch[0].shape, -100, dtype=torch.long)
            for k, j in enumerate(rows):
                where = [i for i, s in enumerate(encoded[j].side) if s == 2]
                labels[k, where] = torch.tensor(
                    piece_labels(examples[j], encoded[j].translation_offsets()),
                    dtype=torch.long,
                )
            labels = labels.to(est.device)

        def vector(values, dtype=torch.float32):
            return torch.tensor(values, dtype=dtype, device=est.device)

        return batch, BatchTargets(
            vector([e.target for e in ex]),
            vector([e.weight for e in ex]),
            vector([-1 if e.parent >= 0 else e.group for e in ex], torch.long),
            vector([pos.get(e.parent, -1) for e in ex], torch.long),
            vector([e.rank_value for e in ex]),
            vector([e.rank_gap for e in ex]),
            labels,
            vector([e.word_weight for e in ex]),
        )

    return collate


def _take_fitted(est: EstimatorNetwork, start: EstimatorNetwork | None) -> None:
    """Copy a fitted model's encoder and sentence head into ``est`` (whose recipe trains only
    the word and meaning heads on them)."""
    if start is None or not start.fitted:
        raise XLScoreError(
            "recipe heads_only trains the word and meaning heads on a fitted model's states: "
            "give the fitted model as start"
        )
    if start.base_fingerprint != est.base_fingerprint:
        raise XLScoreError("start was fitted on another base model")
    if start.recipe.freeze_layers != est.recipe.freeze_layers:
        raise XLScoreError("start and this recipe freeze different layers (freeze_layers)")
    theirs = start.model.state_dict()
    mine = est.model.state_dict()
    wanted = [k for k in mine if k.startswith(("encoder.", "head."))]
    missing = [k for k in wanted if k not in theirs or theirs[k].shape != mine[k].shape]
    if missing:
        raise XLScoreError(f"start has no weight {missing[0]} of this shape")
    with torch.no_grad():
        for k in wanted:
            mine[k].copy_(theirs[k])


def _beside(
    start: EstimatorNetwork, est: EstimatorNetwork, base: dict[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """``est``'s delta made of ``start``'s (its encoder and sentence head, unchanged) and
    ``est``'s own new layers (whole), applied to ``est`` over the ``base`` weights."""
    from xlscore.estimator import delta

    new = {
        k: v.detach() for k, v in est._weights().items() if not k.startswith(("encoder.", "head."))
    }
    combined = {**start._delta, **delta.compress({}, new, rank=0)}
    est._apply(combined, base)
    return combined
