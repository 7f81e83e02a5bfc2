"""Speed and memory of xlscore against the models' forward-pass floor and the bert_score library,
measured side by side in one run on the same machine, models, layers and pairs.

    python tools/bench.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv --limit 100

Every row is measured twice: on the machine's own instruction set, and on a plain AVX2 CPU
emulated (``--isa``; :data:`AVX2_ENV`: oneDNN, ATen, MKL and FBGEMM held to AVX2, so that
``auto`` resolves to float32 as on a machine without AVX512-BF16/AMX). ONNX Runtime's kernels
choose their instruction set themselves and cannot be held back: its rows use the machine's
full instruction set in both tables.

Each row runs in a fresh child process (so that peak memory is its own and no warm state is
shared); model loading (and the ONNX export) is not timed, everything from the texts to the
scores is. Rows:

* forward-pass floors of e5@9 over the unique sentences (nothing but the model): float32 with
  the pack's eager attention in length-sorted batches of 32 sentences (the fp32 floor), then one
  change at a time - PyTorch's SDPA attention, passes by a token budget (the fixed shapes
  xlscore uses, :mod:`xlscore.encoders.arithmetic`), one thread instead of all, ONNX Runtime float32
  (when ``onnxruntime`` is installed), bfloat16 autocast;
* xlscore, multilingual e5@9, all words, at the default precision (``auto``) and fp32, and
  ``bert_score`` itself (``BERTScorer``, same folder, ``num_layers=9``, its default batch size
  64); xlscore's bert_score-compatible mode in fp32 must agree with bert_score to 1e-4 on every
  pair (checked here, exit status 1 otherwise);
* the default as ``xlscore score`` and ``XLScorer.offline().score`` run it unless told
  otherwise (``fields="score,evidence"``, Python's default since issue 65: the estimator's
  pass over each pair, the check findings and the dictionary evidence; no English encoder,
  map or BERTScore) at ``auto`` and fp32, the
  estimator alone, the fp32 floor of the models it runs (eager attention, length-sorted
  batches of 32), and a student (:data:`STUDENT` or `--student`) the same way; the scores of the
  two precisions, and of the default and the student, are compared;
* the default's CPU work alone (``replayed-auto``): its model passes recorded on a first,
  untimed run and answered from the record in the timed one, so that what is left is the
  tokenising, anchors, checks, evidence and spans (the ceiling of any faster model or
  device); its scores must equal the default's;
* the default with every field (``--fields all``: the paper's columns too, MiniLM@6 and e5@9,
  anchors, map and BERTScore) and with the score only (``fields="score"``), as ``xlscore
  rank`` and ``xlscore batch`` compute it;
* memory (``--memory``): ``xlscore score`` on 10,000 and 100,000 pairs, peak RSS of each.

Writes experiments/results/bench.md. The caches (converted pack, lexicon, dictionary maps) are
built before timing starts.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from _results import AVX2_ENV, cpu_name, write_markdown

HERE = Path(__file__).resolve().parent
#: sentences per batch of the floors' length-sorted batches
FLOOR_BATCH = 32
#: what ``xlscore score`` and ``XLScorer.offline()`` compute unless told otherwise
DEFAULT_FIELDS = "score,evidence"
#: the student measured beside the default unless ``--student`` names another (a shipped name or
#: a file): the shipped 4-layer student (``--estimator st4-e5s``: one pass, no similarity; it
#: did not pass the ship gate)
STUDENT = "st4-e5s"


def _rows(data: str, limit: int) -> list:
    """The judged MT translations of the first ``limit`` segments (all with 0)."""
    from xlscore.evaluation.agreement import read_judgments

    rows = read_judgments(data)
    if limit:
        keep = set(list(dict.fromkeys(r.seg_id for r in rows))[:limit])
        rows = [r for r in rows if r.seg_id in keep]
    return rows


def _pairs(data: str, limit: int) -> tuple[list[str], list[str]]:
    rows = _rows(data, limit)
    return [r.source for r in rows], [r.translation for r in rows]


def _passes(ids: list[list[int]], layout: str, device_type: str = "cpu"):
    """``(rows, width, sequences)`` of each forward pass: length-sorted batches of
    :data:`FLOOR_BATCH` sentences, or xlscore's fixed shapes (``layout="fixed"``)."""
    from xlscore.encoders.arithmetic import plan_passes

    if layout == "fixed":
        for rows, width, members in plan_passes([len(x) for x in ids], device_type, 512):
            yield rows, width, [ids[k] for k in members]
        return
    ordered = sorted(ids, key=len, reverse=True)
    for a in range(0, len(ordered), FLOOR_BATCH):
        batch = ordered[a : a + FLOOR_BATCH]
        yield len(batch), len(batch[0]), batch


