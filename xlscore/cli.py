"""The ``xlscore`` command line: a thin layer over the public API.

Commands: ``score``, ``rank``, ``batch`` (:mod:`xlscore.cli_batch`), ``fit``, ``evaluate``,
``plot alignment``, ``lexicon build|lookup``, ``embed``. Errors a user can cause print one
line (``xlscore: error: ...``) and exit with status 2; warnings print one line each
(``xlscore: warning: ...``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Sequence, TextIO

from . import __version__
from .cli_batch import add_batch_parser
from .cli_report import add_report_parser
from .cliargs import add_fields_option, at_least, recipe_type
from .errors import InputError, XLScoreError
from .precision import PRECISIONS
from .translators import TRANSLATORS
from .writers import WRITERS, resume_state

EXIT_USAGE = 2


PRESETS = {
    "offline": {"en_model": "pack:minilm-en", "ru_model": "pack:e5-small",
                "estimator": "default"},
    "paper": {"en_model": "bert-base-cased", "ru_model": "DeepPavlov/rubert-base-cased",
              "translator": "google", "estimator": None},
    "multilingual": {"multilingual": "pack:e5-small", "estimator": None},
}


# ---------------------------------------------------------------------- options
def _add_model_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model and method")
    g.add_argument("--preset", choices=list(PRESETS), default="offline",
                   help="offline: the trained estimator's score, with pack:minilm-en + "
                        "pack:e5-small for F1 and anchors (default); paper: the paper's "
                        "method exactly, bert-base-cased + DeepPavlov/rubert-base-cased + "
                        "Google word translation (needs the network); multilingual: the "
                        "paper's method with pack:e5-small alone")
    g.add_argument("--estimator", metavar="NAME|PATH|none",
                   help="quality estimator whose prediction is the score: 'default' (the "
                        "shipped one; the offline preset's), a .safetensors file from "
                        "`xlscore train`, or 'none' for the paper's F1")
    g.add_argument("--precision", choices=list(PRECISIONS), default="auto",
                   help="arithmetic of the encoders and the estimator: auto (bfloat16 where "
                        "the hardware computes in it, else float32; default), fp32 (exact), "
                        "bf16, fp16 (GPU), int8 (CPU, dynamic quantization)")
    g.add_argument("--en-model", help="English encoder: pack:NAME, a local folder or a hub name")
    g.add_argument("--ru-model", help="Russian encoder: pack:NAME, a local folder or a hub name")
    g.add_argument("--multilingual", metavar="MODEL",
                   help="one encoder for both sides (no alignment)")
    g.add_argument("--layer", help="hidden layer: N for both encoders or EN,RU (default: each "
                                   "pack's documented layer)")
    g.add_argument("--variant", choices=["anchors", "all"], default="anchors",
                   help="BERTScore over anchor words only (default) or over all words")
    g.add_argument("--consensus", action=argparse.BooleanOptionalAction, default=None,
                   help="with three or more engines and no estimator, blend each "
                        "translation's agreement with the other engines' translations into "
                        "its score (default: off)")
    g.add_argument("--idf", action="store_true", help="weight words by idf from the input")
    g.add_argument("--rescale", action="store_true",
                   help="baseline rescaling (baseline from mismatched pairs of the input)")
    g.add_argument("--translator", choices=list(TRANSLATORS),
                   help="anchor words: the offline dictionary (default where Müller's "
                        "dictionary is installed), alignment (words aligned in e5's space: "
                        "the default without it) or Google (online)")
    g.add_argument("--lexicon", metavar="mueller7|english-words|PATH",
                   help="Müller's dictionary (default where installed), english-words (no "
                        "dictionary) or a ru<TAB>en word list")
    g.add_argument("--alignment", metavar="corpus|dictionary|PATH",
                   help="corpus: the dictionary map refined on the input's anchors (default); "
                        "dictionary: the dictionary map alone; PATH: a map saved by `xlscore fit`")
    g.add_argument("--device", help="cpu, cuda, cuda:1 ... (default: CUDA when present)")


def _add_io_options(p: argparse.ArgumentParser, *, several: bool = True) -> None:
    p.add_argument("-s", "--src", required=True,
                   help="English sources: text file, one segment per line (- for stdin), or a "
                        "TSV/JSONL file with --src-col")
    p.add_argument("-t", "--mt", required=True, action="append",
                   help="Russian translations, line-parallel to the sources"
                        + (" (repeat for several engines)" if several else ""))
    p.add_argument("--src-col", help="column (TSV header) or field (JSONL) holding the sources")
    p.add_argument("--mt-col", help="column or field holding the translations")
    p.add_argument("--allow-empty", action="store_true",
                   help="score empty segments (as 0, flagged 'empty') instead of refusing them")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _layer(value: str | None):
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
    """The :class:`~xlscore.XLScorer` keyword arguments the command-line options give."""
    cfg = dict(PRESETS[args.preset])
    if args.multilingual and (args.en_model or args.ru_model):
        raise XLScoreError("give either --multilingual or --en-model/--ru-model, not both")
    if args.multilingual:
        cfg = {"multilingual": args.multilingual, "estimator": cfg["estimator"]}
    if args.en_model or args.ru_model:
        cfg.pop("multilingual", None)
        cfg.setdefault("en_model", PRESETS["offline"]["en_model"])
        cfg.setdefault("ru_model", PRESETS["offline"]["ru_model"])
        if args.en_model:
            cfg["en_model"] = args.en_model
        if args.ru_model:
            cfg["ru_model"] = args.ru_model
    if args.translator:
        cfg["translator"] = args.translator
    if args.estimator is not None:
        cfg["estimator"] = None if args.estimator.lower() == "none" else args.estimator
    if args.consensus is not None:
        cfg["consensus"] = args.consensus
    if args.alignment:
        if "multilingual" in cfg:
            raise XLScoreError("--alignment does not apply to a single multilingual encoder")
        cfg["alignment"] = args.alignment
    return {**cfg, "layer": _layer(args.layer), "lexicon": args.lexicon,
            "variant": args.variant, "idf": args.idf, "rescale": args.rescale,
            "device": args.device, "precision": args.precision,
            "fields": getattr(args, "fields", None)}


def build_scorer(args: argparse.Namespace):
    """An :class:`~xlscore.XLScorer` from the command-line options."""
    from .scorer import XLScorer

    return XLScorer(**scorer_options(args))


def _read(path: str, column: str | None, allow_empty: bool) -> list[str]:
    from .inputs import read_columns, read_lines

    if column:
        return read_columns(path, [column], allow_empty=allow_empty)[column]
    return read_lines(path, allow_empty=allow_empty)


def read_corpus(args: argparse.Namespace) -> tuple[list[str], dict[str, list[str]]]:
    """Sources and each engine's translations, checked to be line-parallel."""
    from .inputs import check_parallel

    if args.mt.count("-") + (args.src == "-") > 1:
        raise InputError("standard input can be read only once")
    sources = _read(args.src, args.src_col, args.allow_empty)
    if not sources:
        raise InputError("no segments", path=args.src)
    engines: dict[str, list[str]] = {}
    for path in args.mt:
        name = "stdin" if path == "-" else "_".join(Path(path).stem.split()) or "mt"
        base, k = name, 2
        while name in engines:
            name, k = f"{base}#{k}", k + 1
        engines[name] = _read(path, args.mt_col, args.allow_empty)
    check_parallel(args.src, sources, list(zip(args.mt, engines.values())))
    return sources, engines


