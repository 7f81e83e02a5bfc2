"""Shared fixtures: tiny random encoders built here, the offline packs, the demo data."""
from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

# Tests never touch the network: no hub, no online translator.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo"
PAPER_SENTENCE = ("Вдруг что-то выпало оттуда — большой, неровно сложенный кусок "
                  "коричневой бумаги.")


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory):
    """One cache for the whole run, away from the user's own (packs convert once per run)."""
    if "XLSCORE_TEST_CACHE" in os.environ:   # reuse between local runs
        os.environ["XLSCORE_CACHE"] = os.environ["XLSCORE_TEST_CACHE"]
    else:
        os.environ["XLSCORE_CACHE"] = str(tmp_path_factory.mktemp("xlscore-cache"))
    yield


def _save_tiny(folder: Path, tokenizer_object, special: dict, *, layers: int, max_pos: int,
               seed: int, vocab_size: int) -> Path:
    import torch
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer_object,
                                   model_max_length=max_pos, **special)
    config = BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=layers,
                        num_attention_heads=4, intermediate_size=64,
                        max_position_embeddings=max_pos, pad_token_id=0)
    torch.manual_seed(seed)
    BertModel(config).eval().save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


WORDPIECE_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "неров", "##но", "сложен",
                   "##ный", "кусок", "бумаги", ",", ".", "-", "—", "что", "то", "the", "cat",
                   "##s", "sat", "on", "mat", "a", "b", "c", "d", "e", "x", "##x", "1", "2"]


def make_wordpiece_bert(folder: Path, *, layers: int = 3, max_pos: int = 64,
                        seed: int = 0) -> Path:
    """A random 3-layer BERT with a small cased WordPiece vocabulary."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {w: i for i, w in enumerate(WORDPIECE_VOCAB)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    special = dict(unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
                   mask_token="[MASK]")
    return _save_tiny(folder, tok, special, layers=layers, max_pos=max_pos, seed=seed,
                      vocab_size=len(vocab))


UNIGRAM_PIECES = ["<s>", "<pad>", "</s>", "<unk>", "\u2581", "\u2581неров", "но", "\u2581сложен",
                  "ный", "\u2581кусок", ",", ".", "о,", "\u2581что", "-", "то", "\u2581the",
                  "\u2581cat", "s", "\u2581a", "\u2581b", "\u2581x", "x", "\u2581с", "л", "о", "в"]


def make_unigram_bert(folder: Path, *, layers: int = 2, max_pos: int = 64,
                      seed: int = 1) -> Path:
    """A random BERT with an XLM-R-style SentencePiece (Unigram, ``▁``) tokenizer. Its vocabulary
    has a piece ``о,`` that straddles a word and a comma."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    vocab = [(p, -float(len(UNIGRAM_PIECES) - i) / 10 if i > 3 else 0.0)
             for i, p in enumerate(UNIGRAM_PIECES)]
    vocab = [(p, -1.0 if p == "о," else s) for p, s in vocab]
    tok = Tokenizer(models.Unigram(vocab, unk_id=3, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)])
    special = dict(bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="<pad>",
                   cls_token="<s>", sep_token="</s>")
    return _save_tiny(folder, tok, special, layers=layers, max_pos=max_pos, seed=seed,
                      vocab_size=len(vocab))


@pytest.fixture(scope="session")
def wordpiece_dir(tmp_path_factory) -> Path:
    return make_wordpiece_bert(tmp_path_factory.mktemp("tiny-wordpiece"))


@pytest.fixture(scope="session")
def unigram_dir(tmp_path_factory) -> Path:
    return make_unigram_bert(tmp_path_factory.mktemp("tiny-unigram"))


SMALL_LEXICON = "кусок\tpiece\nсложенный\tfolded\nнеровно\tunevenly\nчто\twhat\nбумага\tpaper\n"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, wordpiece_dir, unigram_dir):
    """Two tiny random encoders (English WordPiece, Russian Unigram), a five-word lexicon and
    the identity map: fast, for the mechanics (one per test module, as tests may fit it)."""
    from xlscore import Encoder, ProcrustesAligner, XLScorer

    lex = tmp_path_factory.mktemp("lex") / "lex.tsv"
    lex.write_text(SMALL_LEXICON, encoding="utf-8")
    return XLScorer(en_model=Encoder.load(wordpiece_dir), ru_model=Encoder.load(unigram_dir),
                    lexicon=lex, alignment=ProcrustesAligner.identity(32), estimator=None)


@pytest.fixture(scope="session")
def e5():
    from xlscore import Encoder

    return Encoder.load("pack:e5-small")


@pytest.fixture(scope="session")
def minilm():
    from xlscore import Encoder

    return Encoder.load("pack:minilm-en")


def read_demo() -> list[dict]:
    """Rows of ``data/demo/demo.tsv``."""
    with open(DEMO / "demo.tsv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
