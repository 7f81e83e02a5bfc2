"""Writing experiment results: Markdown (and CSV) under experiments/results/, each file
headed by the command that made it."""
from __future__ import annotations

import csv
import shlex
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def command_line() -> str:
    """The command that is running, as one could type it again from the repository root."""
    script = Path(sys.argv[0])
    try:
        script = script.resolve().relative_to(Path.cwd())
    except ValueError:
        pass
    return " ".join(["python", shlex.quote(str(script))] + [shlex.quote(a) for a in sys.argv[1:]])


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
