"""Issue 74: a block is prepared once. Scoring one block normalises each distinct text once,
finds the distinct pairs once, validates the input once, runs the rule checks once per
distinct pair in one place, and moves offsets onto the given texts in one function; the
counts are taken by wrapping those functions wherever the package holds them."""

from __future__ import annotations

import collections
import sys
import traceback
from collections.abc import Callable

import pytest
from conftest import offline_scorer

from xlscore.checks import find_mismatches
from xlscore.errors import DuplicateEnginesWarning, XLScoreError
from xlscore.scoring.pair_parts import without_paper_columns
from xlscore.text import pairs as pairs_module
from xlscore.text import words
from xlscore.text.pairs import check_corpus

SOURCES = ["The cat sat on the mat.", "Two  dogs\u00adbark at 5 pm.", "The cat sat on the mat."]
#: three engines and a copy of the first; soft hyphens and double spaces that normalising
#: removes, and a repeated pair (segment 3 repeats segment 1 for every engine)
ENGINES = {
    "a": ["Кошка села на коврик.", "Две собаки  лают в 5 вечера.", "Кошка села на коврик."],
    "b": ["Кот сидел на ковре.", "Две со\u00adбаки лают в 6 вечера.", "Кот сидел на ковре."],
    "c": ["Кошка сидела на коврике.", "Лают две собаки.", "Кошка сидела на коврике."],
    "d": ["Кошка села на коврик.", "Две собаки  лают в 5 вечера.", "Кошка села на коврик."],
}


@pytest.fixture(scope="module")
def scorer():
    return offline_scorer(dtype="fp32")


def _count(monkeypatch, calls: collections.Counter, owner: object, name: str) -> None:
    """Wrap ``owner.name`` in every loaded xlscore module that holds it, counting each call
    by the module and function that made it."""
    original: Callable = getattr(owner, name)

    def counted(*args, **kwargs):
        caller = traceback.extract_stack(limit=2)[0]
        where = caller.filename.replace("\\", "/").rsplit("xlscore/", 1)[-1]
        calls[(name, where, caller.name)] += 1
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        ours = getattr(module, "__name__", "").startswith("xlscore")
        if ours and getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, counted)


def _calls(calls: collections.Counter, name: str) -> dict[tuple[str, str], int]:
    return {(w, f): n for (k, w, f), n in calls.items() if k == name}


def test_one_block_is_normalised_deduplicated_validated_checked_and_moved_once(scorer, monkeypatch):
    calls: collections.Counter = collections.Counter()
    import xlscore.checks

    _count(monkeypatch, calls, words, "normalize_text")
    _count(monkeypatch, calls, words, "offset_map")
    _count(monkeypatch, calls, pairs_module, "distinct_pairs")
    _count(monkeypatch, calls, pairs_module, "check_corpus")
    _count(monkeypatch, calls, xlscore.checks, "find_mismatches")
    # wrapped where the package holds them
    assert xlscore.checks.find_mismatches is not find_mismatches
    assert pairs_module.check_corpus is not check_corpus
    with pytest.warns(DuplicateEnginesWarning):  # engine d copies engine a
        results = list(scorer.iter_score(SOURCES, ENGINES))
    assert len(results) == 3  # one block: three segments of four engines

    # validated once, at the entry
    assert _calls(calls, "check_corpus") == {("scoring/scorer.py", "iter_score"): 1}
    # the distinct pairs found once, when the block is prepared
    assert _calls(calls, "distinct_pairs") == {("scoring/blocks.py", "read"): 1}
    texts = set(SOURCES) | {t for v in ENGINES.values() for t in v}
    normalised = _calls(calls, "normalize_text")
    # each distinct given text normalised once by the preparation
    assert normalised.pop(("text/pairs.py", "norm")) == len(texts)
    # and elsewhere only where copies of an engine are told apart (the consensus compares the
    # copies' texts as normalised, for the same text or a near-copy: over the corpus before
    # the blocks, then in the group) and where an offset map checks its own result
    assert {
        where if where == "scoring/consensus.py" else (where, fn) for where, fn in normalised
    } <= {"scoring/consensus.py", ("text/words.py", "_normalised_map")}, normalised
    # the rule checks run in one place, once per distinct pair
    distinct = {(words.normalize_text(s), words.normalize_text(v[i]))
                for v in ENGINES.values() for i, s in enumerate(SOURCES)}  # fmt: skip
    checked = collections.Counter()
    for (where, _), n in _calls(calls, "find_mismatches").items():
        checked[where] += n
    assert checked == {"scoring/rule_checks.py": len(distinct)}
    # offsets move onto the given texts in one function: the pairs normalising changed
    moved = _calls(calls, "offset_map")
    assert set(moved) == {("results.py", "on_given_texts")}, moved
    changed = sum(
        s != words.normalize_text(s) or t != words.normalize_text(t)
        for v in ENGINES.values()
        for s, t in zip(SOURCES, v)
    )
    assert moved[("results.py", "on_given_texts")] == 2 * changed  # the source's and the
    # translation's map of each such pair
    # the results' offsets are on the texts as given
    for i, by in results:
        for engine, r in by.items():
            mt = ENGINES[engine][i]
            for f in r.findings:
                if f.span is not None:
                    assert mt[f.span[0] : f.span[1]].strip() == mt[f.span[0] : f.span[1]]
                    assert f.span[1] <= len(mt)


def test_a_corpus_prepared_by_the_scorer_carries_its_findings(scorer):
    corpus = scorer.prepare(SOURCES, ENGINES["b"])
    assert corpus.findings is not None and len(corpus.findings) == 3
    assert any(f.check == "number" for f in corpus.findings[1])  # 5 pm became 6
    assert corpus.distinct().given == (SOURCES, ENGINES["b"])
    # a corpus the checks never ran on is refused by the score that needs their findings,
    # not scored as if it had none
    bare = scorer.paper.prepare(SOURCES, ENGINES["b"])
    assert bare.findings is None
    with pytest.raises(XLScoreError, match="rule checks' findings"):
        scorer.final.finish(bare, without_paper_columns(bare, True), [range(3)])
