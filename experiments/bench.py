"""Speed and memory of xlscore against the encoder floor and the bert_score library, measured
side by side in one run on the same machine, models, layers and pairs.

    python experiments/bench.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv

Each measurement runs in a fresh child process (so that peak memory is its own and no warm
state is shared); model loading is not timed, everything from the texts to the scores is.

* floor: one forward pass of the encoder(s) over every unique sentence (length-sorted batches,
  computing only the layers needed), nothing else;
* xlscore, two encoders (MiniLM for English at layer 6, e5 for Russian at layer 9), anchors
  variant, default settings (Müller dictionary, corpus map refining the cached dictionary map);
* xlscore, multilingual e5 at layer 9, all words;
* xlscore's bert_score-compatible mode, and ``bert_score`` itself (``BERTScorer`` with the same
  folder and ``num_layers=9``, translation as candidate, source as reference); the two must agree
  to 1e-4 on every pair (checked here, exit status 1 otherwise);
* the default since the quality estimator (``XLScorer.offline()``: the estimator's cross-encoder
  pass over each pair plus the paper's anchors and F1 for the explanations), in the precision
  the processor supports (``auto``) and in float32, and the estimator alone; the bfloat16 and
  float32 scores are compared (largest change, agreement with the MQM scores of both);
* memory: ``xlscore score`` on 10,000 and 100,000 pairs (the first ``--memory-block`` pairs
  repeated), peak RSS of each.

Writes experiments/results/bench.md. The caches (converted pack, lexicon, dictionary map) are
built before timing starts.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from _results import write_markdown

HERE = Path(__file__).resolve().parent


def _rows(data: str, limit: int) -> list:
    """The judged MT translations of the first ``limit`` segments (all with 0)."""
    from xlscore.evaluate import read_judgments

    rows = read_judgments(data)
    if limit:
        keep = set(list(dict.fromkeys(r.seg_id for r in rows))[:limit])
        rows = [r for r in rows if r.seg_id in keep]
    return rows


def _pairs(data: str, limit: int) -> tuple[list[str], list[str]]:
    rows = _rows(data, limit)
    return [r.source for r in rows], [r.translation for r in rows]


def _floor(encoder, sentences: list[str], batch_size: int) -> None:
    """Tokenise with the model's prefix and specials, sort by length, run the layers needed."""
    import torch

    texts = [encoder.prefix + s for s in dict.fromkeys(sentences)]
    ids = encoder.tokenizer(texts, truncation=True, max_length=encoder.max_tokens)["input_ids"]
    ids.sort(key=len, reverse=True)
    pad = encoder.tokenizer.pad_token_id or 0
    with torch.inference_mode(), encoder._truncated(encoder.layer):
        for a in range(0, len(ids), batch_size):
            batch = ids[a:a + batch_size]
            width = len(batch[0])
            x = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros_like(x)
            for r, seq in enumerate(batch):
                x[r, :len(seq)] = torch.tensor(seq)
                mask[r, :len(seq)] = 1
            encoder.model(input_ids=x, attention_mask=mask)


