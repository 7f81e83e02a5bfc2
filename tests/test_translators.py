"""Word translators: dictionary, and the online backend with injected clients (no network)."""

import json
import time

import pytest

from xlscore import Lexicon
from xlscore.lexicon.translators import (
    CorruptCacheWarning,
    DictionaryTranslator,
    OnlineTranslator,
    TranslatorUnavailableWarning,
    make_translator,
)


@pytest.fixture
def lex(tmp_path):
    p = tmp_path / "lex.tsv"
    p.write_text("дом\thouse\nкошка\tcat\n", encoding="utf-8")
    return Lexicon.from_tsv(p)


class Fake:
    def __init__(self, table, fail_first=0):
        self.table, self.calls, self.fail_first = table, [], fail_first

    def translate_batch(self, words):
        self.calls.append(list(words))
        if self.fail_first:
            self.fail_first -= 1
            raise ConnectionError("temporary")
        return [self.table.get(w, "") for w in words]


class Down:
    calls = 0

    def translate_batch(self, words):
        Down.calls += 1
        raise ConnectionError("Network is unreachable")


class Slow:
    def translate_batch(self, words):
        time.sleep(5)
        return ["late"] * len(words)


def test_dictionary_translator(lex):
    t = DictionaryTranslator(lex)
    assert t.translations(["домов", "кошка", "пёс"]) == {
        "домов": frozenset({"house"}),
        "кошка": frozenset({"cat"}),
        "пёс": frozenset(),
    }


def test_online_translations_are_cached_on_disk(lex, tmp_path):
    client = Fake({"собака": "the dogs", "дом": "home"})
    cache_file = tmp_path / "tr.jsonl"
    t = OnlineTranslator(lex, client=client, cache_file=cache_file, batch_size=2)
    out = t.translations(["собака", "дом", "кошка"])
    assert out["собака"] >= {"dogs", "dog", "the"} or "dogs" in out["собака"]
    assert out["дом"] == {"home", "house"}  # online + dictionary
    assert client.calls == [["собака", "дом"], ["кошка"]]
    lines = [json.loads(x) for x in cache_file.read_text(encoding="utf-8").splitlines()]
    assert {x["ru"] for x in lines} == {"собака", "дом"}  # the empty answer is not cached
    again = OnlineTranslator(lex, client=Fake({}), cache_file=cache_file)
    again.translations(["собака", "дом"])
    assert again._client.calls == []


def test_network_down_warns_and_falls_back(lex, tmp_path):
    Down.calls = 0
    t = OnlineTranslator(
        lex, client=Down(), cache_file=tmp_path / "c.jsonl", retries=1, backoff=0, batch_size=1
    )
    with pytest.warns(TranslatorUnavailableWarning, match="Network is unreachable"):
        out = t.translations(["дом", "кошка", "собака"])
    assert out == {"дом": {"house"}, "кошка": {"cat"}, "собака": frozenset()}
    assert Down.calls == 2  # one batch, one retry, then no more attempts
    assert t.offline_reason
    assert t.name.startswith("google+fallback+dictionary:")  # the signature shows it
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once: later calls stay quiet
        assert t.translations(["слон"]) == {"слон": frozenset()}


def test_timeouts_count_as_failures(lex, tmp_path):
    t = OnlineTranslator(
        lex, client=Slow(), cache_file=tmp_path / "c.jsonl", timeout=0.2, retries=0
    )
    start = time.time()
    with pytest.warns(TranslatorUnavailableWarning, match="TimeoutError"):
        out = t.translations(["дом"])
    assert time.time() - start < 3 and out["дом"] == {"house"}


def test_retry_then_success(lex, tmp_path):
    client = Fake({"дом": "house"}, fail_first=1)
    t = OnlineTranslator(lex, client=client, cache_file=tmp_path / "c.jsonl", backoff=0)
    assert t.translations(["дом"])["дом"] == {"house"}
    assert len(client.calls) == 2 and t.offline_reason is None


def test_corrupt_cache_is_dropped_and_rewritten(lex, tmp_path):
    cache_file = tmp_path / "c.jsonl"
    cache_file.write_text('{"ru": "дом", "en": "home"}\n{"ru": "кош', encoding="utf-8")
    with pytest.warns(CorruptCacheWarning, match="dropped 1 unreadable"):
        t = OnlineTranslator(lex, client=Fake({}), cache_file=cache_file)
    assert t._known == {"дом": "home"}
    assert cache_file.read_text(encoding="utf-8") == '{"ru": "дом", "en": "home"}\n'


def test_only_online_when_asked(lex, tmp_path):
    t = OnlineTranslator(
        lex,
        client=Fake({"дом": "building"}),
        cache_file=tmp_path / "c.jsonl",
        also_dictionary=False,
    )
    assert t.translations(["дом"])["дом"] == {"building"}


def test_make_translator(lex):
    assert isinstance(make_translator("dictionary", lex), DictionaryTranslator)
    with pytest.raises(Exception, match="unknown translator 'bing'"):
        make_translator("bing", lex)


def test_unwritable_cache_costs_only_the_cache(lex, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    t = OnlineTranslator(lex, client=Fake({"дом": "home"}), cache_file=blocker / "c.jsonl")
    with pytest.warns(CorruptCacheWarning, match="cannot write the translation cache"):
        out = t.translations(["дом"])
    assert out["дом"] == {"home", "house"} and t.offline_reason is None
    assert t.name == "google+dictionary:tsv:lex.tsv#" + lex.digest
