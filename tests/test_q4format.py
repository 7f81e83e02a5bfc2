import struct

import numpy as np
import pytest

from xlscore.encoders import q4format


def test_dequantize_one_block():
    d = np.float16(0.5)
    nibbles = bytes((j % 16) | (((15 - j) % 16) << 4) for j in range(16))
    raw = d.tobytes() + nibbles
    assert len(raw) == 18
    w = q4format.dequantize_q4_0(raw, 32)
    assert np.allclose(w[:16], (np.arange(16) - 8) * 0.5)
    assert np.allclose(w[16:], (15 - np.arange(16) - 8) * 0.5)


def test_dequantize_rejects_partial_blocks():
    with pytest.raises(q4format.FormatError):
        q4format.dequantize_q4_0(b"\0" * 18, 31)


def test_read_rejects_bad_magic_and_truncation(tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"GGUF" + b"\0" * 100)
    with pytest.raises(q4format.FormatError, match="bad magic"):
        q4format.read(bad)
    short = tmp_path / "short.bin"
    short.write_bytes(b"E5S1" + struct.pack("<I7i", 1, 384, 12, 12, 1536, 10, 512, 2))
    with pytest.raises(q4format.FormatError, match="truncated"):
        q4format.read(short)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_real_file_header_and_tokenizer():
    from xlscore import packs

    m = q4format.read(packs.e5_source_file())
    assert (m.hidden, m.layers, m.heads, m.intermediate) == (384, 12, 12, 1536)
    assert len(m.pieces) == 250002 and m.pieces[250001] == "<mask>"
    assert (m.bos, m.pad, m.eos, m.unk) == (0, 1, 2, 3)
    sd = q4format.bert_state_dict(m)
    assert sd["embeddings.word_embeddings.weight"].shape == (m.vocab, 384)
    assert sd["encoder.layer.11.intermediate.dense.weight"].shape == (1536, 384)
    assert np.isfinite(sd["encoder.layer.0.attention.self.query.weight"]).all()
