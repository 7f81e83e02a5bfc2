"""The training loss: what a batch's predictions are compared with, and how.

Squared error on the targets, a pairwise ranking loss within a source's translations, a margin
of each synthetic corruption below the translation it was made from (on the score and on the
meaning head's output), and the word head's cross-entropy (:func:`batch_loss`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from xlscore.estimator.recipe import Recipe


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
    label_weight: torch.Tensor | None = None  # [B] weight of each row's pieces (default 1)


def batch_loss(
    pred: torch.Tensor,
    t: BatchTargets,
    recipe: Recipe,
    word_logits: torch.Tensor | None = None,
    meaning: torch.Tensor | None = None,
    parts: dict[str, float] | None = None,
) -> torch.Tensor:
    """Weighted squared error + ``rank_weight`` x pairwise logistic loss within groups, for
    pairs whose ``rank_value`` differ by more than the larger ``rank_gap`` +
    ``synthetic_weight`` x margin loss of each corruption against its parent +
    ``meaning_weight`` x the same margin loss on the meaning head's output ``meaning`` +
    ``word_weight`` x cross-entropy of the word classes of labelled pieces (the OK class
    weighted ``word_ok_weight``, each row's pieces ``label_weight``: :func:`word_loss`).
    ``parts``, when given, receives each weighted term's value (``squared``, ``rank``,
    ``synthetic``, ``meaning``, ``word``; a term absent from the batch is 0): how the total
    is dosed."""
    terms: dict[str, torch.Tensor] = {}
    loss = terms["squared"] = (t.weight * (pred - t.target) ** 2).sum() / t.weight.sum().clamp(
        min=1.0
    )
    value = t.target if t.rank_value is None else t.rank_value
    gap = torch.full_like(value, 0.05) if t.rank_gap is None else t.rank_gap
    same = (t.group[:, None] == t.group[None, :]) & (t.group[:, None] >= 0)
    better = same & (value[:, None] - value[None, :] > torch.maximum(gap[:, None], gap[None, :]))
    if recipe.rank_weight and better.any():
        diff = pred[:, None] - pred[None, :]
        terms["rank"] = recipe.rank_weight * torch.nn.functional.softplus(-diff[better]).mean()
        loss = loss + terms["rank"]
    child = t.parent >= 0

    def margin_loss(out: torch.Tensor) -> torch.Tensor:
        margin = out[t.parent[child]] - out[child]
        return torch.nn.functional.softplus(recipe.synthetic_margin - margin).mean()

    if recipe.synthetic_weight and child.any():
        terms["synthetic"] = recipe.synthetic_weight * margin_loss(pred)
        loss = loss + terms["synthetic"]
    if recipe.meaning_weight and meaning is not None and child.any():
        terms["meaning"] = recipe.meaning_weight * margin_loss(meaning)
        loss = loss + terms["meaning"]
    if (
        recipe.word_weight
        and word_logits is not None
        and t.labels is not None
        and (t.labels >= 0).any()
    ):
        terms["word"] = recipe.word_weight * word_loss(word_logits, t, recipe.word_ok_weight)
        loss = loss + terms["word"]
    if parts is not None:  # read in one transfer (one sync on a GPU), not per term
        names = list(terms)
        values = torch.stack([terms[n].detach().float() for n in names]).tolist()
        parts.update(dict.fromkeys(LOSS_PARTS, 0.0) | dict(zip(names, values, strict=True)))
    return loss


def word_loss(word_logits: torch.Tensor, t: BatchTargets, ok_weight: float) -> torch.Tensor:
    """Cross-entropy of the word classes of the labelled pieces: their mean when every class
    and row weighs 1, else the weighted mean with the OK class (0) weighted ``ok_weight``
    and each row's pieces ``t.label_weight`` (the weighting of CometKiwi's word loss, which
    weighs OK 0.15 against BAD 0.85)."""
    if t.labels is None:
        raise ValueError("the word loss needs the batch's word labels")
    logits = word_logits.float().reshape(-1, word_logits.shape[-1])
    labels = t.labels.reshape(-1)
    rows = t.label_weight
    if ok_weight == 1.0 and (rows is None or bool((rows == 1).all())):
        return torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100)
    classes = torch.ones(logits.shape[-1], device=logits.device)
    classes[0] = ok_weight
    each = torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100, reduction="none")
    kept = labels >= 0
    w = classes[labels.clamp(min=0)] * kept
    if rows is not None:
        w = w * rows[:, None].expand(t.labels.shape).reshape(-1)
    return (each * w).sum() / w.sum().clamp(min=1e-6)


#: the names of the loss's terms (:func:`batch_loss`'s ``parts``)
LOSS_PARTS = ("squared", "rank", "synthetic", "meaning", "word")
