"""The commands ``score``, ``rank``, ``fit``, ``evaluate``, ``train``, ``plot alignment``,
``lexicon build|lookup`` and ``embed``: each reads its options and calls the library."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import sys
from pathlib import Path
from typing import TextIO

from xlscore.cli.engine_files import PairProgress, inputs_digest, read_corpus, score_engines
from xlscore.cli.options import (
    build_scorer,
    input_files,
    load_scorer,
    model_files,
    parse_layer,
    settings_before_loading,
)
from xlscore.errors import InputError, OutputError, XLScoreError
from xlscore.io.outputs import check_output, output_lock, overwritten_input, writing_to
from xlscore.io.writers import (
    WRITERS,
    Checked,
    Empties,
    Row,
    check_resumable,
    is_finished,
    resume_state,
)
from xlscore.results import empty_cost

#: the command line's status lines (``xlscore: ...`` on standard error, none with ``--quiet``)
log = logging.getLogger("xlscore")


# ---------------------------------------------------------------------- score
def cmd_score(args: argparse.Namespace) -> int:
    if args.resume and not args.output:
        raise InputError("--resume needs --output FILE")
    out_path = check_output(args.output, input_files(args)) if args.output else None
    sources, engines = read_corpus(args)
    with output_lock(out_path):
        return _score_to(args, sources, engines, out_path)


def _nothing_left(args: argparse.Namespace, path: Path, segments: int) -> int:
    """``score --resume`` of a file that already holds every segment and the system scores:
    it is left as it is, and no model loads."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        first = fh.readline().rstrip("\n")
    if args.format == "json":
        first = str(json.loads(first).get("xlscore", ""))
    log.info("%s already holds all %d segments: nothing left to score", path, segments)
    log.info("%s", first.removeprefix("# ").split(" inputs:")[0])
    return 0


def _score_to(
    args: argparse.Namespace,
    sources: list[str],
    engines: dict[str, list[str]],
    out_path: Path | None,
) -> int:
    """``xlscore score`` once its output is held (:func:`xlscore.io.outputs.output_lock`)."""
    # what must match for --resume to continue a file beyond the scorer's signature: checked
    # before the models load, so that a file of other inputs is refused at once
    run = f"inputs:{inputs_digest(sources, engines)} format:{args.format} chunk:{args.chunk_size}"
    resuming = False
    if args.resume and out_path is not None and out_path.exists() and out_path.stat().st_size:
        check_resumable(out_path, f"{run} {settings_before_loading(args)}")
        writer = WRITERS[args.format](io.StringIO())
        if is_finished(out_path, writer, list(engines), len(sources)):
            return _nothing_left(args, out_path, len(sources))
        resuming = True
    scorer = load_scorer(args)
    names = list(engines)
    # the signature known before scoring (a corpus map's digest comes with the summary)
    head = f"{scorer.signature(sources, engines)} {run}"
    start = 0
    done: dict[str, list[Row]] = {e: [] for e in names}
    out: TextIO
    with writing_to(out_path), contextlib.ExitStack() as stack:  # never closes sys.stdout
        if out_path is not None:
            if resuming:
                start, done = resume_state(
                    out_path, WRITERS[args.format](sys.stdout, scorer.fields), head, names
                )
            if start:
                out = stack.enter_context(open(out_path, "a", encoding="utf-8"))
                log.info("resuming after segment %d of %d", start, len(sources))
            else:
                out = stack.enter_context(open(out_path, "w", encoding="utf-8"))
        else:
            out = sys.stdout
        writer = WRITERS[args.format](out, scorer.fields)
        if start == 0:
            writer.header(head, names)
            out.flush()
        scores = {e: [r.score for r in done[e]] for e in names}
        costs = {e: [r.check_cost for r in done[e]] for e in names}
        empty = {e: [r.empty for r in done[e]] for e in names}
        bar = PairProgress(len(sources), len(names), args.quiet, start)
        for i, by in scorer.iter_score(
            sources,
            engines,
            chunk_size=args.chunk_size,
            start=start,
            on_pairs=bar.advance,
            workers=args.workers,
        ):
            for name in names:
                writer.row(i + 1, name, by[name])
                scores[name].append(writer.written(by[name].score))
                costs[name].append(writer.written(by[name].check_cost or 0.0))
                empty[name].append(by[name].is_empty)
            bar.finished(i)
            if i % 10 == 9:  # finished segments reach the file soon (a killed run keeps them)
                out.flush()
        bar.close()
        signature = scorer.signature()
        for name in names:
            vals = scores[name]
            writer.summary(
                name,
                sum(vals) / len(vals) if vals else float("nan"),
                len(vals),
                signature,
                Empties(sum(empty[name]), empty_cost(vals, empty[name]) if vals else 0.0),
                Checked.of(costs[name]),
            )
        out.flush()
    if out_path is not None:  # written to standard output, it was said there already
        log.info("%s", signature)
    return 0


