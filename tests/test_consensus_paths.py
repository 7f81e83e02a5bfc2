"""One consensus on every path (issue 71, points 2, 3 and 5): ``score`` and ``batch`` blend it
with the same function and the same floor, only among engines the input names, and copies of
one engine vote once and are warned about."""

import types
import warnings

import numpy as np
import pytest
from conftest import DEMO, offline_scorer, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from xlscore.batch.consensus_pass import alike_engines, consensus_group, copies_from_counts
from xlscore.errors import DuplicateEnginesWarning
from xlscore.results import ScoreResult
from xlscore.scoring.blend import ScoreBlend
from xlscore.scoring.consensus import copy_engines, duplicate_engines, source_key
from xlscore.scoring.plan import Plan

SRC = str(DEMO / "source.en")
ENGINES = [str(DEMO / f"engine{k}.ru") for k in range(1, 5)]
TEXTS = ["Кот сидит на ковре.", "Кот сидит на ковре дома.", "Собака бежит по улице.", "Кот."]


def _score_path(texts: list[str], scores: list[float], floor: float) -> list[float]:
    """The scores ``xlscore score`` gives a group: ScoreBlend.blend_consensus with the paper's
    weight (no estimator: floor -1, weight 1) or the given floor's estimator stand-in."""
    est = types.SimpleNamespace(
        floor=floor, similarity_weight=0.0, formula=types.SimpleNamespace(consensus_weight=2.0)
    )
    plan = Plan(frozenset({"score"}), True, False, False, True, False, ())
    final = ScoreBlend(est, plan=plan, similarity=None)
    corpus = types.SimpleNamespace(given=texts)
    results = [ScoreResult(score=s) for s in scores]
    return [r.score for r in final.blend_consensus(corpus, results, [range(len(texts))])]


def _batch_path(texts: list[str], scores: list[float], floor: float) -> list[float]:
    """The scores ``xlscore batch`` gives the same group (its Ray Data step, called as Ray
    calls it): one engine per text, all of one source, in one unit."""
    n = len(texts)
    group = {
        "unit": np.zeros(n, dtype=np.int64),
        "row": np.arange(n, dtype=np.int64),
        "engine": np.array([f"e{k}" for k in range(n)], dtype=object),
        "translation": np.array(texts, dtype=object),
        "score": np.array(scores, dtype=np.float64),
    }
    out = consensus_group(group, 2.0, floor, {})
    got = list(scores)
    for k, s in zip(out["row"].tolist(), out["score"].tolist()):
        got[k] = s
    return got


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(-4.0, 3.0, allow_nan=False), min_size=4, max_size=4))
def test_score_and_batch_blend_alike_and_never_below_the_floor(own):
    """The floor case both ways: any scores at or above the floor (one near it, which the
    consensus pushes down), blended by ``score``'s path and by ``batch``'s: the same numbers,
    none below the floor. Before, batch did not clamp (-4.1511 where score gave -4)."""
    a, b = _score_path(TEXTS, own, -4.0), _batch_path(TEXTS, own, -4.0)
    assert a == b
    assert all(x >= -4.0 for x in a)


def test_the_users_floor_case():
    """A weak translation near the floor in a group that disagrees with it: held at -4."""
    own = [0.4, 0.3, 0.2, -3.95]
    for path in (_score_path, _batch_path):
        got = path(TEXTS, own, -4.0)
        assert got[3] == -4.0 and got[0] > own[0]


def test_batch_groups_only_rows_that_name_their_engines():
    """A one-engine corpus whose sources repeat gets no consensus (each engine's k-th row of a
    source is one segment; one engine makes segments of one); three engines do."""
    n = 6
    one_engine = {
        "unit": np.zeros(n, dtype=np.int64),
        "row": np.arange(n, dtype=np.int64),
        "engine": np.array(["only"] * n, dtype=object),
        "translation": np.array([*TEXTS, "Пёс.", "Мяу."], dtype=object),
        "score": np.linspace(-1, 1, n),
    }
    assert len(consensus_group(one_engine, 2.0, -4.0, {})["row"]) == 0
    three = {**one_engine, "engine": np.array(["a", "b", "c", "a", "b", "c"], dtype=object)}
    out = consensus_group(three, 2.0, -4.0, {})
    assert sorted(out["row"].tolist()) == list(range(n))  # two segments of three engines


