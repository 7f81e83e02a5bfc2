"""Writing experiment results: Markdown (and CSV) under experiments/results/, each file
headed by the command that made it."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import os
import re
import shlex
import sys
from pathlib import Path

#: where every result file is written, tools and the record alike (not beside this file)
RESULTS = Path(__file__).resolve().parent.parent / "experiments" / "results"
#: the section of ``estimator.md`` that ``recipes.py`` writes (and ``estimator.py report`` keeps)
RECIPES_SECTION = "## Recipes on the talks"
#: the environment that holds every PyTorch kernel library to AVX2 (a plain x86 CPU)
AVX2_ENV = {
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
    "FBGEMM_ENABLE_INSTRUCTIONS": "AVX2",
}


def code_digest() -> str:
    """A short digest of the package's Python source: the key under which results computed
    by the package's code (challenge-set wins, similarities) may be cached, so that a change
    of a rule never reuses figures of the old one."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent / "xlscore"
    for path in sorted(package.rglob("*.py")):
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def cpu_name() -> str:
    """The CPU's model name and its relevant instruction sets (from /proc/cpuinfo)."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown CPU"
    model = next(
        (x.split(":", 1)[1].strip() for x in info.splitlines() if x.startswith("model name")),
        "unknown CPU",
    )
    flags = set(
        next((x.split(":", 1)[1].split() for x in info.splitlines() if x.startswith("flags")), [])
    )
    isa = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16") if f in flags]
    return f"{model} ({', '.join(isa) or 'no AVX2'})"


def command_line() -> str:
    """The command that is running, as one could type it again from the repository root
    (with the emulation variables of :data:`AVX2_ENV` in front when they are set)."""
    script = Path(sys.argv[0])
    with contextlib.suppress(ValueError):
        script = script.resolve().relative_to(Path.cwd())
    env = [f"{k}={shlex.quote(os.environ[k])}" for k in AVX2_ENV if k in os.environ]
    return " ".join(
        env + ["python", shlex.quote(str(script))] + [shlex.quote(a) for a in sys.argv[1:]]
    )


def write_markdown(name: str, body: str, *, title: str) -> Path:
    """Write ``experiments/results/<name>.md`` and echo it to standard output."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    text = f"# {title}\n\nMade by `{command_line()}`.\n\n{body.rstrip()}\n"
    path = RESULTS / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    print(text)
    return path


def write_csv(name: str, header: list[str], rows: list[list]) -> Path:
    """Write ``experiments/results/<name>.csv``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def into_estimator_md(heading: str, body: str) -> None:
    """``body`` as ``estimator.md``'s section ``heading`` (a ``## `` line; the section is
    replaced when there, else appended; its own subsections use ``###``). Sections from
    :data:`RECIPES_SECTION` on are kept when ``estimator.py report`` rewrites the file."""
    f = RESULTS / "estimator.md"
    text = f.read_text(encoding="utf-8")
    section = f"{heading}\n\nMade by `{command_line()}`.\n\n{body}\n"
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text + "\n" + section
    f.write_text(text, encoding="utf-8")
