"""The cross-encoder's pieces: pair encoding with sides and offsets, and the alignment
features computed from one pass's token states."""

import pytest
import torch

from xlscore.estimator.crossencoder import (
    SOURCE,
    SPECIAL,
    TRANSLATION,
    CrossEncoder,
    alignment_features,
    encode_pairs,
)


def test_alignment_features_are_greedy_matching_statistics():
    # one pair: source pieces are unit vectors e0, e1; translation pieces e0 and (e1+e2)/√2
    h = torch.zeros(1, 6, 3)
    h[0, 1, 0] = 1  # source piece 1
    h[0, 2, 1] = 1  # source piece 2
    h[0, 4, 0] = 1  # translation piece 1: matches exactly
    h[0, 5, 1] = h[0, 5, 2] = 1  # translation piece 2: cos 1/√2 with e1
    side = torch.tensor([[SPECIAL, SOURCE, SOURCE, SPECIAL, TRANSLATION, TRANSLATION]])
    feats, best = alignment_features(h, side)
    c = 2**-0.5
    p, r = (1 + c) / 2, (1 + c) / 2
    assert feats[0].tolist() == pytest.approx([p, r, 2 * p * r / (p + r), c, c], abs=1e-6)
    assert best[0].tolist() == pytest.approx([0, 0, 0, 0, 1, c], abs=1e-6)
    # a changed piece (no counterpart) lowers precision and the worst translation piece
    h2 = h.clone()
    h2[0, 5] = torch.tensor([0.0, 0.0, 1.0])
    worse, _ = alignment_features(h2, side)
    assert worse[0, 0] < feats[0, 0] and worse[0, 3] < feats[0, 3]


def test_alignment_features_of_a_pair_without_a_side_are_zero():
    h = torch.randn(2, 4, 3)
    side = torch.tensor(
        [[SPECIAL, SOURCE, SOURCE, SPECIAL], [SPECIAL, TRANSLATION, SPECIAL, SPECIAL]]
    )
    feats, best = alignment_features(h, side)
    assert torch.equal(feats, torch.zeros(2, 5)) and torch.isfinite(best).all()


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
    plain, ext = CrossEncoder(enc), CrossEncoder(enc, align=True, words=True)
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
    # as a detector the same head's output is log P(no meaning error): log sigmoid, at most 0
    det = CrossEncoder(enc, head_hidden=4, meaning=True, meaning_detect=True)
    det.meaning.load_state_dict(ext.meaning.state_dict())
    det.head.load_state_dict(plain.head.state_dict())
    det.eval()
    _, _, log_clean = det(ids, mask, parts=True)
    assert torch.allclose(log_clean[:, 2], torch.nn.functional.logsigmoid(parts[:, 2]))
    assert (log_clean[:, 2] < 0).all()
