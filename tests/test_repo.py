"""The repository's promises: README commands, CI script, demo data."""

import re
import subprocess

from conftest import DEMO, ROOT, read_demo

QUALITIES = ["good", "meaning", "omission", "literal"]


def readme_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)


def test_ci_runs_the_readme_test_command():
    setup_and_run, setup_and_test = readme_commands()[:2]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert setup_and_test.strip() in ci.splitlines()
    assert "pytest" in setup_and_test and "torch==2.13.0" in setup_and_test
    assert "torch==2.13.0" in setup_and_run and '".[offline]"' in setup_and_run
    # the main job needs pip only: no system package, no root (issue 24)
    assert "apt-get" not in setup_and_run and "sudo" not in setup_and_run


def test_demo_files_agree_with_the_table():
    rows = read_demo()
    assert len(rows) == 48
    by_id = {}
    for r in rows:
        by_id.setdefault(int(r["id"]), {})[r["quality"]] = r
    assert all(sorted(q) == sorted(QUALITIES) for q in by_id.values())
    rank = {"good": "1", "literal": "2", "omission": "3", "meaning": "4"}
    assert all(r["intended_rank"] == rank[r["quality"]] for r in rows)
    sources = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()
    engines = [
        (DEMO / f"engine{k}.ru").read_text(encoding="utf-8").splitlines() for k in range(1, 5)
    ]
    assert len(sources) == 12 and all(len(e) == 12 for e in engines)
    for i, src in enumerate(sources, start=1):
        assert by_id[i]["good"]["source"] == src
        for k, lines in enumerate(engines):
            assert lines[i - 1] == by_id[i][QUALITIES[(k + i) % 4]]["translation"]


def test_the_files_tracked_at_head_stay_under_30_mb():
    """A clone stays light (issue 85): fold predictions are committed compressed
    (``experiments/results/folds/**/*.tsv.xz``), full weights never; git keeps the history."""
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    files = [ROOT / name for name in out.split("\0") if name]
    assert len(files) > 100  # a checkout, not an empty listing
    total = sum(f.stat().st_size for f in files if f.is_file())
    assert total < 30 * 2**20, f"{total / 2**20:.1f} MiB tracked"
    assert not [f for f in files if f.suffix == ".tsv" and "results/folds" in f.as_posix()]
