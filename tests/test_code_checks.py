"""The checks the project runs on its own code, as tests so that CI (which runs the README's
test command) runs them: ruff's lint rules and formatter (configured in pyproject.toml) and
mypy on the package (mypy.ini). The same commands run as pre-commit hooks
(.pre-commit-config.yaml)."""

import subprocess
import sys

import pytest
from conftest import ROOT


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=900
    )


def test_ruff_finds_nothing():
    r = _run("ruff", "check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_formatter_has_nothing_to_change():
    r = _run("ruff", "format", "--check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
def test_mypy_finds_no_type_error_in_the_package():
    r = _run("mypy", "--no-incremental")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout
