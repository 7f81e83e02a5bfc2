"""Arithmetic of forward passes, and pass shapes that keep results batch-invariant.

``dtype`` names what a model computes in:

* ``"fp32"`` - float32 throughout: the exact path;
* ``"bf16"`` - bfloat16 autocast (matrix products in bfloat16 with float32 accumulation;
  normalisation and softmax stay float32); fast on CPUs with AVX512-BF16 or AMX and on GPUs;
* ``"fp16"`` - float16 autocast, for GPUs without bfloat16;
* ``"int8"`` - dynamic int8 quantization of the linear layers, one scale per weight row (CPU
  only; weights quantized when the model is loaded, in well under a second, so nothing is
  written to the cache). It lowers every similarity (the feed-forward layers carry most of
  the error, as measured at tag research-2026-11: docs/record.md) and costs the default score
  its agreement with people (``experiments/precision.py``), so it is never chosen by ``auto``;
* ``"auto"`` - ``"bf16"`` where the hardware computes in it, else ``"fp32"``.

Kernels round differently for different matrix shapes (in bfloat16 by a whole bfloat16 step),
so a sequence's result would depend on whatever shared its batch. Every forward pass therefore
has a shape that depends only on the sequence's own length (:func:`batch_shape`): the length
rounded up to :data:`WIDTH_STEP`, and as many rows as fit :data:`TOKENS_PER_PASS`, a pass that is
not full being filled with copies of one of its rows (:func:`plan_passes`). Results are then
bit-identical whatever else is embedded, in whatever order, batch size or thread count.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import torch

from xlscore.encoders.dtypes import DTYPES as DTYPES  # defined without torch
from xlscore.errors import ModelError

#: padded widths of forward passes are multiples of this many pieces
WIDTH_STEP = 16
#: pieces per forward pass (rows x width) on each kind of device
TOKENS_PER_PASS = {"cpu": 1024, "cuda": 16384}
_AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}


def autocast_dtype(device: torch.device) -> torch.dtype | None:
    """bfloat16 where the hardware computes in it (CUDA with bf16, CPUs with AVX512-BF16 or
    AMX whose kernels are not held to AVX2 by ``ATEN_CPU_CAPABILITY``), else ``None``
    (float32)."""
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else None
    if not torch.backends.cpu.get_cpu_capability().startswith("AVX512"):
        return None  # kernels held to AVX2 or less (``ATEN_CPU_CAPABILITY``) do not use it
    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return torch.bfloat16 if any(getattr(torch.cpu, p, lambda: False)() for p in probes) else None


def resolve(dtype: str, device: torch.device) -> str:
    """The concrete dtype (``fp32``, ``bf16``, ``fp16`` or ``int8``) that ``dtype``
    means on ``device``; unknown names and impossible combinations are :class:`ModelError`."""
    if dtype not in DTYPES:
        raise ModelError(f"unknown dtype {dtype!r}: use one of " + ", ".join(DTYPES))
    if dtype == "auto":
        return "bf16" if autocast_dtype(device) is not None else "fp32"
    if dtype == "int8" and device.type != "cpu":
        raise ModelError(
            "int8 (dynamic quantization) runs on the CPU only; on a GPU use bf16 or fp16"
        )
    return dtype


def autocast(dtype: str, device: torch.device) -> contextlib.AbstractContextManager:
    """The autocast context of a concrete dtype (a no-op for fp32 and int8)."""
    half = _AUTOCAST.get(dtype)
    if half is None:
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=half)


def quantize(model: torch.nn.Module, dtype: str) -> torch.nn.Module:
    """``model`` with its linear layers quantized to int8 when ``dtype == "int8"``."""
    if dtype != "int8":
        return model
    import warnings

    with warnings.catch_warnings():  # torch.ao.quantization announces its move to torchao
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)
        # one scale per output row of each weight: a per-tensor scale is set by the few
        # outlier rows and costs the rest their resolution (docs/record.md)
        qconfig = torch.ao.quantization.per_channel_dynamic_qconfig
        return torch.ao.quantization.quantize_dynamic(
            model, {torch.nn.Linear: qconfig}, dtype=torch.qint8
        )


def batch_shape(length: int, device_type: str = "cpu", max_length: int = 512) -> tuple[int, int]:
    """``(rows, width)`` of the forward passes that carry a sequence of ``length`` pieces: the
    length rounded up to :data:`WIDTH_STEP` (at most ``max_length``), and as many rows as fit
    the device's :data:`TOKENS_PER_PASS` (at least one)."""
    width = min(max(WIDTH_STEP, -(-length // WIDTH_STEP) * WIDTH_STEP), max_length)
    budget = TOKENS_PER_PASS.get(device_type, TOKENS_PER_PASS["cpu"])
    return max(1, budget // width), width


def plan_passes(
    lengths: Sequence[int],
    device_type: str,
    max_length: int,
    key: Callable[[int], object] | None = None,
) -> list[tuple[int, int, list[int]]]:
    """Forward passes ``(rows, width, members)`` over sequences of the given lengths: one shape
    per width (:func:`batch_shape`), members (indices into ``lengths``) ordered by length and
    then by ``key`` (a tie-break that makes the plan independent of input order). A pass may
    hold fewer than ``rows`` members; the caller fills it to ``rows``."""
    shapes: dict[tuple[int, int], list[int]] = {}
    for k in sorted(range(len(lengths)), key=lambda k: (lengths[k], key(k) if key else k)):
        shapes.setdefault(batch_shape(lengths[k], device_type, max_length), []).append(k)
    return [
        (rows, width, members[s : s + rows])
        for (rows, width), members in shapes.items()
        for s in range(0, len(members), rows)
    ]


def padded(
    seqs: Sequence[Sequence[int]], rows: int, width: int, pad: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Ids and attention mask ``[rows, width]`` of ``seqs``, the missing rows filled with
    copies of the last sequence."""
    seqs = list(seqs) + [seqs[-1]] * (rows - len(seqs))
    ids = np.full((rows, width), pad, dtype=np.int64)  # filled in numpy: a row costs less
    mask = np.zeros((rows, width), dtype=np.int64)
    for r, s in enumerate(seqs):
        ids[r, : len(s)] = s
        mask[r, : len(s)] = 1
    return torch.from_numpy(ids), torch.from_numpy(mask)


@contextlib.contextmanager
def inference(dtype: str, device: torch.device) -> Iterator[None]:
    """``torch.inference_mode`` with the autocast of ``dtype``."""
    with torch.inference_mode(), autocast(dtype, device):
        yield
