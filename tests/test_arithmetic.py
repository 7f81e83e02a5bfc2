"""Pass shapes and dtype names (xlscore.encoders.arithmetic)."""

import pytest
import torch

from xlscore import ModelError
from xlscore.encoders.arithmetic import (
    DTYPES,
    WIDTH_STEP,
    autocast_dtype,
    batch_shape,
    padded,
    plan_passes,
    resolve,
)


def test_batch_shape_depends_only_on_the_length():
    assert batch_shape(1) == batch_shape(WIDTH_STEP)
    rows, width = batch_shape(70)
    assert width % WIDTH_STEP == 0 and 70 <= width < 70 + WIDTH_STEP and rows >= 1
    assert batch_shape(10_000, max_length=512)[1] == 512
    assert batch_shape(100, "cuda")[0] > batch_shape(100, "cpu")[0]


def test_passes_cover_every_sequence_once_in_a_plan_that_ignores_input_order():
    lengths = [3, 40, 17, 3, 90, 16, 33, 5] * 20
    passes = plan_passes(lengths, "cpu", 512, key=lambda k: (lengths[k], k % 8))
    members = [k for _, _, m in passes for k in m]
    assert sorted(members) == list(range(len(lengths)))
    for rows, width, m in passes:
        assert 0 < len(m) <= rows and all(batch_shape(lengths[k]) == (rows, width) for k in m)
    # the same sequences in another order get passes of the same shapes and contents
    perm = list(reversed(range(len(lengths))))
    again = plan_passes(
        [lengths[i] for i in perm], "cpu", 512, key=lambda k: (lengths[perm[k]], perm[k] % 8)
    )
    assert [(r, w, len(m)) for r, w, m in again] == [(r, w, len(m)) for r, w, m in passes]


def test_padded_fills_rows_with_copies_and_masks_the_padding():
    ids, mask = padded([[5, 6, 7], [8]], 4, 16, pad=0)
    assert ids.shape == mask.shape == (4, 16)
    assert ids[1, 0] == ids[2, 0] == ids[3, 0] == 8 and mask[1:].sum() == 3
    assert mask[0].tolist() == [1, 1, 1] + [0] * 13


def test_dtype_names_resolve():
    cpu = torch.device("cpu")
    assert resolve("auto", cpu) == ("bf16" if autocast_dtype(cpu) is not None else "fp32")
    for name in DTYPES[1:]:
        if name != "int8":  # refused: tests/test_auto_dtype.py
            assert resolve(name, cpu) == name
    with pytest.raises(ModelError, match="unknown dtype"):
        resolve("fp8", cpu)