def _run_passes(
    model, ids: list[list[int]], pad: int, *, dtype: str = "fp32", layout: str = "sorted"
) -> None:
    """Forward passes of ``model`` (a Hugging Face encoder) over ``ids``, nothing else."""
    from xlscore.encoders import arithmetic

    device = next(model.parameters()).device
    with arithmetic.inference(dtype, device):
        for rows, width, seqs in _passes(ids, layout, device.type):
            x, mask = arithmetic.padded(seqs, rows, width, pad)
            model(input_ids=x.to(device), attention_mask=mask.to(device))


def _sentence_ids(encoder, sentences: list[str]) -> list[list[int]]:
    texts = [encoder.prefix + s for s in dict.fromkeys(sentences)]
    return encoder.tokenizer(texts, truncation=True, max_length=encoder.max_tokens)["input_ids"]


def _onnx_floor(encoder, ids: list[list[int]], tmp: str, layout: str) -> float:
    """Export e5's first ``encoder.layer`` layers to ONNX (untimed), run them in ONNX Runtime
    float32 in the floor's batches (``layout`` as for :func:`_passes`); returns the seconds of
    the runs."""
    import numpy as np
    import onnxruntime as ort
    import torch

    class Hidden(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, ids, mask):
            return self.model(input_ids=ids, attention_mask=mask).last_hidden_state

    path = os.path.join(tmp, "e5.onnx")
    x = torch.ones((2, 16), dtype=torch.long)
    axes = {0: "rows", 1: "width"}
    # the eager attention exports as plain MatMul/Softmax nodes that ONNX Runtime fuses; the
    # SDPA export carries a masked-attention subgraph it runs unfused (2.2x slower, measured)
    encoder.model.set_attn_implementation("eager")
    with encoder._truncated(encoder.layer), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Hidden(encoder.model).eval(),
            (x, torch.ones_like(x)),
            path,
            input_names=["ids", "mask"],
            output_names=["hidden"],
            dynamic_axes={"ids": axes, "mask": axes, "hidden": axes},
            dynamo=False,
            opset_version=17,
        )
    options = ort.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    pad = encoder.tokenizer.pad_token_id or 0
    t = time.perf_counter()
    for rows, width, seqs in _passes(ids, layout):
        x = np.full((rows, width), pad, dtype=np.int64)
        mask = np.zeros((rows, width), dtype=np.int64)
        for r, q in enumerate(seqs):
            x[r, : len(q)], mask[r, : len(q)] = q, 1
        session.run(None, {"ids": x, "mask": mask})
    return time.perf_counter() - t


#: the e5@9 floors: (precision, attention, layout, threads)
FLOORS = {
    "floor-fp32": ("fp32", "eager", "sorted", 0),
    "floor-sdpa": ("fp32", "sdpa", "sorted", 0),
    "floor-fixed": ("fp32", "sdpa", "fixed", 0),
    "floor-1thread": ("fp32", "eager", "sorted", 1),
    "floor-bf16": ("bf16", "sdpa", "fixed", 0),
}


