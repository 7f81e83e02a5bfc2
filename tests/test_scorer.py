"""The scorer, end to end: tiny encoders for mechanics, the offline packs on the demo data."""

import random
from collections import defaultdict

import numpy as np
import pytest
import sacrebleu
from conftest import (
    DEMO,
    SMALL_LEXICON,
    make_wordpiece_bert,
    offline_scorer,
    read_demo,
    shared_models,
)

from xlscore import AlignmentMismatchError, Encoder, ProcrustesAligner, XLScorer
from xlscore.errors import InputError, XLScoreError
from xlscore.paper.alignment import IllPosedAlignmentWarning

TINY_SRC = ["the cat sat on the mat", "a b c", "the cats", "x"]
TINY_MT = ["неровно сложенный кусок", "что-то, x", "сло, x", "кусок"]


def test_score_returns_one_result_per_pair(tiny):
    res = tiny.score(TINY_SRC, TINY_MT, variant="all")
    assert len(res) == 4
    for r in res:
        assert -1 <= r.precision <= 1 and -1 <= r.recall <= 1 and -1 <= r.f1 <= 1
        assert r.score == pytest.approx(r.f1)  # nothing foreign here


def test_scores_do_not_depend_on_order(tiny):
    ref = tiny.score(TINY_SRC, TINY_MT, variant="all")
    perm = list(range(4))
    random.Random(3).shuffle(perm)
    other = tiny.score([TINY_SRC[i] for i in perm], [TINY_MT[i] for i in perm], variant="all")
    for k, i in enumerate(perm):
        assert other[k].f1 == pytest.approx(ref[i].f1, abs=1e-6)


def test_no_anchors_scores_zero(tiny):
    [r] = tiny.score(["the mat"], ["сло"], variant="anchors")
    assert (r.n_anchors, r.precision, r.recall, r.f1) == (0, 0.0, 0.0, 0.0)


def test_empty_translation_is_flagged(tiny):
    [r] = tiny.score(["the cat"], [""], variant="all")
    assert r.flags == ("empty",) and r.f1 == 0.0


def test_bad_input_is_refused(tiny):
    with pytest.raises(InputError, match="2 sources but 1 translations"):
        tiny.score(["a", "b"], ["x"])
    with pytest.raises(TypeError):
        tiny.score("a", "x")
    with pytest.raises(InputError, match="segment 2: translation is int"):
        tiny.score(["a", "b"], ["x", 3])
    with pytest.raises(XLScoreError, match="unknown variant"):
        tiny.score(["a"], ["x"], variant="best")


def test_multilingual_self_score_is_one(wordpiece_dir, tmp_path):
    lex = tmp_path / "lex.tsv"
    lex.write_text(SMALL_LEXICON, encoding="utf-8")
    s = XLScorer.offline(multilingual=Encoder.load(wordpiece_dir), lexicon=lex, estimator=None)
    res = s.score(["the cat sat on the mat", "a b"], ["the cat sat on the mat", "a b"], "all")
    assert [r.f1 for r in res] == pytest.approx([1.0, 1.0], abs=1e-6)


def test_idf_and_rescale_change_scores_as_documented(tiny):
    plain = tiny.score(TINY_SRC, TINY_MT, variant="all")
    tiny.paper.fit_idf(TINY_SRC, TINY_MT)
    weighted = tiny.score(TINY_SRC, TINY_MT, variant="all")
    assert any(abs(a.f1 - b.f1) > 1e-4 for a, b in zip(plain, weighted))
    tiny.paper.idf, tiny.paper._idf = False, None
    baseline = tiny.paper.fit_baseline(TINY_SRC, TINY_MT, variant="all")
    tiny.paper.rescale = True
    rescaled = tiny.score(TINY_SRC, TINY_MT, variant="all")
    tiny.paper.rescale, tiny.paper.baseline = False, None
    for a, b in zip(plain, rescaled):
        assert b.f1 == pytest.approx((a.f1 - baseline[2]) / (1 - baseline[2]), abs=1e-5)
    with pytest.raises(XLScoreError, match="two distinct sources"):
        tiny.paper.fit_baseline(["same", "same"], ["a", "b"])


