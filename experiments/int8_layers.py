"""Where does int8 lose accuracy? e5@9's all-words F1 with some of its linear layers quantized.

    python experiments/int8_layers.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv

Dynamic int8 quantization (PyTorch, FBGEMM) of e5-small changes the multilingual all-words F1
of newstest pairs by up to about 0.1 (``precision.md``). This quantizes one group of linear
layers at a time (per-tensor or per-channel weight scales; by kind: query, key, value,
attention output, feed-forward in and out; by layer) and reports the change of F1 against
float32 over the first ``--pairs`` MT pairs: the largest, the mean absolute and the mean signed
change (a negative mean: similarities drop across the board), and the seconds of the run
beside float32's (the faster of two runs, interleaved). Run it with ``_results.AVX2_ENV`` set to
time a plain AVX2 CPU. Writes experiments/results/int8_layers.md (``--output NAME``).
"""

from __future__ import annotations

import argparse
import copy
import time
import warnings

import torch
from _results import cpu_name, write_markdown

from xlscore import Encoder
from xlscore.evaluation.agreement import read_judgments
from xlscore.metric.bertscore import score_pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    ap.add_argument("--pairs", type=int, default=400, help="first N MT pairs (default 400)")
    ap.add_argument("--output", default="int8_layers", help="results file name (no .md)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import torch.ao.quantization as q

    rows = read_judgments(args.data)[: args.pairs]
    src, mt = [r.source for r in rows], [r.translation for r in rows]
    enc = Encoder.load("pack:e5-small", layer=9, precision="fp32")
    model0 = enc.model

    def f1(model) -> tuple[torch.Tensor, float]:
        enc.model = model
        t = time.perf_counter()
        a = [w.vectors for w in enc.embed_words(mt)]
        b = [w.vectors for w in enc.embed_words(src)]
        seconds = time.perf_counter() - t
        enc.model = model0
        return score_pairs(a, b)[2], seconds

    names = [
        n
        for n, m in model0.named_modules()
        if isinstance(m, torch.nn.Linear)
        and ".layer." in n
        and int(n.split(".layer.")[1].split(".")[0]) < 9
    ]
    kinds = {
        "query": "attention.self.query",
        "key": "attention.self.key",
        "value": "attention.self.value",
        "attention output": "attention.output.dense",
        "feed-forward in": "intermediate.dense",
        "feed-forward out": "output.dense",
    }

    def of_kind(suffix: str) -> list[str]:
        return [
            n
            for n in names
            if n.endswith(suffix) and (suffix != "output.dense" or "attention" not in n)
        ]

    attention = [
        n for k in ("query", "key", "value", "attention output") for n in of_kind(kinds[k])
    ]
    groups = {
        "every linear layer, per-tensor scales": (names, q.default_dynamic_qconfig),
        "every linear layer, per-channel scales": (names, q.per_channel_dynamic_qconfig),
        "attention only (feed-forward in float), per-channel": (
            attention,
            q.per_channel_dynamic_qconfig,
        ),
    }
    for kind, suffix in kinds.items():
        groups[f"{kind} only, per-channel"] = (of_kind(suffix), q.per_channel_dynamic_qconfig)
    for layer in range(9):
        groups[f"layer {layer} only, per-channel"] = (
            [n for n in names if f".layer.{layer}." in n],
            q.per_channel_dynamic_qconfig,
        )

    ref, _ = f1(model0)
    timed = {
        "every linear layer, per-tensor scales",
        "every linear layer, per-channel scales",
        "attention only (feed-forward in float), per-channel",
    }
    lines = [
        "| quantized | largest change | mean abs change | mean change | seconds (float32 beside) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for label, (members, qconfig) in groups.items():
        model = q.quantize_dynamic(
            copy.deepcopy(model0), dict.fromkeys(members, qconfig), dtype=torch.qint8
        )
        got, seconds = f1(model)
        speed = ""
        if label in timed:  # the faster of two interleaved runs of each
            runs = [(f1(model)[1], f1(model0)[1]) for _ in range(2)]
            speed = f"{min(min(r[0] for r in runs), seconds):.1f} ({min(r[1] for r in runs):.1f})"
        d = got - ref
        lines.append(
            f"| {label} | {d.abs().max():.4f} | {d.abs().mean():.4f} | {d.mean():+.4f} | {speed} |"
        )
        print(lines[-1], flush=True)
    write_markdown(
        args.output,
        "\n".join(
            [
                f"{len(rows)} newstest2021 MT pairs; F1 of e5@9 over all words; change against "
                f"float32. {cpu_name()}, kernels at {torch.backends.cpu.get_cpu_capability()}, "
                f"{torch.get_num_threads()} threads.",
                "",
                *lines,
            ]
        ),
        title="int8: which layers lose accuracy",
    )


if __name__ == "__main__":
    main()
