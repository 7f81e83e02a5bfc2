"""Shared fixtures: tiny random encoders built here, the offline packs and the shipped estimator
(loaded once per session, however a test asks for them), the demo data, the command line run
in this process."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

# Tests never touch the network: no hub, no online translator.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
# Intel MKL (PyTorch's float32 matrix products on x86) in its reproducible mode, before its
# first call, for this process and every process it starts (the command line, Ray's workers):
# without it, MKL may choose its code path by the data's alignment and its threads at run
# time, and in this long-lived process two runs of one corpus twice gave estimates 1e-5
# apart (docs/development.md, "Known divergences"); the tests assert results to the last bit
os.environ.setdefault("MKL_CBWR", "AUTO,STRICT")
os.environ.setdefault("MKL_DYNAMIC", "FALSE")

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo"
PAPER_SENTENCE = "Вдруг что-то выпало оттуда — большой, неровно сложенный кусок коричневой бумаги."


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory):
    """One cache for the whole run, away from the user's own (packs convert once per run)."""
    if "XLSCORE_TEST_CACHE" in os.environ:  # reuse between local runs
        os.environ["XLSCORE_CACHE"] = os.environ["XLSCORE_TEST_CACHE"]
    else:
        os.environ["XLSCORE_CACHE"] = str(tmp_path_factory.mktemp("xlscore-cache"))
    return


def _save_tiny(
    folder: Path,
    tokenizer_object,
    special: dict,
    *,
    layers: int,
    max_pos: int,
    seed: int,
    vocab_size: int,
) -> Path:
    import torch
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer_object, model_max_length=max_pos, **special
    )
    config = BertConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=layers,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=max_pos,
        pad_token_id=0,
    )
    torch.manual_seed(seed)
    BertModel(config).eval().save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


WORDPIECE_VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "неров",
    "##но",
    "сложен",
    "##ный",
    "кусок",
    "бумаги",
    ",",
    ".",
    "-",
    "—",
    "что",
    "то",
    "the",
    "cat",
    "##s",
    "sat",
    "on",
    "mat",
    "a",
    "b",
    "c",
    "d",
    "e",
    "x",
    "##x",
    "1",
    "2",
]


