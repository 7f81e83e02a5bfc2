"""Encoder mechanics on tiny random BERTs built in the tests."""

import itertools
import warnings

import pytest
import torch
from conftest import make_wordpiece_bert

from xlscore import Encoder, ModelError
from xlscore.errors import LongInputWarning
from xlscore.text.words import normalize_text, split_words


def direct_hidden(enc: Encoder, text: str, layer: int) -> tuple[list[str], torch.Tensor]:
    """Tokens and hidden states of the whole, untruncated model (the reference)."""
    batch = enc.tokenizer([enc.prefix + text], return_tensors="pt")
    with torch.inference_mode():
        out = enc.model(**batch, output_hidden_states=True)
    return batch.tokens(), out.hidden_states[layer][0]


def test_wordpiece_pieces_merge_into_whole_words(wordpiece_dir):
    enc = Encoder.load(wordpiece_dir, layer=2, dtype="fp32")
    [wv] = enc.embed_words(["неровно сложенный кусок"])
    assert wv.words == ["неровно", "сложенный", "кусок"]
    tokens, hidden = direct_hidden(enc, "неровно сложенный кусок", 2)
    assert tokens == ["[CLS]", "неров", "##но", "сложен", "##ный", "кусок", "[SEP]"]
    expected = torch.stack([hidden[1:3].mean(0), hidden[3:5].mean(0), hidden[5]])
    assert torch.allclose(wv.vectors, expected, atol=1e-6)


def test_sentencepiece_gives_the_same_words_as_wordpiece(wordpiece_dir, unigram_dir):
    text = "что-то неровно сложенный кусок, the cats"
    wp = Encoder.load(wordpiece_dir).embed_words([text])[0]
    sp = Encoder.load(unigram_dir).embed_words([text])[0]
    expected = [w.text for w in split_words(text)]
    assert wp.words == sp.words == expected


def test_piece_straddling_two_words_goes_to_both(unigram_dir):
    enc = Encoder.load(unigram_dir, layer=1, dtype="fp32")
    text = "сло, x"
    tokens, hidden = direct_hidden(enc, text, 1)
    # the tokenizer's vocabulary makes "о," one piece across the word "сло" and the comma
    assert "о," in tokens
    [wv] = enc.embed_words([text])
    assert wv.words == ["сло", ",", "x"]
    i = tokens.index("о,")
    assert torch.allclose(wv.vectors[1], hidden[i], atol=1e-6)  # comma = that piece
    word_pieces = [j for j, t in enumerate(tokens) if t in ("\u2581с", "л", "о,")]
    assert torch.allclose(wv.vectors[0], hidden[word_pieces].mean(0), atol=1e-6)


def test_layer_numbering(wordpiece_dir):
    enc = Encoder.load(wordpiece_dir, dtype="fp32")
    assert enc.n_layers == 3 and enc.layer == 2  # default: three quarters of 3
    text = "the cat sat on the mat"
    for layer, resolved in [(0, 0), (1, 1), (3, 3), (-1, 3), (-4, 0)]:
        view = enc.with_layer(layer)
        assert view.layer == resolved
        _, hidden = direct_hidden(enc, text, resolved)
        [wv] = view.embed_words([text])
        assert torch.allclose(wv.vectors[0], hidden[1], atol=1e-6)
    for bad in (4, -5, 1.5):
        with pytest.raises(ModelError, match="layer"):
            enc.with_layer(bad)


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_order_company_duplicates_and_threads_do_not_change_vectors(unigram_dir, dtype):
    """Bit-identical vectors whatever else is embedded, in whatever order, on 1 or 2 threads:
    each pass has a shape fixed by the sentence's own length."""
    enc = Encoder.load(unigram_dir, dtype=dtype)
    assert enc.dtype == dtype
    sents = [
        "сло, x",
        "the cats",
        "неровно сложенный кусок, a b",
        "x",
        "a",
        "the cats",
        "что-то",
        "кусок " * 9,
    ]
    ref = enc.embed_words(sents)
    filler = [f"кусок {i} a" for i in range(70)]  # fills passes of the short widths
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        crowded = enc.embed_words(filler + sents[::-1])[len(filler) :][::-1]
    finally:
        torch.set_num_threads(threads)
    alone = [enc.embed_words([s])[0] for s in sents]
    for a, b, c in zip(ref, crowded, alone):
        assert a.words == b.words == c.words
        assert torch.equal(a.vectors, b.vectors) and torch.equal(a.vectors, c.vectors)
    assert torch.equal(ref[1].vectors, ref[5].vectors)


def test_bfloat16_stays_close_to_fp32(unigram_dir):
    sents = ["неровно сложенный кусок, a b", "the cats", "что-то"]
    exact = Encoder.load(unigram_dir, dtype="fp32").embed_words(sents)
    enc = Encoder.load(unigram_dir, dtype="bf16")
    assert enc.describe()["dtype"] == "bf16"
    for a, b in zip(exact, enc.embed_words(sents)):
        cos = torch.nn.functional.cosine_similarity(a.vectors, b.vectors)
        assert (1 - cos).max() < 0.1
    assert Encoder.load(unigram_dir, dtype="auto").dtype in ("fp32", "bf16")


def test_unknown_or_impossible_dtype_is_refused(unigram_dir):
    with pytest.raises(ModelError, match="unknown dtype 'int4'"):
        Encoder.load(unigram_dir, dtype="int4")


