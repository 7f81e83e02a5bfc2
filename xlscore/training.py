"""Training a quality estimator on human judgments: targets, batches, losses, the loop.

* **Targets.** Each data set's human scores (MQM, length-normalised MQM, minus HTER) are put on
  one scale by their normal scores: the average rank of each score, as a quantile of the
  standard normal distribution (:func:`normal_scores`). Ties keep one value, the best
  translation of a set gets about +2.5, the median 0.
* **Batches.** Translations of one source stay in one batch (a source's candidates, or a
  machine translation with its post-edit), so that the ranking loss can compare them; single
  translations are batched with others of similar length from the same data set.
* **Loss.** Squared error on the targets plus ``rank_weight`` times a pairwise logistic loss
  over every pair of translations of one source whose targets differ (single translations of
  different sources are never compared with each other). Synthetic corruptions
  (:mod:`xlscore.corruptions`) enter only the ranking loss: each must score below the
  translation it was made from, by a margin of 1.
* **Loop.** AdamW, linear warm-up and decay, gradients clipped at 1, bfloat16 autocast where
  the processor computes in bfloat16. A checkpoint (one safetensors file, its state in the metadata) is written every
  ``checkpoint_every`` steps; a run started again with the same checkpoint path continues
  from it with the same batches.
* **Seed soup.** With ``seeds`` > 1, that many fine-tunes from the same starting weights,
  with seeds ``seed``, ``seed + 1``, ... (different head initialisation, batch order and
  dropout), are averaged weight by weight into one model (a "model soup": one model's cost
  at prediction time).
"""
from __future__ import annotations

import json
import math
import os
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from scipy import stats

from .errors import InputError, XLScoreError
from .judgments import Judgment
from .precision import autocast_dtype
from .words import normalize_text


@dataclass(frozen=True)
class Recipe:
    """Everything that decides a trained estimator besides its data (stored in the file)."""

    epochs: float = 2.0
    batch_size: int = 16
    lr: float = 3e-5
    head_lr: float = 1e-3
    weight_decay: float = 0.01
    warmup: float = 0.1
    rank_weight: float = 1.0
    synthetic: float = 0.0
    synthetic_weight: float = 1.0
    max_length: int = 256
    seed: int = 0
    seeds: int = 1
    delta_rank: int = 64
    delta_bits: int = 8

    def __post_init__(self) -> None:
        checks = [(self.epochs > 0, "epochs must be positive"),
                  (self.batch_size >= 2, "batch_size must be at least 2"),
                  (self.lr > 0 and self.head_lr > 0, "learning rates must be positive"),
                  (0 <= self.warmup < 1, "warmup is a share of the steps, in [0, 1)"),
                  (self.rank_weight >= 0 and self.synthetic_weight >= 0,
                   "loss weights must not be negative"),
                  (0 <= self.synthetic <= 1, "synthetic is a share of the translations"),
                  (self.max_length >= 16, "max_length must be at least 16"),
                  (self.seeds >= 1, "seeds must be at least 1"),
                  (self.delta_rank >= 0, "delta_rank must not be negative (0: no compression)"),
                  (self.delta_bits in (8, 16), "delta_bits must be 8 or 16")]
        for ok, message in checks:
            if not ok:
                raise XLScoreError(f"recipe: {message}")

    @classmethod
    def from_dict(cls, d: dict) -> "Recipe":
        """A recipe from :func:`dataclasses.asdict` output (unknown keys are an error)."""
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise XLScoreError(f"recipe: unknown setting {sorted(unknown)[0]!r}")
        return cls(**d)


