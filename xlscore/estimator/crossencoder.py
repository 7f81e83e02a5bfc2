"""The quality estimator's network: an encoder reading source and translation together, a
sentence head, and (optionally) what ties the score to the meaning of the words.

* **Sentence head.** The mean of the last layer's token states goes through a linear layer
  (the estimator of issue 13, unchanged when the options below are off), or with
  ``head_hidden`` through a small feed-forward network (one tanh layer of that width).
* **Word head** (``words``): each translation piece's state (with ``evidence``, and two flags
  of the word it belongs to: it has a Latin letter, it occurs verbatim in the source —
  :data:`EVIDENCE`) gives the probabilities of three classes,
  no error / minor / major (:data:`WORD_CLASSES`). The expected number of erroneous pieces and the
  largest error probability feed the score too (read without gradient, so that the word head
  is trained only by word labels and its spans stay what it believes).

* **Meaning head** (``meaning``): a second head on the pooled vector, of the sentence head's
  shape, trained only by the corruption margins (a real translation above its synthetic
  corruption), so that those constraints need not bend the sentence head that real MT trains.
  It enters the score as ``meaning_blend`` x its output; the blend is 0 while training and set
  afterwards to a weight chosen on validation data.

The word head's two summaries enter the score through one small linear layer (``adequacy``,
zero at initialisation), so ``score = base + adequacy``, where ``adequacy`` also holds the blended
meaning head: both parts are reported, and the meaning head's raw output beside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import torch

#: per-pair features from the word head
WORD_FEATURES = ("expected_error_pieces", "largest_error_probability")
#: the word head's classes, in the order of its outputs
WORD_CLASSES = ("ok", "minor", "major")
#: piece sides in :class:`Encoded` and the ``side`` tensor
SPECIAL, SOURCE, TRANSLATION = 0, 1, 2
#: the word evidence flags of a translation piece (bits of :attr:`Encoded.evidence`): its word
#: has a Latin letter; its word occurs, case aside, among the source's words
EVIDENCE = ("latin", "copied")


def _sentence_head(hidden: int, width: int) -> torch.nn.Module:
    """A linear layer, or with ``width`` a feed-forward network of one tanh layer."""
    if not width:
        return torch.nn.Linear(hidden, 1)
    return torch.nn.Sequential(
        torch.nn.Linear(hidden, width), torch.nn.Tanh(), torch.nn.Linear(width, 1)
    )


@dataclass(frozen=True)
class Encoded:
    """One pair as the cross-encoder reads it: piece ids, the side of each piece (special or
    prefix, source, translation), each translation piece's character span in the
    translation (``(0, 0)`` for other pieces) and its word's evidence flags (bit ``k`` for
    ``EVIDENCE[k]``; 0 for other pieces)."""

    ids: list[int]
    side: list[int]
    offsets: list[tuple[int, int]]
    evidence: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.ids)

    def translation_offsets(self) -> list[tuple[int, int]]:
        """Character spans of the translation pieces, in order."""
        return [o for o, s in zip(self.offsets, self.side) if s == TRANSLATION]


def _kept(seqs: Sequence[int | None], max_length: int) -> list[bool]:
    """Which pieces of a pair (``seqs``: each piece's sequence, ``None`` for the special
    tokens) stay when it is cut to ``max_length``, as the tokenizers library's
    ``longest_first`` cuts: the shorter side kept whole when the longer can give up enough,
    else half the room each (the longer side the odd piece); each side loses its end."""
    room = max_length - sum(s is None for s in seqs)
    n = [sum(s == k for s in seqs) for k in (0, 1)]
    short, long = sorted(n)
    long = short if short > room else max(short, room - short)
    if short + long > room:
        short, long = room // 2, room // 2 + room % 2
    keep_n = (short, long) if n[0] <= n[1] else (long, short)
    seen = [0, 0]
    out = []
    for s in seqs:
        if s is None:
            out.append(True)
            continue
        seen[s] += 1
        out.append(seen[s] <= keep_n[s])
    return out


def encode_pairs(
    tokenizer,
    prefix: str,
    pairs: Sequence[tuple[str, str]],
    max_length: int | None,
    evidence: bool = False,
    translation_prefix: str = "",
) -> list[Encoded]:
    """Tokenise ``(source, translation)`` pairs as ``prefix + source`` and
    ``translation_prefix + translation``; pairs longer than ``max_length`` pieces are cut, the
    longer side first (``None``: never cut). ``evidence``: also each piece's word evidence
    flags (:func:`word_evidence`; only a model that reads them needs them). The prefixes'
    pieces are :data:`SPECIAL`; translation offsets count from the translation's start."""
    if not pairs:
        return []
    from xlscore.encoders.models import tokenized

    tokens = tokenized(
        tokenizer, [prefix + s for s, _ in pairs], [translation_prefix + t for _, t in pairs]
    )
    n_prefix, n_marker = len(prefix), len(translation_prefix)
    out = []
    for (all_ids, seqs, all_offsets), (source, translation) in zip(tokens, pairs):
        if max_length and len(all_ids) > max_length:
            keep = _kept(seqs, max_length)
            all_ids = [x for x, k in zip(all_ids, keep) if k]
            seqs = [x for x, k in zip(seqs, keep) if k]
            all_offsets = [x for x, k in zip(all_offsets, keep) if k]
        ids = list(all_ids)
        side, offsets = [], []
        for seq, (a, b) in zip(seqs, all_offsets):
            if seq == 1:
                a = a if a > n_marker else n_marker
                if b > a:
                    side.append(TRANSLATION)
                    offsets.append((a - n_marker, b - n_marker))
                    continue
            # a piece of the source proper ends after the prefix (its "▁" may start in it)
            side.append(SOURCE if seq == 0 and b > a and b > n_prefix else SPECIAL)
            offsets.append((0, 0))
        flags = word_evidence(source, translation, offsets) if evidence else ()
        out.append(Encoded(ids, side, offsets, flags))
    return out


