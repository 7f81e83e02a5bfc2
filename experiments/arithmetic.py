"""Faster arithmetic for the default quality estimator's forward pass on a CPU (issue 65, item 2):
does any exist that moves no score by more than :data:`SCORE_LINE` against the same model in
float32 and is at least :data:`SPEED_LINE` times as fast as PyTorch float32, here and on a plain
AVX2 CPU?

    python experiments/arithmetic.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv \\
        --calibration ../shared/data/wmt22-enru-mqm-dev.tsv --limit 100

Needs ``onnxruntime`` (and ``onnx``) for the ``ort-`` rows and ``openvino`` and ``nncf`` for the
``ov-`` rows (none of them is a dependency of xlscore: ``pip install onnxruntime==1.31.1
openvino==2026.4.1 nncf``); rows whose library is missing are left out.

Every candidate scores the same distinct pairs in the passes xlscore plans for them
(:func:`xlscore.encoders.arithmetic.plan_passes`, tensors from the estimator's own ``_batch``),
on ONE thread (PyTorch ``set_num_threads(1)``, ONNX Runtime ``intra_op_num_threads=1``,
OpenVINO ``INFERENCE_NUM_THREADS=1``). Its scores and word probabilities (softmax of the word
logits, translation pieces) are compared with PyTorch float32 as xlscore runs it (``--dtype
fp32``, SDPA attention). Its speed is taken on every ``--timing-step``-th pass, ``--rounds``
times, each round right after a round of PyTorch float32 on the same passes, so that the
machine's other load weighs on both alike; the ratio is best time against best time (the
batches are built before timing; what a candidate does to turn them into its own inputs is
timed). Model export, conversion and quantization are not timed.

The ONNX Runtime and OpenVINO candidates run the encoder (``BertModel`` up to
``last_hidden_state``) only; the heads (pooling, sentence, word, adequacy and meaning heads)
are the estimator's own PyTorch code (``CrossEncoder.forward``) on the returned states, a few
small matrix products. The whole cross-encoder does not export with the TorchScript exporter:
the word evidence flags are read with ``evidence >> k``, which it cannot express for int64.

Candidates (:data:`CANDIDATES`; ``--candidates`` picks some, measured in this order):

* PyTorch: float32 (the reference), xlscore's ``--dtype int8`` (per-channel dynamic int8 of
  every linear layer, heads too), the same for the attention's linear layers only;
* ONNX Runtime: float32 as exported (eager attention, ORT's own graph optimizations), float32
  after ``onnxruntime.transformers``' BERT fusion, dynamic int8 (per-channel s8 weights, u8
  activations, every weight MatMul), the same with reduce_range (7-bit weights, ONNX Runtime's
  advice for CPUs without VNNI, where u8 x s8 products can saturate), dynamic int8 of the
  attention only, of all but the feed-forward output MatMuls (whose input, after GELU, has
  the widest range), of all but the ``--mixed`` layers most sensitive on the calibration pairs
  (``ort-int8-mixed-N``), and static QDQ int8 (MinMax calibration);
* OpenVINO: float32 (``INFERENCE_PRECISION_HINT=f32``: on CPUs with AMX or AVX512-BF16 it
  would otherwise compute in bfloat16), NNCF post-training int8 (``ModelType.TRANSFORMER``,
  calibrated), and the same with the feed-forward output layers in float32 (``ignored_scope``).

Calibration pairs come from ``--calibration`` (another set than ``--data``). A second process
(unless ``--no-avx2``) measures the PyTorch and OpenVINO rows again with the kernels held to
AVX2 (:data:`_results.AVX2_ENV` and ``OV_CPU_MAX_ISA``), as on a plain CPU without AVX512 or
VNNI; the OpenVINO rows name the kernels that ran. MLAS (ONNX Runtime's kernels, and
OpenVINO's float32 FullyConnected ones) picks its instruction set from CPUID with no setting
to hold it back, so ONNX Runtime cannot be measured so.

Writes ``--out`` (default experiments/results/arithmetic.md); the exported and quantized
models are kept in ``--work`` (reused by a later run with the same estimator and settings).
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import _tools  # noqa: F401  (tools/ on the import path)
import numpy as np
import scipy.stats
import torch
from _int8 import States, export
from _results import AVX2_ENV, cpu_name, write_markdown
from bench import _rows

from xlscore.estimator.prediction import PairInputs, read_pairs

#: the largest change of one score a faster arithmetic may make
SCORE_LINE = 0.05
#: how much faster than PyTorch float32 it must be (one thread)
SPEED_LINE = 1.3
#: every candidate, in the order measured
CANDIDATES = (
    "torch-fp32",
    "torch-int8",
    "torch-int8-attention",
    "ort-fp32",
    "ort-fp32-fused",
    "ort-int8-dynamic",
    "ort-int8-dynamic-reduce-range",
    "ort-int8-attention",
    "ort-int8-no-ffn-out",
    "ort-int8-mixed",
    "ort-int8-static-qdq",
    "ort-int8-chosen",
    "ov-fp32",
    "ov-int8-nncf",
    "ov-int8-nncf-no-ffn-out",
)
#: the kinds of weight MatMul in a BERT layer, by what their exported node names contain (in
#: this order: the attention's output is also an ``output/dense``)
KINDS = {
    "qkv": "/attention/self/",
    "attention-out": "/attention/output/dense/",
    "ffn-in": "/intermediate/dense/",
    "ffn-out": "/output/dense/",
}
INPUT_NAMES = ("ids", "mask")
HERE = Path(__file__).resolve().parent


# ------------------------------------------------------------------ inputs
@dataclass
class Passes:
    """Forward passes over distinct pairs: each pass's members (pair indices) and its tensors
    (ids, mask, side, evidence) as xlscore builds them, and each pair's translation pieces."""

    members: list[list[int]]
    batches: list[tuple[torch.Tensor, ...]]
    translation: list[np.ndarray]  # per pair: which of its pieces are translation pieces

    @property
    def pairs(self) -> int:
        return len(self.translation)