def child(args: argparse.Namespace) -> dict:
    """One measurement; returns seconds, pairs and peak RSS (MiB)."""
    import torch

    from xlscore import Encoder, Lexicon, XLScorer, bert_score_compatible, packs

    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    src, mt = _pairs(args.data, args.limit)
    out: dict = {"pairs": len(src)}
    what = args.child
    dev = "cpu" if what == "default-cpu-fp32" else args.device
    from xlscore.estimator.model import QualityEstimator

    dtype = (
        what.rsplit("-", 1)[-1]
        if what.startswith(("default", "student", "estimator", "xlscore", "compat", "replayed"))
        else "fp32"
    )
    if what.startswith(("default", "student", "estimator", "replayed")):
        if what.startswith(("default", "student", "replayed")):
            fields = (
                "score"
                if what.startswith("default-score")
                else "all"  # every field (None is the default fields, since issue 74)
                if what.startswith("default-all")
                else DEFAULT_FIELDS
            )
            estimator = args.student if what.startswith("student") else "default"
            scorer = XLScorer.offline(dtype=dtype, device=dev, fields=fields, estimator=estimator)
            if "paper" in scorer.fields:
                scorer.paper.maps.dictionary_map()
            if what.startswith("replayed"):  # the CPU work alone: model passes recorded, then
                _replayed(scorer, src, mt)  # answered from the record in the timed run
            out["precision"] = scorer.estimator.signature()
            out["layers"] = len(scorer.estimator.model.encoder.encoder.layer)
        else:
            est = QualityEstimator.load(dtype=dtype, device=dev)
            out["precision"] = est.signature()
    elif what == "floor-default":
        est = QualityEstimator.load(dtype="fp32", device=dev)
        est.model.encoder.set_attn_implementation("eager")
        jobs = []
        if est.separate_similarity:  # e5@9 over both sides
            ru = Encoder.load("pack:e5-small", dtype="fp32", device=dev)
            ru.model.set_attn_implementation("eager")
            jobs.append((ru, _sentence_ids(ru, mt + src)))
        out["sim"] = bool(jobs)
        pairs = list(dict.fromkeys(zip(src, mt)))
        pair_ids = [e.ids for e in est._encode(pairs, est.max_length)[0]]
    elif what.startswith(("floor", "onnx")):
        e5 = Encoder.load("pack:e5-small", layer=9, dtype="fp32", device=dev)
        ids = _sentence_ids(e5, src + mt)
        if not what.startswith("onnx"):
            kind, attention, layout, threads = FLOORS[what]
            e5.model.set_attn_implementation(attention)
            model = e5.model
            if threads:
                torch.set_num_threads(threads)
    elif not what.startswith("bert_score"):
        e5 = Encoder.load("pack:e5-small", layer=9, dtype=dtype, device=dev)
        out["precision"] = e5.dtype
        if what.startswith("xlscore-multi"):
            scorer = XLScorer.offline(
                multilingual=e5, variant="all", lexicon=Lexicon.mueller7(), estimator=None
            )
    tmp = tempfile.TemporaryDirectory()
    t = time.perf_counter()
    if what.startswith(("default", "student", "replayed")):
        out["scores"] = [r.score for r in scorer.score(src, mt)]
    elif what.startswith("estimator"):
        out["scores"] = est.predict(src, mt).tolist()
    elif what == "floor-default":
        for enc, ids in jobs:
            with enc._truncated(enc.layer):
                _run_passes(enc.model, ids, enc.tokenizer.pad_token_id or 0)
        _run_passes(est.model.encoder, pair_ids, est.tokenizer.pad_token_id or 0)
    elif what.startswith("onnx"):
        runs = _onnx_floor(e5, ids, tmp.name, "fixed" if what == "onnx-fixed" else "sorted")
        t = time.perf_counter() - runs  # only the runs are timed, not the export
    elif what.startswith("floor"):
        with e5._truncated(9):
            _run_passes(model, ids, e5.tokenizer.pad_token_id or 0, dtype=kind, layout=layout)
    elif what.startswith("xlscore-multi"):
        out["scores"] = [r.f1 for r in scorer.score(src, mt)]
    elif what.startswith("compat"):
        res = bert_score_compatible(mt, src, e5)
        out["scores"] = [(r.precision, r.recall, r.f1) for r in res]
    elif what.startswith("bert_score"):
        from bert_score import BERTScorer

        t0 = time.perf_counter()
        bsc = BERTScorer(
            model_type=str(packs.path("e5-small")),
            num_layers=9,
            device=dev,
            batch_size=int(what.split("-")[1]),
        )
        t += time.perf_counter() - t0  # loading is not timed, as for the others
        p, r, f = bsc.score(mt, src)
        out["scores"] = list(zip(p.tolist(), r.tolist(), f.tolist()))
    if dev == "cuda":
        torch.cuda.synchronize()
    out["seconds"] = time.perf_counter() - t
    if dev == "cuda":
        out["gpu_peak_mib"] = torch.cuda.max_memory_allocated() / 2**20
    tmp.cleanup()
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["threads"] = torch.get_num_threads()
    out["gpu"] = torch.cuda.get_device_name() if dev == "cuda" else None
    return out


def _key(value) -> object:
    """A model input as a dictionary key: a tensor by its shape and bytes."""
    if hasattr(value, "numpy"):
        return (tuple(value.shape), value.cpu().numpy().tobytes())
    return repr(value)


