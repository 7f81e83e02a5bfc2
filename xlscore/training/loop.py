"""Training a quality estimator on human judgments: targets, batches, losses, the loop.

* **Targets.** Each data set's human scores (MQM, length-normalised MQM, minus HTER) are put on
  one scale by their normal scores: the average rank of each score, as a quantile of the
  standard normal distribution (:func:`normal_scores`). Ties keep one value, the best
  translation of a set gets about +2.5, the median 0.
* **Batches.** Translations of one source stay in one batch (a source's candidates, or a
  machine translation with its post-edit), so that the ranking loss can compare them; single
  translations are batched with others of similar length from the same data set.
* **Loss.** Squared error on the targets plus ``rank_weight`` times a pairwise logistic loss
  over every pair of translations of one source whose human scores differ clearly (single
  translations of different sources are never compared with each other). Direct-assessment
  sets (kind ``"da"``) enter the ranking loss for pairs whose raw ratings differ by at
  least ``da_gap`` points (the WMT "relative ranking" convention), and the squared error only
  with ``da_regression``. Synthetic corruptions
  (:mod:`xlscore.training.corruptions`) are never regression targets: each only has to score below
  the translation it was made from, by ``synthetic_margin`` (weight ``synthetic_weight`` on
  the score, ``meaning_weight`` on the meaning head's output, which nothing else trains).
  With a word head (``word_weight`` > 0), a cross-entropy over the translation's pieces (OK /
  minor / major error) is added: the raters' error spans where they exist, the corrupted
  characters of each corruption.
* **Loop.** AdamW, linear warm-up and decay (with ``layer_decay`` < 1 each encoder layer's
  rate is the one above it times that factor; for the first ``frozen_start`` of an epoch only
  the heads learn: COMET's recipe), gradients clipped at 1, bfloat16 autocast where
  the processor computes in bfloat16. A checkpoint (one safetensors file, its state in the metadata)
  is written every ``checkpoint_every`` steps; a run started again with the same checkpoint path
  continues from it with the same batches.
* **Seed soup.** With ``seeds`` > 1, that many fine-tunes from the same starting weights,
  with seeds ``seed``, ``seed + 1``, ... (different head initialisation, batch order and
  dropout), are averaged weight by weight into one model (a "model soup": one model's cost
  at prediction time).

This module holds the loop (:func:`train_loop`, with its checkpoints); the recipe is
:mod:`xlscore.estimator.recipe`, the targets and batches :mod:`xlscore.training.data`,
the loss :mod:`xlscore.training.loss`, and the fit of a
:class:`~xlscore.estimator.model.QualityEstimator` (the seed soup)
:func:`xlscore.training.fitting.fit`. Their names are importable from here too.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from xlscore.encoders.arithmetic import training_dtype
from xlscore.errors import XLScoreError
from xlscore.estimator.recipe import LEGACY, TARGETS, Recipe, TrainingLog
from xlscore.training.data import (
    Example,
    draw_corruptions,
    make_examples,
    normal_scores,
    piece_labels,
    plan_batches,
    plan_length_batches,
    set_shares,
    set_targets,
)
from xlscore.training.loss import LOSS_PARTS, BatchTargets, batch_loss

__all__ = [
    "LEGACY",
    "TARGETS",
    "BatchTargets",
    "Example",
    "Recipe",
    "TrainingLog",
    "batch_loss",
    "draw_corruptions",
    "make_examples",
    "normal_scores",
    "piece_labels",
    "plan_batches",
    "plan_length_batches",
    "remove_checkpoint",
    "set_shares",
    "set_targets",
    "train_loop",
]


def _save_checkpoint(
    path: Path,
    model: torch.nn.Module,
    opt: torch.optim.Optimizer,
    step: int,
    log: TrainingLog,
    identity: dict,
    partial: tuple[float, int],
    part_sums: dict[str, float],
) -> None:
    """One file, written atomically: trainable weights, optimizer state, random state, and
    (as metadata) the step, the log so far, the running loss of the current epoch
    (``partial``) and of its terms (``part_sums``) and the run's identity."""
    from safetensors.torch import save_file

    tensors = {
        f"model.{k}": v.detach().contiguous()
        for k, v in model.named_parameters()
        if v.requires_grad
    }
    for name, p in model.named_parameters():
        for key, value in opt.state.get(p, {}).items():
            if torch.is_tensor(value):
                tensors[f"opt.{name}.{key}"] = value.detach().contiguous()
    tensors["rng"] = torch.get_rng_state()
    meta = {
        "step": step,
        "identity": identity,
        "log": asdict(log),
        "partial": list(partial),
        "partial_parts": part_sums,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        save_file(
            {k: v.cpu() for k, v in tensors.items()},
            str(tmp),
            metadata={"xlscore_checkpoint": json.dumps(meta)},
        )
        os.replace(tmp, path)
    except Exception as err:  # safetensors raises its own error type for I/O problems
        raise XLScoreError(f"cannot write checkpoint {path}: {err}") from None


def _load_checkpoint(
    path: Path, model: torch.nn.Module, opt: torch.optim.Optimizer, identity: dict
) -> tuple[int, TrainingLog, tuple[float, int], dict[str, float]]:
    """The state :func:`_save_checkpoint` wrote, loaded into ``model`` and ``opt``: the
    step, the log, the current epoch's running loss and its terms' running sums (zero for a
    checkpoint written before the terms were logged)."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="pt") as fh:
            meta = json.loads((fh.metadata() or {})["xlscore_checkpoint"])
            # a safe_open handle has keys() but is not iterable
            tensors = {k: fh.get_tensor(k) for k in fh.keys()}  # noqa: SIM118
        step, log, partial = int(meta["step"]), TrainingLog(**meta["log"]), meta["partial"]
    except Exception as err:  # a damaged or foreign file, whatever the reader raises
        raise XLScoreError(
            f"checkpoint {path} cannot be read ({type(err).__name__}: {err}); "
            "remove it to start again"
        ) from None
    if meta.get("identity") != identity:
        raise XLScoreError(
            f"checkpoint {path} was written for other data or settings; remove "
            "it or train with the same ones"
        )
    params = {k: p for k, p in model.named_parameters() if p.requires_grad}
    missing = [f"model.{k}" for k in params if f"model.{k}" not in tensors]
    if missing or "rng" not in tensors:
        raise XLScoreError(
            f"checkpoint {path} is incomplete (no {(missing or ['rng'])[0]}); "
            "remove it to start again"
        )
    with torch.no_grad():
        for name, p in params.items():
            p.copy_(tensors[f"model.{name}"])
    for name, p in params.items():
        state = {
            key.rsplit(".", 1)[1]: t.to(p.device)
            for key, t in tensors.items()
            if key.startswith(f"opt.{name}.") and key.count(".") == name.count(".") + 2
        }
        if state:
            opt.state[p] = state
    torch.set_rng_state(tensors["rng"])
    part_sums = {k: float(meta.get("partial_parts", {}).get(k, 0.0)) for k in LOSS_PARTS}
    return step, log, (float(partial[0]), int(partial[1])), part_sums


def train_loop(
    model: torch.nn.Module,
    batches_for_epoch: Callable[[int], list[list[int]]],
    collate: Callable[[list[int]], tuple],
    examples: Sequence[Example],
    recipe: Recipe,
    *,
    head: torch.nn.Module,
    device: torch.device,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int = 200,
    identity: dict | None = None,
    seed: int | None = None,
    progress: bool = False,
) -> TrainingLog:
    """Optimise ``model`` on the planned batches.

    Args:
        model: a module returning one score per row of a batch, or a pair ``(scores, word
            logits)``; one with a meaning head (``use_meaning``) is asked for its parts too.
        batches_for_epoch: the batches (lists of example indices) of an epoch.
        collate: example indices -> ``(model inputs, BatchTargets)``.
        examples: the training examples.
        recipe: the recipe (learning rates, schedule, losses).
        head: the module whose parameters get ``recipe.head_lr`` (the others ``recipe.lr``).
        device: where to train.
        checkpoint: a file to save progress to and resume from; refused unless it was
            written for the same ``identity``.
        checkpoint_every: steps between saves.
        identity: the recipe plus whatever else the caller names (data digests, say).
        seed: the random seed of this run (default ``recipe.seed``).
        progress: show a progress bar.

    Returns:
        The log of the run (losses by step).
    """
    import time

    from tqdm.auto import tqdm

    seed = recipe.seed if seed is None else seed
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(_param_groups(model, head, recipe), weight_decay=recipe.weight_decay)
    total, factor = _schedule(recipe, len(batches_for_epoch(0)))
    step, run = 0, _EpochLoss(TrainingLog())
    ckpt = Path(checkpoint) if checkpoint else None
    identity = {"recipe": asdict(recipe), "seed": seed, **(identity or {})}
    if ckpt is not None and ckpt.exists():
        step, log, (run.total, run.n), run.parts = _load_checkpoint(ckpt, model, opt, identity)
        run.log = log
    dtype = training_dtype(device)
    model.train()
    bar = tqdm(total=total, initial=step, desc="training", unit="step", disable=not progress)
    start = time.time() - run.log.seconds
    epoch, offset = _position(batches_for_epoch, step)
    if offset == 0:  # saved at the end of an epoch, before its loss was logged
        run.end()
    while step < total:
        for b in batches_for_epoch(epoch)[offset:]:
            if step >= total:
                break
            for g in opt.param_groups:
                g["lr"] = g.setdefault("initial_lr", g["lr"]) * factor(step, g.get("body", True))
            run.add(_step(model, opt, collate(b), recipe, device, dtype, run.parts))
            step += 1
            bar.update(1)
            bar.set_postfix(loss=f"{run.total / run.n:.3f}")
            if ckpt is not None and (step % checkpoint_every == 0 or step == total):
                run.log.steps, run.log.seconds = step, time.time() - start
                _save_checkpoint(
                    ckpt, model, opt, step, run.log, identity, (run.total, run.n), run.parts
                )
        run.end()
        epoch, offset = epoch + 1, 0
    run.end()  # resumed from the final checkpoint
    bar.close()
    model.eval()
    run.log.steps, run.log.seconds = step, time.time() - start
    return run.log


@dataclass
class _EpochLoss:
    """The loss of the epoch under way (its sum over ``n`` batches, and its parts' sums) and
    the log that each finished epoch's means go to."""

    log: TrainingLog
    total: float = 0.0
    n: int = 0
    parts: dict[str, float] = field(default_factory=lambda: dict.fromkeys(LOSS_PARTS, 0.0))

    def add(self, loss: float) -> None:
        self.total, self.n = self.total + loss, self.n + 1

    def end(self) -> None:
        """Log the epoch's mean loss and parts (if it had a batch) and start the next."""
        if self.n:
            self.log.epoch_loss.append(self.total / self.n)
            self.log.epoch_parts.append({k: v / self.n for k, v in self.parts.items()})
            self.parts = dict.fromkeys(LOSS_PARTS, 0.0)
        self.total, self.n = 0.0, 0


def _schedule(recipe: Recipe, per_epoch: int) -> tuple[int, Callable[[int, bool], float]]:
    """The run's length in steps and its learning-rate factor at a step (``body``: for the
    encoder's parameters, which wait ``recipe.frozen_start`` epochs while the heads learn):
    linear warm-up, then linear decay to 0. The length is ``epochs`` times the first epoch's
    number of batches (later epochs may have a few batches more or less, so the last one can
    spill over a little)."""
    total = max(1, math.ceil(per_epoch * recipe.epochs))
    warm = max(1, int(recipe.warmup * total))
    frozen = math.ceil(recipe.frozen_start * per_epoch)  # steps in which only the heads learn

    def factor(step: int, body: bool) -> float:
        if body and step < frozen:
            return 0.0
        return (step + 1) / warm if step < warm else max(0.0, (total - step) / max(1, total - warm))

    return total, factor


def _position(batches_for_epoch: Callable[[int], list[list[int]]], step: int) -> tuple[int, int]:
    """The epoch of ``step`` and its position in that epoch's plan. Epochs may differ a little
    in their number of batches (units are packed): the epochs' plans are walked."""
    epoch, offset = 0, step
    while offset >= len(batches_for_epoch(epoch)):
        offset -= len(batches_for_epoch(epoch))
        epoch += 1
    return epoch, offset


def _step(
    model: torch.nn.Module,
    opt: torch.optim.Optimizer,
    batch: tuple,
    recipe: Recipe,
    device: torch.device,
    dtype: torch.dtype | None,
    part_sums: dict[str, float],
) -> float:
    """One optimisation step on a collated ``(inputs, targets)`` batch; the loss's parts are
    added to ``part_sums``. Returns the batch's loss."""
    inputs, targets = batch
    with_meaning = bool(getattr(model, "use_meaning", False))
    with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
        out = model(*inputs, parts=True) if with_meaning else model(*inputs)
    pred, words, meaning = out if with_meaning else (*_pair(out), None)
    parts: dict[str, float] = {}
    loss = batch_loss(
        pred.float(),
        targets,
        recipe,
        words,
        None if meaning is None else meaning[:, 2],
        parts=parts,
    )
    for k, v in parts.items():
        part_sums[k] += v
    if loss.requires_grad:  # (heads on frozen states: a batch may teach them nothing)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
    return loss.item()


def _param_groups(model: torch.nn.Module, head: torch.nn.Module, recipe: Recipe) -> list[dict]:
    """The optimizer's parameter groups: the heads at ``recipe.head_lr``; the encoder at
    ``recipe.lr``, or with ``layer_decay`` < 1 one group per transformer layer, each layer's rate
    that of the layer above times ``layer_decay`` (the top layer at ``lr``)."""
    from xlscore.estimator.network import layer_of

    head_ids = {id(p) for p in head.parameters()}
    body = [(n, p) for n, p in model.named_parameters()
            if p.requires_grad and id(p) not in head_ids]  # fmt: skip
    heads = {
        "params": [p for p in head.parameters() if p.requires_grad],
        "lr": recipe.head_lr,
        "body": False,
    }
    if recipe.layer_decay == 1.0:
        groups = [{"params": [p for _, p in body], "lr": recipe.lr, "body": True}, heads]
        return [g for g in groups if g["params"]]
    where = {n: layer[0] for n, _ in body if (layer := layer_of(n)) is not None}
    top = max(where.values(), default=0)
    depth: dict[int, list] = {}
    for n, p in body:  # parameters outside the layers learn at the top rate
        depth.setdefault(top - where.get(n, top), []).append(p)
    return [
        {"params": ps, "lr": recipe.lr * recipe.layer_decay**d, "body": True}
        for d, ps in sorted(depth.items())
    ] + [heads]


def _pair(out) -> tuple:
    """``(scores, word logits or None)`` of a model's output."""
    return out if isinstance(out, tuple) else (out, None)


def remove_checkpoint(checkpoint: str | os.PathLike) -> None:
    """Delete a finished run's checkpoint files (those of every soup member too)."""
    path = Path(checkpoint)
    for p in [path, *path.parent.glob(path.name + ".seed*")]:
        p.unlink(missing_ok=True)
