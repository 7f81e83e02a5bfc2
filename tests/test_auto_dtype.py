"""``auto`` by the kind of CPU, and int8 refused with the reason (issue 83)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

from xlscore.encoders import arithmetic
from xlscore.errors import ModelError


@pytest.mark.parametrize("kind", arithmetic.CPU_KINDS)
def test_auto_picks_what_the_table_says_for_each_kind(monkeypatch, kind):
    monkeypatch.setattr(arithmetic, "cpu_kind", lambda: kind)
    cpu = torch.device("cpu")
    assert arithmetic.resolve("auto", cpu) == arithmetic.AUTO[kind]
    assert (arithmetic.autocast_dtype(cpu) is not None) == (arithmetic.AUTO[kind] == "bf16")
    assert arithmetic.resolve("bf16", cpu) == "bf16"  # an explicit choice is kept


def test_scoring_and_training_read_the_kind_apart(monkeypatch):
    """No arithmetic has passed the gate for scoring (bfloat16 missed it, int8 failed), so
    ``auto`` scores in float32 even with AMX; training still uses AMX's bfloat16."""
    assert set(arithmetic.AUTO) == set(arithmetic.CPU_KINDS)
    cpu = torch.device("cpu")
    monkeypatch.setattr(arithmetic, "cpu_kind", lambda: "amx")
    assert arithmetic.resolve("auto", cpu) == "fp32"
    assert arithmetic.training_dtype(cpu) == torch.bfloat16
    monkeypatch.setattr(arithmetic, "cpu_kind", lambda: "avx512-bf16")
    assert arithmetic.training_dtype(cpu) is None  # slower than float32 there


@pytest.mark.parametrize(
    ("env", "kind"),
    [({}, None), ({"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}, "avx2")],
)
def test_the_kind_is_read_as_the_kernels_see_it(env, kind):
    """Held to AVX2 (as a plain CPU is emulated), an AVX-512 CPU counts as a plain one and
    ``auto`` is float32 there."""
    code = (
        "import json, torch; from xlscore.encoders import arithmetic as a; "
        "print(json.dumps([a.cpu_kind(), a.resolve('auto', torch.device('cpu'))]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    got, dtype = json.loads(out.stdout.strip().splitlines()[-1])
    assert got in arithmetic.CPU_KINDS and got == (kind or arithmetic.cpu_kind())
    assert dtype == arithmetic.AUTO[got]


def test_int8_is_refused_with_the_gates_reason(unigram_dir):
    from xlscore import Encoder
    from xlscore.estimator.model import QualityEstimator

    for load in (
        lambda: Encoder.load(unigram_dir, dtype="int8"),
        lambda: QualityEstimator.load("default", dtype="int8"),
        lambda: arithmetic.resolve("int8", torch.device("cpu")),
    ):
        with pytest.raises(ModelError, match="int8 did not pass the ship gate") as err:
            load()
        assert "gate-int8.md" in str(err.value) and "fp32" in str(err.value)


def test_the_command_line_refuses_int8_with_its_reason(tmp_path):
    from conftest import run_cli

    (tmp_path / "a.en").write_text("The cat sat.\n", encoding="utf-8")
    (tmp_path / "b.ru").write_text("Кошка сидела.\n", encoding="utf-8")
    done = run_cli("score", "-s", str(tmp_path / "a.en"), "-t", str(tmp_path / "b.ru"),
                   "--dtype", "int8")  # fmt: skip
    assert done.returncode != 0
    assert "int8 did not pass the ship gate" in done.stderr
    assert "Traceback" not in done.stderr
