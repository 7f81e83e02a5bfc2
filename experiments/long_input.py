"""Time and peak memory of one very long pair (issue 62): the demo's sources and first engine's
translations joined into one line each and repeated to the size asked, scored by the offline
default with the command line's fields (score and evidence).

    python experiments/long_input.py --kb 100 --out long-input

Each size runs in a fresh process, so that its peak resident memory is its own; the first
figure is the memory with the models loaded and one short pair scored, before the long one.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo"


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(kb: int) -> dict:
    """Score one pair of about ``kb`` kilobytes a side; its seconds and peak memory."""
    from xlscore import XLScorer
    from xlscore.errors import LongInputWarning

    src = " ".join((DEMO / "source.en").read_text(encoding="utf-8").split("\n"))
    mt = " ".join((DEMO / "engine1.ru").read_text(encoding="utf-8").split("\n"))
    n = kb * 1000
    source = ((src + " ") * (n // len(src) + 1))[:n]
    translation = ((mt + " ") * (n // len(mt) + 1))[:n]
    scorer = XLScorer.offline(fields=("score", "evidence"))
    scorer.score(["Hello world."], ["Привет, мир."])
    loaded = _peak_mb()
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = scorer.score([source], [translation])[0]
    return {
        "kb": kb,
        "seconds": time.perf_counter() - t0,
        "loaded_mb": loaded,
        "peak_mb": _peak_mb(),
        "score": result.score,
        "warnings": [str(w.message) for w in seen if issubclass(w.category, LongInputWarning)],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", default="1,10,100", help="sizes, comma-separated (kilobytes a side)")
    ap.add_argument("--out", help="write experiments/results/OUT.md")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child)))
        return
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in subprocess.run(
                ["lscpu"], capture_output=True, text=True
            ).stdout.splitlines()
            if line.startswith("Model name")
        ),
        platform.processor(),
    )
    rows = []
    for kb in (int(k) for k in args.kb.split(",")):
        run = subprocess.run(
            [sys.executable, __file__, "--child", str(kb)], capture_output=True, text=True
        )
        if run.returncode:
            raise SystemExit(run.stderr[-2000:])
        rows.append(json.loads(run.stdout.strip().splitlines()[-1]))
    lines = [
        f"# One very long pair (issue 62)\n\n`python experiments/long_input.py --kb {args.kb}`, "
        f"{cpu}, the offline default with the CLI's fields (score, evidence).\n",
        "| size a side | seconds | peak memory | of which the loaded models | score |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['kb']} kB | {r['seconds']:.1f} | {r['peak_mb'] / 1024:.2f} GB "
            f"| {r['loaded_mb'] / 1024:.2f} GB | {r['score']:+.4f} |"
        )
    said = sorted({w for r in rows for w in r["warnings"]})
    lines += ["", "Warnings:", "", *[f"* {w}" for w in said]]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        (ROOT / "experiments" / "results" / f"{args.out}.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