def plan(est, inputs: PairInputs, single: bool = False) -> Passes:
    """The passes xlscore would run over the distinct pairs of ``inputs``
    (:func:`~xlscore.estimator.prediction.read_pairs`); ``single``: one pair a pass (its
    length rounded up as in xlscore's passes), as a dynamic int8 encoder must run for a
    pair's activation scales not to depend on the other pairs of its pass."""
    from xlscore.encoders import arithmetic

    encoded, pairs = inputs.encoded, inputs.unique
    planned = arithmetic.plan_passes(
        [len(x) for x in encoded], est.device.type, est.max_length, key=lambda k: pairs[k]
    )
    if single:
        planned = [(1, w, [k]) for _, w, m in planned for k in m]
    return Passes(
        [m for _, _, m in planned],
        [est._batch([encoded[k] for k in m], r, w) for r, w, m in planned],
        [np.asarray(e.side) == 2 for e in encoded],
    )


def calibration_pairs(path: str, count: int) -> list[tuple[str, str]]:
    """``count`` distinct pairs spread over the judged file ``path`` (every k-th row)."""
    from xlscore.evaluation.agreement import read_judgments
    from xlscore.text.words import normalize_text

    rows = read_judgments(path)
    picked = rows[:: max(1, len(rows) // count)]
    keys = dict.fromkeys((normalize_text(r.source), normalize_text(r.translation)) for r in picked)
    return list(keys)[:count]


# ------------------------------------------------------------------ running
@dataclass
class Outcome:
    """What one candidate gave: each pair's score and word probabilities, and the seconds of
    each timed round."""

    scores: np.ndarray
    words: list[np.ndarray]
    seconds: list[float] = field(default_factory=list)


#: a candidate: the batch tensors -> (scores, word logits)
Forward = Callable[[tuple[torch.Tensor, ...]], tuple[torch.Tensor, torch.Tensor]]


def run(forward: Forward, passes: Passes) -> Outcome:
    """Every pass through ``forward`` (the first pass once before, as a warm-up): each pair's
    score and word probabilities, and the seconds of the passes."""
    scores = np.zeros(passes.pairs)
    words: list[np.ndarray] = [np.zeros((0, 3))] * passes.pairs
    with torch.inference_mode():
        forward(passes.batches[0])
        kept = []
        t = time.perf_counter()
        for batch in passes.batches:
            kept.append(forward(batch))
        seconds = time.perf_counter() - t
    for members, (pred, logits) in zip(passes.members, kept):
        n = len(members)
        scores[members] = pred[:n].float().numpy()
        probs = torch.softmax(logits[:n].float(), -1).numpy()
        for r, k in enumerate(members):
            side = passes.translation[k]
            words[k] = probs[r, : len(side)][side]
    return Outcome(scores, words, [seconds])


def timed(forward: Forward, batches: Sequence[tuple[torch.Tensor, ...]]) -> float:
    """Seconds of ``forward`` over ``batches`` (the first batch once before, untimed)."""
    with torch.inference_mode():
        forward(batches[0])
        t = time.perf_counter()
        for batch in batches:
            forward(batch)
        return time.perf_counter() - t


def speed(
    reference: Forward,
    forward: Forward,
    batches: Sequence[tuple[torch.Tensor, ...]],
    rounds: int,
    own: Sequence[tuple[torch.Tensor, ...]] | None = None,
) -> tuple[list[float], list[float]]:
    """Seconds of ``reference`` and of ``forward`` over ``batches`` (``forward`` over ``own``
    where given: the same pairs in its own passes), alternating, ``rounds`` times each (the
    machine's other load then weighs on both alike)."""
    ref, got = [], []
    for _ in range(rounds):
        ref.append(timed(reference, batches))
        got.append(timed(forward, own or batches))
    return ref, got


def torch_forward(model: torch.nn.Module) -> Forward:
    """A PyTorch cross-encoder run as xlscore runs it (``parts=True``)."""

    def forward(batch):
        pred, logits, _ = model(*batch, parts=True)
        return pred, logits

    return forward


class _GivenStates(torch.nn.Module):
    """Stands in for the encoder: ``encode(ids, mask)`` (numpy in, numpy out) gives the last
    hidden states."""

    def __init__(self, encode: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
        super().__init__()
        self.encode = encode

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> SimpleNamespace:
        hidden = self.encode(input_ids.numpy(), attention_mask.numpy())
        return SimpleNamespace(last_hidden_state=torch.from_numpy(np.asarray(hidden)))


def heads_on(model: torch.nn.Module, encode: Callable) -> Forward:
    """The estimator's own heads (``model``'s forward, untouched) over the states that
    ``encode`` computes: a shallow copy of ``model`` whose encoder is replaced."""
    swapped = copy.copy(model)
    swapped._modules = dict(model._modules)
    swapped._modules["encoder"] = _GivenStates(encode)
    forward = torch_forward(swapped)
    forward.encode = encode  # type: ignore[attr-defined]
    return forward


# ------------------------------------------------------------------ PyTorch candidates
def torch_int8(model: torch.nn.Module, names: set[str] | None) -> torch.nn.Module:
    """A copy of ``model`` with per-channel dynamic int8 linear layers: every one
    (``names=None``, what ``--dtype int8`` was before issue 83) or those named."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qconfig = torch.ao.quantization.per_channel_dynamic_qconfig
        which = {torch.nn.Linear: qconfig} if names is None else dict.fromkeys(names, qconfig)
        return torch.ao.quantization.quantize_dynamic(
            copy.deepcopy(model), which, dtype=torch.qint8
        )


def attention_linears(model: torch.nn.Module) -> set[str]:
    """The names of the encoder's attention linear layers (query, key, value, output)."""
    return {
        name
        for name, m in model.named_modules()
        if isinstance(m, torch.nn.Linear) and ".attention." in name
    }


# ------------------------------------------------------------------ ONNX


def export_onnx(est, path: Path) -> Path:
    """The estimator's encoder as ONNX (:func:`_int8.export`: float32, opset 17, eager
    attention), dynamic rows and width."""
    return path if path.exists() else export(est.model.encoder, path)


def ort_session(path: Path):
    """An ONNX Runtime CPU session on one thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def ort_encode(path: Path) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    session = ort_session(path)
    return lambda ids, mask: session.run(None, {"ids": ids, "mask": mask})[0]


def fused(source: Path, path: Path) -> Path:
    """``source`` after onnxruntime.transformers' BERT fusion (attention, gelu, layer norms)."""
    if not path.exists():
        from onnxruntime.transformers import optimizer

        optimizer.optimize_model(
            str(source), model_type="bert", num_heads=12, hidden_size=384
        ).save_model_to_file(str(path))
    return path


def weight_matmuls(path: Path) -> dict[str, tuple[int, str]]:
    """The exported encoder's MatMul nodes with a constant weight: each one's layer and kind
    (:data:`KINDS`)."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    consts = {i.name for i in model.graph.initializer}
    out = {}
    for node in model.graph.node:
        if node.op_type == "MatMul" and node.input[1] in consts and "/layer." in node.name:
            layer = int(node.name.split("/layer.")[1].split("/")[0])
            kind = next(k for k, part in KINDS.items() if part in node.name)
            out[node.name] = (layer, kind)
    return out


def cached(work: Path, stem: str, *what: object, suffix: str = ".onnx") -> Path:
    """The path in ``work`` of a model made by ``stem`` from ``what`` (a digest of it)."""
    import hashlib

    digest = hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()
    return work / f"{stem}-{digest[:10]}{suffix}"


def ort_dynamic(source: Path, work: Path, exclude: Sequence[str] = (), **kw) -> Path:
    """Dynamic int8 (per-channel s8 weights, u8 activations) of every weight MatMul but
    ``exclude``."""
    path = cached(work, "enc-dyn", sorted(exclude), kw)
    if not path.exists():
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(
            str(source),
            str(path),
            per_channel=True,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=list(exclude),
            **kw,
        )
    return path


def ort_static(source: Path, work: Path, calibration: Passes) -> Path:
    """Static QDQ int8 (u8 activations from MinMax calibration on ``calibration``,
    per-channel s8 weights) of every weight MatMul."""
    path = cached(work, "enc-qdq", calibration.pairs, [b[0].shape for b in calibration.batches])
    if not path.exists():
        from onnxruntime.quantization import (
            CalibrationDataReader,
            QuantFormat,
            QuantType,
            quantize_static,
        )

        class Reader(CalibrationDataReader):
            def __init__(self) -> None:
                self.feeds = iter(
                    {"ids": b[0].numpy(), "mask": b[1].numpy()} for b in calibration.batches
                )

            def get_next(self):
                return next(self.feeds, None)

        quantize_static(
            str(source),
            str(path),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul"],
            extra_options={"MatMulConstBOnly": True},
        )
    return path


def sensitivity(
    est, source: Path, work: Path, calibration: Passes, reference: Outcome
) -> list[tuple[int, float]]:
    """Each layer's largest score change on the calibration pairs when its weight MatMuls
    alone are dynamic int8, most sensitive first."""
    nodes = weight_matmuls(source)
    out = []
    for layer in sorted({k for k, _ in nodes.values()}):
        path = ort_dynamic(source, work, [n for n, (k, _) in nodes.items() if k != layer])
        got = run(heads_on(est.model, ort_encode(path)), calibration)
        out.append((layer, float(np.abs(got.scores - reference.scores).max())))
        path.unlink()
    return sorted(out, key=lambda x: -x[1])


# ------------------------------------------------------------------ OpenVINO
def ov_model(est, path: Path):
    """The encoder converted by OpenVINO from PyTorch (eager attention), saved to ``path``."""
    import openvino as ov

    if path.exists():
        return ov.Core().read_model(str(path))
    encoder = est.model.encoder
    encoder.set_attn_implementation("eager")
    x = torch.ones((2, 16), dtype=torch.long)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = ov.convert_model(
                States(encoder).eval(),
                example_input=(x, torch.ones_like(x)),
                input=[("ids", [-1, -1], ov.Type.i64), ("mask", [-1, -1], ov.Type.i64)],
            )
    finally:
        encoder.set_attn_implementation("sdpa")
    ov.save_model(model, str(path), compress_to_fp16=False)
    return model


def ov_encode(model) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """An OpenVINO CPU model on one thread, computing in float32 (int8 where quantized); the
    function's ``kernels`` says which kernels its FullyConnected layers run."""
    import collections

    import openvino as ov

    compiled = ov.Core().compile_model(
        model,
        "CPU",
        {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": 1},
    )
    request = compiled.create_infer_request()

    def encode(ids, mask):
        return request.infer({0: ids, 1: mask})[0].copy()

    ones = np.ones((1, 16), dtype=np.int64)
    encode(ones, ones)  # the kernels are chosen at the first inference
    kinds: collections.Counter = collections.Counter()
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        if "layerType" in info and info["layerType"].astype(str) == "FullyConnected":
            kinds[info["primitiveType"].astype(str)] += 1
    encode.kernels = ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items()))  # type: ignore[attr-defined]
    return encode


#: the feed-forward output layers in OpenVINO's names of the converted encoder's nodes
OV_FFN_OUT = r".*layer\.\d+\.output\.dense.*"


def ov_int8(model, work: Path, calibration: Passes, ignored: Sequence[str] = ()):
    """NNCF post-training int8 of the OpenVINO model (transformer preset, calibrated on
    ``calibration``), the layers matching the ``ignored`` patterns left in float32."""
    import nncf
    import openvino as ov

    path = cached(work, "enc-ov-int8", calibration.pairs, sorted(ignored), suffix=".xml")
    if path.exists():
        return ov.Core().read_model(str(path))
    data = nncf.Dataset([(b[0].numpy(), b[1].numpy()) for b in calibration.batches])
    quantized = nncf.quantize(
        model,
        data,
        model_type=nncf.ModelType.TRANSFORMER,
        subset_size=calibration.pairs,
        ignored_scope=nncf.IgnoredScope(patterns=list(ignored), validate=False)
        if ignored
        else None,
    )
    ov.save_model(quantized, str(path), compress_to_fp16=False)
    return quantized


# ------------------------------------------------------------------ measuring
def kendall(rows: list, order: list[int], scores: np.ndarray) -> float:
    """Per-segment Kendall tau-b with the human scores (mean over segments)."""
    from xlscore.evaluation.agreement import per_segment

    mean, _, _ = per_segment(
        [r.seg_id for r in rows], [r.human for r in rows], scores[order].tolist()
    )
    return mean


class Bench:
    """The estimator, the pairs and their passes, the calibration passes and the reference
    (PyTorch float32), and :meth:`measure`, which adds a candidate's line to :attr:`table`."""

    def __init__(self, args: argparse.Namespace) -> None:
        from xlscore.estimator.model import QualityEstimator

        torch.set_num_threads(1)
        self.args = args
        self.est = QualityEstimator.load(dtype="fp32", device="cpu")
        self.work = Path(args.work) / (self.est.digest or "unsaved")[:12]
        self.work.mkdir(parents=True, exist_ok=True)
        self.rows = _rows(args.data, args.limit)
        inputs = read_pairs(
            self.est, [r.source for r in self.rows], [r.translation for r in self.rows]
        )
        self.order = inputs.order
        self.passes = plan(self.est, inputs)
        calib = calibration_pairs(args.calibration, args.calibration_pairs)
        self.calib = plan(self.est, read_pairs(self.est, *map(list, zip(*calib))))
        self.timing = self.passes.batches[:: args.timing_step]
        self.timing_pairs = sum(len(m) for m in self.passes.members[:: args.timing_step])
        # --single: the candidates run one pair a pass, over the same pairs
        self.single = plan(self.est, inputs, single=True) if args.single else None
        timed_pairs = {k for m in self.passes.members[:: args.timing_step] for k in m}
        self.single_timing = (
            [b for m, b in zip(self.single.members, self.single.batches) if m[0] in timed_pairs]
            if self.single
            else []
        )
        self.reference = torch_forward(self.est.model)
        self.ref = run(self.reference, self.passes)
        self.table: list[dict] = []
        self.ref_seconds: list[float] = []
        self._calib_ref: Outcome | None = None
        self._ov = None
        self.ranking: list[tuple[int, float]] = []
        self.onnx = self.work / "enc.onnx"
        self.nodes: dict[str, tuple[int, str]] = {}

    @property
    def calib_ref(self) -> Outcome:
        if self._calib_ref is None:
            self._calib_ref = run(self.reference, self.calib)
        return self._calib_ref

    def measure(self, name: str, build: Callable[[], Forward], note: str = "") -> None:
        """Score every pair with ``build()``'s forward, compare with the reference, and time it
        alternating with the reference; a build that fails is reported as such."""
        line: dict = {"name": name, "note": note}
        self.table.append(line)
        t = time.perf_counter()
        try:
            forward = build()
        except Exception as err:  # an export or a quantizer failing is a finding, not a crash
            line["note"] = f"failed: {type(err).__name__}: {str(err)[:300]}"
            print(name, line["note"], flush=True)
            return
        prepared = time.perf_counter() - t
        kernels = getattr(getattr(forward, "encode", None), "kernels", "")
        alone = self.single is not None and name != "torch-fp32"
        got = run(forward, self.single if alone and self.single else self.passes)
        ref_s, got_s = speed(
            self.reference,
            forward,
            self.timing,
            self.args.rounds,
            self.single_timing if alone else None,
        )
        self.ref_seconds.extend(ref_s)
        change = np.abs(got.scores - self.ref.scores)
        line |= {
            "ratio": min(ref_s) / min(got_s),
            "ratios": [a / b for a, b in zip(ref_s, got_s)],
            "pairs_per_s": self.timing_pairs / min(got_s),
            "largest": float(change.max()),
            "mean": float(change.mean()),
            "words": max(
                (float(np.abs(a - b).max()) for a, b in zip(got.words, self.ref.words) if len(a)),
                default=0.0,
            ),
            "kendall": kendall(self.rows, self.order, got.scores),
            "fp32_kendall": float(scipy.stats.kendalltau(got.scores, self.ref.scores).statistic),
            "kernels": kernels,
            "prepared": prepared,
        }
        print(f"{name}: {line['ratio']:.2f}x {line['ratios']}, largest score "
              f"change {line['largest']:.4f}, words {line['words']:.4f}, Kendall with "
              f"fp32 {line['fp32_kendall']:.4f}", flush=True)  # fmt: skip

    # -------------------------------------------------------------- candidates
    def candidate(self, name: str) -> None:
        """Measure the candidate ``name`` (:data:`CANDIDATES`)."""
        est, work = self.est, self.work
        if name.startswith("ort-") and not self.nodes:
            export_onnx(est, self.onnx)
            self.nodes = weight_matmuls(self.onnx)

        def ort(path: Callable[[], Path]) -> Callable[[], Forward]:
            return lambda: heads_on(est.model, ort_encode(path()))

        def without(*kinds: str) -> list[str]:
            return [n for n, (_, kind) in self.nodes.items() if kind in kinds]

        builds: dict[str, tuple[Callable[[], Forward], str]] = {
            "torch-fp32": (lambda: self.reference, "the reference: xlscore --dtype fp32 (SDPA)"),
            "torch-int8": (
                lambda: torch_forward(torch_int8(est.model, None)),
                "xlscore --dtype int8: every linear layer, heads too",
            ),
            "torch-int8-attention": (
                lambda: torch_forward(torch_int8(est.model, attention_linears(est.model))),
                "the attention's linear layers only",
            ),
            "ort-fp32": (ort(lambda: self.onnx), "exported encoder, ORT graph optimizations"),
            "ort-fp32-fused": (
                ort(lambda: fused(self.onnx, work / "enc-fused.onnx")),
                "onnxruntime.transformers BERT fusion",
            ),
            "ort-int8-dynamic": (
                ort(lambda: ort_dynamic(self.onnx, work)),
                "every weight MatMul, per-channel",
            ),
            "ort-int8-dynamic-reduce-range": (
                ort(lambda: ort_dynamic(self.onnx, work, reduce_range=True)),
                "7-bit weights (ORT's advice for CPUs without VNNI)",
            ),
            "ort-int8-attention": (
                ort(lambda: ort_dynamic(self.onnx, work, without("ffn-in", "ffn-out"))),
                "feed-forward MatMuls fp32",
            ),
            "ort-int8-no-ffn-out": (
                ort(lambda: ort_dynamic(self.onnx, work, without("ffn-out"))),
                "the feed-forward output MatMul (after GELU) fp32",
            ),
            "ort-int8-static-qdq": (
                ort(lambda: ort_static(self.onnx, work, self.calib)),
                f"static QDQ, MinMax calibration on {self.calib.pairs} pairs",
            ),
            "ov-fp32": (
                lambda: heads_on(est.model, ov_encode(self.ov_fp32())),
                "converted from PyTorch, precision hint f32",
            ),
            "ov-int8-nncf": (
                lambda: heads_on(est.model, ov_encode(ov_int8(self.ov_fp32(), work, self.calib))),
                f"NNCF transformer preset, {self.calib.pairs} calibration pairs",
            ),
            "ov-int8-nncf-no-ffn-out": (
                lambda: heads_on(
                    est.model, ov_encode(ov_int8(self.ov_fp32(), work, self.calib, [OV_FFN_OUT]))
                ),
                "the same, the feed-forward output layers fp32 (ignored_scope)",
            ),
        }
        if name == "ort-int8-chosen":
            # --float-layers and --float-kinds stay float32, 7-bit weights with --reduce-range
            layers = [int(x) for x in self.args.float_layers.split(",") if x]
            kinds = [x for x in self.args.float_kinds.split(",") if x]
            excluded = [n for n, (layer, kind) in self.nodes.items()
                        if layer in layers or kind in kinds]  # fmt: skip
            kw = {"reduce_range": True} if self.args.reduce_range else {}
            self.measure(
                f"ort-int8-{'r' if kw else ''}f{''.join(map(str, layers))}-{'+'.join(kinds)}",
                ort(functools.partial(ort_dynamic, self.onnx, work, excluded, **kw)),
                f"layers {layers} and {kinds or 'no'} products float32"
                + (", 7-bit weights (reduce_range)" if kw else ""),
            )
        elif name == "ort-int8-mixed":
            self.ranking = sensitivity(est, self.onnx, work, self.calib, self.calib_ref)
            print("layer sensitivity (calibration):", self.ranking, flush=True)
            for keep in (int(x) for x in self.args.mixed.split(",")):
                kept = sorted(layer for layer, _ in self.ranking[:keep])
                excluded = [n for n, (layer, _) in self.nodes.items() if layer in kept]
                self.measure(
                    f"ort-int8-mixed-{keep}",
                    ort(functools.partial(ort_dynamic, self.onnx, work, excluded)),
                    f"layers {kept} fp32 (the most sensitive on the calibration pairs)",
                )
        else:
            self.measure(name, *builds[name])

    def ov_fp32(self):
        if self._ov is None:
            self._ov = ov_model(self.est, self.work / "enc-ov.xml")
        return self._ov


def avx2_child(args: argparse.Namespace) -> dict:
    """This process's lines (run with the kernels held to AVX2, :data:`AVX2_ENV` and
    ``OV_CPU_MAX_ISA``): PyTorch int8 and the OpenVINO candidates against PyTorch float32."""
    bench = Bench(args)
    for name in args.candidates.split(","):
        bench.candidate(name)
    return {
        "capability": torch.backends.cpu.get_cpu_capability(),
        "table": bench.table,
        "ref_pairs_per_s": bench.timing_pairs / min(bench.ref_seconds or [float("inf")]),
    }


#: what the AVX2-held process measures: what the cap holds (ONNX Runtime's MLAS ignores it)
AVX2_CANDIDATES = ("torch-fp32", "torch-int8", "ov-fp32", "ov-int8-nncf", "ov-int8-nncf-no-ffn-out")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data/wmt21-enru-mqm-newstest2021.tsv")
    parser.add_argument("--calibration", default="../shared/data/wmt22-enru-mqm-dev.tsv")
    parser.add_argument("--limit", type=int, default=100, help="first N sources of --data")
    parser.add_argument("--calibration-pairs", type=int, default=200)
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument(
        "--mixed",
        default="4,8",
        help="ort-int8-mixed: how many of the most sensitive layers stay fp32",
    )
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds of each candidate")
    parser.add_argument(
        "--timing-step", type=int, default=3, help="time every N-th pass (all are scored)"
    )
    parser.add_argument("--work", default="/tmp/xlscore-arithmetic")
    parser.add_argument("--out", default=str(HERE / "results" / "arithmetic.md"))
    parser.add_argument("--float-layers", default="", help="ort-int8-chosen: float32 layers")
    parser.add_argument("--float-kinds", default="", help="ort-int8-chosen: float32 kinds")
    parser.add_argument("--reduce-range", action="store_true", help="ort-int8-chosen: 7 bits")
    parser.add_argument(
        "--single", action="store_true", help="candidates run one pair a pass (dynamic int8)"
    )
    parser.add_argument("--no-avx2", action="store_true", help="skip the AVX2-held process")
    parser.add_argument("--avx2-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.avx2_child:
        print("AVX2-CHILD " + json.dumps(avx2_child(args)))
        return 0
    wanted = [c for c in CANDIDATES if c in args.candidates.split(",")]
    bench = Bench(args)
    print(f"{len(bench.rows)} pairs, {bench.passes.pairs} distinct, {len(bench.passes.batches)} "
          f"passes ({len(bench.timing)} timed, {bench.timing_pairs} pairs); calibration "
          f"{bench.calib.pairs} pairs", flush=True)  # fmt: skip
    for name in wanted:
        if name.startswith("ov-") and not _installed("openvino"):
            continue
        bench.candidate(name)
    avx2: dict = {}
    if not args.no_avx2:
        held = [
            c
            for c in AVX2_CANDIDATES
            if c in wanted and (_installed("openvino") or not c.startswith("ov-"))
        ]
        forward_args = [
            "--data", args.data, "--calibration", args.calibration, "--limit", str(args.limit),
            "--calibration-pairs", str(args.calibration_pairs), "--rounds", str(args.rounds),
            "--timing-step", str(args.timing_step), "--work", args.work,
            "--candidates", ",".join(held), *(["--single"] if args.single else []),
        ]  # fmt: skip
        child = subprocess.run(
            [sys.executable, __file__, "--avx2-child", *forward_args],
            env={**os.environ, **AVX2_ENV, "OV_CPU_MAX_ISA": "AVX2"},
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        )
        said = [x for x in child.stdout.splitlines() if x.startswith("AVX2-CHILD ")]
        avx2 = json.loads(said[-1].split(" ", 1)[1])
    report(bench, avx2)
    return 0


HEADER = [
    "| candidate | pairs/s | × torch fp32 | largest score change | mean change | "
    "largest word-probability change | per-segment Kendall | Kendall with fp32's scores | "
    "meets both lines | note |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
]


def meets(line: dict, held: bool = False) -> str:
    """Whether a measured candidate meets both lines: ``yes``, ``no``, ``reference`` or, in the
    AVX2-held process (``held``), ``not held`` for one whose kernels include MLAS."""
    if line["name"] == "torch-fp32":
        return "reference"
    if held and "mlas" in line["kernels"]:
        return "not held"
    return "yes" if line["largest"] <= SCORE_LINE and line["ratio"] >= SPEED_LINE else "no"


def verdict(table: list[dict], held: bool = False) -> str:
    """The candidates of ``table`` that meet both lines, in words."""
    passed = [x["name"] for x in table if "ratio" in x and meets(x, held) == "yes"]
    return ", ".join(f"`{x}`" for x in passed) if passed else "none"


def table_lines(table: list[dict], held: bool = False) -> list[str]:
    """The Markdown lines of a table of candidates (``held``: in the AVX2-held process, where a
    row whose kernels include MLAS is not held to AVX2 and cannot meet the line there)."""
    lines = list(HEADER)
    for line in table:
        if "ratios" not in line:
            lines.append(f"| {line['name']} | | | | | | | | no | {line['note']} |")
            continue
        ratio = line["ratio"]
        spread = f"{min(line['ratios']):.2f}-{max(line['ratios']):.2f}"
        said = meets(line, held)
        said = {"yes": "**yes**", "not held": "not held to AVX2 (MLAS)"}.get(said, said)
        note = "; ".join(
            x
            for x in (
                line["note"],
                f"FullyConnected kernels: {line['kernels']}" if line["kernels"] else "",
                f"prepared in {line['prepared']:.0f} s" if line["prepared"] > 2 else "",
            )
            if x
        )
        lines.append(
            f"| {line['name']} | {line['pairs_per_s']:.1f} | {ratio:.2f} ({spread}) | "
            f"{line['largest']:.4f} | {line['mean']:.4f} | {line['words']:.4f} | "
            f"{line['kendall']:+.3f} | {line.get('fp32_kendall', 1.0):.3f} | {said} | {note} |"
        )
    return lines


def report(bench: Bench, avx2: dict) -> None:
    """The Markdown tables: this CPU, and the AVX2-held process."""
    args = bench.args
    versions = ", ".join(
        f"{m} {__import__(m).__version__}" for m in ("torch", "onnxruntime", "openvino", "nncf")
        if _installed(m)
    )  # fmt: skip
    lines = [
        f"CPU: {cpu_name()}; one thread; {versions}.",
        "",
        f"Scores: the {len(bench.rows)} MT pairs of the first {args.limit} sources of "
        f"`{Path(args.data).name}` ({bench.passes.pairs} distinct, {len(bench.passes.batches)} "
        f"passes of xlscore's shapes), each compared with PyTorch float32 as xlscore runs it "
        f"(`--dtype fp32`); per-segment Kendall with MQM over the {len(bench.rows)} pairs. "
        f"Speed: every {args.timing_step}th pass ({bench.timing_pairs} pairs), each candidate "
        f"timed {args.rounds} times alternating with PyTorch float32 (× = its best time against "
        f"the best of those PyTorch rounds; in brackets the range of the round-by-round ratios, "
        f"which the machine's other load widens). Calibration: "
        f"{bench.calib.pairs} pairs of `{Path(args.calibration).name}`. The lines: largest "
        f"score change <= {SCORE_LINE} and >= {SPEED_LINE}× PyTorch float32, on this CPU and on "
        "a plain AVX2 one.",
        "",
        f"## This CPU (PyTorch float32: {bench.timing_pairs / min(bench.ref_seconds):.1f} "
        "pairs/s at best)",
        "",
        *table_lines(bench.table),
        "",
        f"Meets both lines on this CPU: {verdict(bench.table)}.",
    ]
    if bench.ranking:
        lines += [
            "",
            "Layer sensitivity (largest score change on the calibration pairs with that layer's "
            "weight MatMuls alone dynamic int8, ONNX Runtime): "
            + ", ".join(f"layer {k} {v:.3f}" for k, v in bench.ranking)
            + ".",
        ]
    if avx2:
        lines += [
            "",
            f"## Emulated plain AVX2 CPU (PyTorch float32: {avx2['ref_pairs_per_s']:.1f} "
            "pairs/s at best)",
            "",
            "A second process with "
            + ", ".join(f"`{k}={v}`" for k, v in {**AVX2_ENV, "OV_CPU_MAX_ISA": "AVX2"}.items())
            + f" (ATen capability {avx2['capability']}). The OpenVINO rows name the kernels its "
            "FullyConnected layers ran: oneDNN's (brgemm, jit_gemm) obey the cap, but most of "
            "its float32 FullyConnected layers run MLAS (`gemm_mlas_f32`), which, like ONNX "
            "Runtime, picks its instruction set from CPUID with no setting to hold it back: "
            "a row with MLAS kernels is faster here than on a real AVX2 CPU, and ONNX Runtime's "
            "rows exist for this CPU only.",
            "",
            *table_lines(avx2["table"], held=True),
            "",
            f"Meets both lines held to AVX2: {verdict(avx2['table'], held=True)}.",
        ]
    out = Path(args.out)
    body = "\n".join(lines)
    if out.parent.resolve() == (HERE / "results").resolve():
        write_markdown(out.stem, body, title="Faster arithmetic for the default estimator")
    else:
        out.write_text(body + "\n", encoding="utf-8")
        print(body)


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


if __name__ == "__main__":
    sys.exit(main())