def _inputs_digest(sources: list[str], engines: dict[str, list[str]]) -> str:
    h = hashlib.sha256()
    for text in sources + [f"\x00{n}" for n in engines] + [t for v in engines.values() for t in v]:
        h.update(text.encode("utf-8") + b"\n")
    return h.hexdigest()[:16]


def _progress(total: int, quiet: bool, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="seg", file=sys.stderr, disable=quiet,
                dynamic_ncols=True)


# ---------------------------------------------------------------------- score
def cmd_score(args: argparse.Namespace) -> int:
    sources, engines = read_corpus(args)
    if args.resume and not args.output:
        raise InputError("--resume needs --output FILE")
    scorer = build_scorer(args)
    names = list(engines)
    # the signature known before scoring (a corpus map's digest comes with the summary), and
    # all else that must match for --resume to continue a file
    head = (f"{scorer.signature()} inputs:{_inputs_digest(sources, engines)} "
            f"format:{args.format} chunk:{args.chunk_size}")
    out_path = Path(args.output) if args.output else None
    start, scores = 0, {e: [] for e in names}
    out: TextIO
    if out_path is not None:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        if args.resume and out_path.exists() and out_path.stat().st_size:
            start, scores = resume_state(out_path, WRITERS[args.format](sys.stdout), head, names)
        if start:
            out = open(out_path, "a", encoding="utf-8")
            print(f"xlscore: resuming after segment {start} of {len(sources)}", file=sys.stderr)
        else:
            out = open(out_path, "w", encoding="utf-8")
    else:
        out = sys.stdout
    writer = WRITERS[args.format](out)
    try:
        if start == 0:
            writer.header(head, names)
            out.flush()
        bar = _progress(len(sources), args.quiet, "scoring")
        bar.update(start)
        for i, by in scorer.iter_score(sources, engines, chunk_size=args.chunk_size,
                                       start=start):
            for name in names:
                writer.row(i + 1, name, by[name])
                scores[name].append(writer.written(by[name].score))
            bar.update(1)
            if i % 100 == 99:
                out.flush()
        bar.close()
        signature = scorer.signature()
        for name in names:
            vals = scores[name]
            writer.summary(name, sum(vals) / len(vals) if vals else float("nan"), len(vals),
                           signature)
        out.flush()
    finally:
        if out is not sys.stdout:
            out.close()
    print(f"xlscore: {signature}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------- rank
def cmd_rank(args: argparse.Namespace) -> int:
    from .compare import compare_engines

    sources, engines = read_corpus(args)
    if len(engines) < 2:
        raise InputError("rank needs at least two translations files (-t A -t B)")
    scorer = build_scorer(args)
    comparison = compare_engines(_score_engines(scorer, sources, engines, args),
                                 n_boot=args.n_boot)
    signature = scorer.signature()
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        if args.format == "json":
            json.dump({**comparison.to_dict(segments=args.segments), "signature": signature},
                      out, ensure_ascii=False, indent=1)
            out.write("\n")
        else:
            _print_ranking(out, comparison, args.segments, len(sources), signature)
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


def _score_engines(scorer, sources: list[str], engines: dict[str, list[str]],
                   args: argparse.Namespace) -> list[dict]:
    """``{engine: ScoreResult}`` of every segment, with a progress bar."""
    results = []
    bar = _progress(len(sources), args.quiet, "scoring")
    for _, by in scorer.iter_score(sources, engines, chunk_size=args.chunk_size):
        results.append(by)
        bar.update(1)
    bar.close()
    return results


def _print_ranking(out: TextIO, comparison, segments: bool, n: int, signature: str) -> None:
    table = comparison.engines
    w = max(len("engine"), *(len(r.engine) for r in table))
    out.write(f"Engines ranked by mean score over {n} segments "
              f"(95% bootstrap interval, {comparison.n_boot} resamples):\n\n")
    out.write(f"  {'#':>2}  {'engine':<{w}}  {'mean score':>10}  {'95% interval':^19}  "
              f"{'wins':>5}  {'mean rank':>9}\n")
    for k, r in enumerate(table, start=1):
        out.write(f"  {k:>2}  {r.engine:<{w}}  {r.mean:>+10.4f}  "
                  f"[{r.low:+.4f}, {r.high:+.4f}]  {r.wins:>5}  {r.mean_rank:>9.2f}\n")
    out.write("\nPaired bootstrap (segments resampled; p: two-sided, no difference):\n\n")
    for p in comparison.pairs:
        mark = "*" if p.significant else " "
        out.write(f"  {p.a:<{w}} vs {p.b:<{w}}  delta {p.delta:+.4f} "
                  f"[{p.low:+.4f}, {p.high:+.4f}]  p = {p.p:.3f} {mark}\n")
    out.write("\n  * significant at 0.05\n")
    if segments:
        out.write("\nPer segment (best first):\n")
        for seg in comparison.segments:
            ranked = ", ".join(f"{e} {seg.scores[e]:+.4f}" for e in seg.ranking)
            out.write(f"  {seg.segment:>5}: {ranked}\n")
    out.write(f"\nsignature: {signature}\n")


# ---------------------------------------------------------------------- fit
def cmd_fit(args: argparse.Namespace) -> int:
    sources, engines = read_corpus(args)
    scorer = build_scorer(args)
    if scorer.multilingual:
        raise XLScoreError("a single multilingual encoder needs no alignment")
    scorer.fit(sources, engines, chunk_size=args.chunk_size, progress=not args.quiet)
    aligner = scorer.fixed_alignment
    path = aligner.save(args.save)
    print(f"saved {path}: {aligner.n_pairs_} anchor pairs from {len(sources)} segments x "
          f"{len(engines)} engine(s), map {aligner.W_.shape[0]}x{aligner.W_.shape[1]}, "
          f"{'reliable' if aligner.reliable else 'NOT reliable (too few pairs)'}, "
          f"digest {aligner.digest}")
    print(f"signature: {scorer.signature()}")
    return 0


# ---------------------------------------------------------------------- evaluate
def cmd_evaluate(args: argparse.Namespace) -> int:
    from .evaluate import LABELS, STATISTICS, agreement, read_judgments

    every = read_judgments(args.data, include_human=True)
    rows = every if args.include_human else [r for r in every if not r.is_human]
    if not rows:
        raise InputError("no judged translations", path=args.data)
    scorer = build_scorer(args)
    if scorer.estimator is not None and scorer.estimator.trained_on(every):
        print(f"xlscore: warning: {scorer.estimator.signature()} was trained on {args.data}; "
              "these figures measure how well it fits its training data, not how it does on "
              "unseen data", file=sys.stderr)
    if not args.quiet:
        print(f"xlscore: scoring {len(rows)} judged translations", file=sys.stderr)
    corpus = scorer.prepare([r.source for r in rows], [r.translation for r in rows],
                            progress=not args.quiet)
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.seg_id, []).append(i)
    paper = scorer.score_prepared(corpus)
    metrics = {"xlscore": scorer.finish(corpus, paper, groups.values())}
    if scorer.estimator is not None:
        metrics["the paper's method (anchor F1)"] = paper
    elif scorer.alignment_mode == "corpus" and not scorer.multilingual:
        metrics["xlscore, map cross-fitted by document"] = scorer.blend_consensus(
            corpus, scorer.score_cross_fitted(corpus, [r.doc for r in rows], folds=args.folds),
            groups.values())
    seg = [r.seg_id for r in rows]
    sysn = [r.system for r in rows]
    human = [r.human for r in rows]
    reports = {k: agreement(seg, sysn, human, [x.score for x in v], n_boot=args.n_boot)
               for k, v in metrics.items()}
    signature = scorer.signature()
    if args.format == "json":
        json.dump({"signature": signature, "data": str(args.data),
                   "metrics": {k: {"segments": rep.n_segments, "skipped": rep.n_skipped,
                                   "systems": rep.n_systems,
                                   **{s: vars(rep[s]) for s in STATISTICS}}
                               for k, rep in reports.items()}}, sys.stdout, indent=1)
        print()
        return 0
    rep0 = next(iter(reports.values()))
    print(f"{len(rows)} translations, {rep0.n_systems} systems, {rep0.n_segments} segments "
          f"with unequal human scores ({rep0.n_skipped} skipped); 95% bootstrap intervals, "
          f"{args.n_boot} resamples\n")
    w = max(len(LABELS[s]) for s in STATISTICS)
    print(f"{'statistic':<{w}}  " + "  ".join(f"{k[:40]:>40}" for k in reports))
    for s in STATISTICS:
        print(f"{LABELS[s]:<{w}}  " + "  ".join(f"{str(rep[s]):>40}" for rep in reports.values()))
    print(f"\nsignature: {signature}")
    return 0


