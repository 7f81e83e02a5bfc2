"""The default, the student and the bert_score-compatible mode on a GPU against the same
machine's CPU in fp32, on the first 3 newstest segments (42 pairs): the largest differences.

    DEVICE=cuda python experiments/device_smoke.py ../shared/data/wmt21-enru-mqm-newstest2021.tsv
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    import torch
    from bench import _pairs

    from xlscore import Encoder, XLScorer, bert_score_compatible

    dev = os.environ.get("DEVICE", "cuda")
    print("torch", torch.__version__, "cuda", torch.cuda.is_available(), flush=True)
    src, mt = _pairs(sys.argv[1], 3)
    for est in ("default", "st4-e5s"):
        got = {}
        for d, p in (("cpu", "fp32"), (dev, "fp32"), (dev, "auto")):
            t = time.perf_counter()
            s = XLScorer.offline(fields="score,evidence", device=d, precision=p, estimator=est)
            got[d, p] = [r.score for r in s.score(src, mt)]
            print(est, d, p, f"{time.perf_counter() - t:.1f} s", s.signature()[:90], flush=True)
        ref = got["cpu", "fp32"]
        for k, v in got.items():
            diff = max(abs(a - b) for a, b in zip(v, ref))
            print(est, k, "max |diff| vs cpu fp32:", diff, flush=True)
    e = Encoder.load("pack:e5-small", layer=9, device=dev, precision="fp32")
    c = Encoder.load("pack:e5-small", layer=9, device="cpu", precision="fp32")
    a, b = bert_score_compatible(mt, src, e), bert_score_compatible(mt, src, c)
    print("compat max |diff|:", max(abs(x.f1 - y.f1) for x, y in zip(a, b)), flush=True)


if __name__ == "__main__":
    main()
