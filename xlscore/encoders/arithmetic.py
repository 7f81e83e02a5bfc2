"""Arithmetic of forward passes, and pass shapes that keep results batch-invariant.

``dtype`` names what a model computes in:

* ``"fp32"`` - float32 throughout: the exact path;
* ``"bf16"`` - bfloat16 autocast (matrix products in bfloat16 with float32 accumulation;
  normalisation and softmax stay float32); fast on CPUs with AMX and on GPUs (on CPUs with
  AVX512-BF16 but no AMX it is slower than float32: ``experiments/results/bench.md``). On a
  CPU it is the user's choice, not ``auto``'s: it missed the ship gate by a hair
  (``experiments/results/gate-bf16.md``);
* ``"fp16"`` - float16 autocast, for GPUs without bfloat16;
* ``"int8"`` - **refused** (:data:`INT8_REFUSED`): no int8 arithmetic passed the ship gate
  (issue 83, ``experiments/results/gate-int8.md``); the name stays so that the refusal says
  why;
* ``"auto"`` - what the ship gate passed and is fastest on this kind of processor
  (:func:`cpu_kind`, :data:`AUTO`: float32 on every kind of CPU today), bfloat16 on GPUs that
  have it (not gated: no GPU was lent to run the gate).

Kernels round differently for different matrix shapes (in bfloat16 by a whole bfloat16 step),
so a sequence's result would depend on whatever shared its batch. Every forward pass therefore
has a shape that depends only on the sequence's own length (:func:`batch_shape`): the length
rounded up to :data:`WIDTH_STEP`, and as many rows as fit :data:`TOKENS_PER_PASS`, a pass that
is not full being filled with copies of one of its rows (:func:`plan_passes`). Results are then
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


#: CPU kinds, fastest matrix arithmetic first (:func:`cpu_kind`)
CPU_KINDS = ("amx", "avx512-bf16", "avx512-vnni", "avx512", "avx2", "other")
#: what ``auto`` computes in on each kind of CPU: an arithmetic the ship gate passed against
#: float32 (``tools/gate_arithmetic.py``) where it is faster. None has passed: bfloat16
#: (the only fast one with AMX; slower than float32 with AVX512-BF16 alone) missed the gate by
#: 0.001 on the biomedical set (``experiments/results/gate-bf16.md``), int8 failed it
#: (:data:`INT8_REFUSED`); so float32 on every kind until one passes
AUTO: dict[str, str] = {
    "amx": "fp32",
    "avx512-bf16": "fp32",
    "avx512-vnni": "fp32",
    "avx512": "fp32",
    "avx2": "fp32",
    "other": "fp32",
}
#: why ``int8`` is refused (issue 83)
INT8_REFUSED = (
    "int8 did not pass the ship gate: the estimator's encoder in ONNX Runtime's int8 (its six "
    "lowest layers in float32) ranked 6 of the challenge set's 13 role swaps right (the floor "
    "is 7; float32 9), and its figures on the zh-en talks and the biomedical set may be 0.011 "
    "and 0.017 below float32's (experiments/results/gate-int8.md); PyTorch's int8 reordered "
    "the scores (Kendall 0.43 with float32's). Use auto or fp32"
)


def cpu_kind() -> str:
    """This CPU's kind (:data:`CPU_KINDS`) as PyTorch's kernels see it: a CPU whose kernels
    are held to AVX2 (``ATEN_CPU_CAPABILITY=avx2``) counts as ``avx2``."""
    capability = torch.backends.cpu.get_cpu_capability()
    if capability.startswith("AVX512"):
        probes = (
            ("amx", "_is_amx_tile_supported"),
            ("avx512-bf16", "_is_avx512_bf16_supported"),
            ("avx512-vnni", "_is_vnni_supported"),
        )
        return next((k for k, p in probes if getattr(torch.cpu, p, lambda: False)()), "avx512")
    return "avx2" if capability == "AVX2" else "other"


def autocast_dtype(device: torch.device) -> torch.dtype | None:
    """bfloat16 where ``auto`` computes in it (CUDA with bf16, CPUs whose kind :data:`AUTO`
    gives bf16), else ``None`` (float32)."""
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else None
    return torch.bfloat16 if AUTO[cpu_kind()] == "bf16" else None


def training_dtype(device: torch.device) -> torch.dtype | None:
    """The autocast training runs in: bfloat16 where the hardware computes it fast (CUDA with
    bf16, CPUs with AMX), else ``None`` (float32). Training is not scoring: what a trained
    model scores in is :func:`resolve`'s."""
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else None
    return torch.bfloat16 if cpu_kind() == "amx" else None


def resolve(dtype: str, device: torch.device) -> str:
    """The concrete dtype (``fp32``, ``bf16`` or ``fp16``) that ``dtype`` means on ``device``;
    unknown names, ``int8`` (:data:`INT8_REFUSED`) and impossible combinations are
    :class:`ModelError`."""
    if dtype not in DTYPES:
        raise ModelError(f"unknown dtype {dtype!r}: use one of " + ", ".join(DTYPES))
    if dtype == "int8":
        raise ModelError(INT8_REFUSED)
    if dtype == "auto":
        return "bf16" if autocast_dtype(device) is not None else "fp32"
    return dtype


def autocast(dtype: str, device: torch.device) -> contextlib.AbstractContextManager:
    """The autocast context of a concrete dtype (a no-op for fp32 and int8)."""
    half = _AUTOCAST.get(dtype)
    if half is None:
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=half)


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
