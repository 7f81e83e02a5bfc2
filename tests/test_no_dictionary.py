"""The default without Müller's dictionary: anchors from word alignment in e5's space, English
words from the MiniLM pack's vocabulary, nothing but pip-installed packages."""

import warnings
from pathlib import Path

import pytest
import torch
from conftest import offline_scorer, read_demo, run_cli

from xlscore.errors import LexiconError, XLScoreError
from xlscore.lexicon import dictionary as lexicon_module
from xlscore.lexicon.dictionary import Lexicon, NoDictionaryWarning
from xlscore.lexicon.translators import AlignmentTranslator, make_translator
from xlscore.lexicon.wordalign import align, mutual_best

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"


@pytest.fixture
def no_dictionary(tmp_path, monkeypatch):
    """Müller's dictionary looked for in an empty folder."""
    monkeypatch.setattr(lexicon_module, "MUELLER7_DIR", tmp_path)
    monkeypatch.setenv("XLSCORE_MUELLER7_DIR", str(tmp_path))
    return tmp_path


def test_mutual_best_keeps_only_pairs_that_choose_each_other_above_the_floor():
    sim = torch.tensor([[0.95, 0.90, 0.10], [0.93, 0.20, 0.10], [0.10, 0.10, 0.60]])
    # row 1's best (column 0) prefers row 0; in the second round row 1 has nothing above 0.85
    assert mutual_best(sim, 0.85, 1) == [(0, 0)]
    assert mutual_best(sim, 0.85, 2) == [(0, 0)]
    # with a low floor, the third word pairs up too, and the second round pairs what is left
    assert mutual_best(sim, 0.15, 2) == [(0, 0), (1, 1), (2, 2)]
    assert mutual_best(sim, 0.15, 1) == [(0, 0), (2, 2)]
    assert mutual_best(torch.zeros(0, 3)) == []
    with pytest.raises(ValueError, match="matrix"):
        mutual_best(torch.zeros(3))


def test_align_is_cosine_based_and_ignores_vector_length():
    a = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    b = torch.tensor([[0.0, 5.0], [3.0, 0.1]])
    assert align(a, b, floor=0.9) == [(0, 1), (1, 0)]


def test_lexicon_without_the_dictionary_falls_back_with_one_warning(no_dictionary):
    with pytest.warns(NoDictionaryWarning, match="not installed"):
        lex = Lexicon.load(None)
    assert lex.name == "english-words" and not lex.table
    assert {"house", "government", "the"} <= lex.headwords
    assert "##ing" not in lex.headwords
    with pytest.raises(LexiconError, match="not installed"):
        Lexicon.load("mueller7")
    # the dictionary translator cannot work without word pairs; the default picks alignment
    with pytest.raises(LexiconError, match="alignment"):
        make_translator("dictionary", lex)
    assert isinstance(make_translator(None, lex), AlignmentTranslator)


def test_alignment_anchors_pair_translations_of_each_other(e5):
    tr = AlignmentTranslator()
    src, mt = (
        e5.embed_words(["The president visited the old school in May."])[0],
        e5.embed_words(["Президент посетил старую школу в мае."])[0],
    )
    lex = Lexicon.english_words()
    words = tr.pair_translations(src.words, src.vectors, mt.words, mt.vectors, lex.en_keys)
    assert "president" in words.get("Президент", set())
    assert "school" in words.get("школу", set())


def test_default_scorer_runs_without_the_dictionary(no_dictionary):
    src = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()[:6]
    mt = (DEMO / "engine1.ru").read_text(encoding="utf-8").splitlines()[:6]
    with pytest.warns(NoDictionaryWarning):
        scorer = offline_scorer(fields="all")
    sig = scorer.signature()
    assert "lex:english-words#" in sig and "tr:alignment" in sig
    res = scorer.score(src, mt)
    assert all(r.f1 is not None and r.n_anchors > 0 for r in res)
    # the paper's fixed map needs a dictionary: a clear error, not a traceback
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoDictionaryWarning)
        fixed = offline_scorer(alignment="dictionary")
    with pytest.raises(XLScoreError, match="no word pairs"):
        fixed.paper.maps.dictionary_map()