@lru_cache(maxsize=4096)
def _source_words(source: str) -> frozenset[str]:
    """The case-folded words of a source (once for all its translations)."""
    from xlscore.text.words import split_words

    return frozenset(w.text.casefold() for w in split_words(source))


def word_evidence(
    source: str, translation: str, offsets: Sequence[tuple[int, int]]
) -> tuple[int, ...]:
    """The :data:`EVIDENCE` flags of each piece (character ``offsets`` into ``translation``;
    ``(0, 0)``: not a translation piece): bit 0 when its word has a Latin letter, bit 1 when
    its word occurs in ``source`` (case aside). Words without a letter have no flags."""

    from xlscore.text.scripts import has_latin, has_letter
    from xlscore.text.words import split_words

    seen = _source_words(source)
    by_char = bytearray(len(translation))
    for w in split_words(translation):
        if has_letter(w.text):
            flag = has_latin(w.text) | 2 * (w.text.casefold() in seen)
            if flag:
                by_char[w.start : w.end] = bytes([flag]) * (w.end - w.start)
    return tuple(max(by_char[a:b]) if a < b else 0 for a, b in offsets)


class CrossEncoder(torch.nn.Module):
    """Encoder + mean pooling + a linear (or ``head_hidden``-wide tanh) head, and optionally
    the word head and the meaning head (module docstring). ``forward(ids, mask, side)``
    gives one score per row, or ``(scores, word logits)`` when the word head is on
    (``parts=True``: also ``[B, 3]``, the base and adequacy parts of each score and the
    meaning head's raw output, 0 without one)."""

    def __init__(
        self,
        encoder: torch.nn.Module,
        *,
        words: bool = False,
        head_hidden: int = 0,
        evidence: bool = False,
        meaning: bool = False,
    ) -> None:
        super().__init__()
        self.encoder = encoder
        # torch types a Module's other attributes as Tensor | Module: ``config`` is transformers'
        hidden = int(encoder.config.hidden_size)  # type: ignore[union-attr, arg-type]
        self.use_words = words
        self.use_evidence = evidence and words
        self.use_meaning = meaning
        self.dropout = torch.nn.Dropout(0.1)
        self.head = _sentence_head(hidden, head_hidden)
        if meaning:
            self.meaning = _sentence_head(hidden, head_hidden)
        # weight of the meaning head in the score (0 while training; see the module docstring)
        self.meaning_blend = 0.0
        if words:
            extra = len(EVIDENCE) * self.use_evidence
            self.word = torch.nn.Linear(hidden + extra, len(WORD_CLASSES))
            self.adequacy = torch.nn.Linear(len(WORD_FEATURES), 1)
        self.reset_head(0)
        # the encoder's states are fixed (the heads learn on a fitted model's states): it stays
        # in evaluation mode and keeps no gradient (see :meth:`train`)
        self.frozen_body = False

    def train(self, mode: bool = True) -> CrossEncoder:
        """Training mode, but for a frozen body's encoder, which stays in evaluation mode."""
        super().train(mode)
        if self.frozen_body:
            self.encoder.eval()
        return self

    @property
    def extended(self) -> bool:
        """Whether the model has more than the sentence head."""
        return self.use_words or self.use_meaning

    def head_modules(self) -> torch.nn.ModuleList:
        """The layers trained from scratch (they get the head's learning rate)."""
        return torch.nn.ModuleList(
            [
                m
                for m in (
                    self.head,
                    getattr(self, "word", None),
                    getattr(self, "adequacy", None),
                    getattr(self, "meaning", None),
                )
                if m is not None
            ]
        )

    def reset_head(self, seed: int, sentence: bool = True) -> None:
        """Initialise the new layers from ``seed``: small normal weights, zero bias, and a
        zero ``adequacy`` layer (training starts from the base score alone). ``sentence=False``
        keeps the sentence head (a fitted one that the other heads learn beside)."""
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            new = [*(self.head.modules() if sentence else ()), getattr(self, "word", None)]
            if self.use_meaning:
                new += list(self.meaning.modules())
            for layer in new:
                if isinstance(layer, torch.nn.Linear):
                    layer.weight.copy_(torch.randn(layer.weight.shape, generator=g) * 0.02)
                    layer.bias.zero_()
            if self.use_words:
                self.adequacy.weight.zero_()
                self.adequacy.bias.zero_()

    def _feature_inputs(
        self, h: torch.Tensor, side: torch.Tensor, evidence: torch.Tensor | None
    ) -> tuple[list[torch.Tensor], torch.Tensor | None]:
        """The ``adequacy`` layer's inputs (the word head's two summaries) and the word logits
        (``None`` without a word head)."""
        inputs, word_logits = [], None
        if self.use_words:
            x = h
            if self.use_evidence:
                if evidence is None:
                    raise ValueError("this cross-encoder needs the word evidence flags")
                bits = [(evidence >> k) & 1 for k in range(len(EVIDENCE))]
                x = torch.cat([x, torch.stack(bits, -1).float()], -1)
            word_logits = self.word(self.dropout(x))
            bad = (1 - torch.softmax(word_logits.detach(), -1)[..., 0]) * (
                side == TRANSLATION
            ).float()
            inputs.append(torch.stack([torch.log1p(bad.sum(1)), bad.amax(1)], -1))
        return inputs, word_logits

    def forward(
        self,
        ids: torch.Tensor,
        mask: torch.Tensor,
        side: torch.Tensor | None = None,
        evidence: torch.Tensor | None = None,
        parts: bool = False,
    ):
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.frozen_body):
            hidden = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        # pooling, features and heads in float32 whatever the encoder ran in
        with torch.autocast(hidden.device.type, enabled=False):
            m = mask.unsqueeze(-1).float()
            h = hidden.float()
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1)
            base = self.head(self.dropout(pooled)).squeeze(-1)
            if not self.extended:
                return base
            inputs: list[torch.Tensor] = []
            word_logits = None
            if self.use_words:
                if side is None:
                    raise ValueError("this cross-encoder needs the side of each piece")
                inputs, word_logits = self._feature_inputs(h, side, evidence)
            adequacy = (
                self.adequacy(torch.cat(inputs, -1)).squeeze(-1)
                if inputs
                else torch.zeros_like(base)
            )
            meaning = torch.zeros_like(base)
            if self.use_meaning:
                meaning = self.meaning(self.dropout(pooled)).squeeze(-1)
                adequacy = adequacy + self.meaning_blend * meaning
            score = base + adequacy
            if not parts:
                return score, word_logits
            return score, word_logits, torch.stack([base, adequacy, meaning], -1)
