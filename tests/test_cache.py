import json

import pytest

from xlscore.io import cache


def _builder(calls):
    def build(tmp):
        calls.append(1)
        (tmp / "data.txt").write_text("hello")
        (tmp / "sub").mkdir()
        (tmp / "sub" / "more.bin").write_bytes(b"\x00\x01")
        return {"made": "here"}

    return build


def test_entry_is_built_once_then_reused(monkeypatch, tmp_path):
    monkeypatch.setenv("XLSCORE_CACHE", str(tmp_path))
    calls = []
    target = cache.entry_path("things", "one")
    assert cache.ensure_dir(target, _builder(calls)) == target
    cache._verified.clear()
    cache.ensure_dir(target, _builder(calls))
    assert len(calls) == 1
    doc = cache.read_manifest(target)
    assert doc["meta"] == {"made": "here"} and set(doc["files"]) == {"data.txt", "sub/more.bin"}


@pytest.mark.parametrize("damage", ["truncate", "flip", "delete", "manifest"])
def test_damaged_entry_is_rebuilt(monkeypatch, tmp_path, damage):
    monkeypatch.setenv("XLSCORE_CACHE", str(tmp_path))
    calls = []
    target = cache.entry_path("things", "two")
    cache.ensure_dir(target, _builder(calls))
    if damage == "truncate":
        (target / "sub" / "more.bin").write_bytes(b"\x00")
    elif damage == "flip":
        (target / "data.txt").write_text("hellO")
    elif damage == "delete":
        (target / "data.txt").unlink()
    else:
        (target / cache.MANIFEST).write_text("{not json")
    cache._verified.clear()
    cache.ensure_dir(target, _builder(calls))
    assert len(calls) == 2
    assert (target / "data.txt").read_text() == "hello"
    assert cache.read_manifest(target) is not None


def test_failed_build_leaves_nothing_behind(monkeypatch, tmp_path):
    monkeypatch.setenv("XLSCORE_CACHE", str(tmp_path))
    target = cache.entry_path("things", "three")

    def broken(tmp):
        (tmp / "half.txt").write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        cache.ensure_dir(target, broken)
    assert not target.exists()
    assert [p.name for p in target.parent.iterdir() if not p.name.endswith(".lock")] == []


@pytest.mark.parametrize("key", ["../escape", "a/b", "", ".hidden", "x\\y"])
def test_keys_cannot_leave_the_cache(key):
    with pytest.raises(ValueError, match="unsafe"):
        cache.entry_path("things", key)


def test_cache_dir_honours_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("XLSCORE_CACHE", str(tmp_path / "c"))
    assert cache.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("XLSCORE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "xlscore"


def test_atomic_write(tmp_path):
    p = tmp_path / "d" / "f.json"
    cache.atomic_write_bytes(p, json.dumps({"a": 1}).encode())
    assert json.loads(p.read_text()) == {"a": 1}
    assert [x.name for x in p.parent.iterdir()] == ["f.json"]


def test_cache_root_is_the_users_cache_folder_unless_xlscore_cache_names_one(monkeypatch, tmp_path):
    from xlscore.io import cache

    monkeypatch.delenv("XLSCORE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "xlscore"
    assert (tmp_path / "xdg" / "xlscore").is_dir()
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "xlscore"
    monkeypatch.setenv("XLSCORE_CACHE", str(tmp_path / "own"))
    assert cache.cache_dir() == tmp_path / "own"