def make_wordpiece_bert(folder: Path, *, layers: int = 3, max_pos: int = 64, seed: int = 0) -> Path:
    """A random 3-layer BERT with a small cased WordPiece vocabulary."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {w: i for i, w in enumerate(WORDPIECE_VOCAB)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    special = {
        "unk_token": "[UNK]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "mask_token": "[MASK]",
    }
    return _save_tiny(
        folder, tok, special, layers=layers, max_pos=max_pos, seed=seed, vocab_size=len(vocab)
    )


UNIGRAM_PIECES = [
    "<s>",
    "<pad>",
    "</s>",
    "<unk>",
    "\u2581",
    "\u2581неров",
    "но",
    "\u2581сложен",
    "ный",
    "\u2581кусок",
    ",",
    ".",
    "о,",
    "\u2581что",
    "-",
    "то",
    "\u2581the",
    "\u2581cat",
    "s",
    "\u2581a",
    "\u2581b",
    "\u2581x",
    "x",
    "\u2581с",
    "л",
    "о",
    "в",
]


def make_unigram_bert(folder: Path, *, layers: int = 2, max_pos: int = 64, seed: int = 1) -> Path:
    """A random BERT with an XLM-R-style SentencePiece (Unigram, ``▁``) tokenizer. Its vocabulary
    has a piece ``о,`` that straddles a word and a comma."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    vocab = [
        (p, -float(len(UNIGRAM_PIECES) - i) / 10 if i > 3 else 0.0)
        for i, p in enumerate(UNIGRAM_PIECES)
    ]
    vocab = [(p, -1.0 if p == "о," else s) for p, s in vocab]
    tok = Tokenizer(models.Unigram(vocab, unk_id=3, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    special = {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "cls_token": "<s>",
        "sep_token": "</s>",
    }
    return _save_tiny(
        folder, tok, special, layers=layers, max_pos=max_pos, seed=seed, vocab_size=len(vocab)
    )


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
    return XLScorer.offline(
        en_model=Encoder.load(wordpiece_dir),
        ru_model=Encoder.load(unigram_dir),
        lexicon=lex,
        alignment=ProcrustesAligner.identity(32),
        estimator=None,
    )


# ---------------------------------------------------------------- the real models, loaded once
#: the packs' encoders and the shipped estimators loaded in this run, by how they were asked for
_MODELS: dict = {}
#: each shared model's :func:`model_digest` when it loaded
_DIGESTS: dict = {}


def _device_key(device) -> str | None:
    return None if device is None else str(device)


def shared_encoder(spec: str, layer=None, device=None, *, dtype: str = "auto", prefix=None):
    """``Encoder.load(spec, ...)`` of a pack, loaded once per test session: every test that
    asks for the same pack with the same settings gets the same object (encoders are not
    changed by scoring). Another layer is a view of the loaded model (``with_layer``, what
    ``Encoder.load(spec, layer)`` gives too); dtypes are told apart by what they mean
    here (``auto`` is ``fp32`` or ``bf16``, as the encoder itself records)."""
    from xlscore.encoders.arithmetic import resolve
    from xlscore.encoders.models import resolve_device

    dev = resolve_device(device)
    key = ("encoder", spec, str(dev), resolve(dtype, dev), prefix)
    if key not in _MODELS:
        _MODELS[key] = _REAL_LOADS["encoder"](spec, None, device, dtype=dtype, prefix=prefix)
        _DIGESTS[key] = model_digest(_MODELS[key])
    enc = _MODELS[key]
    return enc if layer is None else enc.with_layer(layer)


def shared_estimator(spec: str = "default", *, device=None, dtype: str = "auto"):
    """``QualityEstimator.load(spec, ...)`` of a shipped estimator, loaded once per session."""
    key = ("estimator", spec, _device_key(device), dtype)
    if key not in _MODELS:
        _MODELS[key] = _REAL_LOADS["estimator"](spec, device=device, dtype=dtype)
        _DIGESTS[key] = model_digest(_MODELS[key])
    return _MODELS[key]


def own_estimator(spec: str = "default", **options):
    """A new ``QualityEstimator.load(spec, ...)``, not the session's: for a test that changes
    or saves an estimator (saving renames it), which must never touch the shared one."""
    return _REAL_LOADS["estimator"](spec, **options)


def _tensor_state(t) -> tuple:
    """A tensor's storage and its in-place version counter (torch raises it on every in-place
    change): cheap to read, and it moves whenever a test writes into the tensor."""
    return (t.data_ptr(), t._version, tuple(t.shape), str(t.dtype))


def _value_state(v) -> object:
    """What a test could change of one attribute of a shared model: a tensor's or module's
    tensors by :func:`_tensor_state`, a container's items, anything else by identity (an
    attribute set to another object) and, for plain values, by value."""
    import torch

    if isinstance(v, torch.Tensor):
        return _tensor_state(v)
    if isinstance(v, torch.nn.Module):
        return tuple((k, _tensor_state(t)) for k, t in v.state_dict(keep_vars=True).items())
    if isinstance(v, dict):
        return (id(v), tuple((k, _value_state(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return (id(v), tuple(_value_state(x) for x in v))
    if isinstance(v, (str, int, float, bool, type(None))):
        return v
    return id(v)


def model_state(model) -> dict:
    """Every attribute of a shared model as :func:`_value_state` reads it (a function
    wrapped in the model's own dictionary shows as that object)."""
    return {k: _value_state(v) for k, v in sorted(vars(model).items())}


def model_digest(model) -> str:
    """SHA-256 over every tensor's bytes (by name) of a shared model, and its plain
    attributes: what its scores depend on, read in full (slow: once per run)."""
    import hashlib

    import torch

    h = hashlib.sha256()
    for k, v in sorted(vars(model).items()):
        h.update(k.encode())
        tensors = (
            v.state_dict().items()
            if isinstance(v, torch.nn.Module)
            else [(k, v)]
            if isinstance(v, torch.Tensor)
            else ()
        )
        for name, t in tensors:
            h.update(name.encode())
            h.update(t.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes())
        if not tensors:
            h.update(repr(_value_state(v)).encode())
    return h.hexdigest()


def _real_loads() -> dict:
    from xlscore import Encoder
    from xlscore.estimator.model import QualityEstimator

    return {"encoder": Encoder.load, "estimator": QualityEstimator.load}


_REAL_LOADS = _real_loads()


@contextlib.contextmanager
def shared_models():
    """Within: ``Encoder.load`` of a pack (``pack:NAME``) and ``QualityEstimator.load`` of a
    shipped estimator return the session's objects (:func:`shared_encoder`,
    :func:`shared_estimator`), however deep in the library they are called (``XLScorer``,
    the command line); any other model (a folder, a trained file) loads as usual."""
    from xlscore import Encoder
    from xlscore.estimator.model import QualityEstimator

    real_encoder, real_estimator = Encoder.__dict__["load"], QualityEstimator.__dict__["load"]

    def encoder_load(cls, spec, layer=None, device=None, **options):
        if (
            cls is Encoder
            and isinstance(spec, str)
            and spec.startswith("pack:")
            and set(options) <= {"dtype", "prefix"}
        ):
            return shared_encoder(spec, layer, device, **options)
        return real_encoder.__func__(cls, spec, layer, device, **options)

    def estimator_load(cls, spec="default", **options):
        if (
            cls is QualityEstimator
            and isinstance(spec, str)
            and not spec.endswith(".safetensors")
            and set(options) <= {"device", "dtype"}
        ):
            return shared_estimator(spec, **options)
        return real_estimator.__func__(cls, spec, **options)

    Encoder.load = classmethod(encoder_load)
    QualityEstimator.load = classmethod(estimator_load)
    try:
        yield
    finally:
        Encoder.load, QualityEstimator.load = real_encoder, real_estimator


@pytest.fixture(scope="session", autouse=True)
def _models_once(_session_cache):
    """Every test shares the packs' encoders and the shipped estimators (:func:`shared_models`),
    whether it asks for them through a fixture, ``XLScorer.offline()``, the command line in
    this process, or ``Encoder.load``. At the end of the run, each shared model's full digest
    (:func:`model_digest`) must be the one it had when it loaded: no test changed it."""
    with shared_models():
        yield
    changed = [str(key) for key, model in _MODELS.items() if model_digest(model) != _DIGESTS[key]]
    assert not changed, f"tests changed the shared models {changed}"


@pytest.fixture(autouse=True)
def _shared_models_unchanged(request):
    """A test that changes a shared model (sets an attribute, writes into a tensor) fails,
    naming what it changed, instead of handing the change to the tests after it. Read after
    the test's own fixtures (``monkeypatch``) have undone what they did."""
    before = {key: model_state(m) for key, m in _MODELS.items()}
    yield
    for key, state in before.items():
        after = model_state(_MODELS[key])
        moved = sorted(k for k in state.keys() | after.keys() if state.get(k) != after.get(k))
        if moved:
            pytest.fail(
                f"{request.node.nodeid} changed the shared model {key}: {', '.join(moved)} "
                "(change a copy: own_estimator())",
                pytrace=False,
            )


@pytest.fixture(scope="session")
def e5():
    return shared_encoder("pack:e5-small")


@pytest.fixture(scope="session")
def minilm():
    return shared_encoder("pack:minilm-en")


@pytest.fixture(scope="session")
def default_estimator():
    """The shipped estimator (``QualityEstimator.load()``), loaded once."""
    return shared_estimator("default")


def offline_scorer(**kwargs):
    """A new ``XLScorer.offline(**kwargs)`` (its own state: alignment, idf, signature) on the
    session's encoders and estimator."""
    from xlscore import XLScorer

    with shared_models():
        return XLScorer.offline(**kwargs)


# ---------------------------------------------------------------- the command line in-process
#: Python's warning filters in a fresh interpreter (no -W, no dev mode)
_PYTHON_DEFAULT_FILTERS = (
    ("ignore", DeprecationWarning),
    ("ignore", PendingDeprecationWarning),
    ("ignore", ImportWarning),
    ("ignore", ResourceWarning),
)


def run_cli(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``xlscore ARGS`` run in this process through :func:`xlscore.cli.main.main`, the packs and
    the shipped estimator shared with the session (:func:`shared_models`): the exit status
    (``main``'s return value, or argparse's ``SystemExit``), standard output and error as
    the console script would give them. Standard input, the warning filters and display,
    the environment and the global random states (torch, numpy, random) are restored
    afterwards, so that a command run here leaves nothing behind for other tests."""
    import random

    import numpy as np
    import torch

    from xlscore.cli.main import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    saved_stdin, saved_env = sys.stdin, dict(os.environ)
    rng = torch.random.get_rng_state(), random.getstate(), np.random.get_state()
    try:
        with (
            warnings.catch_warnings(),
            shared_models(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            warnings.resetwarnings()
            for action, category in _PYTHON_DEFAULT_FILTERS:
                warnings.filterwarnings(action, category=category)
            sys.stdin = io.TextIOWrapper(
                io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8"
            )
            try:
                code = main(argv)
            except SystemExit as exit_:  # argparse: usage errors, --help, --version
                code = (
                    exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
                )
                if not isinstance(exit_.code, (int, type(None))):
                    print(exit_.code, file=sys.stderr)
    finally:
        sys.stdin = saved_stdin
        for key in set(os.environ) - set(saved_env):
            del os.environ[key]
        for key, value in saved_env.items():
            if os.environ.get(key) != value:
                os.environ[key] = value
        torch.random.set_rng_state(rng[0])
        random.setstate(rng[1])
        np.random.set_state(rng[2])
    return subprocess.CompletedProcess(["xlscore", *argv], code, out.getvalue(), err.getvalue())


def read_demo() -> list[dict]:
    """Rows of ``data/demo/demo.tsv``."""
    with open(DEMO / "demo.tsv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
