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
  (:mod:`xlscore.estimator.corruptions`) are never regression targets: each only has to score below
  the translation it was made from, by ``synthetic_margin`` (weight ``synthetic_weight`` on
  the score, ``meaning_weight`` on the meaning head's output, which nothing else trains; with
  ``meaning_loss="anchored"`` the real translations' outputs are also pulled to 0, with
  ``"detect"`` that head learns instead to tell each corruption from the translation it was
  made from, :func:`detection_loss`).
  With a word head (``word_weight`` > 0), a cross-entropy over the translation's pieces (OK /
  minor / major error) is added: the raters' error spans where they exist, the corrupted
  characters of each corruption.
* **Loop.** AdamW, linear warm-up and decay, gradients clipped at 1, bfloat16 autocast where
  the processor computes in bfloat16. A checkpoint (one safetensors file, its state in the metadata)
  is written every ``checkpoint_every`` steps; a run started again with the same checkpoint path
  continues from it with the same batches.
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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from scipy import stats

from xlscore.encoders.precision import autocast_dtype
from xlscore.encoders.words import move_span, normalize_text, offset_map
from xlscore.errors import InputError, XLScoreError
from xlscore.io.judgments import DEFAULT_LP, Judgment


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
    synthetic: float = 0.3
    synthetic_weight: float = 1.0
    synthetic_margin: float = 0.5
    synthetic_kinds: str = ""
    meaning_weight: float = 0.0
    meaning_loss: str = "margin"
    da_gap: float = 25.0
    per_word: bool = False
    features: bool = True
    word_weight: float = 1.0
    span_threshold: float = 0.5
    max_length: int = 256
    edit_tags: bool = True
    word_evidence: bool = False
    enru_weight: float = 1.0
    balance: float = 1.0
    freeze_layers: int = 0
    head_hidden: int = 0
    da_regression: bool = False
    seed: int = 0
    seeds: int = 1
    delta_rank: int = 64
    delta_bits: int = 8
    layers: int = 0
    targets: str = "normal"

    def __post_init__(self) -> None:
        checks = [
            (self.epochs > 0, "epochs must be positive"),
            (self.batch_size >= 2, "batch_size must be at least 2"),
            (self.lr > 0 and self.head_lr > 0, "learning rates must be positive"),
            (0 <= self.warmup < 1, "warmup is a share of the steps, in [0, 1)"),
            (
                min(self.rank_weight, self.synthetic_weight, self.word_weight, self.meaning_weight)
                >= 0,
                "loss weights must not be negative",
            ),
            (0 < self.span_threshold < 1, "span_threshold is a probability in (0, 1)"),
            (
                self.synthetic_margin >= 0 and self.da_gap >= 0,
                "synthetic_margin and da_gap must not be negative",
            ),
            (
                not self.kinds() or set(self.kinds()) <= set(_corruption_kinds()),
                "synthetic_kinds: unknown kind (known: "
                + (", ".join(_corruption_kinds()) if self.kinds() else "")
                + ")",
            ),
            (0 <= self.synthetic <= 1, "synthetic is a share of the translations"),
            (
                self.meaning_loss in MEANING_LOSSES,
                f"meaning_loss must be one of {', '.join(MEANING_LOSSES)}",
            ),
            (self.max_length >= 16, "max_length must be at least 16"),
            (self.freeze_layers >= 0, "freeze_layers must not be negative"),
            (self.enru_weight > 0, "enru_weight must be positive"),
            (0 <= self.balance <= 1, "balance is an exponent in [0, 1]"),
            (self.head_hidden >= 0, "head_hidden must not be negative (0: a linear head)"),
            (self.seeds >= 1, "seeds must be at least 1"),
            (self.delta_rank >= 0, "delta_rank must not be negative (0: no compression)"),
            (self.delta_bits in (8, 16), "delta_bits must be 8 or 16"),
            (self.layers >= 0, "layers must not be negative (0: every layer of the base)"),
            (self.targets in TARGETS, f"targets must be one of {', '.join(TARGETS)}"),
        ]
        for ok, message in checks:
            if not ok:
                raise XLScoreError(f"recipe: {message}")

    @classmethod
    def from_dict(cls, d: dict) -> Recipe:
        """A recipe from :func:`dataclasses.asdict` output (unknown keys are an error). A key
        added after a file was written takes the value that reproduces what the file was
        trained with (:data:`LEGACY`), not today's default."""
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise XLScoreError(f"recipe: unknown setting {sorted(unknown)[0]!r}")
        return cls(**{**LEGACY, **d})

    def kinds(self) -> tuple[str, ...]:
        """The corruption kinds ``synthetic_kinds`` names (empty: every kind)."""
        return tuple(k.strip() for k in self.synthetic_kinds.split(",") if k.strip())


