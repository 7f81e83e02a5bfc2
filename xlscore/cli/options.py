"""Options shared by the commands: value types for ``argparse``, the model, input and
output options, presets, and the scorer built from them."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from xlscore.encoders.dtypes import DTYPES
from xlscore.errors import XLScoreError
from xlscore.estimator.recipe import Recipe
from xlscore.lexicon.translators import TRANSLATORS
from xlscore.scoring.presets import PRESETS


def at_least(minimum: int | float, kind: type = int) -> Callable[[str], int | float]:
    """A parser of ``kind`` (``int`` or ``float``) values no smaller than ``minimum``."""
    what = "an integer" if kind is int else "a number"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if value < minimum:
            raise argparse.ArgumentTypeError(
                "must not be negative" if minimum == 0 else f"must be at least {minimum}"
            )
        return value

    return parse


def yes_no(text: str) -> bool:
    """``yes``/``no`` (also ``true``/``false``, ``on``/``off``, ``1``/``0``) as a bool."""
    value = text.strip().lower()
    if value in ("yes", "true", "on", "1"):
        return True
    if value in ("no", "false", "off", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not yes or no")


def train_recipe(args: argparse.Namespace) -> Recipe:
    """``xlscore train``'s recipe: each setting given on the command line, the others the
    shipped estimator's (read from its file here, when training starts, not by the parser)."""
    from dataclasses import fields, replace

    from xlscore.estimator.model import shipped_recipe

    given = {f.name: v for f in fields(Recipe) if (v := getattr(args, f.name)) is not None}
    return replace(shipped_recipe(), **given)


def recipe_type(default: object) -> Callable[[str], object]:
    """The parser of a recipe field with this default value (bools take yes/no)."""
    return yes_no if isinstance(default, bool) else type(default)


def add_fields_option(p: argparse.ArgumentParser, default: str) -> None:
    """``--fields``: the parts of each result to compute (:mod:`xlscore.fields`)."""
    from xlscore.fields import FIELDS

    p.add_argument(
        "--fields",
        default=default,
        metavar="LIST",
        help="what to compute besides the score, comma-separated: "
        + ", ".join(f for f in FIELDS if f != "score")
        + f" (the paper's F1/P/R and anchors; costs the English encoder, the "
        f"map and BERTScore), or all (default: {default}); the score is the "
        f"same either way",
    )


EXIT_USAGE = 2


# ---------------------------------------------------------------------- options
def add_model_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model and method")
    g.add_argument(
        "--preset",
        choices=list(PRESETS),
        default="offline",
        help="offline: the trained estimator's score, with pack:minilm-en + "
        "pack:e5-small for F1 and anchors (default); paper: the paper's "
        "method exactly, bert-base-cased + DeepPavlov/rubert-base-cased + "
        "Google word translation (needs the network); multilingual: the "
        "paper's method with pack:e5-small alone",
    )
    g.add_argument(
        "--estimator",
        metavar="NAME|PATH|none",
        help="quality estimator whose prediction is the score: 'default' (the "
        "shipped one; the offline preset's), a .safetensors file from "
        "`xlscore train`, or 'none' for the paper's F1",
    )
    g.add_argument(
        "--dtype",
        "--precision",  # its former name, kept so that old command lines still run
        choices=list(DTYPES),
        default="auto",
        help="arithmetic: auto (what the ship gate passed and is fastest here: "
        "bfloat16 on GPUs and CPUs with AMX, else float32; default), fp32 (exact), "
        "bf16, fp16 (GPU); int8 is refused (it failed the ship gate)",
    )
    g.add_argument("--en-model", help="English encoder: pack:NAME, a local folder or a hub name")
    g.add_argument("--ru-model", help="Russian encoder: pack:NAME, a local folder or a hub name")
    g.add_argument(
        "--multilingual", metavar="MODEL", help="one encoder for both sides (no alignment)"
    )
    g.add_argument(
        "--layer",
        help="hidden layer: N for both encoders or EN,RU (default: each pack's documented layer)",
    )
    g.add_argument(
        "--variant",
        choices=["anchors", "all"],
        default="anchors",
        help="BERTScore over anchor words only (default) or over all words",
    )
    g.add_argument(
        "--consensus",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with three or more engines, blend each translation's agreement with the "
        "other engines' translations of its source (chrF) into its score, at the weight "
        "the estimator's file gives (default: on; off in the paper and multilingual "
        "presets, the paper's method as published); --no-consensus: every score is the "
        "translation's own",
    )
    g.add_argument("--idf", action="store_true", help="weight words by idf from the input")
    g.add_argument(
        "--rescale",
        action="store_true",
        help="baseline rescaling (baseline from mismatched pairs of the input)",
    )
    g.add_argument(
        "--translator",
        choices=list(TRANSLATORS),
        help="anchor words: the offline dictionary (default where Müller's "
        "dictionary is installed), alignment (words aligned in e5's space: "
        "the default without it) or Google (online)",
    )
    g.add_argument(
        "--lexicon",
        metavar="mueller7|english-words|PATH",
        help="Müller's dictionary (default where installed), english-words (no "
        "dictionary) or a ru<TAB>en word list",
    )
    g.add_argument(
        "--alignment",
        metavar="corpus|dictionary|PATH",
        help="corpus: the dictionary map refined on the input's anchors (default); "
        "dictionary: the dictionary map alone; PATH: a map saved by `xlscore fit`",
    )
    g.add_argument("--device", help="cpu, cuda, cuda:1 ... (default: CUDA when present)")