# ---------------------------------------------------------------------- train
def cmd_train(args: argparse.Namespace) -> int:
    from dataclasses import fields

    from .estimator import QualityEstimator
    from .judgments import attach_errors, read_error_marks, read_judgments, sample_sources
    from .training import Recipe, remove_checkpoint

    recipe = Recipe(**{f.name: getattr(args, f.name) for f in fields(Recipe)})
    datasets = [read_judgments(p, include_human=True) for p in args.data]
    if args.max_sources:
        datasets = [sample_sources(rows, args.max_sources) for rows in datasets]
    marks = {}
    keys = ({(r.seg_id, r.system, r.translation) for rows in datasets for r in rows}
            if args.errors else set())
    for path in args.errors or ():
        found = read_error_marks(path)
        if not keys & set(found):
            raise InputError("no judged translation of the --data sets matches these error "
                             "marks (segment, system and translation must be the same)",
                             path=path)
        marks.update(found)
    if marks:
        datasets = [attach_errors(rows, marks) for rows in datasets]
    for path, rows in zip(args.data, datasets):
        if not rows:
            raise InputError("no judged translations", path=path)
    out = Path(args.output)
    checkpoint = Path(args.checkpoint) if args.checkpoint else out.with_name(out.name + ".ckpt")
    if checkpoint.exists() and not args.quiet:
        print(f"xlscore: resuming from {checkpoint}", file=sys.stderr)
    est = QualityEstimator(args.base, recipe=recipe, device=args.device)
    est.fit(datasets, progress=not args.quiet, checkpoint=checkpoint)
    est.similarity_weight = args.similarity_weight
    path = est.save(out, name=args.name)
    remove_checkpoint(checkpoint)
    print(f"saved {path} ({path.stat().st_size / 1e6:.2f} MB): {est.signature()}, trained on "
          f"{sum(map(len, datasets))} judged translations from {len(datasets)} set(s) in "
          f"{est.log.steps} steps, {est.log.seconds / 60:.1f} min")
    return 0