#: the settings added after the first recipe, at the values that reproduce files written
#: before them (no corruptions' margin, alignment features or word head; every layer trained,
#: a linear head, direct assessment in the ranking loss only)
LEGACY = {
    "synthetic_margin": 1.0,
    "meaning_weight": 0.0,
    "meaning_loss": "margin",
    "synthetic_kinds": "",
    "da_gap": 25.0,
    "per_word": False,
    "features": False,
    "word_weight": 0.0,
    "span_threshold": 0.5,
    "freeze_layers": 0,
    "head_hidden": 0,
    "da_regression": False,
    "edit_tags": True,
    "word_evidence": False,
    "enru_weight": 1.0,
    "balance": 1.0,
    "layers": 0,
    "targets": "normal",
}

#: how human scores become training targets: ``normal``, the normal scores of each set
#: (:func:`normal_scores`: one scale whatever the set's own); ``raw``, the scores as given (a
#: teacher's scores that a student learns to reproduce on the teacher's own scale,
#: :mod:`xlscore.estimator.distill`)
TARGETS = ("normal", "raw")


#: how the meaning head learns from the corruptions: ``margin``, each corruption below the
#: translation it was made from (an unbounded output that orders translations of one source
#: only); ``anchored``, the same margins with the real translations' outputs pulled to 0 (a
#: squared penalty), so that the output is about 0 unless the head sees an error and the scores
#: of different sources stay comparable; ``detect``, a corruption detector (logistic loss: a
#: corruption is wrong, the translation it was made from is not), whose output is log P(no
#: meaning error), at most 0
MEANING_LOSSES = ("margin", "anchored", "detect")


def _corruption_kinds() -> tuple[str, ...]:
    from xlscore.estimator.corruptions import KINDS

    return tuple(KINDS)