def normal_scores(values: Sequence[float]) -> np.ndarray:
    """Normal scores of ``values``: the standard normal quantile of each value's average rank
    ``(rank - 0.5) / n``. Monotone, ties kept, about N(0, 1) whatever the original scale."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return v
    return stats.norm.ppf((stats.rankdata(v) - 0.5) / v.size)


@dataclass
class Example:
    """One training translation. ``group``: translations of one source share it (-1: the
    example is synthetic); ``parent``: for a synthetic corruption, the example it was made
    from (else -1); ``weight``: weight of its squared error."""

    source: str
    translation: str
    target: float
    group: int
    dataset: int
    weight: float = 1.0
    parent: int = -1


def make_examples(datasets: Sequence[Sequence[Judgment]], recipe: Recipe,
                  corrupt: Callable | None = None) -> list[Example]:
    """Examples from judged data sets (one target scale per set), plus synthetic corruptions
    of a ``recipe.synthetic`` share of them when ``corrupt`` is given."""
    out: list[Example] = []
    groups: dict[tuple[int, str], int] = {}
    for d, rows in enumerate(datasets):
        if not rows:
            raise InputError(f"training data set {d + 1} has no judged translations")
        targets = normal_scores([r.human for r in rows])
        for r, t in zip(rows, targets):
            g = groups.setdefault((d, r.seg_id), len(groups))
            out.append(Example(normalize_text(r.source), normalize_text(r.translation),
                               float(t), g, d))
    if corrupt is not None and recipe.synthetic > 0:
        rng = random.Random(recipe.seed + 7)
        pool = [e.translation for e in out]
        for i in range(len(out)):
            if rng.random() < recipe.synthetic:
                bad = corrupt(out[i].source, out[i].translation, rng, pool)
                if bad is not None and bad != out[i].translation:
                    e = out[i]
                    out.append(Example(e.source, bad, e.target - 1.0, -1, e.dataset, 0.0, i))
    return out


def plan_batches(examples: Sequence[Example], lengths: Sequence[int], batch_size: int,
                 rng: random.Random) -> list[list[int]]:
    """Batches of example indices for one epoch. A unit is a source with all its
    translations (and their corruptions) when it has several, else one translation with its
    corruptions; units of several are packed in random order, single ones in runs of similar
    length within their data set; the batches are then shuffled."""
    children: dict[int, list[int]] = {}
    members: dict[int, list[int]] = {}
    for i, e in enumerate(examples):
        if e.parent >= 0:
            children.setdefault(e.parent, []).append(i)
        else:
            members.setdefault(e.group, []).append(i)
    multi: list[list[int]] = []
    single: dict[int, list[list[int]]] = {}
    for idx in members.values():
        unit = idx + [c for i in idx for c in children.get(i, [])]
        if len(idx) > 1:
            multi.append(unit)
        else:
            single.setdefault(examples[idx[0]].dataset, []).append(unit)
    batches: list[list[int]] = []

    def pack(units: list[list[int]]) -> None:
        cur: list[int] = []
        for u in units:
            cur = cur + u
            if len(cur) >= batch_size:
                batches.append(cur)
                cur = []
        if cur:
            batches.append(cur)

    rng.shuffle(multi)
    pack(multi)
    for d in sorted(single):
        units = single[d]
        rng.shuffle(units)
        window = batch_size * 16
        for k in range(0, len(units), window):
            pack(sorted(units[k:k + window], key=lambda u: lengths[u[0]]))
    rng.shuffle(batches)
    return batches


def batch_loss(pred: torch.Tensor, target: torch.Tensor, weight: torch.Tensor,
               group: torch.Tensor, parent: torch.Tensor, rank_weight: float,
               synthetic_weight: float) -> torch.Tensor:
    """Weighted squared error + ``rank_weight`` x pairwise logistic loss within groups
    (``group`` -1: no group) + ``synthetic_weight`` x margin loss of each corruption against
    its parent (``parent``: position in the batch, or -1)."""
    loss = (weight * (pred - target) ** 2).sum() / weight.sum().clamp(min=1.0)
    same = (group[:, None] == group[None, :]) & (group[:, None] >= 0)
    better = same & (target[:, None] - target[None, :] > 0.05)
    if rank_weight and better.any():
        diff = pred[:, None] - pred[None, :]
        loss = loss + rank_weight * torch.nn.functional.softplus(-diff[better]).mean()
    child = parent >= 0
    if synthetic_weight and child.any():
        gap = pred[parent[child]] - pred[child]
        loss = loss + synthetic_weight * torch.nn.functional.softplus(1.0 - gap).mean()
    return loss


@dataclass
class TrainingLog:
    """What a training run did: steps, seconds, the mean loss of each epoch."""

    steps: int = 0
    seconds: float = 0.0
    epoch_loss: list[float] = field(default_factory=list)


def _save_checkpoint(path: Path, model: torch.nn.Module, opt: torch.optim.Optimizer,
                     step: int, log: TrainingLog, identity: dict,
                     partial: tuple[float, int]) -> None:
    """One file, written atomically: trainable weights, optimizer state, random state, and
    (as metadata) the step, the log so far, the running loss of the current epoch
    (``partial``) and the run's identity."""
    from safetensors.torch import save_file

    tensors = {f"model.{k}": v.detach().contiguous() for k, v in model.named_parameters()
               if v.requires_grad}
    for name, p in model.named_parameters():
        for key, value in opt.state.get(p, {}).items():
            if torch.is_tensor(value):
                tensors[f"opt.{name}.{key}"] = value.detach().contiguous()
    tensors["rng"] = torch.get_rng_state()
    meta = {"step": step, "identity": identity, "log": asdict(log), "partial": list(partial)}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        save_file({k: v.cpu() for k, v in tensors.items()}, str(tmp),
                  metadata={"xlscore_checkpoint": json.dumps(meta)})
        os.replace(tmp, path)
    except Exception as err:   # safetensors raises its own error type for I/O problems
        raise XLScoreError(f"cannot write checkpoint {path}: {err}") from None


