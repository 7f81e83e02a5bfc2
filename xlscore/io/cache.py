"""The user cache: where converted packs, dictionaries and fitted maps live.

Everything written here is built in a temporary sibling and renamed into place, carries a
manifest of SHA-256 digests, and is verified before use: a half-written or corrupted entry is
discarded and rebuilt, never trusted. A file lock keeps two processes from building the same
entry at once (the second waits and then reuses the first one's result).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock
from platformdirs import user_cache_dir

MANIFEST = "xlscore-manifest.json"
_SAFE_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def cache_dir() -> Path:
    """Root of xlscore's cache: ``$XLSCORE_CACHE``, else platformdirs' user cache folder for
    ``xlscore`` (``$XDG_CACHE_HOME/xlscore`` or ``~/.cache/xlscore`` on Linux,
    ``~/Library/Caches/xlscore`` on macOS, ``%LOCALAPPDATA%\\xlscore\\Cache`` on Windows)."""
    env = os.environ.get("XLSCORE_CACHE")
    root = Path(env).expanduser() if env else Path(user_cache_dir("xlscore", appauthor=False))
    root.mkdir(parents=True, exist_ok=True)
    return root


def entry_path(kind: str, key: str) -> Path:
    """Path of cache entry ``key`` under folder ``kind``. Keys are plain names, so that no input
    can point a write outside the cache."""
    for part in (kind, key):
        if not _SAFE_KEY.match(part) or ".." in part:
            raise ValueError(f"unsafe cache key {part!r}")
    return cache_dir() / kind / key


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path, meta: dict | None = None) -> None:
    """Record size and digest of every file in ``folder`` (plus ``meta``) in its manifest."""
    files = {}
    for f in sorted(folder.rglob("*")):
        if f.is_file() and f.name != MANIFEST:
            rel = f.relative_to(folder).as_posix()
            files[rel] = {"size": f.stat().st_size, "sha256": sha256_file(f)}
    doc = {"files": files, "meta": meta or {}}
    (folder / MANIFEST).write_text(json.dumps(doc, indent=1, sort_keys=True), encoding="utf-8")


def read_manifest(folder: Path) -> dict | None:
    """The manifest of ``folder`` if every listed file is present with the recorded size and
    digest, else ``None``."""
    try:
        doc = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = doc["files"]
        for rel, info in files.items():
            f = folder / rel
            if f.stat().st_size != info["size"] or sha256_file(f) != info["sha256"]:
                return None
        return doc
    except (OSError, ValueError, KeyError, TypeError):
        return None


@contextmanager
def locked(path: Path, timeout: float = 3600) -> Iterator[None]:
    """Hold an inter-process lock named after ``path`` (``path.lock`` beside it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock", timeout=timeout):
        yield


_verified: set[str] = set()


def ensure_dir(target: Path, build: Callable[[Path], dict | None]) -> Path:
    """Return ``target``, building it first with ``build(tmpdir)`` unless a verified copy
    exists. ``build`` fills ``tmpdir`` and may return metadata for the manifest. A copy that
    fails verification is removed and rebuilt."""
    key = str(target)
    if key in _verified and (target / MANIFEST).exists():
        return target
    with locked(target):
        if target.exists():
            if read_manifest(target) is not None:
                _verified.add(key)
                return target
            shutil.rmtree(target, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            os.chmod(tmp, 0o755)
            meta = build(tmp)
            write_manifest(tmp, meta)
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    _verified.add(key)
    return target


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename; the file gets the
    permissions of an ordinary new file (the umask's), not the temporary file's 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
