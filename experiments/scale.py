"""Scale-out: the same pairs scored by ``xlscore score`` (one process) and by ``xlscore batch``
on a local Ray with 1 and with 2 workers, side by side in one run on this machine.

    python experiments/scale.py --data-dir ../shared/data --pairs 20000

The pairs: every MT translation of WMT21 newstest2021 en-ru (14 systems x 527 sources), then
WMT19 QE IT-domain pairs (train) until ``--pairs``. Each configuration runs in a fresh child
process with the default scorer (the trained estimator plus the paper's anchors with a
corpus-fitted map, so both read the data twice: fit, then score), end to end: models loaded,
Ray started, files read and written. Reported: wall time, rows/s, the ratio to ``score``,
peak resident memory of the process (``score``) or of each Ray worker and the driver
(``batch``), each worker's peak memory after each of its units (flat memory: streaming),
and the largest difference of any score from ``xlscore score``'s.

Writes experiments/results/scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

from _results import write_markdown


def build_pairs(data_dir: Path, n: int, work: Path) -> int:
    """Write ``pairs.jsonl`` (for batch) and ``src.txt``/``mt.txt`` (for score)."""
    from xlscore.io.judgments import read_judgments

    rows = [
        (j.source, j.translation)
        for j in read_judgments(data_dir / "wmt21-enru-mqm-newstest2021.tsv")
    ]
    rows += [
        (j.source, j.translation) for j in read_judgments(data_dir / "wmt19-enru-qe-it" / "train")
    ]
    rows = [(" ".join(s.split()), " ".join(t.split())) for s, t in rows][:n]
    if len(rows) < n:
        raise SystemExit(f"only {len(rows)} pairs in the data")
    # shuffled (fixed seed), so that every unit holds the same mix of news and IT and the
    # memory of a worker over time is not confounded with a change of domain
    random.Random(0).shuffle(rows)
    work.mkdir(parents=True, exist_ok=True)
    with open(work / "pairs.jsonl", "w", encoding="utf-8") as fh:
        for s, t in rows:
            fh.write(json.dumps({"source": s, "translation": t}, ensure_ascii=False) + "\n")
    (work / "src.txt").write_text("".join(s + "\n" for s, _ in rows), encoding="utf-8")
    (work / "mt.txt").write_text("".join(t + "\n" for _, t in rows), encoding="utf-8")
    return len(rows)


def child(kind: str, work: Path, workers: int) -> None:
    """One measured run, in this (fresh) process; prints a JSON line."""
    t0 = time.perf_counter()
    out: dict = {"kind": kind, "workers": workers}
    if kind == "score":
        from xlscore.cli.main import main

        main(
            [
                "score",
                "-s",
                str(work / "src.txt"),
                "-t",
                str(work / "mt.txt"),
                "--format",
                "json",
                "-o",
                str(work / "score.jsonl"),
                "--quiet",
            ]
        )
    else:
        from xlscore.batch.distributed import score_dataset

        s = score_dataset(
            work / "pairs.jsonl", work / f"batch{workers}", workers=workers, overwrite=True
        )
        seen: dict[int, list[float]] = {}
        for r in s.reports:  # in the order the driver received them
            seen.setdefault(r.worker_pid, []).append(r.peak_rss_mb)
        out.update(
            workers_peak_mb={str(p): max(v) for p, v in seen.items()},
            workers_trace_mb={str(p): v for p, v in seen.items()},
            units_per_worker={str(p): len(v) for p, v in seen.items()},
            signature=s.signature,
        )
    out["seconds"] = time.perf_counter() - t0
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(out))


def run(kind: str, work: Path, workers: int = 0) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--child",
        kind,
        "--work",
        str(work),
        "--workers",
        str(workers),
    ]
    r = subprocess.run(
        cmd, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"}
    )
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT ")), None)
    if r.returncode or line is None:
        raise SystemExit(f"{kind} failed:\n{r.stderr[-3000:]}")
    return json.loads(line[7:])


def compare(work: Path, workers: int) -> tuple[float, int]:
    """Largest |score difference| between batch and score over all pairs, and pairs seen."""
    import pyarrow.parquet as pq

    local = [json.loads(x) for x in (work / "score.jsonl").read_text().splitlines()[1:]]
    local = [d for d in local if "segment" in d]
    table = pq.read_table(work / f"batch{workers}").to_pylist()
    worst = 0.0
    for d in table:
        line = int(d["id"].rsplit(":", 1)[1])
        ref = local[line - 1]
        for col in ("score", "f1", "estimate"):
            worst = max(worst, abs(d[col] - ref[col]))
    return worst, len(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    ap.add_argument("--pairs", type=int, default=20_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/xlscore-scale"))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.work, args.workers)
        return
    n = build_pairs(args.data_dir, args.pairs, args.work)
    # warm the caches (converted pack, lexicon, dictionary map) outside the timings
    from xlscore import XLScorer

    XLScorer.offline().score(["A test."], ["Проверка."])
    results = [run("score", args.work)]
    for w in (1, 2):
        results.append(run("batch", args.work, w))
    base = results[0]["seconds"]
    rows = [
        "| run | wall s | rows/s | time vs score | peak memory (MB) | largest score "
        "difference from score |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        if r["kind"] == "score":
            label, diff = "`xlscore score` (one process, 2 threads)", "—"
            mem = f"{r['peak_mb']:.0f}"
        else:
            worst, seen = compare(args.work, r["workers"])
            if seen != n:
                raise SystemExit(f"batch with {r['workers']} workers wrote {seen} rows, not {n}")
            label = f"`xlscore batch --workers {r['workers']}` ({2 // r['workers']} thread(s) each)"
            diff = f"{worst:.1e}"
            mem = (
                "workers "
                + ", ".join(f"{v:.0f}" for v in r["workers_peak_mb"].values())
                + f"; driver {r['peak_mb']:.0f}"
            )
        rows.append(
            f"| {label} | {r['seconds']:.0f} | {n / r['seconds']:.1f} | "
            f"{r['seconds'] / base:.2f}x | {mem} | {diff} |"
        )
    flat = ["| run | worker | units | peak RSS after each of its units (MB) |", "|---|---|---|---|"]
    for r in results[1:]:
        for pid, trace in r["workers_trace_mb"].items():
            flat.append(
                f"| {r['workers']} worker(s) | pid {pid} | {r['units_per_worker'][pid]}"
                f" | {', '.join(f'{v:.0f}' for v in trace)} |"
            )
    cpu = os.cpu_count()
    body = (
        f"{n:,} pairs ({min(n, 7378):,} newstest2021 MT outputs, the rest WMT19 IT, "
        f"shuffled), "
        f"default scorer, on this machine ({cpu} CPUs, no GPU). Each run is a fresh "
        f"process, timed end to end (models loaded, Ray started, files read and "
        f"written); both read the data twice (fit the corpus map, then score).\n\n"
        + "\n".join(rows)
        + "\n\nMemory per worker as the job goes (2,000-row units; the "
        "peak resident memory of the process so far, as each unit ends):\n\n"
        + "\n".join(flat)
        + f"\n\nSignature: `{results[-1]['signature']}`\n"
    )
    write_markdown("scale", body, title="Scale-out: xlscore score vs xlscore batch on Ray")


if __name__ == "__main__":
    main()
