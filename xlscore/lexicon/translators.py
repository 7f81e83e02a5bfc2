"""Word translation backends: Russian word -> English keys, for finding anchors.

* :class:`DictionaryTranslator` (default, offline): the
  :class:`~xlscore.lexicon.dictionary.Lexicon`.
* :class:`OnlineTranslator`: Google Translate through ``deep-translator``, word by word, as in
  the paper. Batched, cached on disk (one JSON line per word, appended as batches finish),
  with a timeout and retries per batch. When the service cannot be reached it warns once and
  uses the dictionary for the remaining words: never a crash, never a silently empty result.
  Dictionary translations are added to the online ones unless ``also_dictionary=False``.

Tests inject a client object with a ``translate_batch(words) -> list[str]`` method.
"""

from __future__ import annotations

import json
import os
import threading
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from xlscore.errors import LexiconError, XLScoreWarning
from xlscore.io import cache
from xlscore.lexicon.dictionary import Lexicon
from xlscore.text.words import split_words


class TranslatorUnavailableWarning(XLScoreWarning):
    """The online translator failed; the dictionary was used instead."""


class CorruptCacheWarning(XLScoreWarning):
    """A cache file held unreadable lines; they were dropped and the file rewritten."""


class WordTranslator(Protocol):
    """Gives the English keys each Russian word translates to."""

    @property
    def name(self) -> str:
        """What translates, for signatures."""

    def translations(self, words: Sequence[str]) -> dict[str, frozenset[str]]:
        """English keys for each of ``words``."""


class DictionaryTranslator:
    """Offline translation with a lexicon."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.name = f"dictionary:{lexicon.describe()}"

    def translations(self, words: Sequence[str]) -> dict[str, frozenset[str]]:
        return {w: self.lexicon.translate(w) for w in dict.fromkeys(words)}


class BatchClient(Protocol):
    """What the online backend calls: one English string per Russian word."""

    def translate_batch(self, words: list[str]) -> list[str]: ...


class GoogleClient:
    """deep-translator's Google backend, Russian to English."""

    def __init__(self) -> None:
        from deep_translator import GoogleTranslator

        self._impl = GoogleTranslator(source="ru", target="en")

    def translate_batch(self, words: list[str]) -> list[str]:
        return self._impl.translate_batch(words)