def _load_checkpoint(path: Path, model: torch.nn.Module, opt: torch.optim.Optimizer,
                     identity: dict) -> tuple[int, TrainingLog, tuple[float, int]]:
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="pt") as fh:
            meta = json.loads((fh.metadata() or {})["xlscore_checkpoint"])
            tensors = {k: fh.get_tensor(k) for k in fh.keys()}
        step, log, partial = int(meta["step"]), TrainingLog(**meta["log"]), meta["partial"]
    except Exception as err:   # a damaged or foreign file, whatever the reader raises
        raise XLScoreError(f"checkpoint {path} cannot be read ({type(err).__name__}: {err}); "
                           "remove it to start again") from None
    if meta.get("identity") != identity:
        raise XLScoreError(f"checkpoint {path} was written for other data or settings; remove "
                           "it or train with the same ones")
    params = {k: p for k, p in model.named_parameters() if p.requires_grad}
    missing = [f"model.{k}" for k in params if f"model.{k}" not in tensors]
    if missing or "rng" not in tensors:
        raise XLScoreError(f"checkpoint {path} is incomplete (no {(missing or ['rng'])[0]}); "
                           "remove it to start again")
    with torch.no_grad():
        for name, p in params.items():
            p.copy_(tensors[f"model.{name}"])
    for name, p in params.items():
        state = {key.rsplit(".", 1)[1]: t.to(p.device) for key, t in tensors.items()
                 if key.startswith(f"opt.{name}.") and key.count(".") == name.count(".") + 2}
        if state:
            opt.state[p] = state
    torch.set_rng_state(tensors["rng"])
    return step, log, (float(partial[0]), int(partial[1]))


