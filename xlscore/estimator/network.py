"""The estimator's network: the base encoder (cut to a student's lowest layers where the recipe
says so) under a :class:`~xlscore.estimator.crossencoder.CrossEncoder`, its tokenizer, what
identifies it in signatures, how pairs become padded batches, which weights train, and how a
trained delta (:mod:`xlscore.estimator.delta`) is compressed and applied.
:class:`~xlscore.estimator.model.QualityEstimator` is this network with ``fit``, ``predict``,
``save`` and ``load``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

import torch

from xlscore.encoders import arithmetic
from xlscore.errors import ModelError, XLScoreError
from xlscore.estimator.crossencoder import CrossEncoder, Encoded, encode_pairs
from xlscore.estimator.formula import ScoreFormula
from xlscore.estimator.recipe import Recipe, TrainingLog
from xlscore.estimator.span_tagger import SpanTagger

#: the lowest score: below any translation of the training data (targets are normal scores
#: of a set's ranks, which stay above -4 for sets of fewer than about 15,000 translations);
#: empty and untranslated output is pulled here
FLOOR = -4.0
#: longest pair (in pieces, special tokens included) read at prediction time (or the model's
#: limit if lower); longer pairs are cut, the longer side first, with a warning
PREDICT_MAX_LENGTH = 512


class EstimatorNetwork:
    """The network of a :class:`~xlscore.estimator.model.QualityEstimator` (whose docstring
    gives the arguments), untrained until it is fitted or loaded."""

    def __init__(
        self,
        base: str = "pack:e5-small",
        *,
        recipe: Recipe | None = None,
        device: str | torch.device | None = None,
        dtype: str = "auto",
    ) -> None:
        from xlscore.encoders.models import (
            load_pretrained,
            max_tokens,
            model_fingerprint,
            resolve_device,
        )

        self.base = os.fspath(base)
        self.recipe = recipe or Recipe()
        self.device = resolve_device(device)
        arithmetic.resolve(dtype, self.device)  # a bad name fails before loading
        self.dtype = dtype
        encoder, self.tokenizer, pack = load_pretrained(self.base)
        self.prefix = pack.prefix if pack else ""
        self.base_fingerprint = model_fingerprint(encoder, self.tokenizer)
        if getattr(encoder, "pooler", None) is not None:
            encoder.pooler = None
        if self.recipe.layers:
            _keep_layers(encoder, tuple(range(self.recipe.layers)), self.base)
        self.model = (
            CrossEncoder(
                encoder,
                words=self.recipe.word_weight > 0,
                head_hidden=self.recipe.head_hidden,
                evidence=self.recipe.word_evidence,
                meaning=self.recipe.meaning_weight > 0,
            )
            .to(self.device)
            .eval()
        )
        self.max_length = min(PREDICT_MAX_LENGTH, max_tokens(encoder, self.tokenizer))
        self.floor = FLOOR
        # weight of the cross-lingual similarity the scorer adds to the prediction (0: none);
        # see ScoreBlend.apply_estimator
        self.similarity_weight = 0.0
        # what the scorer subtracts per reliable check finding (0: none); same place
        self.check_weight = 0.0
        # weight of the candidates' consensus when three or more translations of one source
        # are scored together (0: none); see ScoreBlend.blend_consensus
        self.consensus_weight = 0.0
        # how the word head's probabilities and the rules become error spans (None: the head's
        # probabilities at the recipe's span_threshold); stored in the file
        self.tagger: SpanTagger | None = None
        self.name = "untrained"
        self.digest: str | None = None
        self.path: Path | None = None
        self.meta: dict = {}
        self.fitted = False
        self.log = TrainingLog()  # how the last fit went (xlscore.training.fitting)
        self._delta: dict[str, torch.Tensor] = {}  # the fine-tune's change, as saved

    # ------------------------------------------------------------------ identity
    @property
    def arithmetic(self) -> str:
        """The concrete dtype predictions run in (``fp32``, ``bf16`` or ``fp16``)."""
        return arithmetic.resolve(self.dtype, self.device)

    def describe(self) -> dict:
        """What identifies the estimator in signatures."""
        return {
            "name": self.name,
            "digest": self.digest,
            "base": self.base,
            "base_fingerprint": self.base_fingerprint,
            "dtype": self.arithmetic,
            "similarity_weight": self.similarity_weight,
            "check_weight": self.check_weight,
            "consensus_weight": self.consensus_weight,
            "meaning_blend": self.meaning_blend,
            "spans": self.spans_signature(),
        }

    @property
    def formula(self) -> ScoreFormula:
        """The score formula (:mod:`xlscore.estimator.formula`): the meaning blend, the
        similarity, check and consensus weights, as the file stores them."""
        return ScoreFormula(
            self.meaning_blend, self.similarity_weight, self.check_weight, self.consensus_weight
        )

    @formula.setter
    def formula(self, formula: ScoreFormula) -> None:
        self.meaning_blend = formula.meaning_blend
        self.similarity_weight = formula.similarity_weight
        self.check_weight = formula.check_weight
        self.consensus_weight = formula.consensus_weight

    @property
    def meaning_blend(self) -> float:
        """Weight of the meaning head in the score (0: none, or no meaning head; see
        :mod:`xlscore.estimator.crossencoder`). Stored in the file by :meth:`save`."""
        return self.model.meaning_blend

    @meaning_blend.setter
    def meaning_blend(self, value: float) -> None:
        value = float(value)
        if not (math.isfinite(value) and value >= 0):
            raise XLScoreError(f"meaning_blend must be a finite weight >= 0, not {value!r}")
        if value and not self.model.use_meaning:
            raise XLScoreError("this estimator has no meaning head to blend in")
        self.model.meaning_blend = value

    @property
    def separate_similarity(self) -> bool:
        """Whether the scorer's similarity needs the separate pass of
        :data:`xlscore.scoring.similarity.SIMILARITY_ENCODER` over each side (a similarity
        weight)."""
        return bool(self.similarity_weight)

    def spans_signature(self) -> str | None:
        """How error spans are made, for the signature: ``tagger>=T`` (:mod:`span_tagger
        <xlscore.estimator.span_tagger>`), ``head>=T`` or ``None`` without a word head."""
        if not self.model.use_words:
            return None
        if self.tagger is not None:
            return self.tagger.signature()
        return f"head>={self.recipe.span_threshold:g}"

    def signature(self) -> str:
        """``est:NAME#digest`` plus the dtype, e.g. ``est:rtm15-all-e5s#1a2b3c4d@bf16``."""
        d = self.describe()
        return f"est:{d['name']}#{(d['digest'] or 'unsaved')[:8]}@{d['dtype']}"

    def __repr__(self) -> str:
        return f"QualityEstimator({self.signature()}, base={self.base!r})"

    # ------------------------------------------------------------------ inputs
    def _encode(
        self, pairs: Sequence[tuple[str, str]], max_length: int
    ) -> tuple[list[Encoded], list[int]]:
        """Each pair's pieces, cut to ``max_length`` (longer side first), and the indices of
        the pairs that were cut."""
        flags = self.model.use_evidence
        marker = self.recipe.translation_prefix
        full = encode_pairs(self.tokenizer, self.prefix, pairs, None, flags, marker)
        cut = [i for i, e in enumerate(full) if len(e) > max_length]
        for i, e in zip(
            cut,
            encode_pairs(
                self.tokenizer, self.prefix, [pairs[i] for i in cut], max_length, flags, marker
            ),
        ):
            full[i] = e
        return full, cut

    def _batch(
        self, seqs: Sequence[Encoded], rows: int | None = None, width: int | None = None
    ) -> tuple[torch.Tensor, ...]:
        """Piece ids, attention mask, piece sides and word evidence flags of ``seqs``, padded
        to ``width`` (default: the longest) and filled to ``rows`` rows
        (:func:`xlscore.encoders.arithmetic.padded`)."""
        rows, width = rows or len(seqs), width or max(len(s) for s in seqs)
        ids, mask = arithmetic.padded(
            [s.ids for s in seqs], rows, width, self.tokenizer.pad_token_id or 0
        )
        side, _ = arithmetic.padded([s.side for s in seqs], rows, width, 0)
        flags, _ = arithmetic.padded(
            [list(s.evidence) or [0] * len(s) for s in seqs], rows, width, 0
        )
        return tuple(t.to(self.device) for t in (ids, mask, side, flags))

    def _predictor(self) -> torch.nn.Module:
        """The module predictions run through: the model itself (the hook the bench's replay
        and the arithmetic gate's int8 candidate replace)."""
        return self.model

    # ------------------------------------------------------------------ weights
    def _trainable(self) -> dict[str, torch.nn.Parameter]:
        """Every transformer layer above the recipe's ``freeze_layers`` lowest, and the heads;
        the embeddings (most of e5-small's weights) and the frozen layers keep the base's
        values."""
        out = {}
        for name, p in self.model.named_parameters():
            layer = layer_of(name)
            p.requires_grad = not name.startswith("encoder.embeddings.") and not (
                layer and layer[0] < self.recipe.freeze_layers
            )
            if p.requires_grad:
                out[name] = p
        return out

    def _base_weights(self) -> dict[str, torch.Tensor]:
        """The encoder weights the delta is taken from: those of an untrained estimator with
        this recipe (the base model cut to the layers the recipe keeps), as loading rebuilds
        them."""
        untrained = type(self)(self.base, recipe=self.recipe, device=self.device, dtype="fp32")
        return {
            k: v.detach().clone()
            for k, v in untrained._trainable().items()
            if k.startswith("encoder.")
        }

    def _compress(self, base: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The delta as saved; the model's weights become what loading it would give."""
        from xlscore.estimator import delta

        tuned = {
            k: v.detach()
            for k, v in self._weights().items()
            if k in base or not k.startswith("encoder.")
        }
        d = delta.compress(base, tuned, rank=self.recipe.delta_rank, bits=self.recipe.delta_bits)
        self._apply(d, base)
        return d

    def _weights(self) -> dict[str, torch.Tensor]:
        """Every parameter and buffer of the model, by name."""
        return {**dict(self.model.named_parameters()), **dict(self.model.named_buffers())}

    def _apply(self, d: dict[str, torch.Tensor], base: dict[str, torch.Tensor]) -> None:
        from xlscore.estimator import delta

        weights = delta.expand(base, d)
        params = self._weights()
        unknown = [k for k in weights if k not in params]
        if unknown:
            raise ModelError(f"estimator file has weights this model lacks: {unknown[0]}")
        with torch.no_grad():
            for k, v in weights.items():
                if params[k].shape != v.shape:
                    raise ModelError(
                        f"estimator weight {k} has shape {tuple(v.shape)}, the "
                        f"model needs {tuple(params[k].shape)}"
                    )
                params[k].copy_(v.to(params[k].dtype))


#: a transformer layer's parameter in the cross-encoder: ``encoder.encoder.layer.N.REST``
_LAYER_PARAM = re.compile(r"encoder\.encoder\.layer\.(\d+)\.(.+)")


def layer_of(name: str) -> tuple[int, str] | None:
    """The transformer layer a parameter of the cross-encoder belongs to and its name within
    that layer (``None`` for the embeddings and the heads)."""
    m = _LAYER_PARAM.fullmatch(name)
    return (int(m.group(1)), m.group(2)) if m else None


def layer_param(index: int, rest: str) -> str:
    """The name of a transformer layer's parameter (the inverse of :func:`layer_of`)."""
    return f"encoder.encoder.layer.{index}.{rest}"


def _keep_layers(encoder: torch.nn.Module, picked: tuple[int, ...], base: str) -> None:
    """Cut a BERT-like encoder to the transformer layers ``picked`` (their indices, lowest
    first), in that order: a student's body."""
    inner = getattr(encoder, "encoder", None)
    stack = getattr(inner, "layer", None)
    if inner is None or not isinstance(stack, torch.nn.ModuleList):
        raise ModelError(
            f"cannot keep {len(picked)} layers of {base}: it has no BERT-like layer stack"
        )
    if max(picked) >= len(stack):
        raise ModelError(
            f"{base} has {len(stack)} layers; the recipe keeps layer {max(picked)} "
            "(they count from 0)"
        )
    inner.layer = torch.nn.ModuleList([stack[k] for k in picked])
    config = getattr(encoder, "config", None)
    if config is not None:
        config.num_hidden_layers = len(picked)