def _call_with_timeout(fn, arg, timeout: float):
    """Run ``fn(arg)`` in a daemon thread; ``TimeoutError`` if it does not return in time (a
    hung network call must not hold the process at exit)."""
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = fn(arg)
        except BaseException as err:
            box["error"] = err

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise TimeoutError(f"no answer within {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


class OnlineTranslator:
    """Word-by-word online translation with a persistent cache and a dictionary fallback."""

    def __init__(
        self,
        lexicon: Lexicon,
        *,
        client: BatchClient | None = None,
        cache_file: str | os.PathLike | None = None,
        timeout: float = 10.0,
        retries: int = 2,
        batch_size: int = 50,
        also_dictionary: bool = True,
        backoff: float = 1.0,
    ) -> None:
        self.lexicon = lexicon
        self.dictionary = DictionaryTranslator(lexicon)
        self._client = client
        self.cache_file = (
            Path(cache_file)
            if cache_file
            else cache.cache_dir() / "translations" / "google-ru-en.jsonl"
        )
        self.timeout, self.retries, self.batch_size = timeout, retries, batch_size
        self.also_dictionary, self.backoff = also_dictionary, backoff
        self.offline_reason: str | None = None
        self._warned = False
        self._known = self._load_cache()

    @property
    def name(self) -> str:
        """Names the backends that produced the translations (``+fallback`` once the
        dictionary had to stand in for the service)."""
        return (
            "google"
            + ("+fallback" if self.offline_reason else "")
            + ("+" + self.dictionary.name if self.also_dictionary else "")
        )

    # ---------------------------------------------------------------- cache
    def _load_cache(self) -> dict[str, str]:
        known: dict[str, str] = {}
        if not self.cache_file.exists():
            return known
        bad = 0
        with open(self.cache_file, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    row = json.loads(line)
                    if not (
                        isinstance(row, dict)
                        and isinstance(row.get("ru"), str)
                        and isinstance(row.get("en"), str)
                        and row["en"].strip()
                    ):
                        raise ValueError
                    known[row["ru"]] = row["en"]
                except ValueError:
                    bad += 1
        if bad:
            warnings.warn(
                f"{self.cache_file}: dropped {bad} unreadable line(s) of the "
                "translation cache and rewrote it",
                CorruptCacheWarning,
                stacklevel=3,
            )
            data = "".join(
                json.dumps({"ru": k, "en": v}, ensure_ascii=False) + "\n" for k, v in known.items()
            )
            cache.atomic_write_bytes(self.cache_file, data.encode("utf-8"))
        return known

    def _append(self, pairs: dict[str, str]) -> None:
        """Add answers to the cache file; a cache that cannot be written costs only the cache."""
        data = "".join(
            json.dumps({"ru": k, "en": v}, ensure_ascii=False) + "\n" for k, v in pairs.items()
        )
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            with open(self.cache_file, "a", encoding="utf-8") as fh:  # whole lines, appended
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as err:
            if not getattr(self, "_cache_warned", False):
                warnings.warn(
                    f"cannot write the translation cache {self.cache_file}: "
                    f"{err.strerror}; translations are kept for this run only",
                    CorruptCacheWarning,
                    stacklevel=3,
                )
                self._cache_warned = True

    # ---------------------------------------------------------------- online
    @property
    def client(self) -> BatchClient:
        if self._client is None:
            self._client = GoogleClient()
        return self._client

    def _fetch(self, words: list[str]) -> dict[str, str]:
        """Online translations of ``words`` (those the service answered)."""
        got: dict[str, str] = {}
        for i in range(0, len(words), self.batch_size):
            if self.offline_reason:
                break
            batch = words[i : i + self.batch_size]
            for attempt in range(self.retries + 1):
                try:
                    answer = _call_with_timeout(self.client.translate_batch, batch, self.timeout)
                    if not isinstance(answer, list) or len(answer) != len(batch):
                        raise ValueError("the service returned a malformed batch")
                    fresh = {
                        w: a for w, a in zip(batch, answer) if isinstance(a, str) and a.strip()
                    }
                except Exception as err:
                    if attempt == self.retries:
                        self.offline_reason = f"{type(err).__name__}: {err}"
                    else:
                        time.sleep(self.backoff * (attempt + 1))
                else:
                    self._append(fresh)
                    got.update(fresh)
                    break
        return got

    def translations(self, words: Sequence[str]) -> dict[str, frozenset[str]]:
        unique = list(dict.fromkeys(w for w in words))
        todo = [w for w in unique if w not in self._known]
        if todo and not self.offline_reason:
            self._known.update(self._fetch(todo))
        missing = [w for w in todo if w not in self._known]
        if missing and self.offline_reason and not self._warned:
            self._warned = True
            warnings.warn(
                f"online translator unavailable ({self.offline_reason}); the "
                f"dictionary translates the remaining {len(missing)} word(s)",
                TranslatorUnavailableWarning,
                stacklevel=2,
            )
        out = {}
        for w in unique:
            keys: set[str] = set()
            if w in self._known:
                for tok in split_words(self._known[w]):
                    if tok.text[0].isalnum():
                        keys |= self.lexicon.en_keys(tok.text)
            if self.also_dictionary or w not in self._known:
                keys |= self.lexicon.translate(w)
            out[w] = frozenset(keys)
        return out


class AlignmentTranslator:
    """No lookup at all: a Russian word "translates" to the source word it aligns with in a
    multilingual encoder's space (:mod:`xlscore.lexicon.wordalign`), pair by pair. The scorer hands
    it both sentences' word vectors in that space (:meth:`pair_translations`): those of its
    similarity encoder, ``pack:e5-small``; its :meth:`translations` knows no word, so that the
    dictionary-only uses (the corpus map of ``alignment="dictionary"``) find nothing."""

    def __init__(self, *, floor: float | None = None) -> None:
        from xlscore.lexicon.wordalign import ALIGN_FLOOR, ALIGN_ROUNDS

        self.floor = ALIGN_FLOOR if floor is None else float(floor)
        self.rounds = ALIGN_ROUNDS
        self.name = f"alignment@{self.floor:g}x{self.rounds}:pack:e5-small"

    def translations(self, words: Sequence[str]) -> dict[str, frozenset[str]]:
        return {}

    def pair_translations(
        self, src_words: Sequence[str], src_vectors, mt_words: Sequence[str], mt_vectors, en_keys
    ) -> dict[str, frozenset[str]]:
        """``{Russian word: English keys}`` of one pair: each translation word aligned with a
        source word gets that word's keys (``en_keys(word)``)."""
        from xlscore.lexicon.wordalign import align

        out: dict[str, set[str]] = {}
        for e, r in align(src_vectors, mt_vectors, self.floor, self.rounds):
            out.setdefault(mt_words[r], set()).update(en_keys(src_words[e]))
        return {w: frozenset(k) for w, k in out.items()}


TRANSLATORS = ("dictionary", "alignment", "google")


def make_translator(kind: str | WordTranslator | None, lexicon: Lexicon) -> WordTranslator:
    """``"dictionary"``, ``"alignment"`` or ``"google"``, or a ready translator object;
    ``None``: the dictionary when ``lexicon`` has word pairs, else the alignment."""
    if kind is None:
        kind = "dictionary" if lexicon.table else "alignment"
    if not isinstance(kind, str):
        return kind
    if kind == "dictionary":
        if not lexicon.table:
            raise LexiconError(
                f"the lexicon {lexicon.name} holds no word pairs to translate "
                "with: use translator='alignment' (--translator alignment) or "
                "install Müller's dictionary (apt-get install mueller7-dict)"
            )
        return DictionaryTranslator(lexicon)
    if kind == "alignment":
        return AlignmentTranslator()
    if kind == "google":
        return OnlineTranslator(lexicon)
    from xlscore.errors import XLScoreError

    raise XLScoreError(f"unknown translator {kind!r}: use " + ", ".join(map(repr, TRANSLATORS)))