def normal_scores(values: Sequence[float]) -> np.ndarray:
    """Normal scores of ``values``: the standard normal quantile of each value's average rank
    ``(rank - 0.5) / n``. Monotone, ties kept, about N(0, 1) whatever the original scale."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return v
    return stats.norm.ppf((stats.rankdata(v) - 0.5) / v.size)


#: word class of each MQM severity (:data:`xlscore.estimator.crossencoder.WORD_CLASSES`; critical
#: errors count as major, a post-editor's edit as minor when the recipe learns from edits)
_SEVERITY_CLASS = {"minor": 1, "major": 2, "critical": 2, "edit": 1}


@dataclass
class Example:
    """One training translation. ``group``: translations of one source share it (-1: the
    example is synthetic); ``parent``: for a synthetic corruption, the example it was made
    from (else -1); ``weight``: weight of its squared error. Two translations of a group form
    a ranking pair when their ``rank_value`` differ by more than the larger ``rank_gap``.
    ``errors``: character spans of the translation with their word class (1 minor, 2 major);
    ``clean``: whether the rest of the translation is known to be right (``False``: only the
    spans are labelled)."""

    source: str
    translation: str
    target: float
    group: int
    dataset: int
    weight: float = 1.0
    parent: int = -1
    rank_value: float = 0.0
    rank_gap: float = 0.05
    errors: tuple[tuple[int, int, int], ...] = ()
    clean: bool = False


def _word_count(text: str) -> int:
    return max(1, len(text.split()))


def _errors_of(
    row: Judgment, text: str, edits: bool
) -> tuple[tuple[tuple[int, int, int], ...], bool]:
    """A judged translation's error spans moved onto its normalised ``text``, and whether
    the rest of it is known to be right. Post-editing marks count only with ``edits``
    (otherwise the translation has no word labels)."""
    if row.errors is None or (not edits and any(m.severity == "edit" for m in row.errors)):
        return (), False
    where = offset_map(row.translation, text)
    return tuple(
        (*move_span(where, m.start, m.end), _SEVERITY_CLASS.get(m.severity, 2)) for m in row.errors
    ), True


def make_examples(
    datasets: Sequence[Sequence[Judgment]], recipe: Recipe, corrupt: Callable | None = None
) -> list[Example]:
    """Examples from judged data sets (one target scale per set), plus synthetic corruptions
    of a ``recipe.synthetic`` share of the English->Russian ones when ``corrupt`` is given
    (:func:`xlscore.estimator.corruptions.corrupt`: it returns the corrupted text and the characters
    that carry the error). A corruption keeps its parent's error marks (moved onto its text)
    and adds its own, as a major error."""
    out: list[Example] = []
    groups: dict[tuple[int, str], int] = {}
    russian: list[bool] = []  # per example: an en-ru translation (the corruptions are Russian)
    for d, rows in enumerate(datasets):
        if not rows:
            raise InputError(f"training data set {d + 1} has no judged translations")
        da = all(r.kind == "da" and r.raw is not None for r in rows)
        human = [
            r.human / _word_count(r.translation) if recipe.per_word and r.kind == "mqm" else r.human
            for r in rows
        ]
        targets = normal_scores(human) if recipe.targets == "normal" else np.asarray(human)
        for r, t in zip(rows, targets):
            g = groups.setdefault((d, r.seg_id), len(groups))
            text = normalize_text(r.translation)
            errors, clean = _errors_of(r, text, recipe.edit_tags)
            russian.append(r.lp == DEFAULT_LP)
            out.append(
                Example(
                    normalize_text(r.source),
                    text,
                    float(t),
                    g,
                    d,
                    1.0 if not da or recipe.da_regression else 0.0,
                    -1,
                    float(r.raw) if da and r.raw is not None else float(t),
                    recipe.da_gap if da else 0.05,
                    errors,
                    clean,
                )
            )
    if corrupt is not None and recipe.synthetic > 0:
        pairs = [(e.source, e.translation) for e in out]
        for i, bad in draw_corruptions(
            pairs, russian, recipe.synthetic, recipe.kinds(), recipe.seed + 7, corrupt
        ):
            e = out[i]
            # the parent's own marks move onto the corrupted text; the corruption is major
            where = offset_map(e.translation, bad.text)
            errors = tuple((*move_span(where, a, b), c) for a, b, c in e.errors) + tuple(
                (a, b, 2) for a, b in bad.spans
            )
            out.append(
                Example(
                    e.source,
                    bad.text,
                    e.target,
                    -1,
                    e.dataset,
                    0.0,
                    i,
                    errors=errors,
                    clean=e.clean,
                )
            )
    return out


def draw_corruptions(
    pairs: Sequence[tuple[str, str]],
    eligible: Sequence[bool],
    share: float,
    kinds: Sequence[str],
    seed: int,
    corrupt: Callable,
) -> list[tuple[int, Any]]:
    """Corruptions of about ``share`` of the ``eligible`` (English->Russian) ``pairs``, as
    ``(index of the pair, corruption)``: one per drawn pair, of the kind among ``kinds``
    (empty: every kind) used least so far that applies to it, so that kinds that apply to few
    sentences (numbers, names, roles) are not crowded out by those that apply to any.
    ``corrupt``: :func:`xlscore.estimator.corruptions.corrupt`. Deterministic for a ``seed``."""
    rng = random.Random(seed)
    pool = [t for (_, t), ok in zip(pairs, eligible) if ok]
    used = dict.fromkeys(kinds or _corruption_kinds(), 0)
    out = []
    for i, ((source, translation), ok) in enumerate(zip(pairs, eligible)):
        if not (ok and rng.random() < share):
            continue
        for kind in sorted(used, key=lambda k: (used[k], rng.random())):
            bad = corrupt(source, translation, rng, pool, [kind])
            if bad is not None and bad.text != translation:
                used[kind] += 1
                out.append((i, bad))
                break
    return out


def piece_labels(example: Example, offsets: Sequence[tuple[int, int]]) -> list[int]:
    """The word class of each translation piece (its character span in the translation):
    the most severe error span it overlaps; a zero-length span (an omission marked at a
    position) labels the piece that ends there, or the first piece at position 0. Pieces
    with no error are 0 when the example is known to be clean elsewhere, else -100 (no
    label); empty pieces are -100."""
    out = [0 if example.clean else -100] * len(offsets)
    for k, (a, b) in enumerate(offsets):
        if a >= b:
            out[k] = -100
    for start, end, cls in example.errors:
        if start < end:
            hit = [k for k, (a, b) in enumerate(offsets) if a < b and a < end and start < b]
        else:
            before = [k for k, (a, b) in enumerate(offsets) if a < b and a < start <= b]
            after = [k for k, (a, b) in enumerate(offsets) if a < b and a >= start]
            hit = before[-1:] or after[:1]
        for k in hit:
            out[k] = max(out[k], cls)
    return out


def set_shares(sizes: Sequence[int], pairs: Sequence[str], recipe: Recipe) -> list[float] | None:
    """How much of an epoch each training set gets, from its number of units (``sizes``) and
    language pair: ``size ** balance``, times ``enru_weight`` for en-ru sets (normalised to sum
    to 1). ``None`` when that is every set's own share (each unit once per epoch)."""
    from xlscore.io.judgments import DEFAULT_LP

    w = [
        n**recipe.balance * (recipe.enru_weight if lp == DEFAULT_LP else 1.0)
        for n, lp in zip(sizes, pairs)
    ]
    total, n_all = sum(w), sum(sizes)
    shares = [x / total for x in w]
    if all(abs(sh * n_all - n) < 0.5 for sh, n in zip(shares, sizes)):
        return None
    return shares


