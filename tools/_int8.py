"""The shipped estimator's encoder in int8 through ONNX Runtime: the candidate issue 83's
arithmetic gate refused (``gate_arithmetic.py int8``; ``results/gate-int8.md``), kept here so
that the refusal can be rerun. Needs ``pip install onnxruntime onnx``.

The encoder (the transformer up to its last hidden states) is exported to ONNX once per
trained estimator and the weight matrix products of its upper six layers are quantised
dynamically (ONNX Runtime's ``quantize_dynamic``): signed 8-bit weights, one scale per output
column, and unsigned 8-bit activations whose scale is read from each pass. The lower six layers
stay float32: they move the scores most in int8 (``results/arithmetic-single.md``: with 0, 2,
4 or 6 of them kept, the Kendall between int8's scores and float32's 0.87 to 0.97 on 661
newstest pairs). The heads stay the estimator's own float32 PyTorch code on the states this
encoder returns (:func:`int8_predictions`).

* **One pair a pass**: a dynamic activation scale is read over the whole input of a matrix
  product, so a pair's result would otherwise depend on the pairs beside it.
* **VNNI only**: without it ONNX Runtime's u8 x s8 kernels add pairs of products in saturating
  16-bit arithmetic (its quantization notes), so a plain AVX2 CPU would not compute what the
  gate judged; 7-bit weights (``reduce_range``), which avoid that, cost the order more (Kendall
  with float32 0.947 with the same six layers kept).

The quantised model is built on first use (about 20 s) under xlscore's user cache (``int8/``,
keyed by the encoder's weights, these settings and the library versions).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib.util
import json
import logging
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import torch

from xlscore.encoders import arithmetic
from xlscore.errors import ModelError


@dataclass(frozen=True)
class Settings:
    """What the exporter and the quantiser are asked for: these key the cached model."""

    opset: int = 17
    per_channel: bool = True
    reduce_range: bool = False
    weight_type: str = "QInt8"
    ops: tuple[str, ...] = ("MatMul",)
    #: the layers whose weight products stay float32 (the most sensitive; issue 83)
    float_layers: tuple[int, ...] = (0, 1, 2, 3, 4, 5)


SETTINGS = Settings()
_NAMES = ("ids", "mask")
_log = logging.getLogger(__name__)


def available() -> bool:
    """Whether ONNX Runtime and ONNX (for the quantiser) are installed (found, not imported:
    ``auto`` asks this before any model loads)."""
    return all(importlib.util.find_spec(m) is not None for m in ("onnx", "onnxruntime"))


def supported() -> bool:
    """Whether this CPU has VNNI (its int8 products summed exactly, as where the gate ran)."""
    return bool(getattr(torch.cpu, "_is_vnni_supported", lambda: False)())


def _versions() -> dict[str, str]:
    return {p: metadata.version(p) for p in ("torch", "onnx", "onnxruntime")}


def weights_digest(encoder: torch.nn.Module) -> str:
    """SHA-256 of the encoder's weights (names, shapes and bytes, in order)."""
    h = hashlib.sha256()
    for name, t in encoder.state_dict().items():
        h.update(f"{name}{tuple(t.shape)}{t.dtype}".encode())
        h.update(t.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def cache_key(digest: str) -> str:
    """The cache entry of the int8 copy of the encoder whose weights have ``digest``."""
    what = json.dumps([digest, asdict(SETTINGS), _versions()], sort_keys=True)
    return f"{digest[:16]}-{hashlib.sha256(what.encode()).hexdigest()[:12]}"


class States(torch.nn.Module):
    """The encoder as the exporter sees it: ids and mask in, last hidden states out."""

    def __init__(self, encoder: torch.nn.Module) -> None:
        super().__init__()
        self.encoder = encoder

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state


def _weight_products(path: Path, layers: tuple[int, ...]) -> list[str]:
    """The names of the MatMul nodes with a constant weight in the given encoder ``layers``."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    consts = {i.name for i in model.graph.initializer}
    return [
        node.name
        for node in model.graph.node
        if node.op_type == "MatMul"
        and node.input[1] in consts
        and "/layer." in node.name
        and int(node.name.split("/layer.")[1].split("/")[0]) in layers
    ]


def export(encoder: torch.nn.Module, path: Path) -> Path:
    """``encoder`` as ONNX in ``path``: float32, eager attention (the SDPA export carries a
    masked subgraph ONNX Runtime does not fuse), ids and mask in, the last hidden states out,
    rows and width dynamic (traced on one row of 16 pieces)."""
    x = torch.ones((1, 16), dtype=torch.long)
    axes = {0: "rows", 1: "width"}
    model = cast(Any, encoder)  # a transformers model: its attention is set by name
    model.set_attn_implementation("eager")
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                States(encoder).eval(),
                (x, torch.ones_like(x)),
                str(path),
                input_names=list(_NAMES),
                output_names=["hidden"],
                dynamic_axes={"ids": axes, "mask": axes, "hidden": axes},
                dynamo=False,
                opset_version=SETTINGS.opset,
            )
    finally:
        model.set_attn_implementation("sdpa")
    return path


def build(encoder: torch.nn.Module, folder: Path) -> dict:
    """Export ``encoder`` to ONNX in ``folder`` and quantise it to ``folder/encoder.onnx``;
    returns the manifest's metadata."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    exported = export(encoder, folder / "float32.onnx")
    quiet = logging.getLogger()
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # the quantiser advises a pre-processing step it does not need
    try:
        quantize_dynamic(
            str(exported),
            str(folder / "encoder.onnx"),
            per_channel=SETTINGS.per_channel,
            reduce_range=SETTINGS.reduce_range,
            weight_type=getattr(QuantType, SETTINGS.weight_type),
            op_types_to_quantize=list(SETTINGS.ops),
            nodes_to_exclude=_weight_products(exported, SETTINGS.float_layers),
        )
    finally:
        quiet.setLevel(level)
    exported.unlink()
    return {"settings": asdict(SETTINGS), "versions": _versions()}


class Int8Encoder(torch.nn.Module):
    """Stands in for the estimator's encoder: ``forward(input_ids=, attention_mask=)`` returns
    an object whose ``last_hidden_state`` ONNX Runtime computed from the int8 model in
    ``path``, on as many threads as PyTorch uses."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> SimpleNamespace:
        feed = {
            "ids": np.ascontiguousarray(input_ids.cpu().numpy(), dtype=np.int64),
            "mask": np.ascontiguousarray(attention_mask.cpu().numpy(), dtype=np.int64),
        }
        hidden = self.session.run(None, feed)[0]
        return SimpleNamespace(last_hidden_state=torch.from_numpy(hidden))


def int8_encoder(encoder: torch.nn.Module) -> Int8Encoder:
    """The int8 copy of an estimator's ``encoder``, built on first use and cached (keyed by
    its weights' digest).

    Raises:
        ModelError: ONNX Runtime or ONNX is missing.
    """
    from xlscore.io.cache import ensure_dir, entry_path

    if not available():
        raise ModelError(
            "--dtype int8 runs the estimator through ONNX Runtime: pip install onnxruntime onnx"
        )
    target = entry_path("int8", cache_key(weights_digest(encoder)))
    if not target.exists():
        _log.warning("quantising the estimator's encoder to int8 once (about 20 s)")
    folder = ensure_dir(target, lambda tmp: build(encoder, tmp))
    return Int8Encoder(folder / "encoder.onnx")


@contextlib.contextmanager
def int8_predictions(est) -> Iterator[None]:
    """Within the block the estimator ``est`` (loaded in fp32) predicts through its int8
    encoder, one pair a pass (its own length rounded up, as xlscore's passes are).

    Raises:
        ModelError: ONNX Runtime is missing or this CPU has no VNNI.
    """
    if not supported():
        raise ModelError("the int8 candidate needs a CPU with VNNI (see the module's notes)")
    swapped = copy.copy(est.model)
    swapped._modules = dict(est.model._modules)
    swapped._modules["encoder"] = int8_encoder(est.model.encoder)
    real = arithmetic.batch_shape

    def alone(length: int, device_type: str = "cpu", max_length: int = 512) -> tuple[int, int]:
        return 1, real(length, device_type, max_length)[1]

    est._predictor = lambda: swapped
    arithmetic.batch_shape = alone
    try:
        yield
    finally:
        arithmetic.batch_shape = real
        del est._predictor