def test_fitted_alignment_saves_and_refuses_other_encoders(tiny, tmp_path, unigram_dir):
    with pytest.warns(IllPosedAlignmentWarning):  # a tiny lexicon: a 5-pair dictionary map
        tiny.paper.fit_alignment(["неровно сложенный кусок"] * 3, ["неровно сложенный кусок"] * 3)
    path = tiny.paper.maps.fixed.save(tmp_path / "map.npz")
    again = XLScorer.offline(
        en_model=tiny.en,
        ru_model=tiny.ru,
        lexicon=tiny.paper.lexicon,
        alignment=path,
        estimator=None,
    )
    assert again.paper.maps.mode == "fixed"
    other = make_wordpiece_bert(tmp_path / "other", seed=9)
    with pytest.raises(AlignmentMismatchError, match="fitted for en encoder"):
        XLScorer.offline(
            en_model=Encoder.load(other),
            ru_model=tiny.ru,
            lexicon=tiny.paper.lexicon,
            alignment=path,
            estimator=None,
        )
    tiny.paper.maps.fixed, tiny.paper.maps.mode = ProcrustesAligner.identity(32), "fixed"


def test_signature_names_every_setting(tiny):
    tiny.score(TINY_SRC[:1], TINY_MT[:1])
    sig = tiny.signature()
    for part in (
        "xlscore:0.1.0|est:no|",
        "|en:",
        "@2#",
        "|ru:",
        "variant:anchors",
        "cons:chrF*1>=3",  # the paper's score with consensus, three engines or more
        "idf:no",
        "rescale:no",
        "lex:tsv:lex.tsv#",
        "tr:dictionary",
        "align:fixed#",
    ):
        assert part in sig


# ---------------------------------------------------------------- real packs, demo data
@pytest.fixture(scope="module")
def offline():
    """The paper's method with the candidates' consensus (the default before the quality
    estimator; the estimator's own tests are in test_default_estimator.py), on the session's
    encoders."""
    return offline_scorer(estimator=None, consensus=True)


@pytest.fixture(scope="module")
def demo_results(offline):
    rows = read_demo()
    res = offline.score([r["source"] for r in rows], [r["translation"] for r in rows])
    return rows, res


def test_good_translation_outranks_the_flipped_meaning(demo_results):
    rows, res = demo_results
    by = defaultdict(dict)
    for r, x in zip(rows, res):
        by[r["id"]][r["quality"]] = x.score
    wins = sum(v["good"] > v["meaning"] for v in by.values())
    print(f"good > meaning error on {wins} of {len(by)} demo sources")
    assert wins >= 9  # measured: see README; a regression shows here


def test_untranslated_copy_is_flagged_and_ranked_last(offline):
    rows = read_demo()
    for sid in ("1", "6", "11"):
        four = [r for r in rows if r["id"] == sid]
        source = four[0]["source"]
        ranking = offline.rank(source, [r["translation"] for r in four] + [source])
        assert ranking[-1].index == 4 and "untranslated" in ranking[-1].result.flags
        assert ranking[-1].score < min(r.score for r in ranking[:-1])


def test_demo_scores_do_not_depend_on_order(offline, demo_results):
    rows, res = demo_results
    perm = list(range(len(rows)))
    random.Random(0).shuffle(perm)
    other = offline.score([rows[i]["source"] for i in perm], [rows[i]["translation"] for i in perm])
    for k, i in enumerate(perm):
        assert other[k].score == pytest.approx(res[i].score, abs=1e-5)
        assert other[k].anchors == res[i].anchors


def test_rank_embeds_the_source_once(offline, monkeypatch):
    seen = []
    forward = Encoder._forward

    def spy(self, items, *args):
        seen.append((self.spec, len(items)))
        return forward(self, items, *args)

    monkeypatch.setattr(Encoder, "_forward", spy)
    rows = [r for r in read_demo() if r["id"] == "2"]
    ranking = offline.rank(rows[0]["source"], [r["translation"] for r in rows])
    assert ("pack:minilm-en", 1) in seen
    assert [r.rank for r in ranking] == [1, 2, 3, 4]
    assert ranking[0].score >= ranking[-1].score
    assert ranking[0].translation == rows[ranking[0].index]["translation"]