def child(args: argparse.Namespace) -> dict:
    """One measurement; returns seconds, pairs and peak RSS (MiB)."""
    import torch

    from xlscore import Encoder, Lexicon, XLScorer, bert_score_compatible, packs

    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    src, mt = _pairs(args.data, args.limit)
    bs = args.batch_size
    out: dict = {"pairs": len(src)}
    what = args.child
    if what.startswith(("default", "estimator")):
        from xlscore.estimator import QualityEstimator

        precision = "fp32" if what.endswith("fp32") else "auto"
        if what.startswith("default"):
            scorer = XLScorer.offline(precision=precision, batch_size=bs)
            scorer.dictionary_map()
        else:
            est = QualityEstimator.load(precision=precision)
        out["precision"] = (scorer.estimator if what.startswith("default") else est).signature()
    elif what in ("floor-two", "xlscore-two"):
        en = Encoder.load("pack:minilm-en", batch_size=bs)
        ru = Encoder.load("pack:e5-small", batch_size=bs)
        if what == "xlscore-two":
            scorer = XLScorer(en_model=en, ru_model=ru, lexicon=Lexicon.mueller7(), estimator=None)
            scorer.dictionary_map()
    elif what != "bert_score":
        e5 = Encoder.load("pack:e5-small", layer=9, batch_size=bs)
        if what == "xlscore-multi":
            scorer = XLScorer(multilingual=e5, variant="all", lexicon=Lexicon.mueller7(),
                              estimator=None)
    t = time.perf_counter()
    if what.startswith("default"):
        out["scores"] = [r.score for r in scorer.score(src, mt)]
    elif what.startswith("estimator"):
        out["scores"] = est.predict(src, mt).tolist()
    elif what == "floor-two":
        _floor(en, src, bs)
        _floor(ru, mt, bs)
    elif what == "floor-multi":
        _floor(e5, src + mt, bs)
    elif what == "xlscore-two":
        scorer.score(src, mt)
    elif what == "xlscore-multi":
        scorer.score(src, mt)
    elif what == "compat":
        res = bert_score_compatible(mt, src, e5)
        out["scores"] = [(r.precision, r.recall, r.f1) for r in res]
    elif what == "bert_score":
        from bert_score import BERTScorer

        t0 = time.perf_counter()
        bsc = BERTScorer(model_type=str(packs.path("e5-small")), num_layers=9, batch_size=bs)
        t += time.perf_counter() - t0      # loading is not timed, as for the others
        p, r, f = bsc.score(mt, src)
        out["scores"] = list(zip(p.tolist(), r.tolist(), f.tolist()))
    out["seconds"] = time.perf_counter() - t
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def memory_child(args: argparse.Namespace) -> dict:
    """``xlscore score`` (the console command's own code) on ``--pairs`` pairs."""
    from xlscore import cli

    src, mt = _pairs(args.data, args.limit)
    src, mt = src[:args.memory_block], mt[:args.memory_block]
    n = args.pairs
    with tempfile.TemporaryDirectory() as tmp:
        s, m = Path(tmp, "src.en"), Path(tmp, "mt.ru")
        s.write_text("".join(src[i % len(src)] + "\n" for i in range(n)), encoding="utf-8")
        m.write_text("".join(mt[i % len(mt)] + "\n" for i in range(n)), encoding="utf-8")
        t = time.perf_counter()
        code = cli.main(["score", "-s", str(s), "-t", str(m), "--quiet", "--format", "tsv",
                         "-o", str(Path(tmp, "out.tsv"))])
        seconds = time.perf_counter() - t
    if code:
        raise SystemExit(f"xlscore score failed with status {code}")
    return {"pairs": n, "seconds": seconds,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def precision_note(data: str, limit: int, fast: list[float], exact: list[float]) -> str:
    """How much the processor's fast precision changes the default's scores and rankings."""
    import numpy as np

    from xlscore.evaluate import agreement

    rows = _rows(data, limit)
    args = ([r.seg_id for r in rows], [r.system for r in rows], [r.human for r in rows])
    a, b = agreement(*args, fast, n_boot=200), agreement(*args, exact, n_boot=200)
    d = np.abs(np.array(fast) - np.array(exact))
    same = agreement(*args[:2], exact, fast, n_boot=0)
    return (f"Precision of the default: largest score change auto vs fp32 {d.max():.4f} (mean "
            f"{d.mean():.4f}); per-segment Kendall between the two {same['seg_kendall'].value:.3f};"
            f" agreement with MQM, per-segment Kendall {a['seg_kendall']} (auto) vs "
            f"{b['seg_kendall']} (fp32), system Kendall {a['sys_kendall'].value:+.3f} vs "
            f"{b['sys_kendall'].value:+.3f}. (The shipped estimator was trained on newstest2021: "
            "these figures compare the two precisions, they do not measure generalisation.)")


def run_child(argv: list[str]) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as fh:
        subprocess.run([sys.executable, __file__, *argv, "--result", fh.name], check=True,
                       stderr=subprocess.DEVNULL)
        return json.loads(Path(fh.name).read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    ap.add_argument("--limit", type=int, default=0, help="first N segments only")
    ap.add_argument("--batch-size", type=int, default=32, help="sentences per batch, for all")
    ap.add_argument("--memory", default="10000,100000",
                    help="pair counts for the memory runs (comma-separated; empty: skip)")
    ap.add_argument("--memory-block", type=int, default=1000,
                    help="the memory runs repeat the first N pairs (default 1000)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--pairs", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        res = memory_child(args) if args.child == "memory" else child(args)
        Path(args.result).write_text(json.dumps(res))
        return

    common = ["--data", args.data, "--limit", str(args.limit), "--batch-size",
              str(args.batch_size), "--memory-block", str(args.memory_block)]
    print("warming the caches (pack conversion, lexicon, dictionary map)...", flush=True)
    from xlscore import XLScorer

    XLScorer.offline().dictionary_map()
    runs = {}
    for name in ("floor-two", "xlscore-two", "floor-multi", "xlscore-multi", "compat",
                 "bert_score", "estimator", "estimator-fp32", "default", "default-fp32"):
        runs[name] = run_child(["--child", name, *common])
        r = runs[name]
        print(f"{name:14s} {r['pairs']} pairs in {r['seconds']:7.1f} s = "
              f"{r['pairs'] / r['seconds']:6.1f} pairs/s, peak {r['peak_mib']:6.0f} MiB",
              flush=True)
    diff = max(abs(a - b) for x, y in zip(runs["compat"]["scores"], runs["bert_score"]["scores"])
               for a, b in zip(x, y))
    mem = []
    for n in [int(x) for x in args.memory.split(",") if x.strip()]:
        mem.append(run_child(["--child", "memory", "--pairs", str(n), *common]))
        print(f"memory {n} pairs: {mem[-1]['seconds']:.0f} s, peak {mem[-1]['peak_mib']:.0f} "
              "MiB", flush=True)

    def row(label: str, name: str, note: str = "") -> str:
        r = runs[name]
        return (f"| {label} | {r['seconds']:.1f} | {r['pairs'] / r['seconds']:.1f} | "
                f"{r['peak_mib']:.0f} | {note} |")

    sec = {k: v["seconds"] for k, v in runs.items()}
    n_pairs = runs["floor-two"]["pairs"]
    lines = [
        f"{n_pairs} pairs (MT systems only), {os.cpu_count()} CPU cores, batch size "
        f"{args.batch_size}, torch threads {__import__('torch').get_num_threads()}. Each row ran "
        "in its own process; model loading is not timed.",
        "",
        "| run | seconds | pairs/s | peak RSS (MiB) | ratio |",
        "| --- | --- | --- | --- | --- |",
        row("floor: MiniLM@6 over unique sources + e5@9 over unique translations", "floor-two"),
        row("xlscore, two encoders, anchors (the paper's method, previous default)", "xlscore-two",
            f"xlscore/floor = {sec['xlscore-two'] / sec['floor-two']:.2f}"),
        row("floor: e5@9 over unique sources and translations", "floor-multi"),
        row("xlscore, multilingual e5@9, all words", "xlscore-multi",
            f"xlscore/floor = {sec['xlscore-multi'] / sec['floor-multi']:.2f}"),
        row("xlscore, bert_score-compatible mode, e5@9", "compat",
            f"xlscore/floor = {sec['compat'] / sec['floor-multi']:.2f}"),
        row("bert_score 0.3.13, same folder, num_layers=9", "bert_score",
            f"bert_score/xlscore multilingual = {sec['bert_score'] / sec['xlscore-multi']:.2f}; "
            f"bert_score/compat = {sec['bert_score'] / sec['compat']:.2f}"),
        row(f"quality estimator alone ({runs['estimator']['precision']})", "estimator"),
        row(f"quality estimator alone ({runs['estimator-fp32']['precision']})", "estimator-fp32",
            f"fp32/auto = {sec['estimator-fp32'] / sec['estimator']:.2f}"),
        row(f"xlscore default: estimator ({runs['default']['precision']}) + anchors and F1",
            "default", f"default/previous default (two encoders) = "
                       f"{sec['default'] / sec['xlscore-two']:.2f}"),
        row("xlscore default in float32", "default-fp32",
            f"fp32/auto = {sec['default-fp32'] / sec['default']:.2f}"),
        "",
        f"bert_score-compatible mode against bert_score: largest difference in P, R or F1 over "
        f"{len(runs['compat']['scores'])} pairs = {diff:.2e} (required: at most 1e-4).",
        "",
        precision_note(args.data, args.limit, runs["default"]["scores"],
                       runs["default-fp32"]["scores"]),
    ]
    if mem:
        lines += ["", "Streaming: `xlscore score` (default settings, TSV to a file, chunks of "
                  f"10,000 pairs) on the first {args.memory_block} pairs repeated to N pairs:", "", "| pairs | seconds | peak RSS (MiB) |",
                  "| --- | --- | --- |"]
        lines += [f"| {m['pairs']} | {m['seconds']:.0f} | {m['peak_mib']:.0f} |" for m in mem]
        if len(mem) > 1:
            lines += ["", f"Peak RSS ratio {mem[-1]['pairs']} / {mem[0]['pairs']} pairs: "
                      f"{mem[-1]['peak_mib'] / mem[0]['peak_mib']:.2f}."]
    write_markdown("bench", "\n".join(lines), title="Speed and memory")
    if diff > 1e-4:
        sys.exit("bert_score-compatible mode differs from bert_score by more than 1e-4")


if __name__ == "__main__":
    main()