class _Replay:
    """A model whose outputs are recorded on a first run and answered from the record on the
    next (``replay``): what is left of a scorer's time is its CPU work."""

    def __init__(self, model) -> None:
        self.model, self.seen, self.replay = model, {}, False

    def __call__(self, *args, **kwargs):
        key = tuple(_key(a) for a in args) + tuple((k, _key(v)) for k, v in sorted(kwargs.items()))
        if not self.replay:
            self.seen[key] = self.model(*args, **kwargs)
        return self.seen[key]


def _replayed(scorer, src: list[str], mt: list[str]) -> None:
    """Score once (untimed), recording the estimator's passes and the forwards of the encoders
    the scorer runs, and set them to replay: the timed run then costs the CPU work alone."""
    est, replays = scorer.estimator, []
    predictor = _Replay(est._predictor())
    est._predictor = lambda: predictor
    replays.append(predictor)
    encoders = (scorer.ru, scorer.similarity.encoder())
    if "paper" in scorer.fields:
        encoders += (scorer.en,)
    runs = "paper" in scorer.fields or scorer.plan.similarity
    for enc in {id(e): e for e in encoders}.values() if runs else ():
        forward = _Replay(enc.model.forward)
        enc.model.forward = forward
        replays.append(forward)
    scorer.score(src, mt)
    for r in replays:
        r.replay = True


def warm(paper: bool = True) -> dict:
    """Build the caches the rows use (converted pack, lexicon, English word list, and with
    ``paper`` the dictionary maps, which load the English encoder)."""
    from xlscore import Lexicon, XLScorer, packs
    from xlscore.lexicon.dictionary import english_word_list

    packs.path("e5-small")
    Lexicon.mueller7()
    english_word_list()
    for dtype in ("auto", "fp32") if paper else ():
        XLScorer.offline(dtype=dtype, estimator=None).paper.maps.dictionary_map()
    return {}


