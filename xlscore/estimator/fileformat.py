"""The estimator file: a safetensors file of what the fine-tune changed
(:mod:`xlscore.estimator.delta`) with its description in the metadata (JSON under
``xlscore_estimator``: format, name, base model and its fingerprint, recipe, data, the weights
the scorer blends in). Written atomically; checked when read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from xlscore.errors import ModelError
from xlscore.estimator.formula import ScoreFormula
from xlscore.estimator.recipe import Recipe
from xlscore.io.cache import sha256_file

#: the file format written; 1 (a sentence head only) is still read
FORMAT = 2
FORMATS = (1, 2)


def write_estimator_file(path: Path, tensors: dict[str, torch.Tensor], meta: dict) -> None:
    """Write ``tensors`` (in name order) and the description ``meta`` to ``path``, atomically
    (a hidden temporary file beside it, then renamed)."""
    from safetensors.torch import save_file

    tmp = path.with_name(f".{path.name}.tmp")
    save_file(
        dict(sorted(tensors.items())),
        str(tmp),
        metadata={"xlscore_estimator": json.dumps(meta, sort_keys=True)},
    )
    os.replace(tmp, path)


def read_estimator_file(
    path: Path, expected: str | None = None
) -> tuple[dict, dict[str, torch.Tensor], str, Recipe]:
    """The description, tensors, SHA-256 digest and recipe of the estimator file ``path``.
    :class:`ModelError` when it does not exist, does not have the digest ``expected`` (a shipped
    file's), cannot be read, is not an estimator file, or lacks what a model needs."""
    from safetensors import SafetensorError, safe_open

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
    ScoreFormula.from_meta(meta, path)  # each weight a finite number >= 0
    if meta.get("similarity_depth"):
        raise ModelError(
            f"estimator file {path} takes its similarity from its own pass (similarity_depth), "
            f"which this xlscore no longer does; git tag research-2026-11 still reads it"
        )
    recipe = Recipe.from_dict(meta["recipe"])
    if meta.get("meaning_blend") and not recipe.meaning_weight:
        raise ModelError(f"estimator file {path} has a meaning_blend but no meaning head")
    return meta, tensors, digest, recipe


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
