"""The default's CPU work per pair, this checkout against another commit, side by side on one
machine: everything but the model passes (tokenising, words of both sides, anchors, rule
checks, evidence, word errors and spans), the passes recorded on a first run and answered from
the record (``bench.py``'s replay), one thread.

    python tools/cpu_work.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv \
        --against 741bb7e --rounds 4

The other commit is checked out in a temporary git worktree and imported from there; the two
alternate round by round, each round a fresh process, so that the machine's drift falls on both.
A round scores the pairs three times after the recording run and keeps its best; it reports
process CPU time (the tokenizer's own threads included, the time a busy host takes from the
virtual CPU not) and wall time. "Warm" keeps what the first runs left in the package's caches of
words, names and translations; "cold" empties the package's caches before each timed run, as a
single run over new text finds them. The scores of the two must be equal (exit 1 otherwise).

Writes experiments/results/cpu-work.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _results import cpu_name, write_markdown

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOURCES = 100  # the first 100 newstest sources, 14 engines each


def child(data: str, repeat: int) -> dict:
    """One round in this process: the best of ``repeat`` timed runs, warm and cold."""
    import functools
    import time
    import warnings

    import torch

    sys.path.insert(0, str(HERE))
    from bench import DEFAULT_FIELDS, _pairs, _replayed

    import xlscore
    from xlscore import XLScorer

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    src, mt = _pairs(data, SOURCES)
    scorer = XLScorer.offline(fields=DEFAULT_FIELDS)
    _replayed(scorer, src, mt)

    def clear() -> None:
        """Empty the package's module-level caches (the lexicon and models stay loaded)."""
        for name, module in list(sys.modules.items()):
            if name.startswith("xlscore"):
                for value in list(vars(module).values()):
                    if isinstance(value, functools._lru_cache_wrapper):
                        params = value.cache_parameters()
                        if params["maxsize"] is None or params["maxsize"] > 1:
                            value.cache_clear()

    out: dict = {"pairs": len(src), "package": str(Path(xlscore.__file__).parent)}
    for mode in ("warm", "cold"):
        cpu, wall = [], []
        for _ in range(repeat):
            if mode == "cold":
                clear()
            c, w = time.process_time(), time.perf_counter()
            results = scorer.score(src, mt)
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
        out[mode] = {"cpu": min(cpu), "wall": min(wall)}
    out["scores"] = [r.score for r in results]
    return out


def run_round(data: str, repeat: int, path: str | None) -> dict:
    """A round in a fresh process, importing the package from ``path`` (None: this one)."""
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.NamedTemporaryFile(suffix=".json") as fh:
        cmd = [sys.executable, __file__, "--data", data, "--repeat", str(repeat)]
        subprocess.run([*cmd, "--child", fh.name], check=True, env=env, cwd=ROOT)
        return json.loads(Path(fh.name).read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    ap.add_argument("--against", help="the commit to compare with (e.g. 741bb7e)")
    ap.add_argument("--rounds", type=int, default=4, help="rounds of each (default 4)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per round (default 3)")
    ap.add_argument("--out", default="cpu-work", help="results file name (default cpu-work)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        Path(args.child).write_text(json.dumps(child(args.data, args.repeat)))
        return
    if not args.against:
        ap.error("--against COMMIT is required")

    commit = subprocess.run(
        ["git", "rev-parse", "--short", args.against],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        tree = str(Path(tmp) / "tree")
        subprocess.run(["git", "worktree", "add", "-q", "--detach", tree, commit], check=True)
        try:
            runs: dict[str, list[dict]] = {commit: [], "this checkout": []}
            for k in range(args.rounds):
                for name, path in ((commit, tree), ("this checkout", None)):
                    res = run_round(args.data, args.repeat, path)
                    if path and not res["package"].startswith(path):
                        sys.exit(f"the round of {commit} imported {res['package']}")
                    runs[name].append(res)
                    print(
                        f"round {k + 1} {name}: warm {res['warm']['cpu']:.3f} s CPU, "
                        f"cold {res['cold']['cpu']:.3f} s CPU",
                        flush=True,
                    )
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", tree], check=True)

    pairs = runs[commit][0]["pairs"]
    same = all(r["scores"] == runs[commit][0]["scores"] for rs in runs.values() for r in rs)
    lines = [
        f"{pairs} pairs (the first {SOURCES} sources of `{Path(args.data).name}`); "
        f"{cpu_name()}; one torch thread; {args.rounds} rounds of each, alternating, each "
        f"the best of {args.repeat} timed runs. Medians over the rounds, in ms per pair.",
        "",
        "| code | warm: CPU time | warm: wall | cold: CPU time | cold: wall |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    median: dict[str, dict[str, float]] = {}
    for name, rs in runs.items():
        median[name] = {
            f"{mode}-{clock}": statistics.median(r[mode][clock] for r in rs) * 1000 / pairs
            for mode in ("warm", "cold")
            for clock in ("cpu", "wall")
        }
        m = median[name]
        lines.append(
            f"| {name if name != commit else 'commit ' + commit} | {m['warm-cpu']:.3f} | "
            f"{m['warm-wall']:.3f} | {m['cold-cpu']:.3f} | {m['cold-wall']:.3f} |"
        )
    ratio = {k: median["this checkout"][k] / median[commit][k] for k in median[commit]}
    lines += [
        "",
        "This checkout's time as a share of commit "
        f"{commit}'s: warm {ratio['warm-cpu']:.2f} (CPU time), {ratio['warm-wall']:.2f} "
        f"(wall); cold {ratio['cold-cpu']:.2f}, {ratio['cold-wall']:.2f}.",
        "",
        f"Scores of every run equal: {'yes' if same else '**no**'}.",
    ]
    write_markdown(args.out, "\n".join(lines), title="The default's CPU work, side by side")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