@pytest.mark.slow
def test_chunked_and_resumed_scoring_equals_one_pass(offline, demo_results):
    rows, res = demo_results
    src = [r["source"] for r in rows]
    mt = [r["translation"] for r in rows]
    chunked = offline.score(src, mt, chunk_size=7)  # map fitted in a separate pass
    for a, b in zip(res, chunked):
        assert b.score == pytest.approx(a.score, abs=1e-5) and b.anchors == a.anchors
    resumed = list(offline.iter_score(src, mt, chunk_size=7, start=30))
    assert [i for i, _ in resumed] == list(range(30, 48))
    for i, by in resumed:
        assert by[""].score == pytest.approx(res[i].score, abs=1e-5)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_several_engines_at_once(offline):
    src = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()
    engines = {
        f"e{k}": (DEMO / f"engine{k}.ru").read_text(encoding="utf-8").splitlines() for k in (1, 2)
    }
    out = list(offline.iter_score(src, engines, chunk_size=6))
    assert [i for i, _ in out] == list(range(12)) and all(set(by) == {"e1", "e2"} for _, by in out)
    with pytest.raises(InputError, match="12 sources but 11 translations from e2"):
        list(offline.iter_score(src, {"e1": engines["e1"], "e2": engines["e2"][:-1]}))


def test_foreign_penalty_never_raises_a_score():
    from xlscore.encoders.bertscore import rescale
    from xlscore.results import penalised

    for baseline in (None, 0.3, 0.8):
        floor = -1.0 if baseline is None else rescale(-1.0, baseline)
        for f1 in np.linspace(floor, 1.0, 9):
            for foreign in (0.0, 0.3, 1.0):
                s = penalised(float(f1), foreign, floor)
                assert floor - 1e-9 <= s <= f1 + 1e-9
            assert penalised(float(f1), 1.0, floor) == pytest.approx(floor)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_resuming_after_the_last_segment_still_settles_the_map():
    s = offline_scorer(estimator=None)  # a new scorer: no map settled before
    rows = read_demo()[:8]
    src, mt = [r["source"] for r in rows], [r["translation"] for r in rows]
    assert list(s.iter_score(src, mt, start=len(rows))) == []
    assert "align:corpus#" in s.signature()
    whole = offline_scorer(estimator=None)  # the same corpus scored from the start
    for size in (100, 3):  # one chunk and several: the map fitted the same way
        assert len(list(whole.iter_score(src, mt, chunk_size=size))) == len(rows)
        assert whole.signature() == s.signature()


def test_cross_fitting_leaves_the_signature_alone(offline, demo_results):
    rows, _ = demo_results
    corpus = offline.prepare([r["source"] for r in rows], [r["translation"] for r in rows])
    before = offline.signature()
    res = offline.paper.score_cross_fitted(corpus, [r["id"] for r in rows], folds=2)
    assert len(res) == len(rows) and offline.signature() == before


# ---------------------------------------------------------------- consensus of candidates
def _engines(k: int) -> tuple[list[str], dict[str, list[str]]]:
    src = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()
    return src, {
        f"e{i}": (DEMO / f"engine{i}.ru").read_text(encoding="utf-8").splitlines()
        for i in range(1, k + 1)
    }


@pytest.fixture(scope="module")
def four_engines(offline):
    """The four demo engines scored together with consensus: ``{segment: {engine: result}}``."""
    src, engines = _engines(4)
    return dict(offline.iter_score(src, engines))


