"""The talks files' rule in the estimator protocol (``tools/sets.py``, issue 72): a figure
for one talks set comes only from a model that never trained on it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from xlscore.io.judgments import Judgment

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import _protocol
import sets


def _rows(prefix: str, n: int, lp: str = "en-ru", kind: str = "mqm") -> list[Judgment]:
    return [
        Judgment(f"{prefix}:d{i % 3}:{i}", f"s{i % 2}", f"src {prefix} {i}", f"tr {i}", -i, lp=lp,
                 kind=kind, release="ted2021" if lp != "en-ru" else "")
        for i in range(n)
    ]  # fmt: skip


@pytest.fixture
def fake_sets() -> dict:
    """Every set the en-ru split reads, a few rows each."""
    return {
        "news": _rows("newstest2021", 12),
        "qe22": _rows("wmt22dev", 6, kind="qe"),
        "da": _rows("wmt21da", 6, kind="da"),
        "da-shared": {},
        "it": [],
        "it-test": [],
    }


TALKS = {"talks": _rows("ted2021", 5, lp="zh-en"), "talks-ende": _rows("ted2021", 4, lp="en-de")}


@pytest.mark.parametrize("key", sorted(TALKS))
def test_the_fold_that_reads_a_talks_set_never_trains_on_it(fake_sets, key):
    fold = _protocol.TALKS_READ[key]
    train, _ = _protocol.split(fake_sets, fold, False, 0, True, talks=TALKS)
    trained = {(rows[0].lp, rows[0].release) for rows in train}
    mine = (TALKS[key][0].lp, "ted2021")
    assert mine not in trained
    (other,) = set(TALKS) - {key}
    assert (TALKS[other][0].lp, "ted2021") in trained  # it trains on the other talks set


def test_the_shipped_model_trains_on_both_talks_sets_and_without_them_on_none(fake_sets):
    train, test = _protocol.split(fake_sets, "all", False, 0, True, talks=TALKS)
    assert test == []
    assert {rows[0].lp for rows in train} == {"en-ru", "zh-en", "en-de"}
    plain, _ = _protocol.split(fake_sets, "all", False, 0, True)
    assert {rows[0].lp for rows in plain} == {"en-ru"}


def test_each_talks_set_is_read_by_its_fold_and_rtm15_by_the_model_it_keeps():
    by_key = {"talks": "lodo-qe22", "talks-ende": "lodo-news"}
    for key, fold in by_key.items():
        vs = sets.ValidationSet(key, key, "systems", _protocol.TALKS_READ[key], ())
        assert sets.reading_fold(vs, "plain-talks") == fold
        assert sets.reading_fold(vs, "rtm15") == "lodo-qe22"  # trained on no talks
    news = sets.ValidationSet("news", "news", "systems", "lodo-news", ())
    assert sets.reading_fold(news, "rtm15") == "lodo-news"


def test_a_wise_interpolation_runs_from_the_plain_model_to_the_multi_task_one(unigram_dir):
    """``estimator.py wise``: at alpha 0 the sentence head's part of the score is the plain
    model's score, at 1 the multi-task model's, between them neither; the heads only the
    multi-task model has (the word head and the layer that adds its evidence to the score)
    stay its own."""
    from dataclasses import replace

    import estimator
    import numpy as np
    from test_estimator import _marked
    from test_plain_recipe import TINY

    from xlscore.estimator.model import QualityEstimator
    from xlscore.estimator.recipe import PLAIN
    from xlscore.training import fit

    data = _marked()[:2]
    src, mt = [r.source for r in data[0]], [r.translation for r in data[0]]

    def trained(**extra):
        recipe = replace(PLAIN, **{**TINY, "delta_rank": 0, **extra})
        return fit(QualityEstimator(str(unigram_dir), recipe=recipe, dtype="fp32"), data)

    def base(est) -> np.ndarray:
        return np.array([e.base for e in est.estimate(src, mt)])

    plain = trained()
    multi = lambda: trained(batching="source", word_weight=1.0, seed=2)
    ends = plain.predict(src, mt), base(multi())
    assert not np.allclose(*ends, atol=1e-4)
    at0 = estimator.interpolate(plain, multi(), 0.0)
    assert np.allclose(base(at0), ends[0], atol=1e-5)
    assert np.allclose(base(estimator.interpolate(plain, multi(), 1.0)), ends[1], atol=1e-5)
    half = base(estimator.interpolate(plain, multi(), 0.5))
    assert not np.allclose(half, ends[0], atol=1e-5) and not np.allclose(half, ends[1], atol=1e-5)
    own = multi().model.state_dict()
    heads = {k: v for k, v in at0.model.state_dict().items() if k.startswith(("word", "adequacy"))}
    assert heads and all(v.equal(own[k]) for k, v in heads.items())


def test_talks_spans_attach_by_segment_and_errors_without_a_span_stay_unlabelled(tmp_path):
    import gzip
    import json

    (tmp_path / "multilingual").mkdir()
    rows = [
        Judgment("ted2021:t:1", "A", "Hi there.", "Hallo da.", 0.0, lp="en-de"),
        Judgment("ted2021:t:1", "B", "Hi there.", "Hallo dort.", -5.0, lp="en-de"),
        Judgment("ted2021:t:2", "A", "Bye.", "Tschüss.", -1.0, lp="en-de"),
    ]
    spans = [
        ("en-de", "ted2021:t:1", "A", []),
        ("en-de", "ted2021:t:1", "B", [{"start": 6, "end": 11, "severity": "Major"},
                                       {"start": 6, "end": 40, "severity": "Minor"}]),
        ("en-de", "ted2021:t:2", "A", []),  # its error was marked on the source
    ]  # fmt: skip
    with gzip.open(tmp_path / _protocol.TALKS_SPANS, "wt", encoding="utf-8") as fh:
        fh.write("lp\tseg_id\tsystem\tspans\n")
        fh.writelines(f"{a}\t{b}\t{c}\t{json.dumps(d)}\n" for a, b, c, d in spans)
    scores = tmp_path / "scores.tsv"
    scores.write_text(
        "seg_id\tsystem\tn_err\nted2021:t:1\tA\t0\nted2021:t:1\tB\t1\nted2021:t:2\tA\t1\n",
        encoding="utf-8",
    )
    got = _protocol.unmarked_errors(_protocol.talks_marks(tmp_path, rows), scores)
    assert got[0].errors == ()  # no error: every word labelled right
    assert [(m.start, m.end, m.severity) for m in got[1].errors] == [(6, 11, "major")]
    assert got[2].errors is None  # an error with no span here: no word labels at all


def test_word_only_variants_drop_other_pairs_rows_without_word_labels(fake_sets):
    from dataclasses import replace

    talks = {k: [replace(r, errors=() if i % 2 else None) for i, r in enumerate(v)]
             for k, v in TALKS.items()}  # fmt: skip
    cfg = {"it": False, "it_sample": 0, "da": True, "talks": True,
           "recipe": {"foreign_words_only": True}}  # fmt: skip
    fake_sets["talks-data"] = talks
    train, _ = _protocol.fold_split(fake_sets, "all", cfg)
    other = [r for rows in train if rows[0].lp != "en-ru" for r in rows]
    assert other and all(r.errors is not None for r in other)
    assert sum(map(len, (rows for rows in train if rows[0].lp == "en-ru"))) == 24  # all kept
