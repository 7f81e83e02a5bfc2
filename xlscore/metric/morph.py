"""pymorphy3's Russian morphological analyser, loaded once per process and shared by the
lexicon, the explicit checks and the corruption generators."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def analyzer() -> Any:
    """The pymorphy3 ``MorphAnalyzer`` (loaded on first use; about a second)."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer()