# ---------------------------------------------------------------------- rank
def cmd_rank(args: argparse.Namespace) -> int:
    out_path = check_output(args.output, input_files(args)) if args.output else None
    sources, engines = read_corpus(args)
    if len(engines) < 2:
        raise InputError("rank needs at least two translations files (-t A -t B)")
    from xlscore.evaluation.compare import compare_engines

    scorer = load_scorer(args)
    comparison = compare_engines(score_engines(scorer, sources, engines, args), n_boot=args.n_boot)
    signature = scorer.signature()
    with writing_to(out_path), contextlib.ExitStack() as stack:  # never closes sys.stdout
        out: TextIO = (
            stack.enter_context(open(args.output, "w", encoding="utf-8"))
            if args.output
            else sys.stdout
        )
        if args.format == "json":
            json.dump(
                {**comparison.to_dict(segments=args.segments), "signature": signature},
                out,
                ensure_ascii=False,
                indent=1,
            )
            out.write("\n")
        else:
            _print_ranking(out, comparison, args.segments, len(sources), signature)
    return 0


def _print_ranking(out: TextIO, comparison, segments: bool, n: int, signature: str) -> None:
    table = comparison.engines
    w = max(len("engine"), *(len(r.engine) for r in table))
    out.write(
        f"Engines ranked by mean score over {n} segments "
        f"(95% bootstrap interval, {comparison.n_boot} resamples):\n\n"
    )
    out.write(
        f"  {'#':>2}  {'engine':<{w}}  {'mean score':>10}  {'95% interval':^19}  "
        f"{'wins':>5}  {'mean rank':>9}\n"
    )
    for k, r in enumerate(table, start=1):
        out.write(
            f"  {k:>2}  {r.engine:<{w}}  {r.mean:>+10.4f}  "
            f"[{r.low:+.4f}, {r.high:+.4f}]  {r.wins:>5}  {r.mean_rank:>9.2f}\n"
        )
    for r in table:
        if r.empty:
            out.write(
                f"\n  {r.engine}: {r.empty} empty segment(s), scored at the floor (the lowest "
                f"score); without them its mean would be {r.mean + r.empty_cost:+.4f}\n"
            )
    out.write("\nPaired bootstrap (segments resampled; p: two-sided, no difference):\n\n")
    for p in comparison.pairs:
        mark = "*" if p.significant else " "
        out.write(
            f"  {p.a:<{w}} vs {p.b:<{w}}  delta {p.delta:+.4f} "
            f"[{p.low:+.4f}, {p.high:+.4f}]  p = {p.p:.3f} {mark}\n"
        )
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
    check_output(args.save, input_files(args))
    scorer = build_scorer(args)
    aligner = scorer.paper.fit_alignment(
        sources, engines, chunk_size=args.chunk_size, progress=not args.quiet
    )
    path = aligner.save(args.save)
    print(
        f"saved {path}: {aligner.n_pairs_} anchor pairs from {len(sources)} segments x "
        f"{len(engines)} engine(s), map {aligner.W_.shape[0]}x{aligner.W_.shape[1]}, "
        f"{'reliable' if aligner.reliable else 'NOT reliable (too few pairs)'}, "
        f"digest {aligner.digest}"
    )
    print(f"signature: {scorer.signature()}")
    return 0