def test_empty_and_invisible_sentences_give_no_words(wordpiece_dir):
    enc = Encoder.load(wordpiece_dir)
    out = enc.embed_words(["", "  \u200b ", "x"])
    assert [len(w) for w in out] == [0, 0, 1]
    assert out[0].vectors.shape == (0, enc.dim)


def test_text_is_normalised_before_embedding(wordpiece_dir):
    enc = Encoder.load(wordpiece_dir)
    a, b = enc.embed_words(["the\u200b cat\t\tsat", "the cat sat"])
    assert a.text == b.text == "the cat sat"
    assert torch.equal(a.vectors, b.vectors)


def test_long_sentence_is_windowed_with_a_warning(tmp_path):
    folder = make_wordpiece_bert(tmp_path / "short", max_pos=16)
    enc = Encoder.load(folder, layer=1)
    words = ("a b c d e x " * 8).split()  # 48 words, 48 pieces; room for 14 per window
    text = " ".join(words)
    with pytest.warns(LongInputWarning, match="overlapping windows"):
        [wv] = enc.embed_words([text])
    assert wv.words == words and wv.windows > 1
    assert torch.isfinite(wv.vectors).all()
    # a word in the middle of a window equals what the model computes for that window alone
    s, e = enc._owned([(0, 14), (11, 25)], 0)
    assert (s, e) == (0, 13)
    assert enc._owned([(0, 14), (11, 25)], 1) == (13, 25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        [first] = enc.embed_words([" ".join(words[:14])])
    assert torch.allclose(first.vectors[5], wv.vectors[5], atol=1e-5)


def test_windows_cover_every_piece_once():
    for windows in ([(0, 10)], [(0, 10), (7, 17)], [(0, 10), (7, 17), (8, 18)]):
        owned = [Encoder._owned(windows, k) for k in range(len(windows))]
        assert owned[0][0] == 0 and owned[-1][1] == windows[-1][1]
        for (s1, e1), (s2, _e2) in itertools.pairwise(owned):
            assert e1 == s2 and s1 <= e1
        for k, (s, e) in enumerate(owned):
            assert windows[k][0] <= s <= e <= windows[k][1]


def test_prefix_pieces_are_not_words(wordpiece_dir):
    enc = Encoder.load(wordpiece_dir, prefix="x ", dtype="fp32")
    [wv] = enc.embed_words(["the cat"])
    assert wv.words == ["the", "cat"]
    tokens, hidden = direct_hidden(enc, "the cat", enc.layer)
    assert tokens[:2] == ["[CLS]", "x"]
    assert torch.allclose(wv.vectors[0], hidden[2], atol=1e-6)


def test_unknown_models_fail_with_a_clear_message(tmp_path):
    with pytest.raises(ModelError, match="unknown pack 'pack:nope'; known packs: pack:minilm-en"):
        Encoder.load("pack:nope")
    with pytest.raises(ModelError, match="does not exist"):
        Encoder.load(str(tmp_path / "missing" / "model"))
    with pytest.raises(ModelError, match="cannot load model 'no-such-org/no-such-model'"):
        Encoder.load("no-such-org/no-such-model")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match=r"cannot load model .*empty"):
        Encoder.load(tmp_path / "empty")


def test_single_string_is_refused(wordpiece_dir):
    with pytest.raises(TypeError, match="list of sentences"):
        Encoder.load(wordpiece_dir).embed_words("the cat")


def test_fingerprint_follows_weights_not_path(tmp_path, wordpiece_dir):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(wordpiece_dir, copy)
    other = make_wordpiece_bert(tmp_path / "other", seed=5)
    a, b, c = (Encoder.load(p) for p in (wordpiece_dir, copy, other))
    assert a.fingerprint == b.fingerprint != c.fingerprint


def test_words_keep_their_original_spelling(wordpiece_dir):
    enc = Encoder.load(wordpiece_dir)
    text = normalize_text("Что-то  неровно,\tсложенный")
    [wv] = enc.embed_words([text])
    assert (
        [text[s:e] for s, e in wv.spans]
        == wv.words
        == ["Что", "-", "то", "неровно", ",", "сложенный"]
    )


def test_several_layers_in_one_pass_equal_single_layers(wordpiece_dir):
    enc = Encoder.load(wordpiece_dir)
    sents = ["the cat sat", "неровно сложенный кусок", "the cat sat"]
    many = enc.embed_words_layers(sents, [0, 1, -1])
    assert set(many) == {0, 1, -1}
    for layer in (0, 1, -1):
        single = enc.with_layer(layer).embed_words(sents)
        for a, b in zip(many[layer], single):
            assert a.words == b.words and torch.equal(a.vectors, b.vectors)


def test_sentence_embeddings_mean_every_token(wordpiece_dir):
    enc = Encoder.load(wordpiece_dir, dtype="fp32")
    emb = enc.embed_sentences(["the cat sat", "", "the cat sat"])
    batch = enc.tokenizer(["the cat sat"], return_tensors="pt")
    with torch.inference_mode():
        hidden = enc.model(**batch, output_hidden_states=True).hidden_states[-1][0]
    expected = torch.nn.functional.normalize(hidden.mean(0), dim=0)
    assert torch.allclose(emb[0], expected, atol=1e-6) and torch.equal(emb[0], emb[2])
    assert torch.isfinite(emb[1]).all() and emb.shape == (3, enc.dim)
