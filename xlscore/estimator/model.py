"""A quality estimator trained on human judgments: ``pack:e5-small`` as a cross-encoder.

The source (with e5's ``query: `` prefix) and the translation go through the encoder together
(``<s> source </s></s> translation </s>``), every token's last hidden state is averaged, and
a linear head gives one number: the predicted quality on the normal-score scale of the
training data (:func:`xlscore.estimator.training.normal_scores`; 0 is a median translation of the
training sets, +0.5 or so one with no error found, -2 one among the worst 2%). Only rank
statistics were tuned, so read the value as an ordering, not as an MQM penalty. A recipe with
``features`` and a word head (``word_weight`` > 0) adds what the same pass says about the
meaning of the words: greedy-matching statistics between the source's and the translation's
pieces and a word-level error head (:mod:`xlscore.estimator.crossencoder`), whose spans
:meth:`QualityEstimator.estimate` returns (:mod:`xlscore.estimator.spans`).

The trained file holds only what the fine-tune changed (:mod:`xlscore.estimator.delta`: low-rank
int8 deltas of every transformer layer, the head) and is applied on top of the pack, offline. The
shipped estimator (:data:`SHIPPED`) is checked against its SHA-256 digest before use, and
``est:NAME#digest`` names it in signatures. A file may also carry a ``similarity_weight``
``w``: the scorer's ``score`` is then the prediction minus ``w`` times one minus the
cross-lingual all-words BERTScore F1 of the untrained ``pack:e5-small``
(:meth:`xlscore.scorer.XLScorer.apply_estimator`) — the blend that validation chose to make the
score notice meaning errors the fine-tuned pass alone misses. A ``check_weight`` ``b``
subtracts ``b`` per finding of the checks that measured precise on machine output
(:func:`xlscore.estimator.checks.reliable_findings`: numbers, a dropped negation).

``QualityEstimator`` follows scikit-learn's habits: ``fit`` (judged data sets), ``predict``
(sources, translations), ``save`` and ``load``. Predictions are deterministic and bit-identical
whatever else is predicted with them (input order, batch size, the rest of the corpus, the
block a distributed job hands a worker, the number of threads): each distinct pair is encoded
once, and every forward pass has a shape that depends only on the pair's own length
(:func:`xlscore.encoders.precision.batch_shape`). Matrix kernels round differently for different
shapes (in bfloat16 by the size of bfloat16 rounding), so a batch of whatever happened to be at hand
would make a pair's score depend on its neighbours.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from xlscore._version import __version__
from xlscore.encoders import precision as arithmetic
from xlscore.encoders.words import normalize_text
from xlscore.errors import LongInputWarning, ModelError, XLScoreError
from xlscore.estimator.crossencoder import CrossEncoder, Encoded, encode_pairs
from xlscore.estimator.spans import ErrorSpan, WordError, decode_spans, move_words, word_errors
from xlscore.estimator.training import (
    BatchTargets,
    Recipe,
    TrainingLog,
    make_examples,
    piece_labels,
    plan_batches,
    set_shares,
    train_loop,
)
from xlscore.io.cache import sha256_file
from xlscore.io.judgments import Judgment
from xlscore.metric.corpus import check_corpus

#: the file format written; 1 (a sentence head only) is still read
FORMAT = 2
FORMATS = (1, 2)
#: the lowest score: below any translation of the training data (targets are normal scores
#: of a set's ranks, which stay above -4 for sets of fewer than about 15,000 translations);
#: empty and untranslated output is pulled here
FLOOR = -4.0
#: longest pair (in pieces, special tokens included) read at prediction time (or the model's
#: limit if lower); longer pairs are cut, the longer side first, with a warning
PREDICT_MAX_LENGTH = 512


@dataclass(frozen=True)
class ShippedEstimator:
    """A trained estimator file inside the package, with the digest it must have."""

    name: str
    file: str
    sha256: str
    base: str

    @property
    def path(self) -> Path:
        """Where the file is: ``file`` is relative to this subpackage."""
        return Path(__file__).resolve().parent / self.file


#: the estimators shipped in ``xlscore/estimator/weights/`` (``load("default")`` is the first); the
#: command that trains each is in docs/estimator.md
SHIPPED: tuple[ShippedEstimator, ...] = (
    ShippedEstimator(
        "rtm15-e5s",
        "weights/rtm15-e5s.safetensors",
        "5e865b0386da2691ebd78a848650ff8196983b6da7eeeece8f89031bddcc8fdf",
        "pack:e5-small",
    ),
    # the default's 4-layer student (xlscore.estimator.distill): one pass, faster, but it failed
    # the ship gate (more meaning errors missed), so it is an option, not the default
    ShippedEstimator(
        "st4-e5s",
        "weights/st4-e5s.safetensors",
        "a9c70cbe982f039d857e482e7888dec2d9bdf02c980dcdabf87aa64bfe791f8c",
        "pack:e5-small",
    ),
)
DEFAULT = "default"


def shipped(name: str = DEFAULT) -> ShippedEstimator:
    """The shipped estimator called ``name`` (``"default"``: the first)."""
    if not SHIPPED:
        raise ModelError("this installation ships no trained estimator")
    if name == DEFAULT:
        return SHIPPED[0]
    for s in SHIPPED:
        if s.name == name:
            return s
    raise ModelError(
        f"unknown estimator {name!r}; shipped: "
        + ", ".join(s.name for s in SHIPPED)
        + ", or give a .safetensors path"
    )


@dataclass(frozen=True)
class Estimate:
    """What the estimator says of one translation: ``score`` (as :meth:`QualityEstimator.predict`
    gives it) and its two parts, ``base`` (the sentence head) and ``adequacy`` (what the
    alignment features, the word head and the blended meaning head add; 0 for an estimator
    without them), the predicted ``error_spans`` and each word's error probabilities ``words``
    (character offsets into the translation as given; empty for an estimator without a word
    head), and ``meaning``, the meaning head's raw output before its blend (0 without one)."""

    score: float
    base: float
    adequacy: float
    error_spans: tuple[ErrorSpan, ...] = ()
    words: tuple[WordError, ...] = ()
    meaning: float = 0.0