def memory_child(args: argparse.Namespace) -> dict:
    """``xlscore score`` (the console command's own code) on ``--pairs`` pairs."""
    from xlscore.cli.main import main

    src, mt = _pairs(args.data, args.limit)
    src, mt = src[: args.memory_block], mt[: args.memory_block]
    n = args.pairs
    with tempfile.TemporaryDirectory() as tmp:
        s, m = Path(tmp, "src.en"), Path(tmp, "mt.ru")
        s.write_text("".join(src[i % len(src)] + "\n" for i in range(n)), encoding="utf-8")
        m.write_text("".join(mt[i % len(mt)] + "\n" for i in range(n)), encoding="utf-8")
        t = time.perf_counter()
        code = main(
            [
                "score",
                "-s",
                str(s),
                "-t",
                str(m),
                "--quiet",
                "--format",
                "tsv",
                "-o",
                str(Path(tmp, "out.tsv")),
            ]
        )
        seconds = time.perf_counter() - t
    if code:
        raise SystemExit(f"xlscore score failed with status {code}")
    return {
        "pairs": n,
        "seconds": seconds,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def change_note(
    data: str, limit: int, fast: list[float], exact: list[float], what: str, versus: str = "fp32"
) -> str:
    """How much a fast path changes scores and their agreement with the MQM scores."""
    import numpy as np

    from xlscore.evaluation.agreement import agreement

    rows = _rows(data, limit)
    args = ([r.seg_id for r in rows], [r.system for r in rows], [r.human for r in rows])
    a, b = agreement(*args, fast, n_boot=200), agreement(*args, exact, n_boot=200)
    import scipy.stats

    d = np.abs(np.array(fast) - np.array(exact))
    tau = scipy.stats.kendalltau(fast, exact).statistic
    return (
        f"{what}: largest change {d.max():.4f} (mean {d.mean():.5f}), Kendall between the "
        f"two {tau:.3f}; per-segment Kendall "
        f"with MQM {a['seg_kendall']} vs {b['seg_kendall']} for {versus}, system Kendall "
        f"{a['sys_kendall'].value:+.3f} vs {b['sys_kendall'].value:+.3f}."
    )


def run_child(argv: list[str], env: dict | None = None) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as fh:
        done = subprocess.run(
            [sys.executable, __file__, *argv, "--result", fh.name],
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        if done.returncode:
            tail = "\n".join(done.stderr.strip().splitlines()[-15:])
            sys.exit(f"row {argv[1]} failed (exit status {done.returncode}):\n{tail}")
        return json.loads(Path(fh.name).read_text())


#: every row, in table order
NAMES = [
    "floor-fp32",
    "floor-sdpa",
    "floor-fixed",
    "floor-1thread",
    "onnx",
    "onnx-fixed",
    "floor-bf16",
    "xlscore-multi-auto",
    "xlscore-multi-fp32",
    "compat-fp32",
    "compat-auto",
    "bert_score-32",
    "bert_score-64",
    "floor-default",
    "estimator-auto",
    "estimator-fp32",
    "student-auto",
    "default-auto",
    "default-fp32",
    "default-bf16",
    "default-all-auto",
    "default-score-auto",
    "default-cpu-fp32",
    "replayed-auto",
]
#: the rows the table is built around (the others may be left out)
REQUIRED = {
    "floor-fp32",
    "xlscore-multi-auto",
    "compat-fp32",
    "bert_score-32",
    "bert_score-64",
    "floor-default",
    "estimator-auto",
    "student-auto",
    "default-auto",
    "default-score-auto",
}


def _skipped(name: str, device: str, isa: str, has_onnx: bool) -> bool:
    """Rows that do not apply: ONNX without onnxruntime; ONNX and one thread on a GPU;
    on the emulated AVX2 CPU, whatever is the same as another row there (``auto`` is fp32)
    or means nothing there (bfloat16 emulated in float32)."""
    if name.startswith("onnx") and not has_onnx:
        return True
    if device == "cuda" and (name.startswith("onnx") or name == "floor-1thread"):
        return True
    if name == "default-cpu-fp32" and device != "cuda":
        return True  # the reference a GPU's scores are compared with
    return isa == "avx2" and name in (
        "floor-bf16",
        "default-bf16",
        "compat-auto",
        "estimator-fp32",
        "default-fp32",
        "xlscore-multi-fp32",
    )


def _table(runs: dict, args: argparse.Namespace, isa: str) -> list[str]:
    """The rows of one instruction set's run, with the notes on what the fast paths change."""
    sec = {k: v["seconds"] for k, v in runs.items()}
    bert = min(("bert_score-32", "bert_score-64"), key=lambda k: runs[k]["seconds"])

    def row(label: str, name: str, note: str = "") -> str | None:
        if name not in runs:
            return None
        r = runs[name]
        gpu = f" (GPU {r['gpu_peak_mib']:.0f})" if "gpu_peak_mib" in r else ""
        return (
            f"| {label} | {r['seconds']:.1f} | {r['pairs'] / r['seconds']:.1f} | "
            f"{r['peak_mib']:.0f}{gpu} | {note} |"
        )

    def vs(name: str, base: str = "floor-fp32") -> str:
        return f"{sec[name] / sec[base]:.2f}× the fp32 floor" if name in sec else ""

    def vs_bert(name: str, bold: bool = False) -> str:
        if name not in sec:
            return ""
        ratio = f"{sec[bert] / sec[name]:.2f}"
        return f"{vs(name)}; bert_score/xlscore = " + (f"**{ratio}**" if bold else ratio)

    ort_note = (
        " (ONNX Runtime picks its own kernels: the machine's full instruction set)"
        if isa == "avx2"
        else ""
    )
    floor_rows = [
        ("SDPA attention", "floor-sdpa"),
        ("SDPA, token-budget passes (xlscore's fixed shapes)", "floor-fixed"),
        ("one thread instead of " + str(runs["floor-fp32"]["threads"]), "floor-1thread"),
        ("ONNX Runtime fp32, same batches" + ort_note, "onnx"),
        ("ONNX Runtime fp32, xlscore's fixed shapes" + ort_note, "onnx-fixed"),
        ("bfloat16 autocast, SDPA, token-budget passes", "floor-bf16"),
    ]
    auto = runs["default-auto"]["precision"]
    lines = [
        "| run | seconds | pairs/s | peak RSS (MiB)"
        + (" (GPU: peak allocated)" if runs["floor-fp32"].get("gpu") else "")
        + " | ratio |",
        "| --- | --- | --- | --- | --- |",
        row("floor: e5@9, fp32, eager attention, length-sorted batches of 32", "floor-fp32"),
        *[row("floor: e5@9, " + label, name, vs(name)) for label, name in floor_rows],
        row(
            "xlscore, multilingual e5@9, all words, default precision "
            f"({runs['xlscore-multi-auto']['precision']})",
            "xlscore-multi-auto",
            vs_bert("xlscore-multi-auto", bold=True),
        ),
        row(
            "xlscore, multilingual e5@9, all words, `--dtype fp32`",
            "xlscore-multi-fp32",
            vs_bert("xlscore-multi-fp32"),
        ),
        row("xlscore, bert_score-compatible mode, e5@9, fp32", "compat-fp32", vs("compat-fp32")),
        row(
            "xlscore, bert_score-compatible mode, e5@9, default precision "
            f"({runs['compat-auto']['precision'] if 'compat-auto' in runs else ''})",
            "compat-auto",
            vs("compat-auto"),
        ),
        row(
            "bert_score 0.3.13, same folder, num_layers=9, batch_size=32",
            "bert_score-32",
            vs("bert_score-32"),
        ),
        row(
            "bert_score 0.3.13, same folder, num_layers=9, batch_size=64 (its default)",
            "bert_score-64",
            vs("bert_score-64"),
        ),
        row(
            "floor of the default's models: its estimator's cross-encoder over the pairs"
            + (
                " + e5@9 over both sides (the similarity)"
                if runs["floor-default"].get("sim")
                else ""
            )
            + ", fp32, eager, sorted batches of 32",
            "floor-default",
        ),
        row(f"quality estimator alone ({runs['estimator-auto']['precision']})", "estimator-auto"),
        row(f"quality estimator alone ({runs['estimator-fp32']['precision']})", "estimator-fp32")
        if "estimator-fp32" in runs
        else None,
        row(
            f"the {runs['student-auto'].get('layers', 4)}-layer student, `--estimator "
            f"{args.student}` ({runs['student-auto']['precision']}), score and evidence (one "
            "pass; not the default: it failed the ship gate)",
            "student-auto",
            f"{sec['default-auto'] / sec['student-auto']:.2f}× as fast as the default; "
            f"**{sec[bert] / sec['student-auto']:.2f}× bert_score's pairs/s**",
        ),
        row(
            f"xlscore default ({auto}): `xlscore score` as it runs unless told otherwise "
            "(score and evidence)",
            "default-auto",
            f"{sec['default-auto'] / sec['floor-default']:.2f}× its models' fp32 floor; "
            f"**{sec[bert] / sec['default-auto']:.2f}× bert_score's pairs/s**",
        ),
        row(
            "the default's CPU work alone: its model passes recorded, then replayed (the "
            "ceiling of any faster model or device)",
            "replayed-auto",
            f"{1000 * sec['replayed-auto'] / runs['replayed-auto']['pairs']:.2f} ms per pair; "
            f"{sec['replayed-auto'] / sec['default-auto']:.0%} of the default's time",
        )
        if "replayed-auto" in runs
        else None,
        row(
            "xlscore default, `--dtype fp32`",
            "default-fp32",
            f"{sec['default-fp32'] / sec['floor-default']:.2f}× its models' fp32 floor; "
            f"{sec[bert] / sec['default-fp32']:.2f}× bert_score's pairs/s"
            if "default-fp32" in sec
            else "",
        ),
        row(
            "xlscore default, `--dtype bf16`",
            "default-bf16",
            f"{sec['default-bf16'] / sec['default-auto']:.2f}× the time of {auto}; "
            f"{sec[bert] / sec['default-bf16']:.2f}× bert_score's pairs/s"
            if "default-bf16" in sec
            else "",
        ),
        row(
            f"xlscore default ({auto}), `--fields all` (the paper's columns too)",
            "default-all-auto",
            f"{sec['default-all-auto'] / sec['default-auto']:.2f}× the time of score and "
            f"evidence; {sec[bert] / sec['default-all-auto']:.2f}× bert_score's pairs/s"
            if "default-all-auto" in sec
            else "",
        ),
        row(
            f"xlscore default ({auto}), `--fields score` (what `rank` and `batch` compute)",
            "default-score-auto",
            f"{sec['default-auto'] / sec['default-score-auto']:.2f}× as fast as score and "
            f"evidence; **{sec[bert] / sec['default-score-auto']:.2f}× bert_score's pairs/s**",
        ),
        row(
            "xlscore default on this machine's CPU, fp32 (the reference for the GPU's scores)",
            "default-cpu-fp32",
        ),
        "",
        f"The ratios against bert_score use its faster batch size ({bert.split('-')[1]}). "
        "What the fast paths change, on these pairs (the full agreement study is "
        "`experiments/precision.py`):",
        "",
    ]
    exact = runs.get("xlscore-multi-fp32", runs["xlscore-multi-auto"])["scores"]
    if "xlscore-multi-fp32" in runs:
        lines.append(
            "* "
            + change_note(
                args.data,
                args.limit,
                runs["xlscore-multi-auto"]["scores"],
                exact,
                "multilingual all-words F1, default precision vs fp32",
            )
        )
    default_exact = runs.get("default-fp32", runs["default-auto"])["scores"]
    if "default-fp32" in runs:
        lines.append(
            "* "
            + change_note(
                args.data,
                args.limit,
                runs["default-auto"]["scores"],
                default_exact,
                "default score, auto vs fp32",
            )
        )
    if "default-bf16" in runs:
        lines.append(
            "* "
            + change_note(
                args.data,
                args.limit,
                runs["default-bf16"]["scores"],
                default_exact,
                "default score, `--dtype bf16` vs the default (auto)",
            )
        )
    lines.append(
        "* "
        + change_note(
            args.data,
            args.limit,
            runs["student-auto"]["scores"],
            runs["default-auto"]["scores"],
            f"the student's ({args.student}) score vs the default's, same precision",
            "the default",
        )
    )
    for name, label in (("default-fp32", "fp32"), ("default-auto", auto)):
        if "default-cpu-fp32" in runs and name in runs:
            lines.append(
                "* "
                + change_note(
                    args.data,
                    args.limit,
                    runs[name]["scores"],
                    runs["default-cpu-fp32"]["scores"],
                    f"default score on the GPU ({label}) vs on this machine's CPU (fp32)",
                    "the CPU",
                )
            )
    for other, label in (
        ("default-score-auto", "`--fields score`"),
        ("default-all-auto", "`--fields all`"),
    ):
        if other not in runs:
            continue
        d = max(abs(a - b) for a, b in zip(runs[other]["scores"], runs["default-auto"]["scores"]))
        lines.append(f"* default score, {label} vs score and evidence: largest difference {d:.2e}.")
    return [x for x in lines if x is not None]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    ap.add_argument("--limit", type=int, default=0, help="first N segments only")
    ap.add_argument(
        "--isa",
        default="native,avx2",
        help="instruction sets to measure on, comma-separated: native (the "
        "machine's own) and/or avx2 (a plain AVX2 CPU emulated; default both)",
    )
    ap.add_argument(
        "--memory",
        default="",
        help="pair counts for the memory runs (comma-separated, e.g. 10000,100000; default: none)",
    )
    ap.add_argument(
        "--memory-block",
        type=int,
        default=1000,
        help="the memory runs repeat the first N pairs (default 1000)",
    )
    ap.add_argument(
        "--device",
        default="cpu",
        choices=["cpu", "cuda"],
        help="where every row runs (default cpu; cuda skips ONNX)",
    )
    ap.add_argument(
        "--leave-out",
        default="",
        help="rows not to run, comma-separated (e.g. default-all-auto where the English pack's "
        "weights are not installed)",
    )
    ap.add_argument(
        "--out",
        default="bench",
        help="results file name under experiments/results (default bench; e.g. bench-gpu)",
    )
    ap.add_argument(
        "--student",
        default=STUDENT,
        help=f"the estimator of the student row: a shipped name or a file (default {STUDENT})",
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--pairs", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--paper", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        res = (
            memory_child(args)
            if args.child == "memory"
            else warm(paper=args.paper)
            if args.child == "warm"
            else child(args)
        )
        Path(args.result).write_text(json.dumps(res))
        return

    isas = [x.strip() for x in args.isa.split(",") if x.strip()]
    if not isas or set(isas) - {"native", "avx2"}:
        sys.exit("--isa takes native and/or avx2")
    left_out = {x.strip() for x in args.leave_out.split(",") if x.strip()}
    if left_out - set(NAMES):
        sys.exit(f"--leave-out: unknown rows {sorted(left_out - set(NAMES))}; rows: {NAMES}")
    if left_out & REQUIRED:
        sys.exit(f"--leave-out: the table needs {sorted(left_out & REQUIRED)}")
    common = [
        "--data",
        args.data,
        "--limit",
        str(args.limit),
        "--memory-block",
        str(args.memory_block),
        "--device",
        args.device,
        "--student",
        str(args.student),
    ]
    print("warming the caches (pack conversion, lexicon, dictionary maps)...", flush=True)
    # in a child too: on Linux a child inherits its parent's peak RSS through fork, so the
    # parent must stay small for the children's peaks to be their own
    paper = "default-all-auto" not in left_out
    run_child(["--child", "warm", *common, *(["--paper"] if paper else [])])
    has_onnx = importlib.util.find_spec("onnxruntime") is not None
    by_isa: dict[str, dict] = {}
    for isa in isas:
        env = AVX2_ENV if isa == "avx2" else None
        runs = by_isa[isa] = {}
        for name in NAMES:
            if name in left_out or _skipped(name, args.device, isa, has_onnx):
                continue
            runs[name] = r = run_child(["--child", name, *common], env)
            print(
                f"{isa:6s} {name:20s} {r['pairs']} pairs in {r['seconds']:7.1f} s = "
                f"{r['pairs'] / r['seconds']:6.1f} pairs/s, peak {r['peak_mib']:6.0f} MiB",
                flush=True,
            )
    first = by_isa[isas[0]]
    bert = min(("bert_score-32", "bert_score-64"), key=lambda k: first[k]["seconds"])
    diff = max(
        abs(a - b)
        for x, y in zip(first["compat-fp32"]["scores"], first[bert]["scores"])
        for a, b in zip(x, y)
    )
    mem = []
    for n in [int(x) for x in args.memory.split(",") if x.strip()]:
        mem.append(run_child(["--child", "memory", "--pairs", str(n), *common]))
        print(
            f"memory {n} pairs: {mem[-1]['seconds']:.0f} s, peak {mem[-1]['peak_mib']:.0f} MiB",
            flush=True,
        )

    n_pairs = first["floor-fp32"]["pairs"]
    gpu = first["floor-fp32"]["gpu"]
    lines = [
        f"{n_pairs} pairs (MT systems only); {gpu or cpu_name()}, {os.cpu_count()} CPU cores, "
        f"torch threads {first['floor-fp32']['threads']}. Each row ran in its own process; "
        "model loading is not timed. Floors are forward passes only (unique sentences, the "
        "layers needed).",
    ]
    from xlscore.encoders.arithmetic import AUTO, cpu_kind

    kind = cpu_kind()
    titles = {
        "native": f"## This CPU's own instruction set (kind `{kind}`: `auto` computes in "
        f"{AUTO[kind]})",
        "avx2": "## A plain AVX2 CPU, emulated ("
        + ", ".join(f"`{k}={v}`" for k, v in AVX2_ENV.items())
        + "; `auto` is fp32 there)",
    }
    for isa in isas:
        lines += ["", titles[isa], "", *_table(by_isa[isa], args, isa)]
    lines += [
        "",
        f"bert_score-compatible mode (fp32) against bert_score: largest difference "
        f"in P, R or F1 over {len(first['compat-fp32']['scores'])} pairs = {diff:.2e} "
        "(required: at most 1e-4).",
    ]
    if mem:
        lines += [
            "",
            "Streaming: `xlscore score` (default settings, TSV to a file, chunks of "
            f"10,000 pairs) on the first {args.memory_block} pairs repeated to N pairs:",
            "",
            "| pairs | seconds | peak RSS (MiB) |",
            "| --- | --- | --- |",
        ]
        lines += [f"| {m['pairs']} | {m['seconds']:.0f} | {m['peak_mib']:.0f} |" for m in mem]
        if len(mem) > 1:
            lines += [
                "",
                f"Peak RSS ratio {mem[-1]['pairs']} / {mem[0]['pairs']} pairs: "
                f"{mem[-1]['peak_mib'] / mem[0]['peak_mib']:.2f}.",
            ]
    write_markdown(args.out, "\n".join(lines), title="Speed and memory")
    if diff > 1e-4:
        sys.exit("bert_score-compatible mode differs from bert_score by more than 1e-4")
    for isa, runs in by_isa.items():
        if (
            "replayed-auto" in runs
            and runs["replayed-auto"]["scores"] != runs["default-auto"]["scores"]
        ):
            sys.exit(
                f"{isa}: the replayed run's scores differ from the default's: the replay is wrong"
            )


if __name__ == "__main__":
    main()
