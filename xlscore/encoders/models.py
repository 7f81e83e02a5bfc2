"""Loading transformer models: offline packs, local folders of Hugging Face files, hub names;
and what identifies a loaded model (fingerprint, input limit)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

from xlscore.encoders import packs
from xlscore.errors import ModelError

_LAYER_PATHS = ("encoder.layer", "transformer.layer", "encoder.layers", "layers")


def resolve_device(device: str | torch.device | None) -> torch.device:
    """``device`` as a ``torch.device`` (default CUDA when present, else CPU); an unknown or
    unavailable device is a :class:`ModelError`."""
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ModelError(f"unknown device {device!r}: {err}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ModelError(f"device {device!r} asked for, but CUDA is not available here")
    return dev


def _looks_like_path(spec: str) -> bool:
    """Hub names are ``name`` or ``org/name``; anything else path-shaped is a path."""
    return (
        spec.startswith((".", "~", "/"))
        or "\\" in spec
        or spec.count("/") > 1
        or Path(spec).expanduser().exists()
    )


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' load reports and progress bars while loading."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if bars:
            hf_logging.enable_progress_bar()


def tokenized(
    tokenizer, texts: list[str], second: list[str] | None = None, *, special: bool = True
) -> list[tuple[list[int], list[int | None], list[tuple[int, int]]]]:
    """Each text's (or with ``second``, each text pair's) piece ids, the text each piece is
    of (0, 1 for ``second``, ``None`` for a special token) and its character span in that
    text; nothing is cut. ``special``: with the model's special tokens.

    A fast tokenizer's own Rust tokenizer is called directly when nothing in it cuts or pads:
    the same pieces without the Python wrapper's conversion of every text."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and backend.truncation is None and backend.padding is None:
        inputs = texts if second is None else list(zip(texts, second))
        encodings = backend.encode_batch(inputs, add_special_tokens=special)
        return [(e.ids, e.sequence_ids, e.offsets) for e in encodings]
    with quiet_transformers():
        # never the tokenizer's own truncation: on a long pair it builds every overflowing
        # piece of both sides against each other (gigabytes at 100 kB); callers cut instead
        enc = tokenizer(
            texts,
            second,
            add_special_tokens=special,
            return_attention_mask=False,
            return_offsets_mapping=True,
            return_token_type_ids=False,
            truncation=False,
        )
    return [
        (ids, enc.sequence_ids(i), enc["offset_mapping"][i])
        for i, ids in enumerate(enc["input_ids"])
    ]


def find_layers(model: torch.nn.Module) -> tuple[torch.nn.Module, str] | None:
    """``(parent, attribute)`` of the model's list of transformer layers, or ``None``."""
    for path in _LAYER_PATHS:
        parent: object = model
        *head, last = path.split(".")
        try:
            for name in head:
                parent = getattr(parent, name)
            layers = getattr(parent, last)
        except AttributeError:
            continue
        if isinstance(layers, torch.nn.ModuleList):
            return parent, last  # type: ignore[return-value]
    return None


def load_pretrained(spec: str | os.PathLike):
    """``(model, fast tokenizer, pack or None)`` for a pack name (``pack:e5-small``), a local
    folder of Hugging Face files or a hub name; any failure is a :class:`ModelError`."""
    spec = os.fspath(spec)
    pack = None
    if spec.startswith(packs.PREFIX):
        pack = packs.get(spec)
        source, local = str(pack.path()), True
    elif Path(spec).expanduser().is_dir():
        source, local = str(Path(spec).expanduser()), True
    elif _looks_like_path(spec):
        raise ModelError(f"model folder {spec!r} does not exist")
    else:
        source, local = spec, False
    from transformers import AutoModel, AutoTokenizer

    try:
        with quiet_transformers():
            tok = AutoTokenizer.from_pretrained(
                source, local_files_only=local, trust_remote_code=False
            )
            model = AutoModel.from_pretrained(
                source, local_files_only=local, trust_remote_code=False
            )
    except Exception as err:
        where = "local folder" if local else "Hugging Face hub name"
        hint = (
            ""
            if local
            else (
                " (not a pack, not a local folder, and the hub or its "
                "cache could not provide it; offline packs: "
                + ", ".join(packs.PREFIX + n for n in packs.names())
                + ")"
            )
        )
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ModelError(f"cannot load model {spec!r} as a {where}{hint}: {reason}") from None
    return model, tok, pack


def prefer_sdpa(model: torch.nn.Module) -> None:
    """Use PyTorch's fused attention (``scaled_dot_product_attention``) where the model's code
    supports it; the packs otherwise load with the eager implementation. (The estimator keeps
    the eager attention it was trained with, so that its training reproduces bit for bit.)"""
    setter = getattr(model, "set_attn_implementation", None)
    if setter is None:
        return
    # this architecture may have no SDPA path: then keep what it has
    with contextlib.suppress(ValueError, ImportError, NotImplementedError):
        setter("sdpa")


def model_fingerprint(model: torch.nn.Module, tokenizer) -> str:
    """Short digest of a model's configuration, vocabulary and first embedding rows: identifies
    the weights whatever path or name they were loaded under."""
    h = hashlib.sha256()
    # torch types a Module's other attributes as Tensor | Module: these are transformers'
    cfg = model.config.to_dict()  # type: ignore[union-attr, operator]
    for key in (
        "vocab_size",
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "intermediate_size",
        "model_type",
    ):
        h.update(f"{key}={cfg.get(key)};".encode())
    h.update(str(len(tokenizer)).encode())
    emb = model.get_input_embeddings().weight[:64].detach().float().cpu()  # type: ignore[operator]
    h.update(emb.numpy().round(4).tobytes())
    return h.hexdigest()[:16]


def max_tokens(model: torch.nn.Module, tokenizer) -> int:
    """The most tokens (special ones included) the model takes in one input."""
    cfg: Any = model.config  # a transformers config (torch types it as Tensor | Module)
    limits = []
    mml = getattr(tokenizer, "model_max_length", None)
    if isinstance(mml, int) and 0 < mml < 100_000:
        limits.append(mml)
    mpe = getattr(cfg, "max_position_embeddings", None)
    if isinstance(mpe, int) and mpe > 0:
        # RoBERTa-style models number positions from padding_idx + 1
        offset = (
            (cfg.pad_token_id or 0) + 1
            if cfg.model_type in ("roberta", "xlm-roberta", "camembert", "xlm-roberta-xl")
            else 0
        )
        limits.append(mpe - offset)
    return min(limits) if limits else 512
