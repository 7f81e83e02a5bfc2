"""The console script, end to end through a subprocess."""
import subprocess
import sys

import numpy as np

from conftest import DEMO


def xlscore(*args, stdin=None):
    """Run the installed ``xlscore`` console script; returns the completed process."""
    exe = [sys.executable, "-m", "xlscore.cli"]
    return subprocess.run(exe + list(args), input=stdin, capture_output=True, text=True,
                          timeout=600)


def test_embed_prints_words_and_saves_vectors(tmp_path):
    out = tmp_path / "v.npz"
    r = xlscore("embed", str(DEMO / "engine1.ru"), "--quiet", "-o", str(out))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("# Encoder('pack:e5-small', layer=9/12")
    assert lines[1] == "1\t9\tИз - за шторма музей откроется в понедельник ."
    data = np.load(out, allow_pickle=False)
    assert data["vectors"].shape == (data["offsets"][-1], 384) and len(data["offsets"]) == 13


def test_embed_errors_are_one_line_with_status_2(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("ok\nstra\xdfe\n".encode("latin-1"))
    cases = [
        ((str(tmp_path / "missing.txt"),), "missing.txt: no such file"),
        ((str(bad),), "latin1.txt, line 2: invalid UTF-8"),
        ((str(DEMO / "engine1.ru"), "--model", "pack:nope"), "unknown pack 'pack:nope'"),
        ((str(DEMO / "engine1.ru"), "--layer", "40"), "layer 40 is out of range"),
    ]
    for args, message in cases:
        r = xlscore("embed", *args)
        assert r.returncode == 2, (args, r.stderr)
        assert message in r.stderr and r.stderr.count("\n") == 1, r.stderr
        assert "Traceback" not in r.stderr