# ---------------------------------------------------------------------- evaluate
def cmd_evaluate(args: argparse.Namespace) -> int:
    from xlscore.evaluation.agreement import LABELS, STATISTICS, agreement, read_judgments

    every = read_judgments(args.data, include_human=True)
    rows = every if args.include_human else [r for r in every if not r.is_human]
    if not rows:
        raise InputError("no judged translations", path=args.data)
    scorer = build_scorer(args)
    if scorer.estimator is not None and scorer.estimator.trained_on(every):
        print(
            f"xlscore: warning: {scorer.estimator.signature()} was trained on {args.data}; "
            "these figures measure how well it fits its training data, not how it does on "
            "unseen data",
            file=sys.stderr,
        )
    if not args.quiet:
        print(f"xlscore: scoring {len(rows)} judged translations", file=sys.stderr)
    corpus = scorer.prepare(
        [r.source for r in rows], [r.translation for r in rows], progress=not args.quiet
    )
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.seg_id, []).append(i)
    paper = scorer.paper.score_prepared(corpus)
    metrics = {"xlscore": scorer.final.finish(corpus, paper, groups.values())}
    if scorer.estimator is not None:
        metrics["the paper's method (anchor F1)"] = paper
    elif scorer.paper.maps.mode == "corpus" and not scorer.paper.multilingual:
        metrics["xlscore, map cross-fitted by document"] = scorer.final.blend_consensus(
            corpus,
            scorer.paper.score_cross_fitted(corpus, [r.doc for r in rows], folds=args.folds),
            groups.values(),
        )
    seg = [r.seg_id for r in rows]
    sysn = [r.system for r in rows]
    human = [r.human for r in rows]
    reports = {
        k: agreement(seg, sysn, human, [x.score for x in v], n_boot=args.n_boot)
        for k, v in metrics.items()
    }
    signature = scorer.signature()
    if args.format == "json":
        json.dump(
            {
                "signature": signature,
                "data": str(args.data),
                "metrics": {
                    k: {
                        "segments": rep.n_segments,
                        "skipped": rep.n_skipped,
                        "systems": rep.n_systems,
                        **{s: vars(rep[s]) for s in STATISTICS},
                    }
                    for k, rep in reports.items()
                },
            },
            sys.stdout,
            indent=1,
        )
        print()
        return 0
    rep0 = next(iter(reports.values()))
    print(
        f"{len(rows)} translations, {rep0.n_systems} systems, {rep0.n_segments} segments "
        f"with unequal human scores ({rep0.n_skipped} skipped); 95% bootstrap intervals, "
        f"{args.n_boot} resamples\n"
    )
    w = max(len(LABELS[s]) for s in STATISTICS)
    print(f"{'statistic':<{w}}  " + "  ".join(f"{k[:40]:>40}" for k in reports))
    for s in STATISTICS:
        print(f"{LABELS[s]:<{w}}  " + "  ".join(f"{rep[s]!s:>40}" for rep in reports.values()))
    print(f"\nsignature: {signature}")
    return 0


# ---------------------------------------------------------------------- train
def cmd_train(args: argparse.Namespace) -> int:
    from xlscore.cli.options import train_recipe
    from xlscore.estimator.model import QualityEstimator
    from xlscore.io.error_marks import attach_errors, read_error_marks
    from xlscore.io.judgments import leave_out_sources, read_judgments, sample_sources, split_sets
    from xlscore.training import fit
    from xlscore.training.loop import remove_checkpoint

    recipe = train_recipe(args)
    if args.meaning_blend and not recipe.meaning_weight:
        raise XLScoreError("--meaning-blend needs a meaning head: give --meaning-weight above 0")
    out = Path(args.output)
    checkpoint = Path(args.checkpoint) if args.checkpoint else out.with_name(out.name + ".ckpt")
    _check_training_outputs(args, out, checkpoint)
    files = [read_judgments(p, include_human=True) for p in args.data]
    for test in args.leave_out or ():
        files = [leave_out_sources(rows, test) for rows in files]
    if args.max_sources:
        files = [sample_sources(rows, args.max_sources) for rows in files]
    for path, rows in zip(args.data, files):
        if not rows:
            raise InputError("no judged translations", path=path)
    # a file of several language pairs or releases gives one set (one score scale) each
    datasets = [s for rows in files for s in split_sets(rows)]
    marks = {}
    keys = (
        {(r.seg_id, r.system, r.translation) for rows in datasets for r in rows}
        if args.errors
        else set()
    )
    for path in args.errors or ():
        found = read_error_marks(path, lenient=True)
        if not keys & set(found):
            raise InputError(
                "no judged translation of the --data sets matches these error "
                "marks (segment, system and translation must be the same)",
                path=path,
            )
        marks.update(found)
    if marks:
        datasets = [attach_errors(rows, marks) for rows in datasets]
    if checkpoint.exists() and not args.quiet:
        print(f"xlscore: resuming from {checkpoint}", file=sys.stderr)
    est = QualityEstimator(args.base, recipe=recipe, device=args.device)
    fit(est, datasets, progress=not args.quiet, checkpoint=checkpoint)
    est.similarity_weight = args.similarity_weight
    est.meaning_blend = args.meaning_blend
    est.check_weight = args.check_weight
    path = est.save(out, name=args.name)
    remove_checkpoint(checkpoint)
    print(
        f"saved {path} ({path.stat().st_size / 1e6:.2f} MB): {est.signature()}, trained on "
        f"{sum(map(len, datasets))} judged translations from {len(datasets)} set(s) in "
        f"{est.log.steps} steps, {est.log.seconds / 60:.1f} min"
    )
    return 0


