"""What every kind shares: the :class:`Corruption` it returns, building one from edits or a
deletion, drawing sentences from the pool, and the :func:`_kind` wrapper that makes a kind
safe (``xlscore.training.corruptions._STRICT``, set by tests, lets its exceptions through instead).
"""

from __future__ import annotations

import functools
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import regex

from xlscore.training.corruptions.tokens import _sentence_start, _tokens


@dataclass(frozen=True)
class Corruption:
    """A corrupted translation. ``spans``: character spans of ``text`` that carry the error
    (``text[start:end]`` is the changed or inserted material); a pure deletion has one
    zero-length span where the material was removed."""

    text: str
    kind: str
    spans: tuple[tuple[int, int], ...]


Edit = tuple[int, int, str]


def _make(kind: str, text: str, edits: Sequence[Edit]) -> Corruption | None:
    """Apply non-overlapping edits ``(start, end, new)``; each becomes a span covering its
    new material (without surrounding whitespace), or a zero-length one for a deletion."""
    edits = sorted(edits)
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = length = 0
    for a, b, new in edits:
        if a < pos or b < a or b > len(text):
            return None
        out.append(text[pos:a])
        length += a - pos
        lead = len(new) - len(new.lstrip())
        core = len(new.strip())
        spans.append((length + lead, length + lead + core) if core else (length, length))
        out.append(new)
        length += len(new)
        pos = b
    out.append(text[pos:])
    new_text = "".join(out)
    if new_text == text:
        return None
    return Corruption(new_text, kind, tuple(spans))


def _deletion(kind: str, text: str, a: int, b: int) -> Corruption | None:
    """Remove ``text[a:b]`` with the whitespace that would be left doubled; if that puts a
    small letter at the start of the sentence, capitalise it. One zero-length span."""
    while b < len(text) and text[b].isspace() and (a == 0 or text[a - 1].isspace()):
        b += 1
    while (
        a > 0
        and text[a - 1].isspace()
        and (b == len(text) or text[b].isspace() or text[b] in ",.;:!?)»")
    ):
        a -= 1
    rest = text[b:]
    was_cap = text[a:b].lstrip()[:1].isupper()
    if _sentence_start(text, a) and was_cap and rest.lstrip()[:1].islower():
        k = len(rest) - len(rest.lstrip())
        rest = rest[:k] + rest[k].upper() + rest[k + 1 :]
    new = text[:a] + rest
    if new == text:
        return None
    return Corruption(new, kind, ((a, a),))


_BAD = regex.compile(r"\s[,.;:!?)»]|[,;:]\s*[,.;:!?]|[«(]\s*[»)]|\s{2,}|^\s|^[,.;:]|\s$")


def _well_formed(new: str, old: str) -> bool:
    return len(_BAD.findall(new)) <= len(_BAD.findall(old)) and len(_tokens(new)) >= 2


def _pool_sentences(pool: Sequence[str], rng: random.Random, k: int) -> list[str]:
    """Up to ``k`` sentences drawn from ``pool`` (never reading all of it)."""
    if not pool:
        return []
    out = []
    for _ in range(k):
        s = pool[rng.randrange(len(pool))]
        if isinstance(s, str) and s.strip():
            out.append(s)
    return out


def _strict() -> bool:
    """``xlscore.training.corruptions._STRICT``, read at call time (tests set it on the
    package)."""
    return getattr(sys.modules[__package__], "_STRICT", False)


def _kind(fn: Callable[..., Corruption | None]) -> Callable[..., Corruption | None]:
    """Make a kind safe: text that is no string or blank, an internal error, a result that
    does not change the text or has spans out of bounds all give None."""

    @functools.wraps(fn)
    def wrapper(
        source: str, text: str, rng: random.Random, pool: Sequence[str]
    ) -> Corruption | None:
        if not isinstance(text, str) or not text.strip():
            return None
        source = source if isinstance(source, str) else ""
        if fn.__name__ != "number" and not regex.search(r"\p{Cyrillic}", text):
            return None  # not a Russian translation
        try:
            out = fn(source, text, rng, pool if pool is not None else ())
        except Exception:
            if _strict():
                raise
            return None
        if out is None or out.text == text or not out.spans:
            return None
        if any(not 0 <= a <= b <= len(out.text) for a, b in out.spans):
            return None
        return out

    return wrapper
