"""Small weight deltas: what a fine-tune changed in a model, compressed to ship in a package.

A fine-tune of every transformer layer changes about 21 million weights of ``pack:e5-small``
(42 MB in float16), too much to keep in git. The change of each weight matrix is close to low
rank, so it is stored as a truncated SVD ``delta ~ A @ B`` (``A``: ``out x r``, ``B``:
``r x in``, each factor scaled by the square root of the singular values) with both factors
quantised to int8, one scale per row. Vectors (biases, LayerNorm) are stored whole in float16.

Pure functions over ``{name: tensor}`` dictionaries: :func:`compress` makes the delta,
:func:`expand` adds it back onto the base weights, :func:`delta_bytes` counts its size.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

#: tensor name suffixes in a compressed delta
_A, _B, _A_SCALE, _B_SCALE, _FULL = ".lr_a", ".lr_b", ".lr_a_scale", ".lr_b_scale", ".delta"


def low_rank(delta: torch.Tensor, rank: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Factors ``(A, B)`` of the best rank-``rank`` approximation of a matrix (truncated SVD,
    computed in float64), the singular values split evenly between them."""
    u, s, vh = torch.linalg.svd(delta.double(), full_matrices=False)
    r = min(rank, s.numel())
    root = s[:r].sqrt()
    return (u[:, :r] * root).float(), (root[:, None] * vh[:r]).float()


def quantize_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Symmetric int8 quantisation with one float32 scale per row: ``x ~ q * scale``."""
    scale = (x.abs().amax(dim=1, keepdim=True) / 127).clamp(min=1e-12)
    q = torch.round(x / scale).clamp(-127, 127).to(torch.int8)
    return q, scale.float()


def dequantize_rows(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`quantize_rows`."""
    return q.float() * scale


def compress(
    base: Mapping[str, torch.Tensor], tuned: Mapping[str, torch.Tensor], *, rank: int, bits: int = 8
) -> dict[str, torch.Tensor]:
    """The compressed difference ``tuned - base`` for every name in ``tuned``: matrices larger
    than their rank-``rank`` factors as int8 (``bits=8``) or float16 (``bits=16``) factors,
    everything else (every tensor when ``rank`` is 0) whole in float16. Names missing from ``base``
    are stored whole (float32): they are new parameters such as a regression head."""
    if bits not in (8, 16):
        raise ValueError(f"bits must be 8 or 16, not {bits}")
    if rank < 0:
        raise ValueError(f"rank must not be negative, not {rank}")
    out: dict[str, torch.Tensor] = {}
    for name, value in tuned.items():
        if name not in base:
            out[name] = value.detach().float().contiguous()
            continue
        delta = value.detach().float() - base[name].detach().float()
        if rank and delta.dim() == 2 and rank * sum(delta.shape) < delta.numel():
            a, b = low_rank(delta, rank)
            if bits == 8:
                out[name + _A], out[name + _A_SCALE] = quantize_rows(a)
                out[name + _B], out[name + _B_SCALE] = quantize_rows(b)
            else:
                out[name + _A], out[name + _B] = a.half(), b.half()
        else:
            out[name + _FULL] = delta.half()
    return {k: v.contiguous() for k, v in out.items()}


def expand(
    base: Mapping[str, torch.Tensor], delta: Mapping[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """The tuned weights that :func:`compress` described: ``base + delta`` for each changed
    name, plus the new parameters. Names of ``base`` that the delta does not mention are not
    returned (they are unchanged). Results are on the base weights' device (the delta may be
    on another, e.g. read from a file to the CPU)."""
    out: dict[str, torch.Tensor] = {}
    for key, value in delta.items():
        if key.endswith((_B, _A_SCALE, _B_SCALE)):
            continue
        if key.endswith(_A):
            name = key[: -len(_A)]
            a, b = value, delta[name + _B]
            if a.dtype == torch.int8:
                a = dequantize_rows(a, delta[name + _A_SCALE])
                b = dequantize_rows(b, delta[name + _B_SCALE])
            w = base[name]
            out[name] = w.float() + (a.float() @ b.float()).to(w.device)
        elif key.endswith(_FULL):
            name = key[: -len(_FULL)]
            out[name] = base[name].float() + value.float().to(base[name].device)
        else:
            out[key] = value.float()
    return out


def delta_bytes(delta: Mapping[str, torch.Tensor]) -> int:
    """Bytes the tensors of a delta take (without file headers)."""
    return sum(v.numel() * v.element_size() for v in delta.values())
