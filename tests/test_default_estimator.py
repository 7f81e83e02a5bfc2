"""The shipped quality estimator on the real pack: the file, its identity, and how the default
scorer uses it on the demo data."""

from collections import defaultdict

import numpy as np
import pytest
from conftest import offline_scorer, read_demo

from xlscore import XLScorer
from xlscore.checks import COUNTED, counted, find_mismatches
from xlscore.checks.degenerate import degeneracy
from xlscore.estimator.model import FLOOR, SHIPPED, QualityEstimator, shipped
from xlscore.io.cache import sha256_file
from xlscore.text.words import normalize_text


def _rules(estimate: float, foreign: float, source: str, translation: str) -> float:
    """The estimate pulled towards the floor by the share of foreign words, then by the share
    of the translation that is degenerate (xlscore.checks.degenerate), as the scorer does."""
    pulled = estimate - foreign * (estimate - FLOOR)
    share = degeneracy(normalize_text(source), normalize_text(translation)).share
    return pulled - share * (pulled - FLOOR)


def test_the_shipped_file_is_small_and_matches_its_digest():
    s = shipped()
    path = s.path
    assert path.stat().st_size <= 10_000_000
    assert sha256_file(path) == s.sha256
    total = sum(x.path.stat().st_size for x in SHIPPED)
    assert total <= 10_000_000


@pytest.fixture(scope="module")
def default():
    """``XLScorer.offline()`` on the session's encoders and shipped estimator."""
    return offline_scorer()


@pytest.fixture(scope="module")
def demo(default):
    rows = read_demo()
    return rows, default.score([r["source"] for r in rows], [r["translation"] for r in rows])


def test_the_default_scores_with_the_estimator_and_says_so(default, demo):
    rows, res = demo
    s = shipped()
    sig = default.signature()
    assert sig.startswith(f"xlscore:0.1.0|est:{s.name}#{s.sha256[:8]}@")
    # the shipped file's score (issue 61's rule on ten sets): the sentence head and the
    # reliable checks, and the consensus when engines are scored together; no meaning head and
    # no similarity, so one encoder pass (the similarity is a field, asked for by name or with
    # "all": not computed by default, as xlscore score does not compute it)
    est = default.estimator
    m, w, b = est.meaning_blend, est.similarity_weight, est.check_weight
    assert (m, w, b, est.consensus_weight) == (0, 0, 0.25, 2) and not est.separate_similarity
    assert "@bf16-0.25*checks<=4-degenerate|" in sig or "@fp32-0.25*checks<=4-degenerate|" in sig
    assert "*sim" not in sig and "|cons:chrF*2>=3|" in sig
    found = [counted(find_mismatches(r["source"], r["translation"], COUNTED)) for r in rows]
    assert any(found)
    assert all(
        r.estimate is not None
        and r.similarity is None
        and r.score
        == pytest.approx(_rules(r.estimate, r.foreign, d["source"], d["translation"]) - b * n)
        for r, n, d in zip(res, found, rows)
        if not r.flags
    )
    assert all(r.adequacy is not None for r in res)
    # the paper's method is reported beside it when asked for (fields="all"), not by default
    assert all(r.f1 is None and r.n_anchors is None and r.anchors == () for r in res)
    assert "est:no" in offline_scorer(estimator=None).signature()


def test_the_good_translation_wins_on_the_demo(demo):
    rows, res = demo
    by = defaultdict(dict)
    for r, x in zip(rows, res):
        by[r["id"]][r["quality"]] = x.score
    wins = {
        flaw: sum(v["good"] > v[flaw] for v in by.values())
        for flaw in ("meaning", "omission", "literal")
    }
    print("good translation above:", wins)
    # measured when the estimator was shipped (experiments/results/demo_check.md): 11, 12 and
    # 8 of 12 (the previous default, whose similarity favoured a clumsy word-for-word version
    # over a fluent one: 12, 12 and 5); a regression shows here
    assert wins["meaning"] >= 11 and wins["omission"] >= 12 and wins["literal"] >= 7


def test_untranslated_wrong_language_and_empty_output_rank_last(default):
    rows = [r for r in read_demo() if r["id"] == "6"]
    source = rows[0]["source"]
    others = [r["translation"] for r in rows]
    junk = [source, "Das Museum öffnet am Montag wegen des Sturms nicht.", ""]
    ranking = default.rank(source, others + junk)
    assert {t.index for t in ranking[-3:]} == {4, 5, 6}
    assert all(t.result.flags for t in ranking[-3:])
    assert all(t.score < min(x.score for x in ranking[:4]) for t in ranking[-3:])
    empty = next(t for t in ranking if t.index == 6)
    # the lowest score there is: the floor (no similarity weight to take it lower)
    assert default.estimator.similarity_weight == 0 and empty.score == FLOOR
    assert "empty" in empty.result.flags