class QualityEstimator:
    """Predicts the quality of English->Russian translations from source and translation.

    ``QualityEstimator()`` is an untrained cross-encoder on ``base`` (default
    ``pack:e5-small``); :meth:`fit` trains it, :meth:`load` reads a trained one
    (``"default"``: the shipped estimator). ``precision``: the arithmetic of predictions,
    ``"auto"`` (bfloat16 autocast where the processor computes in bfloat16, else float32),
    ``"fp32"``, ``"bf16"``, ``"fp16"`` or ``"int8"`` (:mod:`xlscore.encoders.precision`); training
    always uses bfloat16 autocast where the hardware has it.
    """

    def __init__(
        self,
        base: str = "pack:e5-small",
        *,
        recipe: Recipe | None = None,
        device: str | torch.device | None = None,
        precision: str = "auto",
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
        arithmetic.resolve(precision, self.device)  # a bad name fails before loading
        self.precision = precision
        self._quantized: tuple[int, torch.nn.Module] | None = None
        encoder, self.tokenizer, pack = load_pretrained(self.base)
        self.prefix = pack.prefix if pack else ""
        self.base_fingerprint = model_fingerprint(encoder, self.tokenizer)
        if getattr(encoder, "pooler", None) is not None:
            encoder.pooler = None
        if self.recipe.layers:
            _keep_lowest_layers(encoder, self.recipe.layers, self.base)
        self.model = (
            CrossEncoder(
                encoder,
                align=self.recipe.features,
                words=self.recipe.word_weight > 0,
                head_hidden=self.recipe.head_hidden,
                evidence=self.recipe.word_evidence,
                meaning=self.recipe.meaning_weight > 0,
                meaning_detect=self.recipe.meaning_loss == "detect",
            )
            .to(self.device)
            .eval()
        )
        self.max_length = min(PREDICT_MAX_LENGTH, max_tokens(encoder, self.tokenizer))
        self.floor = FLOOR
        # weight of the cross-lingual similarity the scorer adds to the prediction (0: none);
        # see XLScorer.apply_estimator
        self.similarity_weight = 0.0
        # what the scorer subtracts per reliable check finding (0: none); same place
        self.check_weight = 0.0
        self.name = "untrained"
        self.digest: str | None = None
        self.path: Path | None = None
        self.meta: dict = {}
        self.fitted = False

    # ------------------------------------------------------------------ identity
    @property
    def arithmetic(self) -> str:
        """The concrete precision predictions run in (``fp32``, ``bf16``, ``fp16``, ``int8``)."""
        return arithmetic.resolve(self.precision, self.device)

    def describe(self) -> dict:
        """What identifies the estimator in signatures."""
        return {
            "name": self.name,
            "digest": self.digest,
            "base": self.base,
            "base_fingerprint": self.base_fingerprint,
            "precision": self.arithmetic,
            "similarity_weight": self.similarity_weight,
            "check_weight": self.check_weight,
            "meaning_blend": self.meaning_blend,
        }

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
        self._quantized = None  # an int8 copy holds the old blend

    def signature(self) -> str:
        """``est:NAME#digest`` plus the precision, e.g. ``est:rtm15-e5s#1a2b3c4d@bf16``."""
        d = self.describe()
        return f"est:{d['name']}#{(d['digest'] or 'unsaved')[:8]}@{d['precision']}"

    def __repr__(self) -> str:
        return f"QualityEstimator({self.signature()}, base={self.base!r})"

    # ------------------------------------------------------------------ inputs
    def _encode(
        self, pairs: Sequence[tuple[str, str]], max_length: int
    ) -> tuple[list[Encoded], list[int]]:
        """Each pair's pieces, cut to ``max_length`` (longer side first), and the indices of
        the pairs that were cut."""
        flags = self.model.use_evidence
        full = encode_pairs(self.tokenizer, self.prefix, pairs, None, flags)
        cut = [i for i, e in enumerate(full) if len(e) > max_length]
        for i, e in zip(
            cut,
            encode_pairs(self.tokenizer, self.prefix, [pairs[i] for i in cut], max_length, flags),
        ):
            full[i] = e
        return full, cut

    def _batch(
        self, seqs: Sequence[Encoded], rows: int | None = None, width: int | None = None
    ) -> tuple[torch.Tensor, ...]:
        """Piece ids, attention mask, piece sides and word evidence flags of ``seqs``, padded
        to ``width`` (default: the longest) and filled to ``rows`` rows
        (:func:`xlscore.encoders.precision.padded`)."""
        rows, width = rows or len(seqs), width or max(len(s) for s in seqs)
        ids, mask = arithmetic.padded(
            [s.ids for s in seqs], rows, width, self.tokenizer.pad_token_id or 0
        )
        side, _ = arithmetic.padded([s.side for s in seqs], rows, width, 0)
        flags, _ = arithmetic.padded(
            [list(s.evidence) or [0] * len(s) for s in seqs], rows, width, 0
        )
        return tuple(t.to(self.device) for t in (ids, mask, side, flags))

    def _predictor(self, precision: str) -> torch.nn.Module:
        """The model predictions run through: int8 quantizes a copy of the trained model (once
        per state of its weights)."""
        if precision != "int8":
            return self.model
        import copy

        version = sum(p._version for p in self.model.parameters())
        if self._quantized is None or self._quantized[0] != version:
            self._quantized = (version, arithmetic.quantize(copy.deepcopy(self.model), "int8"))
        return self._quantized[1]

    # ------------------------------------------------------------------ predicting
    def predict(
        self, sources: Sequence[str], translations: Sequence[str], *, progress: bool = False
    ) -> np.ndarray:
        """Predicted quality of each translation of its source (higher is better)."""
        return self._run(sources, translations, progress=progress, details=False)[0]

    def estimate(
        self,
        sources: Sequence[str],
        translations: Sequence[str],
        *,
        progress: bool = False,
        checked: bool = False,
    ) -> list[Estimate]:
        """The prediction of each translation with its parts and its predicted error spans
        (:class:`Estimate`); the scores are those of :meth:`predict`. ``checked=True``: the
        caller (e.g. :class:`~xlscore.XLScorer`) has already validated the two lists."""
        return self._run(sources, translations, progress=progress, details=True, checked=checked)[1]

    def _run(
        self,
        sources: Sequence[str],
        translations: Sequence[str],
        *,
        progress: bool,
        details: bool,
        checked: bool = False,
    ) -> tuple[np.ndarray, list[Estimate]]:
        """Scores, and with ``details`` the :class:`Estimate` of each pair. Each distinct
        normalised pair is read once, in a pass of a shape fixed by its own length."""
        if not self.fitted:
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
        encoded, cut = self._encode(unique, self.max_length)
        if cut:
            where = ", ".join(str(first[i] + 1) for i in cut[:5]) + (" ..." if len(cut) > 5 else "")
            warnings.warn(
                f"{len(cut)} pair(s) longer than {self.max_length} pieces were cut "
                f"before estimation (segments {where})",
                LongInputWarning,
                stacklevel=3,
            )
        # passes of one shape per width (xlscore.encoders.precision.plan_passes), rows in text order
        passes = arithmetic.plan_passes(
            [len(x) for x in encoded], self.device.type, self.max_length, key=lambda k: unique[k]
        )
        out = np.zeros(len(unique), dtype=np.float64)
        parts = np.zeros((len(unique), 3), dtype=np.float64)
        word_probs: dict[int, np.ndarray] = {}
        precision = self.arithmetic
        model = self._predictor(precision)
        from tqdm.auto import tqdm

        self.model.eval()
        with arithmetic.inference(precision, self.device):
            for rows, width, members in tqdm(
                passes, desc="estimating", unit="batch", disable=not progress, leave=False
            ):
                batch = self._batch([encoded[k] for k in members], rows, width)
                n = len(members)
                if not self.model.extended:
                    pred = model(*batch[:2])
                    out[members] = pred[:n].float().cpu().numpy()
                    parts[members, 0] = out[members]
                    continue
                pred, word_logits, split = model(*batch, parts=True)
                out[members] = pred[:n].float().cpu().numpy()
                parts[members] = split[:n].float().cpu().numpy()
                if details and word_logits is not None:
                    probs = torch.softmax(word_logits[:n].float(), -1).cpu().numpy()
                    for r, k in enumerate(members):
                        keep = np.asarray(encoded[k].side) == 2
                        word_probs[k] = probs[r, : len(encoded[k])][keep]
        if not order:
            return np.zeros(0), []
        if not details:
            return out[order], []
        estimates = []
        threshold = self.recipe.span_threshold
        for i, k in enumerate(order):
            words: tuple[WordError, ...] = ()
            if k in word_probs:
                seen = unique[k][1]
                words = move_words(
                    word_errors(seen, encoded[k].translation_offsets(), word_probs[k]),
                    seen,
                    translations[i],
                )
            estimates.append(
                Estimate(
                    float(out[k]),
                    float(parts[k, 0]),
                    float(parts[k, 1]),
                    decode_spans(translations[i], words, threshold),
                    words,
                    float(parts[k, 2]),
                )
            )
        return out[order], estimates

    # ------------------------------------------------------------------ training
    def _trainable(self) -> dict[str, torch.nn.Parameter]:
        """Every transformer layer above the recipe's ``freeze_layers`` lowest, and the heads;
        the embeddings (most of e5-small's weights) and the frozen layers keep the base's
        values."""
        import re

        out = {}
        for name, p in self.model.named_parameters():
            layer = re.match(r"encoder\.encoder\.layer\.(\d+)\.", name)
            p.requires_grad = not name.startswith("encoder.embeddings.") and not (
                layer and int(layer.group(1)) < self.recipe.freeze_layers
            )
            if p.requires_grad:
                out[name] = p
        return out

    def fit(
        self,
        datasets: Sequence[Sequence[Judgment]],
        *,
        progress: bool = False,
        checkpoint: str | os.PathLike | None = None,
        checkpoint_every: int = 200,
        corrupt: Callable[..., object] | None = None,
    ) -> QualityEstimator:
        """Train on judged data sets (each a list of :class:`Judgment`; human scores are put on
        one scale per set). ``checkpoint``: a file to save progress in (every
        ``checkpoint_every`` steps) and resume from; with ``recipe.seeds`` > 1 each member of
        the soup has its own (``CHECKPOINT.seedN``), kept until the caller removes them.
        ``corrupt``: the synthetic corruption function (default
        :func:`xlscore.estimator.corruptions.corrupt` when ``recipe.synthetic`` > 0). Ends with the
        weights compressed as :meth:`save` stores them, so that predictions before and after
        saving agree."""
        if not datasets or isinstance(datasets[0], Judgment):
            raise TypeError("fit takes a list of data sets, each a list of Judgment")
        if self.fitted:
            raise XLScoreError(
                "this estimator is already trained (or loaded); fit a new "
                "QualityEstimator on its base model instead"
            )
        r = self.recipe
        if corrupt is None and r.synthetic > 0:
            from xlscore.estimator.corruptions import corrupt
        examples = make_examples(datasets, r, corrupt)
        encoded, _ = self._encode(
            [(e.source, e.translation) for e in examples], min(r.max_length, self.max_length)
        )
        lengths = [len(x) for x in encoded]
        data = [{"rows": len(d), "sha256": _rows_digest(d)} for d in datasets]
        identity = {"base": self.base_fingerprint, "data": data}
        trainable = self._trainable()
        start = {k: v.detach().clone() for k, v in trainable.items()}

        def collate(rows: list[int]):
            pos = {j: k for k, j in enumerate(rows)}
            ex = [examples[j] for j in rows]
            batch = self._batch([encoded[j] for j in rows])
            labels = None
            if self.model.use_words:
                labels = torch.full(batch[0].shape, -100, dtype=torch.long)
                for k, j in enumerate(rows):
                    where = [i for i, s in enumerate(encoded[j].side) if s == 2]
                    labels[k, where] = torch.tensor(
                        piece_labels(examples[j], encoded[j].translation_offsets()),
                        dtype=torch.long,
                    )
                labels = labels.to(self.device)

            def vector(values, dtype=torch.float32):
                return torch.tensor(values, dtype=dtype, device=self.device)

            return batch, BatchTargets(
                vector([e.target for e in ex]),
                vector([e.weight for e in ex]),
                vector([-1 if e.parent >= 0 else e.group for e in ex], torch.long),
                vector([pos.get(e.parent, -1) for e in ex], torch.long),
                vector([e.rank_value for e in ex]),
                vector([e.rank_gap for e in ex]),
                labels,
            )

        if self.model.use_align:
            sample = sorted(
                random.Random(r.seed).sample(range(len(examples)), min(256, len(examples)))
            )
            self.model.eval()
            self.model.calibrate(
                self._batch([encoded[j] for j in sample[i : i + 16]])
                for i in range(0, len(sample), 16)
            )

        groups: list[set[int]] = [set() for _ in datasets]
        for e in examples:
            groups[e.dataset].add(e.group)
        units = [len(g - {-1}) for g in groups]
        shares = set_shares(units, [d[0].lp for d in datasets], r)
        soup = {k: torch.zeros_like(v) for k, v in start.items()}
        self.log = TrainingLog()
        for member in range(r.seeds):
            seed = r.seed + member
            with torch.no_grad():
                for k, p in trainable.items():
                    p.copy_(start[k])
            self.model.reset_head(seed)
            ckpt = (
                None
                if checkpoint is None
                else (Path(checkpoint) if r.seeds == 1 else Path(f"{checkpoint}.seed{seed}"))
            )

            def batches(epoch: int, seed: int = seed) -> list[list[int]]:
                return plan_batches(
                    examples, lengths, r.batch_size, random.Random(seed * 1000 + epoch), shares
                )

            log = train_loop(
                self.model,
                batches,
                collate,
                examples,
                r,
                head=self.model.head_modules(),
                device=self.device,
                checkpoint=ckpt,
                seed=seed,
                checkpoint_every=checkpoint_every,
                progress=progress,
                identity=identity,
            )
            self.log.steps += log.steps
            self.log.seconds += log.seconds
            self.log.epoch_loss += log.epoch_loss
            for k, p in trainable.items():
                soup[k] += p.detach() / r.seeds
        with torch.no_grad():
            for k, p in trainable.items():
                p.copy_(soup[k])
                p.requires_grad = False
        base = {k: v for k, v in start.items() if k.startswith("encoder.")}
        self._delta = self._compress(base)
        self.fitted = True
        self.name = "custom"
        # the training time stays out of the file, so that a rerun can give the same bytes
        self.meta = {
            "recipe": asdict(r),
            "data": data,
            "training": {"steps": self.log.steps, "epoch_loss": self.log.epoch_loss},
        }
        self.digest, self.path = None, None
        return self

    def recompress(self, rank: int, bits: int) -> QualityEstimator:
        """Store the fine-tune's change at another rank and width (what :meth:`save` writes;
        e.g. a model trained uncompressed, ``delta_rank`` 0, made ready to ship). The model's
        weights become what loading the saved file gives."""
        if not self.fitted:
            raise XLScoreError("nothing to compress: the estimator is not trained")
        from dataclasses import replace

        untrained = QualityEstimator(
            self.base, recipe=self.recipe, device=self.device, precision="fp32"
        )
        base = {
            k: v.detach().clone()
            for k, v in untrained._trainable().items()
            if k.startswith("encoder.")
        }
        self.recipe = replace(self.recipe, delta_rank=rank, delta_bits=bits)
        self.meta["recipe"] = asdict(self.recipe)
        self._delta = self._compress(base)
        self._quantized = None
        return self

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

    def trained_on(self, rows: Sequence[Judgment]) -> bool:
        """Whether ``rows`` (a judged set read with its human translations, as training reads
        it) is one of the sets this estimator was trained on, by digest. A sample of a set (as
        ``--max-sources`` takes) is not recognised."""
        digest = _rows_digest(rows)
        return any(d.get("sha256") == digest for d in self.meta.get("data", ()))

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike, *, name: str | None = None) -> Path:
        """Write the trained delta and its description to a safetensors file; returns the
        path. ``name`` is what signatures call it (default: the file's stem)."""
        from safetensors.torch import save_file

        if not self.fitted:
            raise XLScoreError("nothing to save: the estimator is not trained")
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        name = name or path.stem
        meta = {
            "format": FORMAT,
            "name": name,
            "base": self.base,
            "base_fingerprint": self.base_fingerprint,
            "xlscore": __version__,
            **self.meta,
        }
        if self.similarity_weight:
            meta["similarity_weight"] = self.similarity_weight
        if self.check_weight:
            meta["check_weight"] = self.check_weight
        if self.meaning_blend:
            meta["meaning_blend"] = self.meaning_blend
        tmp = path.with_name(f".{path.name}.tmp")
        save_file(
            dict(sorted(self._delta.items())),
            str(tmp),
            metadata={"xlscore_estimator": json.dumps(meta, sort_keys=True)},
        )
        os.replace(tmp, path)
        self.name, self.path = name, path
        self.digest = sha256_file(path)
        return path

    @classmethod
    def load(
        cls,
        spec: str | os.PathLike = DEFAULT,
        *,
        device: str | torch.device | None = None,
        precision: str = "auto",
    ) -> QualityEstimator:
        """A trained estimator: ``"default"`` or a shipped name, or a saved ``.safetensors``
        file. Its base model is loaded (offline for packs) and checked to be the one it was
        trained on; a shipped file must match its recorded digest."""
        from safetensors import SafetensorError, safe_open

        expected = None
        if isinstance(spec, str) and not spec.endswith(".safetensors"):
            s = shipped(spec)
            path = s.path
            expected = s.sha256
        else:
            path = Path(spec)
        if not path.is_file():
            raise ModelError(f"estimator file {path} does not exist")
        digest = sha256_file(path)
        if expected is not None and digest != expected:
            raise ModelError(
                f"estimator file {path} is damaged: SHA-256 {digest[:12]}..., "
                f"expected {expected[:12]}...; reinstall xlscore"
            )
        try:
            with safe_open(str(path), framework="pt") as fh:
                meta = _checked_metadata(fh, path)
                # a safe_open handle has keys() but is not iterable
                tensors = {k: fh.get_tensor(k) for k in fh.keys()}  # noqa: SIM118
        except (OSError, ValueError, SafetensorError) as err:
            raise ModelError(f"cannot read estimator file {path}: {err}") from None
        missing = [k for k in ("name", "base", "base_fingerprint", "recipe") if k not in meta]
        layers: tuple[str, ...] = ("weight", "bias")
        heads = ["head"]
        if isinstance(meta.get("recipe"), dict):
            if meta["recipe"].get("head_hidden"):
                layers = ("0.weight", "0.bias", "2.weight", "2.bias")
            if meta["recipe"].get("meaning_weight"):
                heads.append("meaning")
        missing += [f"{h}.{k}" for h in heads for k in layers if f"{h}.{k}" not in tensors]
        if missing:
            raise ModelError(f"estimator file {path} lacks {', '.join(missing)}")
        for key in ("similarity_weight", "check_weight", "meaning_blend"):
            value = meta.get(key, 0.0)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ModelError(f"estimator file {path} has a bad {key} {value!r}")
        recipe = Recipe.from_dict(meta["recipe"])
        if meta.get("meaning_blend") and not recipe.meaning_weight:
            raise ModelError(f"estimator file {path} has a meaning_blend but no meaning head")
        est = cls(meta["base"], recipe=recipe, device=device, precision=precision)
        est.similarity_weight = float(meta.get("similarity_weight", 0.0))
        est.check_weight = float(meta.get("check_weight", 0.0))
        est.meaning_blend = float(meta.get("meaning_blend", 0.0))
        if est.base_fingerprint != meta["base_fingerprint"]:
            raise ModelError(
                f"{path} was trained on {meta['base']} with fingerprint "
                f"{meta['base_fingerprint']}, but the installed one is "
                f"{est.base_fingerprint}"
            )
        base = {
            k: v.detach().clone() for k, v in est._trainable().items() if k.startswith("encoder.")
        }
        for p in est.model.parameters():
            p.requires_grad = False
        try:
            est._apply(tensors, base)
        except KeyError as err:
            raise ModelError(f"estimator file {path} is incomplete: no {err}") from None
        est._delta = tensors
        est.meta = {k: v for k, v in meta.items() if k in ("recipe", "training", "data")}
        est.name, est.digest, est.path, est.fitted = meta["name"], digest, path, True
        return est