# ---------------------------------------------------------------------- plot, lexicon
def cmd_plot(args: argparse.Namespace) -> int:
    from .plots import alignment_map

    if not args.src.strip() or not all(t.strip() for t in args.mt):
        raise InputError("plot alignment needs a non-empty source and translations")
    scorer = build_scorer(args)
    alignment_map(scorer, args.src, args.mt, path=args.output)
    print(f"saved {args.output}")
    return 0


def cmd_lexicon(args: argparse.Namespace) -> int:
    from .anchors import is_cyrillic
    from .lexicon import Lexicon

    lex = Lexicon.load(args.lexicon)
    if args.action == "build":
        keys = len(lex.table)
        print(f"{lex.describe()}: {len(lex)} Russian->English pairs, {keys} Russian keys, "
              f"{len(lex.headwords)} English headwords, {len(lex.en_forms)} English forms")
        return 0
    if not args.words:
        raise InputError("lexicon lookup needs at least one word")
    for word in args.words:
        if is_cyrillic(word):
            found = sorted(lex.translate(word))
            print(f"{word}: keys {', '.join(lex.ru_keys(word))} -> "
                  + (", ".join(found) if found else "(no translation)"))
        else:
            print(f"{word}: English keys {', '.join(sorted(lex.en_keys(word)))}")
    return 0