def train_loop(model: torch.nn.Module, batches_for_epoch: Callable[[int], list[list[int]]],
               collate: Callable[[list[int]], tuple], examples: Sequence[Example],
               recipe: Recipe, *, head: torch.nn.Module, device: torch.device,
               checkpoint: str | os.PathLike | None = None, checkpoint_every: int = 200,
               identity: dict | None = None, seed: int | None = None,
               progress: bool = False) -> TrainingLog:
    """Optimise ``model`` (a module returning one score per row of a batch) on the batches
    that ``batches_for_epoch(epoch)`` plans; ``collate`` turns example indices into model
    inputs. Parameters of ``head`` get ``recipe.head_lr``, the others ``recipe.lr``.
    ``checkpoint``: file to save progress to every ``checkpoint_every`` steps and to resume
    from; it is refused unless it was written for the same ``identity`` (the recipe plus
    whatever else the caller names, such as data digests). ``seed``: the random seed of this
    run (default ``recipe.seed``)."""
    import time

    from tqdm.auto import tqdm

    seed = recipe.seed if seed is None else seed
    torch.manual_seed(seed)
    head_ids = {id(p) for p in head.parameters()}
    body = [p for p in model.parameters() if p.requires_grad and id(p) not in head_ids]
    opt = torch.optim.AdamW([{"params": body, "lr": recipe.lr},
                             {"params": [p for p in head.parameters()], "lr": recipe.head_lr}],
                            weight_decay=recipe.weight_decay)
    # the run's length in steps: ``epochs`` times the first epoch's number of batches (later
    # epochs may have a few batches more or less, so the last one can spill over a little)
    per_epoch = len(batches_for_epoch(0))
    total = max(1, int(math.ceil(per_epoch * recipe.epochs)))
    warm = max(1, int(recipe.warmup * total))

    def factor(step: int) -> float:
        return (step + 1) / warm if step < warm else max(0.0, (total - step) / max(1, total - warm))

    log, step = TrainingLog(), 0
    epoch_sum, epoch_n = 0.0, 0
    ckpt = Path(checkpoint) if checkpoint else None
    identity = {"recipe": asdict(recipe), "seed": seed, **(identity or {})}
    if ckpt is not None and ckpt.exists():
        step, log, (epoch_sum, epoch_n) = _load_checkpoint(ckpt, model, opt, identity)
    dtype = autocast_dtype(device)
    model.train()
    bar = tqdm(total=total, initial=step, desc="training", unit="step", disable=not progress)
    start = time.time() - log.seconds
    # epochs may differ a little in their number of batches (units are packed): find the
    # epoch and position of ``step`` by walking the epochs' plans
    epoch, offset = 0, step
    while offset >= len(batches_for_epoch(epoch)):
        offset -= len(batches_for_epoch(epoch))
        epoch += 1
    if offset == 0 and epoch_n:   # saved at the end of an epoch, before its loss was logged
        log.epoch_loss.append(epoch_sum / epoch_n)
        epoch_sum, epoch_n = 0.0, 0
    while step < total:
        for b in batches_for_epoch(epoch)[offset:]:
            if step >= total:
                break
            for g in opt.param_groups:
                g["lr"] = g.setdefault("initial_lr", g["lr"]) * factor(step)
            inputs, target, weight, group, parent = collate(b)
            with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
                pred = model(*inputs)
            loss = batch_loss(pred.float(), target, weight, group, parent, recipe.rank_weight,
                              recipe.synthetic_weight)
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad],
                                           1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            epoch_sum, epoch_n = epoch_sum + loss.item(), epoch_n + 1
            bar.update(1)
            bar.set_postfix(loss=f"{epoch_sum / epoch_n:.3f}")
            if ckpt is not None and (step % checkpoint_every == 0 or step == total):
                log.steps, log.seconds = step, time.time() - start
                _save_checkpoint(ckpt, model, opt, step, log, identity, (epoch_sum, epoch_n))
        if epoch_n:
            log.epoch_loss.append(epoch_sum / epoch_n)
        epoch_sum, epoch_n = 0.0, 0
        epoch, offset = epoch + 1, 0
    if epoch_n:   # resumed from the final checkpoint
        log.epoch_loss.append(epoch_sum / epoch_n)
    bar.close()
    model.eval()
    log.steps, log.seconds = step, time.time() - start
    return log


def remove_checkpoint(checkpoint: str | os.PathLike) -> None:
    """Delete a finished run's checkpoint files (those of every soup member too)."""
    path = Path(checkpoint)
    for p in [path, *path.parent.glob(path.name + ".seed*")]:
        p.unlink(missing_ok=True)
