"""Near-copies vote once (issue 82, point 1): an engine that is another with a punctuation
mark changed per line is one voter with it in the consensus, as a byte-identical copy is,
and is warned about, on every path (``score``, ``rank``, ``report``, the Python API and
``batch``'s consensus pass). The user's case: e1 correct, e2 and e3 flawed, and a copy of e3
with one punctuation mark changed per line, which lifted e3 past e1 ("not significant",
p = 0.186). Each test failed before the fix; the rule's threshold is justified on real
engines in ``experiments/results/near-copies.md``."""

from __future__ import annotations

import csv
import json
import random
import warnings
from collections import defaultdict

import numpy as np
import pytest
from conftest import ROOT, offline_scorer, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from xlscore.errors import DuplicateEnginesWarning
from xlscore.evaluation.compare import compare_engines
from xlscore.scoring.consensus import (
    Voters,
    alike,
    copy_engines,
    duplicate_engines,
    group_consensus,
    source_key,
)
from xlscore.text.edits import edit_distance, within


def _levenshtein(a: str, b: str) -> int:
    """The textbook dynamic programme, row by row."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        cur = [i]
        for j, y in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


TEXT = st.text(alphabet="абвг де.,", max_size=70)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_the_bit_parallel_distance_is_levenshtein(a, b):
    assert edit_distance(a, b) == _levenshtein(a, b) == edit_distance(b, a)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, st.integers(0, 6))
def test_within_agrees_with_the_distance(a, b, k):
    """The length and q-gram filters refuse only what the distance refuses."""
    assert within(a, b, k) == (_levenshtein(a, b) <= k)


def _near(text: str) -> str:
    """The text with its last comma or full stop changed (the user's near-copy)."""
    for mark, other in ((",", ";"), (".", "!")):
        if mark in text:
            i = text.rindex(mark)
            return text[:i] + other + text[i + 1 :]
    return text + "."


def test_a_punctuation_mark_changed_is_alike_a_word_changed_is_not():
    t = "Правительство объявило о новых мерах поддержки малого бизнеса в понедельник."
    other = t.replace("понедельник", "вторник")
    got = alike([t, _near(t), other, ""])
    assert got[0, 1] and got[1, 0] and not got[0, 2] and not got[1, 2]
    assert not got[3].any() and not got[:, 3].any()  # an empty translation is alike to nothing


def _user_case(n: int = 30) -> tuple[list[str], dict[str, list[str]]]:
    """The user's case from the challenge set: for each of ``n`` sources, e1 the correct
    translation, e2 and e3 two translations each with one accuracy error, e3near e3 with one
    punctuation mark changed."""
    by: dict[tuple[str, str], list[str]] = defaultdict(list)
    with open(ROOT / "data" / "challenge" / "challenge.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["phenomenon"] not in ("untranslated", "wrong_language"):
                by[row["source"], row["good"]].append(row["bad"])
    items = list(by.items())[:n]
    engines = {
        "e1": [good for (_, good), _ in items],
        "e2": [bad[0] for _, bad in items],
        "e3": [bad[1] for _, bad in items],
    }
    engines["e3near"] = [_near(t) for t in engines["e3"]]
    return [source for (source, _), _ in items], engines


def test_near_copies_are_found_as_copies_are():
    _, engines = _user_case()
    assert duplicate_engines(engines) == [("e3", "e3near", 30)]
    assert copy_engines(engines) == {"e3": "e3", "e3near": "e3"}


def test_a_near_copy_leaves_the_correct_engine_first_and_significant():
    """The user's case, scored as ``rank`` scores it: with e3near added, e1 still wins most
    segments and beats e3 at p < 0.05, and the near-copy is warned about."""
    sources, engines = _user_case()
    scorer = offline_scorer(fields=("score",))

    def ranking(names):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scored = [by for _, by in scorer.iter_score(sources, {n: engines[n] for n in names})]
        table = compare_engines(scored, n_boot=1000).to_dict(segments=False)
        told = [str(w.message) for w in caught if w.category is DuplicateEnginesWarning]
        return table, told

    for names in (["e1", "e2", "e3"], ["e1", "e2", "e3", "e3near"]):
        table, told = ranking(names)
        first = max(table["engines"], key=lambda e: e["mean"])
        wins = {e["engine"]: e["wins"] for e in table["engines"]}
        assert first["engine"] == "e1" and wins["e1"] >= 25, table["engines"]
        e1_e3 = next(p for p in table["pairs"] if {p["a"], p["b"]} == {"e1", "e3"})
        assert e1_e3["p"] < 0.05 and e1_e3["low"] > 0, e1_e3
        assert told == ([] if "e3near" not in names else [told[0]])
    assert "e3 and e3near gave the same or nearly the same translation in 30 of 30" in told[0]


def test_near_copies_are_one_voter_whatever_their_order():
    """A near-copy adds no vote: the other candidates' agreement is what it is without it,
    and shuffling the candidates changes no value (bit for bit)."""
    texts = [
        "Музей не откроется в понедельник из-за шторма.",
        "Музей не будет открыт в понедельник.",
        "Из-за бури музей закрыт в понедельник.",
    ]
    engines = ["a", "b", "c"]
    copies = {"c": "c", "d": "c"}
    with_near = group_consensus([*texts, _near(texts[2])], [0.1, 0.2, 0.3, 0.25], 0.5, -4.0,
                                [*engines, "d"], copies)  # fmt: skip
    voters = Voters.of([*texts, _near(texts[2])], [*engines, "d"], copies)
    assert voters is not None and len(voters.texts) == 3
    alone = Voters.of(texts, engines)
    assert alone is not None
    assert with_near[0][0] == pytest.approx(alone.candidates_agreement()[0], abs=0.01)
    rng = random.Random(0)
    order = list(range(4))
    for _ in range(5):
        rng.shuffle(order)
        got = group_consensus([[*texts, _near(texts[2])][k] for k in order],
                              [[0.1, 0.2, 0.3, 0.25][k] for k in order], 0.5, -4.0,
                              [[*engines, "d"][k] for k in order], copies)  # fmt: skip
        for pos, k in enumerate(order):
            assert got[0][pos] == with_near[0][k] and got[1][pos] == with_near[1][k]


def test_rank_warns_about_a_near_copy(tmp_path):
    sources, engines = _user_case(8)
    src = tmp_path / "src.en"
    src.write_text("\n".join(sources) + "\n", encoding="utf-8")
    files = []
    for name, texts in engines.items():
        files += ["-t", tmp_path / f"{name}.ru"]
        files[-1].write_text("\n".join(texts) + "\n", encoding="utf-8")
    r = run_cli("rank", "-s", src, *files, "--format", "json", "-q")
    assert r.returncode == 0, r.stderr
    assert "e3 and e3near gave the same or nearly the same translation in 8 of 8" in r.stderr
    assert {e["engine"] for e in json.loads(r.stdout)["engines"]} == set(engines)


def test_batch_counts_near_copies_and_signs_the_engine_set_as_score_does():
    from xlscore.batch.consensus_pass import (
        alike_engines,
        copies_from_counts,
        engines_from_counts,
    )

    sources, engines = _user_case()
    batches = []  # the batch pass groups the rows by source
    for k, source in enumerate(sources):
        group = {
            "key": np.array([source_key(source)] * len(engines), dtype=object),
            "unit": np.zeros(len(engines), dtype=np.int64),
            "row": np.full(len(engines), k, dtype=np.int64),
            "engine": np.array(list(engines), dtype=object),
            "translation": np.array([texts[k] for texts in engines.values()], dtype=object),
        }
        batches.append(alike_engines(group))
    assert copies_from_counts(batches) == copy_engines(engines) == {"e3": "e3", "e3near": "e3"}
    scorer = offline_scorer(fields=("score",))
    assert f"|engines:{engines_from_counts(batches)}" in scorer.signature(sources, engines)