def _draw(units: list[list[int]], quota: int, rng: random.Random) -> list[list[int]]:
    """``quota`` units of ``units``: whole rounds of all of them, then a sample."""
    whole, rest = divmod(quota, len(units)) if units else (0, 0)
    return units * whole + rng.sample(units, rest)


def plan_batches(
    examples: Sequence[Example],
    lengths: Sequence[int],
    batch_size: int,
    rng: random.Random,
    shares: Sequence[float] | None = None,
) -> list[list[int]]:
    """Batches of example indices for one epoch. A unit is a source with all its
    translations (and their corruptions) when it has several, else one translation with its
    corruptions; units of several are packed in random order, single ones in runs of similar
    length within their data set; the batches are then shuffled. ``shares``: the part of the
    epoch's units each data set gets (:func:`set_shares`; default: each unit once), drawn
    at random, a set's units repeated when its share is larger than the set."""
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
    if shares is not None:
        n_units = len(multi) + sum(map(len, single.values()))
        by_set: dict[int, list[list[int]]] = {}
        for u in multi:
            by_set.setdefault(examples[u[0]].dataset, []).append(u)
        multi = [
            u for d in sorted(by_set) for u in _draw(by_set[d], round(shares[d] * n_units), rng)
        ]
        single = {d: _draw(u, round(shares[d] * n_units), rng) for d, u in sorted(single.items())}
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
            pack(sorted(units[k : k + window], key=lambda u: lengths[u[0]]))
    rng.shuffle(batches)
    return batches


@dataclass
class BatchTargets:
    """What the loss compares a batch's predictions with (see :class:`Example`)."""

    target: torch.Tensor  # [B] regression targets
    weight: torch.Tensor  # [B] weights of the squared error
    group: torch.Tensor  # [B] source groups (-1: none)
    parent: torch.Tensor  # [B] position of a corruption's parent in the batch (-1: none)
    rank_value: torch.Tensor | None = None  # [B] (default: target)
    rank_gap: torch.Tensor | None = None  # [B] (default: 0.05)
    labels: torch.Tensor | None = None  # [B, T] word class per piece (-100: none)


def batch_loss(
    pred: torch.Tensor,
    t: BatchTargets,
    recipe: Recipe,
    word_logits: torch.Tensor | None = None,
    meaning: torch.Tensor | None = None,
) -> torch.Tensor:
    """Weighted squared error + ``rank_weight`` x pairwise logistic loss within groups, for
    pairs whose ``rank_value`` differ by more than the larger ``rank_gap`` +
    ``synthetic_weight`` x margin loss of each corruption against its parent +
    ``meaning_weight`` x the same margin loss on the meaning head's output ``meaning`` +
    ``word_weight`` x cross-entropy of the word classes of labelled pieces."""
    loss = (t.weight * (pred - t.target) ** 2).sum() / t.weight.sum().clamp(min=1.0)
    value = t.target if t.rank_value is None else t.rank_value
    gap = torch.full_like(value, 0.05) if t.rank_gap is None else t.rank_gap
    same = (t.group[:, None] == t.group[None, :]) & (t.group[:, None] >= 0)
    better = same & (value[:, None] - value[None, :] > torch.maximum(gap[:, None], gap[None, :]))
    if recipe.rank_weight and better.any():
        diff = pred[:, None] - pred[None, :]
        loss = loss + recipe.rank_weight * torch.nn.functional.softplus(-diff[better]).mean()
    child = t.parent >= 0

    def margin_loss(out: torch.Tensor) -> torch.Tensor:
        margin = out[t.parent[child]] - out[child]
        return torch.nn.functional.softplus(recipe.synthetic_margin - margin).mean()

    if recipe.synthetic_weight and child.any():
        loss = loss + recipe.synthetic_weight * margin_loss(pred)
    if recipe.meaning_weight and meaning is not None and child.any():
        if recipe.meaning_loss == "detect":
            loss = loss + recipe.meaning_weight * detection_loss(meaning, t.parent)
        else:
            anchor = meaning[~child].pow(2).mean() if recipe.meaning_loss == "anchored" else 0
            loss = loss + recipe.meaning_weight * (margin_loss(meaning) + anchor)
    if (
        recipe.word_weight
        and word_logits is not None
        and t.labels is not None
        and (t.labels >= 0).any()
    ):
        loss = loss + recipe.word_weight * torch.nn.functional.cross_entropy(
            word_logits.float().reshape(-1, word_logits.shape[-1]),
            t.labels.reshape(-1),
            ignore_index=-100,
        )
    return loss