def _check_training_outputs(args: argparse.Namespace, out: Path, checkpoint: Path) -> None:
    """``train``'s estimator file and checkpoint checked before anything is read or loaded:
    neither may be one of its inputs (each ``--data`` file, an HTER prefix's files, each
    ``--errors`` file), nor the two one file (the checkpoint is removed once the estimator is
    saved)."""
    inputs = [f"{d}{ext}" for d in args.data for ext in ("", ".src", ".mt", ".hter", ".pe")]
    inputs += args.errors or []
    check_output(out, inputs)
    check_output(checkpoint, inputs)
    if checkpoint.resolve() == out.resolve() or overwritten_input(checkpoint, [out]):
        raise OutputError(
            f"is also the --checkpoint {checkpoint}, which is removed once the estimator is "
            "saved; give two different files",
            path=out,
        )


# ---------------------------------------------------------------------- plot, lexicon
def cmd_plot(args: argparse.Namespace) -> int:
    from xlscore.report.plots import alignment_map

    if not args.src.strip() or not all(t.strip() for t in args.mt):
        raise InputError("plot alignment needs a non-empty source and translations")
    check_output(args.output, model_files(args))
    scorer = build_scorer(args)
    alignment_map(scorer, args.src, args.mt, path=args.output)
    print(f"saved {args.output}")
    return 0


def cmd_lexicon(args: argparse.Namespace) -> int:
    from xlscore.metric.anchor_pairs import is_cyrillic
    from xlscore.metric.lexicon import Lexicon

    lex = Lexicon.load(args.lexicon)
    if args.action == "build":
        keys = len(lex.table)
        print(
            f"{lex.describe()}: {len(lex)} Russian->English pairs, {keys} Russian keys, "
            f"{len(lex.headwords)} English headwords, {len(lex.en_forms)} English forms"
        )
        return 0
    if not args.words:
        raise InputError("lexicon lookup needs at least one word")
    for word in args.words:
        if is_cyrillic(word):
            found = sorted(lex.translate(word))
            print(
                f"{word}: keys {', '.join(lex.ru_keys(word))} -> "
                + (", ".join(found) if found else "(no translation)")
            )
        else:
            print(f"{word}: English keys {', '.join(sorted(lex.en_keys(word)))}")
    return 0


def cmd_embed(args: argparse.Namespace) -> int:
    """Print the words of each line and optionally save their vectors."""
    import numpy as np
    import torch

    from xlscore.encoders.encoder import Encoder
    from xlscore.io.inputs import read_lines

    lines = read_lines(args.input, allow_empty=True)
    if args.output:  # numpy adds .npz to a name without it
        saved = args.output if args.output.endswith(".npz") else f"{args.output}.npz"
        check_output(saved, [args.input])
    enc = Encoder.load(
        args.model, layer=parse_layer(args.layer), device=args.device, dtype=args.dtype
    )
    result = enc.embed_words(lines, progress=not args.quiet)
    print(f"# {enc!r} fingerprint={enc.fingerprint}")
    for n, wv in enumerate(result, start=1):
        print(f"{n}\t{len(wv)}\t{' '.join(wv.words)}")
    if args.output:
        vectors = torch.cat([wv.vectors for wv in result]) if result else torch.zeros(0, enc.dim)
        offsets = np.cumsum([0] + [len(wv) for wv in result])
        words = np.array([w for wv in result for w in wv.words], dtype=str)
        np.savez(args.output, vectors=vectors.numpy(), offsets=offsets, words=words)
        if not args.quiet:
            print(f"# vectors of {len(words)} words saved to {args.output}", file=sys.stderr)
    return 0