def test_consensus_is_blended_into_the_score_of_three_or_more_engines(offline, four_engines):
    from xlscore.results import penalised
    from xlscore.scoring.consensus import blend
    from xlscore.scoring.scorer import PAPER_CONSENSUS_WEIGHT

    src, engines = _engines(4)
    plain = offline_scorer(estimator=None, consensus=False)
    with_c = four_engines
    without = dict(plain.iter_score(src, engines))
    assert "cons:chrF*1>=3" in offline.signature() and "cons:no" in plain.signature()
    names = list(engines)
    for i in (0, 5, 11):
        for n in names:
            a, b = with_c[i][n], without[i][n]
            assert b.consensus is None and a.f1 == pytest.approx(b.f1, abs=1e-6)
            # an independent computation: sacreBLEU's chrF against the three other engines
            want = np.mean([sacrebleu.sentence_chrf(engines[n][i], [engines[m][i]]).score
                            for m in names if m != n])  # fmt: skip
            assert a.consensus == pytest.approx(want / 100, abs=1e-9)
        own = [penalised(with_c[i][n].f1, with_c[i][n].foreign, -1.0) for n in names]
        blended = blend(own, [with_c[i][n].consensus for n in names], PAPER_CONSENSUS_WEIGHT)
        for n, want in zip(names, blended):
            assert with_c[i][n].score == pytest.approx(want, abs=1e-6)
            assert without[i][n].score == pytest.approx(
                penalised(without[i][n].f1, without[i][n].foreign, -1.0), abs=1e-6
            )


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_consensus_does_not_depend_on_engine_order_or_chunks_and_needs_three(offline, four_engines):
    src, engines = _engines(4)
    ref = four_engines
    rev = dict(offline.iter_score(src, dict(reversed(list(engines.items())))))
    chunked = dict(offline.iter_score(src, engines, chunk_size=9))
    for i in ref:
        for n in engines:
            # (the paper's corpus map sums its statistics in the pairs' order: 1e-7 apart)
            assert rev[i][n].score == pytest.approx(ref[i][n].score, abs=1e-6)
            assert chunked[i][n].score == pytest.approx(ref[i][n].score, abs=1e-5)
    two = dict(offline.iter_score(*_engines(2)))
    assert all(r.consensus is None for by in two.values() for r in by.values())


def test_rank_uses_consensus_and_refuses_a_bare_string(offline):
    rows = [r for r in read_demo() if r["id"] == "3"]
    ranking = offline.rank(rows[0]["source"], [r["translation"] for r in rows])
    assert all(r.result.consensus is not None for r in ranking)
    assert offline.rank(rows[0]["source"], []) == []
    with pytest.raises(TypeError):
        offline.rank(rows[0]["source"], "Дом.")


@pytest.mark.parametrize("fields", ["score", "all"])
def test_input_is_validated_once_per_call(monkeypatch, fields):
    """``score`` checks its two lists once; the chunks, the corpus map and the estimator it
    calls on the way trust them (issue 25)."""
    from xlscore.estimator import prediction as estimator_module
    from xlscore.paper import paper_scorer as paper_module
    from xlscore.scoring import scorer as scorer_module
    from xlscore.text import pairs as pairs_module

    calls = []
    real = pairs_module.check_corpus

    def counting(*args):
        calls.append(1)
        return real(*args)

    for module in (scorer_module, estimator_module, paper_module):
        monkeypatch.setattr(module, "check_corpus", counting)
    rows = [r for r in read_demo() if r["quality"] == "good"][:4]
    scorer = offline_scorer(fields=fields)
    scorer.score([r["source"] for r in rows], [r["translation"] for r in rows], chunk_size=2)
    assert len(calls) == 1
    calls.clear()
    with pytest.raises(InputError, match="4 sources but 3 translations"):
        scorer.score([r["source"] for r in rows], [r["translation"] for r in rows][:3])
    assert len(calls) == 1


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_the_default_score_depends_neither_on_the_chunk_nor_on_threads():
    """What docs/cli.md promises: other chunk sizes and thread counts give the same bits (each
    pair's similarity matched on its own, the map's statistics summed exactly; issue 52 had
    allowed 1e-6 between chunk sizes)."""
    import torch

    scorer = offline_scorer(fields="score")
    src, engines = _engines(4)

    def scores(chunk: int) -> np.ndarray:
        out = scorer.iter_score(src, engines, chunk_size=chunk)
        return np.array([[by[e].score for e in engines] for _, by in out])

    whole = scores(10_000)
    assert np.array_equal(scores(5), whole)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        assert np.array_equal(scores(10_000), whole)
    finally:
        torch.set_num_threads(threads)


def test_one_call_score_is_the_offline_scorer_s(offline):
    """``xlscore.score`` (issue 53): a new offline scorer for the call, with its settings."""
    import xlscore

    rows = [r for r in read_demo() if r["quality"] == "good"][:3]
    src, mt = [r["source"] for r in rows], [r["translation"] for r in rows]
    with shared_models():
        got = xlscore.score(src, mt, fields="score,evidence")
    want = offline_scorer(fields="score,evidence").score(src, mt)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in want]
    assert got[0].f1 is None  # the settings reached the scorer: no paper columns