def test_the_default_fields_build_no_papers_scorer_without_the_dictionary(no_dictionary):
    """Without the dictionary the evidence's anchors come from word alignment, so the default
    fields are scored chunk by chunk in this process, not in blocks: still without the
    paper's scorer (issue 85)."""
    src = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()[:3]
    mt = (DEMO / "engine1.ru").read_text(encoding="utf-8").splitlines()[:3]
    with pytest.warns(NoDictionaryWarning):
        scorer = offline_scorer()
    assert not scorer.blocks.runs_in_blocks()
    res = scorer.score(src, mt)
    assert scorer._paper is None and all(r.f1 is None and r.evidence for r in res)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_cli_score_rank_and_report_without_the_dictionary(no_dictionary, tmp_path):
    src, e1, e2 = DEMO / "source.en", DEMO / "engine1.ru", DEMO / "engine2.ru"
    r = run_cli("score", "-s", src, "-t", e1, "-t", e2, "--chunk-size", "50")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("not installed") == 1
    assert "lex:english-words#" in r.stdout and "system score engine2" in r.stdout
    r = run_cli("rank", "-s", src, "-t", e1, "-t", e2)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "report.html"
    r = run_cli("report", "-s", src, "-t", e1, "-t", e2, "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 1000


def test_untranslated_and_empty_input_without_the_dictionary(no_dictionary):
    src = (DEMO / "source.en").read_text(encoding="utf-8").splitlines()[:2]
    good = [r["translation"] for r in read_demo() if r["quality"] == "good" and int(r["id"]) <= 2]
    with pytest.warns(NoDictionaryWarning):
        scorer = offline_scorer(fields="score")
    copied = scorer.score(src, src)
    right = scorer.score(src, good)
    assert all("untranslated" in r.flags for r in copied)
    assert all(c.score < r.score for c, r in zip(copied, right))
    empty = scorer.score(src, [good[0], ""])
    # the lowest score there is, the estimator's floor, which a copy of the source (every word
    # foreign) reaches too: both rank below every translation
    assert "empty" in empty[1].flags and empty[1].score == scorer.estimator.floor
    assert empty[1].score <= min(c.score for c in copied) < min(r.score for r in right)
    with pytest.raises(XLScoreError, match="2 sources but 1 translations"):
        scorer.score(src, [good[0]])


def test_odd_segments_score_finite_without_the_dictionary(no_dictionary):
    """The hostile-input segments (tests/test_hostile.py) through the real default, every
    field, as translations and as sources."""
    import math

    from test_hostile import ODD

    with pytest.warns(NoDictionaryWarning):
        scorer = offline_scorer()
    texts = list(ODD.values())
    res = scorer.score(["The cat sat on the mat."] * len(texts), texts)
    back = scorer.score(texts, ["Кот сидел на коврике."] * len(texts))
    for text, r, b in zip(texts, res, back):
        assert math.isfinite(r.score) and math.isfinite(b.score)
        if not text.strip():
            assert "empty" in r.flags and "empty_source" in b.flags
        else:
            assert r.f1 is None or math.isfinite(r.f1)


def test_default_score_is_the_same_with_and_without_the_dictionary():
    """The estimator uses no anchor; the foreign-text share that pulls its score down comes
    from the same English word list whichever lexicon is loaded. ``unintelligible`` is a
    headword of Müller's dictionary and not a word of the list, ``government`` is both."""
    src = ["The invoice was unintelligible to the government."] * 3
    mt = [
        "Счёт был unintelligible для government.",
        "Счёт был непонятен для правительства.",
        "The invoice was unintelligible to the government.",
    ]
    assert "unintelligible" in Lexicon.mueller7().headwords
    assert "unintelligible" not in lexicon_module.english_word_list()[0]
    with_dict = offline_scorer(fields="score", lexicon="mueller7")
    without = offline_scorer(fields="score", lexicon="english-words")
    a, b = with_dict.score(src, mt), without.score(src, mt)
    assert [r.score for r in a] == [r.score for r in b]
    assert [r.foreign for r in a] == [r.foreign for r in b]
    assert a[0].foreign == pytest.approx(1 / 5)  # government, not unintelligible
    assert "untranslated" in a[2].flags and a[2].score < a[1].score
    words = [
        next(p for p in s.signature().split("|") if p.startswith("words:"))
        for s in (with_dict, without)
    ]
    assert words[0] == words[1] and words[0].startswith("words:english-words#")
