"""Ray for a batch job, offline and quiet: the Ray this process is connected to, a running
cluster, or a local instance started here, with usage statistics off, no dashboard, Ray's
temporary files under one known folder, and for a Ray instance started here an authentication
token kept in this process's environment, never written to the home folder.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from xlscore.errors import XLScoreError
from xlscore.io.pairfiles import Unit


def _import_ray():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
        import ray.data
    except ImportError:
        raise XLScoreError('batch scoring needs Ray Data: pip install "xlscore[ray]"') from None
    return ray


def _user_tag() -> str:
    """Who runs this, for a per-user temporary folder: the numeric user id on POSIX, the
    login name elsewhere (Windows has no ``os.getuid``)."""
    if hasattr(os, "getuid"):
        return str(os.getuid())
    import getpass

    return getpass.getuser()


@contextlib.contextmanager
def ray_session(
    address: str | None = None,
    *,
    cpus: int | None = None,
    temp_dir: str | os.PathLike | None = None,
) -> Iterator[ModuleType]:
    """Ray for a job: the instance this process is already connected to; else ``address``
    (``"auto"``: the running cluster); else a local instance started here (``cpus``: how
    many CPUs it offers, default all) and stopped at the end.

    Offline and quiet: usage statistics off, no dashboard, Ray's temporary files under
    ``temp_dir`` (default ``TMPDIR/xlscore-ray-UID``), and a local instance's authentication
    token in this process's environment only (nothing written to the home folder)."""
    ray = _import_ray()
    if ray.is_initialized():
        yield ray
        return
    import logging

    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
    kwargs: dict = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.WARNING,
        "configure_logging": True,
    }
    if address is None:
        if saved["RAY_AUTH_MODE"] is None and saved["RAY_AUTH_TOKEN"] is None:
            # Ray turns token authentication on for a new local instance and, finding no
            # token, writes one to ~/.ray; a token in the environment is used instead
            os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
        temp = Path(temp_dir or Path(tempfile.gettempdir()) / f"xlscore-ray-{_user_tag()}")
        temp.mkdir(parents=True, exist_ok=True)
        kwargs.update(num_cpus=cpus or os.cpu_count() or 1, _temp_dir=str(temp))
    else:
        kwargs["address"] = address
    # the notice that a local instance uses token authentication is not news to our users
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(
        logging.ERROR
    )
    try:
        ray.init(**kwargs)
    except Exception as err:  # Ray raises ConnectionError, RuntimeError, ValueError ...
        _restore(saved)
        raise XLScoreError(f"cannot start or reach Ray ({address or 'local'}): {err}") from None
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    try:
        yield ray
    finally:
        ray.shutdown()
        _restore(saved)


def _restore(saved: dict) -> None:
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@dataclass(frozen=True)
class Job:
    """What every pass of one batch job reads: the Ray module of its session, the scorer's
    settings, what each actor is handed beside them (``extras``: columns, the estimator's
    bytes, the map), the actors' pool options, the output folder, the job's key, its units
    and whether progress is shown."""

    ray: ModuleType
    config: dict
    extras: dict
    pool: dict
    out: Path
    key: str
    units: Sequence[Unit]
    progress: bool

    @property
    def rows(self) -> int:
        return sum(u.rows for u in self.units)
