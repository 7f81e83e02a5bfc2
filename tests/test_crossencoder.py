"""The cross-encoder's pieces: pair encoding with sides and offsets, and the heads beside
the sentence head."""

import pytest
import torch

from xlscore.estimator.crossencoder import (
    SOURCE,
    SPECIAL,
    TRANSLATION,
    CrossEncoder,
    encode_pairs,
)


def test_pairs_are_encoded_with_sides_and_translation_offsets(unigram_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(unigram_dir))
    [e] = encode_pairs(tok, "query: ", [("the cat", "кусок, что-то")], None)
    assert len(e.ids) == len(e.side) == len(e.offsets)
    assert e.side[0] == SPECIAL and e.side[-1] == SPECIAL
    assert SOURCE in e.side and TRANSLATION in e.side
    text = "кусок, что-то"
    pieces = [text[a:b] for a, b in e.translation_offsets()]
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")
    # the prefix's pieces are not source pieces; the source's are, with or without a prefix
    [bare] = encode_pairs(tok, "", [("the cat", "кусок, что-то")], None)
    assert e.side.count(SOURCE) == bare.side.count(SOURCE) == 2
    assert e.side.count(SPECIAL) > bare.side.count(SPECIAL)
    [cut] = encode_pairs(tok, "", [("the cat " * 20, "кусок " * 20)], 16)
    assert len(cut) == 16


def test_an_untrained_extended_head_starts_from_the_base_score(unigram_dir):
    from transformers import AutoModel

    enc = AutoModel.from_pretrained(str(unigram_dir))
    plain, ext = CrossEncoder(enc), CrossEncoder(enc, words=True)
    ext.head.load_state_dict(plain.head.state_dict())
    plain.eval(), ext.eval()
    ids = torch.tensor([[0, 5, 6, 2, 2, 9, 10, 2]])
    mask = torch.ones_like(ids)
    side = torch.tensor([[0, 1, 1, 0, 0, 2, 2, 0]])
    score, words, parts = ext(ids, mask, side, parts=True)
    assert torch.allclose(score, plain(ids, mask)) and parts[0, 1] == 0
    assert words.shape == (1, 8, 3)
    with pytest.raises(ValueError, match="side of each piece"):
        ext(ids, mask)


def test_a_meaning_head_alone_needs_no_sides_and_enters_by_its_blend(unigram_dir):
    from transformers import AutoModel

    enc = AutoModel.from_pretrained(str(unigram_dir))
    plain, ext = CrossEncoder(enc, head_hidden=4), CrossEncoder(enc, head_hidden=4, meaning=True)
    ext.head.load_state_dict(plain.head.state_dict())
    plain.eval(), ext.eval()
    assert ext.extended and not hasattr(ext, "adequacy")
    assert any(m is ext.meaning for m in ext.head_modules())
    ids = torch.tensor([[0, 5, 6, 2, 2, 9, 10, 2], [0, 7, 2, 2, 11, 2, 1, 1]])
    mask = torch.tensor([[1] * 8, [1] * 6 + [0] * 2])
    score, words, parts = ext(ids, mask, parts=True)
    assert words is None and torch.allclose(score, plain(ids, mask))
    assert (parts[:, 1] == 0).all() and (parts[:, 2] != 0).all()
    ext.meaning_blend = 3.0
    blended, _, again = ext(ids, mask, parts=True)
    assert torch.allclose(blended, score + 3.0 * parts[:, 2])
    assert torch.allclose(again[:, 1], 3.0 * parts[:, 2]) and torch.allclose(
        again[:, 2], parts[:, 2]
    )


@pytest.mark.parametrize("which", ["unigram", "e5"])
def test_the_rust_tokenizer_called_directly_gives_the_wrappers_pieces(which, unigram_dir):
    """``tokenized`` skips transformers' per-text conversion only when that changes nothing:
    the same ids, sides and offsets as the wrapper, for pairs and single texts, and a
    tokenizer set to cut or pad goes through the wrapper."""
    from transformers import AutoTokenizer

    from xlscore import packs
    from xlscore.encoders.models import tokenized

    folder = unigram_dir if which == "unigram" else packs.path("e5-small")
    tok = AutoTokenizer.from_pretrained(str(folder))
    first = ["query: the cat", "query: Mr. O'Neill's 3,5 km", "query: " + "long " * 300, "query: "]
    second = ["кусок, что-то", "г-н О'Нил — 3,5 км", "ёж " * 400, ""]
    enc = tok(first, second, return_offsets_mapping=True, truncation=False)
    wrapped = [
        (ids, enc.sequence_ids(i), enc["offset_mapping"][i])
        for i, ids in enumerate(enc["input_ids"])
    ]
    assert tokenized(tok, first, second) == wrapped
    single = tok(second, add_special_tokens=False, return_offsets_mapping=True)
    assert [(ids, offs) for ids, _, offs in tokenized(tok, second, special=False)] == list(
        zip(single["input_ids"], single["offset_mapping"])
    )
    tok.backend_tokenizer.enable_truncation(8)  # a tokenizer that cuts: the wrapper, uncut
    assert tokenized(tok, first, second) == wrapped