def cmd_embed(args: argparse.Namespace) -> int:
    """Print the words of each line and optionally save their vectors."""
    import numpy as np
    import torch

    from .encoders import Encoder
    from .inputs import read_lines

    lines = read_lines(args.input, allow_empty=True)
    enc = Encoder.load(args.model, layer=_layer(args.layer), device=args.device,
                       precision=args.precision)
    result = enc.embed_words(lines, progress=not args.quiet)
    print(f"# {enc!r} fingerprint={enc.fingerprint}")
    for n, wv in enumerate(result, start=1):
        print(f"{n}\t{len(wv)}\t{' '.join(wv.words)}")
    if args.output:
        vectors = torch.cat([wv.vectors for wv in result]) if result else torch.zeros(0, enc.dim)
        offsets = np.cumsum([0] + [len(wv) for wv in result])
        words = np.array([w for wv in result for w in wv.words], dtype=str)
        np.savez(args.output, vectors=vectors.numpy(), offsets=offsets, words=words)
        print(f"# vectors of {len(words)} words saved to {args.output}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``xlscore`` command."""
    from .scorer import CHUNK_PAIRS

    parser = argparse.ArgumentParser(
        prog="xlscore",
        description="Reference-free scoring of English->Russian translations: cross-lingual "
                    "BERTScore over two aligned monolingual encoders and anchor words "
                    "(Vetrov & Gorn). Runs offline with the default packs.",
        epilog="Run `xlscore COMMAND --help` for a command's options.")
    parser.add_argument("--version", action="version", version=f"xlscore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("score", help="score translations segment by segment",
                       description="Score each translation against its source; prints a "
                                   "score per segment and a system score per translations "
                                   "file, with a signature of the settings.")
    _add_io_options(p)
    p.add_argument("--format", choices=list(WRITERS), default="text",
                   help="text (default), tsv, or json (one JSON object per line)")
    p.add_argument("--output", "-o", help="write here instead of standard output")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run into the same --output file")
    p.add_argument("--chunk-size", type=at_least(1), default=CHUNK_PAIRS,
                   help=f"pairs embedded and scored at a time (default {CHUNK_PAIRS})")
    add_fields_option(p, "all")
    _add_model_options(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("rank", help="rank several engines per segment and overall",
                       description="Rank the engines' translations of each segment and "
                                   "overall (mean score, wins, mean rank), with paired "
                                   "bootstrap tests between engines.")
    _add_io_options(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--output", "-o", help="write here instead of standard output")
    p.add_argument("--segments", action="store_true", help="also list each segment's ranking")
    p.add_argument("--n-boot", type=at_least(1), default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--chunk-size", type=at_least(1), default=CHUNK_PAIRS, help=argparse.SUPPRESS)
    add_fields_option(p, "score")
    _add_model_options(p)
    p.set_defaults(func=cmd_rank)

    add_report_parser(sub, _add_io_options, _add_model_options, CHUNK_PAIRS)
    add_batch_parser(sub, _add_model_options)

    p = sub.add_parser("fit", help="fit an alignment on a corpus and save it",
                       description="Fit the Procrustes map on the anchor pairs of a corpus "
                                   "(starting from the dictionary map) and save it for "
                                   "--alignment PATH.")
    _add_io_options(p)
    p.add_argument("--save", required=True, metavar="PATH", help="where to save the map (.npz)")
    p.add_argument("--chunk-size", type=at_least(1), default=CHUNK_PAIRS, help=argparse.SUPPRESS)
    _add_model_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("evaluate", help="agreement with human judgments",
                       description="Score a TSV of human-judged translations (columns seg_id, "
                                   "system, source, translation, human_score; see the shared "
                                   "data README) and report per-segment Kendall/Spearman, "
                                   "global Kendall, pairwise and system-level agreement with "
                                   "95% bootstrap intervals.")
    p.add_argument("--data", required=True, help="TSV of judged translations")
    p.add_argument("--include-human", action="store_true",
                   help="rank human translations (is_human_translation = 1) with MT")
    p.add_argument("--n-boot", type=at_least(1), default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--folds", type=at_least(2), default=5, help="cross-fitting folds (default 5)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    _add_model_options(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("train", help="train a quality estimator on human judgments",
                       description="Fine-tune a cross-encoder (default pack:e5-small) on judged "
                                   "translations and save the compressed weights for "
                                   "--estimator PATH. Data: MQM or QE TSV files, or HTER file "
                                   "prefixes (see README); human translations and post-edits "
                                   "are used. Interrupted runs continue from the checkpoint "
                                   "when started again with the same arguments.")
    p.add_argument("--data", required=True, action="append", metavar="PATH",
                   help="judged data set (repeat for several; each gets its own score scale)")
    p.add_argument("--output", "-o", required=True, help="the .safetensors file to write")
    p.add_argument("--name", help="the estimator's name in signatures (default: file stem)")
    p.add_argument("--base", default="pack:e5-small", help="model to fine-tune (default "
                                                           "pack:e5-small)")
    p.add_argument("--max-sources", type=at_least(1), metavar="N",
                   help="use at most N sources of each data set (drawn at random with a fixed "
                        "seed; every translation of a drawn source is kept)")
    p.add_argument("--errors", action="append", metavar="FILE",
                   help="where the errors of the judged translations are, for the word head: an "
                        "MQM error-span TSV (column spans) or word-level QE tags (tags, "
                        "offsets); repeat for several files")
    p.add_argument("--similarity-weight", type=at_least(0, float), default=0.0, metavar="W",
                   help="the score becomes the prediction minus W times (1 - the multilingual "
                        "all-words F1 of pack:e5-small); 0: the prediction alone (default; the "
                        "shipped estimator has 10, chosen on validation data)")
    p.add_argument("--checkpoint", help="checkpoint file (default: OUTPUT.ckpt)")
    p.add_argument("--device", help="cpu, cuda, ... (default: CUDA when present)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    from .training import Recipe

    g = p.add_argument_group("recipe (defaults: the shipped estimator's)")
    for f in Recipe.__dataclass_fields__.values():
        g.add_argument("--" + f.name.replace("_", "-"), type=recipe_type(f.default),
                       default=f.default,
                       help=f"(default {f.default})")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("plot", help="figures", description="Draw figures.")
    plots = p.add_subparsers(dest="figure", metavar="FIGURE")
    plots.required = True
    q = plots.add_parser("alignment", help="a source and its translations after alignment "
                                           "(the paper's Figure 3)")
    q.add_argument("-s", "--src", required=True, help="the English source sentence")
    q.add_argument("-t", "--mt", required=True, action="append",
                   help="a Russian translation (repeat)")
    q.add_argument("-o", "--output", required=True, help="PNG file to write")
    _add_model_options(q)
    q.set_defaults(func=cmd_plot)

    p = sub.add_parser("lexicon", help="build the dictionary cache or look words up",
                       description="build: build (or check) the cached dictionary and print "
                                   "its size; lookup WORD ...: show how words translate.")
    p.add_argument("action", choices=["build", "lookup"])
    p.add_argument("words", nargs="*", help="words to look up")
    p.add_argument("--lexicon", metavar="PATH", help="a ru<TAB>en word list instead")
    p.set_defaults(func=cmd_lexicon)

    p = sub.add_parser("embed", help="word vectors of each line of a file",
                       description="Split each line into words and embed them (the mean of "
                                   "each word's sub-word pieces at one hidden layer).")
    p.add_argument("input", help="text file, one sentence per line (- for stdin)")
    p.add_argument("--model", default="pack:e5-small",
                   help="pack:NAME, a local folder or a hub name (default pack:e5-small)")
    p.add_argument("--layer", help="hidden layer (default: the pack's)")
    p.add_argument("--precision", choices=list(PRECISIONS), default="auto",
                   help="auto (default), fp32 (exact), bf16, fp16 or int8")
    p.add_argument("--device")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--output", "-o", help="save vectors, offsets and words to this .npz file")
    p.set_defaults(func=cmd_embed)
    return parser


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"xlscore: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xlscore`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    warnings.showwarning = _one_line_warning
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return args.func(args)
    except XLScoreError as err:
        print(f"xlscore: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:      # the reader went away (``xlscore score ... | head``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:
        where = f"{err.filename}: " if err.filename else ""
        print(f"xlscore: error: {where}{err.strerror or err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("xlscore: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