def detection_loss(log_clean: torch.Tensor, parent: torch.Tensor) -> torch.Tensor:
    """Logistic loss of a corruption detector whose output is ``log_clean`` = log P(no meaning
    error) (at most 0): each corruption (``parent >= 0``) is an error, each translation a
    corruption was made from is not; the mean over both."""
    child = parent >= 0
    # log P(error) = log(1 - exp(log_clean)), kept finite where log_clean rounds to 0
    log_error = torch.log(-torch.expm1(log_clean[child].clamp(max=-1e-6)))
    losses = torch.cat([-log_error, -log_clean[parent[child].unique()]])
    return losses.mean()


@dataclass
class TrainingLog:
    """What a training run did: steps, seconds, the mean loss of each epoch."""

    steps: int = 0
    seconds: float = 0.0
    epoch_loss: list[float] = field(default_factory=list)


def _save_checkpoint(
    path: Path,
    model: torch.nn.Module,
    opt: torch.optim.Optimizer,
    step: int,
    log: TrainingLog,
    identity: dict,
    partial: tuple[float, int],
) -> None:
    """One file, written atomically: trainable weights, optimizer state, random state, and
    (as metadata) the step, the log so far, the running loss of the current epoch
    (``partial``) and the run's identity."""
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
    meta = {"step": step, "identity": identity, "log": asdict(log), "partial": list(partial)}
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
) -> tuple[int, TrainingLog, tuple[float, int]]:
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
    return step, log, (float(partial[0]), int(partial[1]))


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
    """Optimise ``model`` (a module returning one score per row of a batch, or a pair
    ``(scores, word logits)``; one with a meaning head (``use_meaning``) is asked for its
    parts too) on the batches that ``batches_for_epoch(epoch)`` plans;
    ``collate`` turns example indices into ``(model inputs, BatchTargets)``. Parameters of ``head``
    get ``recipe.head_lr``, the others ``recipe.lr``.
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
    opt = torch.optim.AdamW(
        [
            {"params": body, "lr": recipe.lr},
            {"params": list(head.parameters()), "lr": recipe.head_lr},
        ],
        weight_decay=recipe.weight_decay,
    )
    # the run's length in steps: ``epochs`` times the first epoch's number of batches (later
    # epochs may have a few batches more or less, so the last one can spill over a little)
    per_epoch = len(batches_for_epoch(0))
    total = max(1, math.ceil(per_epoch * recipe.epochs))
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
    with_meaning = bool(getattr(model, "use_meaning", False))
    model.train()
    bar = tqdm(total=total, initial=step, desc="training", unit="step", disable=not progress)
    start = time.time() - log.seconds
    # epochs may differ a little in their number of batches (units are packed): find the
    # epoch and position of ``step`` by walking the epochs' plans
    epoch, offset = 0, step
    while offset >= len(batches_for_epoch(epoch)):
        offset -= len(batches_for_epoch(epoch))
        epoch += 1
    if offset == 0 and epoch_n:  # saved at the end of an epoch, before its loss was logged
        log.epoch_loss.append(epoch_sum / epoch_n)
        epoch_sum, epoch_n = 0.0, 0
    while step < total:
        for b in batches_for_epoch(epoch)[offset:]:
            if step >= total:
                break
            for g in opt.param_groups:
                g["lr"] = g.setdefault("initial_lr", g["lr"]) * factor(step)
            inputs, targets = collate(b)
            with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
                out = model(*inputs, parts=True) if with_meaning else model(*inputs)
            pred, words, meaning = out if with_meaning else (*_pair(out), None)
            loss = batch_loss(
                pred.float(), targets, recipe, words, None if meaning is None else meaning[:, 2]
            )
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
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
    if epoch_n:  # resumed from the final checkpoint
        log.epoch_loss.append(epoch_sum / epoch_n)
    bar.close()
    model.eval()
    log.steps, log.seconds = step, time.time() - start
    return log


def _pair(out) -> tuple:
    """``(scores, word logits or None)`` of a model's output."""
    return out if isinstance(out, tuple) else (out, None)


def remove_checkpoint(checkpoint: str | os.PathLike) -> None:
    """Delete a finished run's checkpoint files (those of every soup member too)."""
    path = Path(checkpoint)
    for p in [path, *path.parent.glob(path.name + ".seed*")]:
        p.unlink(missing_ok=True)