def test_scores_do_not_depend_on_order_batch_or_neighbours(demo, default_estimator):
    rows, res = demo
    src, mt = [r["source"] for r in rows], [r["translation"] for r in rows]
    perm = np.random.default_rng(1).permutation(len(rows))
    # QualityEstimator.load(), loaded once per session: the default precision (bfloat16 on
    # most processors)
    est = default_estimator
    got = est.predict([src[i] for i in perm], [mt[i] for i in perm])
    want = np.array([res[i].estimate for i in perm])
    # bit-identical: every forward pass has a shape fixed by the pair's own length
    assert np.array_equal(got, want)
    half = est.predict(src[::2], mt[::2])
    assert np.array_equal(half, np.array([r.estimate for r in res[::2]]))
    one = est.predict(src[5:6], mt[5:6])
    assert one[0] == res[5].estimate
    exact = QualityEstimator.load(dtype="fp32")
    a = exact.predict(src, mt)
    assert np.array_equal(a[perm], exact.predict([src[i] for i in perm], [mt[i] for i in perm]))
    assert np.abs(a - np.array([r.estimate for r in res])).max() < 0.05


def test_evidence_reaches_the_result(demo):
    rows, res = demo
    omission = next(x for r, x in zip(rows, res) if r["id"] == "1" and r["quality"] == "omission")
    d = omission.to_dict()
    assert {
        "estimate",
        "unmatched_source",
        "foreign_words",
        "numbers_missing",
        "numbers_added",
    } <= set(d)
    assert isinstance(d["unmatched_source"], list)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_engines_scored_together_get_the_files_consensus(default):
    """The default with the demo's four engines scored together: each score is the pair's
    own score with the engines' agreement blended in at the weight the file stores, the
    estimate does not depend on the other engines, the engines' order changes nothing (bit
    for bit), and ``consensus=False`` gives every pair its own score."""
    from conftest import DEMO

    from xlscore.scoring.consensus import blend

    src = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()
    names = [f"engine{i}" for i in (1, 2, 3, 4)]
    engines = {n: (DEMO / f"{n}.ru").read_text(encoding="utf-8").splitlines() for n in names}
    ids = range(len(src))
    w = default.estimator.consensus_weight
    assert w > 0 and f"|cons:chrF*{w:g}>=3|" in default.signature()
    together = dict(default.iter_score(src, engines))
    backwards = dict(default.iter_score(src, dict(reversed(list(engines.items())))))
    alone = {n: default.score(src, engines[n]) for n in names}
    for k in range(len(ids)):
        own = [alone[n][k].score for n in names]
        assert [together[k][n].estimate for n in names] == [alone[n][k].estimate for n in names]
        want = blend(own, [together[k][n].consensus * 100 for n in names], w)
        assert [together[k][n].score for n in names] == pytest.approx(want, abs=1e-9)
        assert [backwards[k][n].score for n in names] == [together[k][n].score for n in names]
    off = offline_scorer(consensus=False)
    assert "|cons:no|" in off.signature()
    apart = dict(off.iter_score(src, engines))
    assert all(apart[k][n].score == alone[n][k].score and apart[k][n].consensus is None
               for k in apart for n in names)  # fmt: skip


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_the_shipped_student_is_one_smaller_pass():
    """``st4-e5s`` (xlscore.training.distill): the previous default's 4-layer student, no
    similarity; its score is its estimate (pulled to the floor by foreign words) minus the check
    term, and its signature says so."""
    base = offline_scorer(fields="score")
    student = XLScorer.offline(
        en_model=base.en, ru_model=base.ru, estimator="st4-e5s", fields="score"
    )
    est = student.estimator
    assert len(est.model.encoder.encoder.layer) == 4 and est.recipe.targets == "raw"
    assert (est.similarity_weight, est.meaning_blend, est.check_weight) == (0, 0, 0.25)
    sig = student.signature()
    assert "|est:st4-e5s#" in sig and "*sim" not in sig and "-0.25*checks<=4-degenerate|" in sig
    rows = read_demo()
    src, mt = [r["source"] for r in rows], [r["translation"] for r in rows]
    res = student.score(src, mt)
    for r, s, t in zip(res, src, mt):
        assert r.similarity is None
        want = _rules(r.estimate, r.foreign, s, t) - 0.25 * counted(find_mismatches(s, t, COUNTED))
        assert r.score == pytest.approx(want)
    # on the teacher's scale: its scores of the demo are close to the default's
    teacher = [r.score for r in base.score(src, mt)]
    assert np.corrcoef([r.score for r in res], teacher)[0, 1] > 0.5
