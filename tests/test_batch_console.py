"""Ray's own log lines kept off the console during a batch job (:mod:`xlscore.batch.console`)."""

import logging
import os
import sys

from xlscore.batch.console import native_lines_to, ray_data_console_muted, split_native

NOTICE = (
    b"[2026-11-27 16:25:52,887 E 17947 17947] core_worker.cc:2465: Actor with class name: "
    b"'MapWorker' has constructor arguments in the object store and max_restarts > 0.\n"
)
OTHER = b"[2026-11-27 16:25:53,001 E 17947 17990] raylet_client.cc:10: the raylet went away\n"


def test_native_lines_are_cut_out_of_the_bar_and_a_partial_one_is_held_back():
    bar = b"\rscoring:  10%|#         | 40/400"
    console, lines, held = split_native(bar + NOTICE + b"\rscoring:  20%" + OTHER[:30])
    assert console == bar + b"\rscoring:  20%"
    assert lines == [NOTICE]
    assert held == OTHER[:30]
    console, lines, held = split_native(held + OTHER[30:] + b"done\n")
    assert (console, lines, held) == (b"done\n", [OTHER], b"")


def test_native_lines_go_to_the_file_and_the_rest_to_the_console(tmp_path, capfd):
    log = tmp_path / "_ray.log"
    log.write_bytes(b"a line of the last run\n")
    with native_lines_to(log) as kept:
        os.write(2, b"\rscoring:   0%" + NOTICE)
        print("xlscore: from Python", file=sys.stderr)
        os.write(2, OTHER[:40])  # one line in two writes
        os.write(2, OTHER[40:])
    err = capfd.readouterr().err
    assert "scoring:   0%" in err and "xlscore: from Python" in err
    assert "core_worker" not in err and "raylet_client" not in err
    assert log.read_bytes() == NOTICE + OTHER  # the last run's lines are gone
    assert (kept.count, kept.unexpected) == (2, 1)  # the notice is known, the other is not
    os.write(2, b"after the job\n")  # descriptor 2 is the console again
    assert "after the job" in capfd.readouterr().err


def test_ray_data_logs_to_its_file_only_during_the_job(capsys):
    console = logging.StreamHandler(sys.stderr)
    real = logging.getLogger("ray.data")
    real.addHandler(console)
    try:
        with ray_data_console_muted():
            real.error("an exception was raised from a task")
        real.error("after the job")
    finally:
        real.removeHandler(console)
    err = capsys.readouterr().err
    assert "raised from a task" not in err and "after the job" in err