def _keep_lowest_layers(encoder: torch.nn.Module, n: int, base: str) -> None:
    """Cut a BERT-like encoder to its lowest ``n`` transformer layers (a student's body)."""
    stack = getattr(getattr(encoder, "encoder", None), "layer", None)
    if not isinstance(stack, torch.nn.ModuleList):
        raise ModelError(f"cannot keep {n} layers of {base}: it has no BERT-like layer stack")
    if n > len(stack):
        raise ModelError(f"{base} has {len(stack)} layers, fewer than the {n} the recipe keeps")
    del stack[n:]
    config = getattr(encoder, "config", None)
    if config is not None:
        config.num_hidden_layers = n


def _rows_digest(rows: Sequence[Judgment]) -> str:
    """Digest of a training set's texts and scores (which data a file was trained on)."""
    h = hashlib.sha256()
    for r in rows:
        h.update(f"{r.seg_id}\t{r.source}\t{r.translation}\t{r.human!r}\n".encode())
    return h.hexdigest()[:16]


def read_metadata(path: str | os.PathLike) -> dict:
    """The metadata of an estimator file (name, base, recipe, similarity weight, ...) without
    loading its tensors. :class:`ModelError` when the file cannot be read or is not an
    estimator file."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="pt") as fh:
            return _checked_metadata(fh, path)
    except (OSError, ValueError, SafetensorError) as err:
        raise ModelError(f"cannot read estimator file {path}: {err}") from None


def _checked_metadata(fh, path: str | os.PathLike) -> dict:
    """The estimator metadata of an open safetensors file; :class:`ModelError` when it has
    none of a known format."""
    meta = json.loads((fh.metadata() or {}).get("xlscore_estimator", "null"))
    if not isinstance(meta, dict) or meta.get("format") not in FORMATS:
        raise ModelError(
            f"{path} is not an xlscore estimator file (format {' or '.join(map(str, FORMATS))})"
        )
    return meta