def test_the_paper_scorer_gives_the_paper_s_columns_alone(offline):
    """``scorer.paper`` (``xlscore.PaperScorer``) scores a prepared corpus by the paper's
    method alone: the columns ``XLScorer`` reports, and its F1 as the score."""
    rows = [r for r in read_demo() if r["quality"] == "good"][:4]
    src, mt = [r["source"] for r in rows], [r["translation"] for r in rows]
    paper = offline.paper.score_prepared(offline.prepare(src, mt))
    full = offline.score(src, mt)
    assert [(p.precision, p.recall, p.f1, p.anchors) for p in paper] == [
        (f.precision, f.recall, f.f1, f.anchors) for f in full
    ]
    assert all(p.estimate is None and p.score <= p.f1 for p in paper)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "bogus"}, "unknown variant 'bogus'"),
        ({"multilingual": "/nowhere/model", "alignment": "map.npz"}, "takes no alignment"),
    ],
)
def test_bad_settings_are_refused_before_any_model_loads(kwargs, message):
    """The components check their own settings too, but the scorer checks them first, so
    that a wrong setting costs no model loading (the models named here do not exist)."""
    kwargs = {"en_model": "/nowhere/en", "ru_model": "/nowhere/ru", **kwargs}
    if "multilingual" in kwargs:
        del kwargs["en_model"], kwargs["ru_model"]
    with pytest.raises(XLScoreError, match=message):
        XLScorer.offline(estimator="/nowhere/qe.safetensors", **kwargs)


def test_settings_are_records_checked_where_they_are_made():
    """Issue 64: the scorer takes the paper's settings as one record beside at most five
    settings of its own; the record refuses a contradiction when it is made, before any model
    loads; the presets are records and settings by name start from them."""
    import inspect

    from xlscore import PaperSettings

    params = [p for p in inspect.signature(XLScorer.__init__).parameters if p != "self"]
    assert params == ["paper", "estimator", "consensus", "fields", "device", "dtype"]
    with pytest.raises(XLScoreError, match="not both"):
        PaperSettings(multilingual="pack:e5-small", en_model="bert-base-cased")
    with pytest.raises(XLScoreError, match="takes no alignment"):
        PaperSettings(multilingual="pack:e5-small", alignment="my-map.npz")
    with pytest.raises(XLScoreError, match="unknown variant"):
        PaperSettings(variant="some")
    with pytest.raises(XLScoreError, match="three numbers"):
        PaperSettings(baseline=(0.1, 0.2))
    with pytest.raises(TypeError, match="PaperSettings record"):
        XLScorer({"en_model": "bert-base-cased"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="no setting 'en_modle'"):
        XLScorer.offline(en_modle="bert-base-cased")
    with pytest.raises(XLScoreError, match="unknown preset 'fast'"):
        XLScorer.preset("fast")
    assert PaperSettings.split({"layer": 9, "dtype": "fp32"}) == ({"layer": 9}, {"dtype": "fp32"})


def test_settings_by_name_replace_the_presets_encoders(wordpiece_dir, unigram_dir, tmp_path):
    """``multilingual=`` replaces a preset's two encoders, ``en_model=``/``ru_model=`` its
    multilingual one: the scorer that results is the record's."""
    from xlscore import PaperSettings

    lex = tmp_path / "lex.tsv"
    lex.write_text(SMALL_LEXICON, encoding="utf-8")
    one = Encoder.load(wordpiece_dir)
    multi = XLScorer.offline(multilingual=one, lexicon=lex, estimator=None)
    assert multi.paper.multilingual and multi.en is multi.ru
    record = XLScorer(PaperSettings(multilingual=one, lexicon=lex), estimator=None)
    assert multi.describe() == record.describe()
    two = XLScorer.preset(
        "multilingual", en_model=one, ru_model=Encoder.load(unigram_dir), lexicon=lex
    )
    assert not two.paper.multilingual and two.en is not two.ru


def test_progress_shows_a_bar_over_the_pairs_with_the_default_fields(capsys):
    """Issue 71: ``progress=True`` showed nothing with the default fields (the estimator's
    passes, scored in blocks, moved no bar)."""
    from conftest import offline_scorer

    scorer = offline_scorer(fields=("score",))
    scorer.score(["The cat sat.", "It rained."], ["Кот сидел.", "Шёл дождь."], progress=True)
    assert "2/2" in capsys.readouterr().err
    scorer.score(["The cat sat."], ["Кот сидел."])
    assert capsys.readouterr().err == ""