def test_batch_finds_the_copies_score_finds():
    """Batch's two steps (counts per source, summed by the driver) find the engines that
    are copies of another as ``score`` does over the whole corpus."""
    rng = np.random.default_rng(0)
    words = ["кот", "пёс", "дом", "лес", "мост", "река"]
    engines = {e: [" ".join(rng.choice(words, 4)) for _ in range(9)] for e in ("a", "b", "c", "d")}
    engines["d"] = [t if k % 3 else "другое" for k, t in enumerate(engines["b"])]  # 6 of 9
    sources = [f"Source {k % 4}." for k in range(9)]  # sources repeat: segments by position
    groups: dict[str, list[tuple[int, str, str]]] = {}
    for e, texts in engines.items():
        for k, (s, t) in enumerate(zip(sources, texts)):
            groups.setdefault(s, []).append((k, e, t))
    batches = []
    for source, rows in groups.items():
        group = {
            "key": np.array([source_key(source)] * len(rows), dtype=object),
            "unit": np.zeros(len(rows), dtype=np.int64),
            "row": np.array([k for k, _, _ in rows], dtype=np.int64),
            "engine": np.array([e for _, e, _ in rows], dtype=object),
            "translation": np.array([t for _, _, t in rows], dtype=object),
        }
        batches.append(alike_engines(group))
    assert copies_from_counts(batches) == copy_engines(engines) == {"b": "b", "d": "b"}


def test_duplicate_engines_are_found_on_most_segments_only():
    a = ["Один.", "Два.", "Три.", "Четыре."]
    assert duplicate_engines({"a": a, "b": [" Один.", "Два. ", "Три.", "4."]}) == [("a", "b", 3)]
    assert duplicate_engines({"a": a, "b": ["Один.", "Два.", "3.", "4."]}) == []  # half
    assert duplicate_engines({"a": ["Да."], "b": ["Да."]}) == []  # one segment says nothing
    assert duplicate_engines({"a": ["", ""], "b": ["", ""]}) == []


def test_a_copied_engine_is_warned_about_and_lifts_nobody(tmp_path):
    """The user's case: two byte-identical copies of one engine lifted each other from third
    to first, "significant" at p = 0.000, with no warning. Now ``rank`` warns, and every
    engine's mean score is what it is without the copy."""
    copy = tmp_path / "engine3copy.ru"
    copy.write_text((DEMO / "engine3.ru").read_text(encoding="utf-8"), encoding="utf-8")
    with_copy = run_cli("rank", "-s", SRC, *[a for e in [*ENGINES, copy] for a in ("-t", e)],
                        "--format", "json", "-q")  # fmt: skip
    alone = run_cli("rank", "-s", SRC, *[a for e in ENGINES for a in ("-t", e)],
                    "--format", "json", "-q")  # fmt: skip
    assert with_copy.returncode == 0 and alone.returncode == 0, with_copy.stderr
    said = (
        "engines engine3 and engine3copy gave the same or nearly the same translation in 12 of 12"
    )
    assert said in with_copy.stderr  # the warning
    assert "nearly the same translation" not in alone.stderr
    import json

    means = lambda run: {r["engine"]: r["mean"] for r in json.loads(run.stdout)["engines"]}
    got, want = means(with_copy), means(alone)
    for engine, mean in want.items():
        assert got[engine] == pytest.approx(mean, abs=1e-9)
    assert got["engine3copy"] == got["engine3"]


def test_the_python_api_warns_too():
    scorer = offline_scorer(fields=("score",))
    src = ["The museum is closed.", "The shop is open.", "It rained."]
    mt = ["Музей закрыт.", "Магазин открыт.", "Шёл дождь."]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        list(scorer.iter_score(src, {"a": mt, "b": list(mt), "c": ["Да.", "Нет.", "Ой."]}))
    assert [w.category for w in caught if "nearly the same translation" in str(w.message)] == [
        DuplicateEnginesWarning
    ]