def add_io_options(p: argparse.ArgumentParser, *, several: bool = True) -> None:
    p.add_argument(
        "-s",
        "--src",
        required=True,
        help="English sources: text file, one segment per line (- for stdin), or a "
        "TSV/JSONL file with --src-col",
    )
    p.add_argument(
        "-t",
        "--mt",
        action="append",
        help="Russian translations, line-parallel to the sources"
        + (" (repeat for several engines)" if several else "")
        + "; without -t, --mt-col reads them from the -s file",
    )
    p.add_argument("--src-col", help="column (TSV header) or field (JSONL) holding the sources")
    p.add_argument("--mt-col", help="column or field holding the translations")
    p.add_argument(
        "--allow-empty",
        action="store_true",
        help="score empty segments instead of refusing them: an empty translation (or source) "
        "gets the floor, the lowest score (-4 with the default estimator), flagged 'empty'; "
        "the summaries say how much they lower each engine's mean",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def settle_translations(args: argparse.Namespace) -> str | None:
    """Where a command's translations come from when no ``-t`` is given: the ``-s`` file's
    ``--mt-col`` column (``args.mt`` set to it). Returns the problem to report when neither
    says where they are, else ``None``."""
    if not hasattr(args, "mt") or args.mt:
        return None
    if getattr(args, "mt_col", None):
        args.mt = [args.src]
        return None
    return "the translations are missing: give -t FILE (or --mt-col COLUMN of the -s file)"


def model_files(args: argparse.Namespace) -> list[str]:
    """The files the model and method options may name (an estimator, a saved map, a word
    list): inputs that no output may overwrite (names that are no file are left out later)."""
    given = (getattr(args, k, None) for k in ("estimator", "alignment", "lexicon"))
    return [str(v) for v in given if v]


def input_files(args: argparse.Namespace) -> list[str]:
    """Every file a command with the shared input options reads: ``-s``, each ``-t`` and the
    model files (:func:`model_files`)."""
    return [args.src, *args.mt, *model_files(args)]


def parse_layer(value: str | None):
    if value is None:
        return None
    try:
        parts = [int(v) for v in value.split(",")]
    except ValueError:
        raise XLScoreError(f"--layer {value!r}: give an integer or EN,RU integers") from None
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return tuple(parts)
    raise XLScoreError(f"--layer {value!r}: give one layer or two (EN,RU)")


def scorer_options(args: argparse.Namespace) -> dict:
    """The settings by name the command-line options give, for
    :meth:`xlscore.XLScorer.preset` (``preset``: the preset they start from; the others: what
    the options change, which that call applies as it does for Python). They are checked where
    the settings' record is made (:class:`~xlscore.PaperSettings`)."""
    cfg: dict = {"preset": args.preset}
    for key in ("multilingual", "en_model", "ru_model"):
        if getattr(args, key):
            cfg[key] = getattr(args, key)
    if args.translator:
        cfg["translator"] = args.translator
    if args.estimator is not None:
        cfg["estimator"] = None if args.estimator.lower() == "none" else args.estimator
    if args.consensus is not None:
        cfg["consensus"] = args.consensus
    if args.alignment:
        cfg["alignment"] = args.alignment
    return {
        **cfg,
        "layer": parse_layer(args.layer),
        "lexicon": args.lexicon,
        "variant": args.variant,
        "idf": args.idf,
        "rescale": args.rescale,
        "device": args.device,
        "dtype": args.dtype,
        # the commands without --fields (report, evaluate, fit, plot) compute every field
        "fields": getattr(args, "fields", "all"),
    }


def settings_before_loading(args: argparse.Namespace) -> str:
    """The parts of the signature (:func:`xlscore.signature.signature_of`) that the
    options give before any model loads, as the signature writes them (``xlscore:0.1.0|
    fields:score+evidence``, with ``est:no`` and ``cons:no`` when they are off, and the
    paper's ``variant``, ``idf`` and ``rescale`` when its columns are computed): what
    ``--resume`` compares at once. The models' names, fingerprints and dtypes
    need the models."""
    from xlscore._version import __version__
    from xlscore.fields import FIELDS, resolve_fields
    from xlscore.signature import PAPER_ONLY, Signature

    opts = scorer_options(args)
    preset = PRESETS[args.preset]
    estimator = opts.get("estimator", preset.estimator) is not None
    chosen = resolve_fields(opts["fields"], estimator=estimator)
    every = resolve_fields("all", estimator=estimator)
    parts = {
        "xlscore": __version__,
        "variant": args.variant,
        "idf": "yes" if args.idf else "no",
        "fields": "all" if chosen == every else "+".join(f for f in FIELDS if f in chosen),
    }
    if not estimator:
        parts["est"] = "no"
    if not opts.get("consensus", preset.consensus):
        parts["cons"] = "no"
    if not args.rescale:
        parts["rescale"] = "no"
    sig = Signature(tuple(parts.items()))
    if "paper" not in chosen:  # the paper's settings act on nothing: the signature's rule
        sig = sig.without(PAPER_ONLY)
    return sig.format()


def build_scorer(args: argparse.Namespace):
    """An :class:`~xlscore.XLScorer` from the command-line options."""
    from xlscore.scoring.scorer import XLScorer

    return XLScorer.preset(**scorer_options(args))


def load_scorer(args: argparse.Namespace):
    """:func:`build_scorer`, said before and after on the library's status lines (logger
    ``xlscore``, shown unless ``--quiet``): loading takes seconds (more the first time, when a
    pack is converted into the cache)."""
    import logging
    import time

    log = logging.getLogger("xlscore")
    log.info("loading the models...")
    start = time.perf_counter()
    scorer = build_scorer(args)
    log.info("models loaded in %.1f s", time.perf_counter() - start)
    return scorer
