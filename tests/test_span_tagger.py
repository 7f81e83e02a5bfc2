"""The span tagger (issue 63): the word head's probabilities joined with the precise rules."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import offline_scorer, own_estimator, shared_estimator

from xlscore.errors import ModelError
from xlscore.estimator.span_tagger import FEATURES, SpanTagger, pointed_spans, word_features
from xlscore.estimator.spans import WordError

F = {f: i for i, f in enumerate(FEATURES)}


def only(feature: str, weight: float = 20.0, threshold: float = 0.5, **kw) -> SpanTagger:
    """A tagger that reads one feature: a word with it is an error, any other is not."""
    w = [0.0] * len(FEATURES)
    w[F[feature]] = weight
    return SpanTagger(tuple(w), -10.0, threshold, **kw)


def test_features_name_latin_copies_runs_capitals_digits_and_punctuation():
    source = "Visit the Grand Hotel Royal in Paris today."
    translation = "Посетите Grand Hotel Royal в Paris сегодня, iphone 15 !"
    words, x, marked = word_features(source, translation, ())
    by = {w.text: x[k] for k, w in enumerate(words)}
    assert [w.text for w in words] == translation.replace(",", " ,").split()
    assert by["Grand"][F["latin"]] == by["Grand"][F["copied"]] == 1
    assert by["Grand"][F["latin_run"]] == 1 and by["Royal"][F["latin_run"]] == 1
    assert by["Paris"][F["latin_run"]] == 0  # alone between Russian words
    assert by["Paris"][F["capital"]] == 1 and by["iphone"][F["capital"]] == 0
    assert by["iphone"][F["copied"]] == 0  # not a word of the source
    assert by["Посетите"][F["latin"]] == 0 and by["15"][F["digit"]] == 1
    assert by["!"][F["no_letter"]] == 1 and by[","][F["no_letter"]] == 1
    # 15 is a number the source lacks: a finding that counts points at it
    assert [w.text for w, m in zip(words, marked) if m] == ["15"]


def test_the_head_probability_reaches_the_words_its_error_overlaps():
    translation = "Он посетил встречу."
    _, x, _ = word_features("He did not attend.", translation, (WordError(3, 10, 0.9, 0.2, 0.7),))
    heads = x[:, F["head"]]
    assert heads[1] == pytest.approx(np.log(0.9 / 0.1))
    assert heads[0] == heads[2] < -9  # no error the head reached: probability 0 (clipped)
    assert x[1, F["major"]] == pytest.approx(0.7 / 0.9)
    assert x[0, F["neighbour"]] == heads[1] and x[2, F["neighbour"]] == heads[1]


def test_a_number_the_source_lacks_is_a_span_whatever_the_weights_say():
    source = "The profit was 250 million dollars."
    translation = "Прибыль составила 520 миллионов долларов."
    pointed = pointed_spans(source, translation)
    assert any(p.counts for p in pointed)
    never = SpanTagger((0.0,) * len(FEATURES), -30.0, 0.5)
    spans = never.spans(source, translation, ())
    assert [s.text for s in spans] and all("520" in s.text for s in spans)
    assert spans[0].severity == "major" and spans[0].probability >= 0.5
    assert never.spans(source, translation.replace("520", "250"), ()) == ()


def test_spans_merge_consecutive_words_and_drop_short_ones():
    translation = "Я люблю Apple iPhone , и ещё ."
    tagger = only("latin")
    spans = tagger.spans("I love Apple iPhone.", translation, ())
    assert [(s.text, s.start, s.end) for s in spans] == [("Apple iPhone", 8, 20)]
    # a run of punctuation tagged alone: kept with min_chars 0, dropped with 1
    assert [s.text for s in only("no_letter", min_chars=0).spans("", translation, ())] == [",", "."]
    assert only("no_letter", min_chars=1).spans("", translation, ()) == ()
    assert only("latin", min_chars=13).spans("", translation, ()) == ()


def test_the_tagger_is_stored_as_its_features_weights_and_threshold(tmp_path):
    t = SpanTagger(tuple(float(k) for k in range(len(FEATURES))), -1.5, 0.3, 2)
    assert SpanTagger.from_meta(json.loads(json.dumps(t.to_meta()))) == t
    assert t.signature() == "tagger>=0.3,2ch" and SpanTagger.from_meta(None) is None
    other = {**t.to_meta(), "features": ["head", "something else"]}
    with pytest.raises(ModelError, match=r"f\.safetensors: its span tagger reads features"):
        SpanTagger.from_meta(other, tmp_path / "f.safetensors")
    with pytest.raises(ModelError, match="malformed span_tagger"):
        SpanTagger.from_meta({**t.to_meta(), "threshold": 1.5})
    with pytest.raises(ModelError, match="malformed span_tagger"):
        SpanTagger.from_meta({"features": list(FEATURES)})


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_the_shipped_file_carries_its_tagger_and_the_signature_names_it(tmp_path):
    from xlscore.estimator.model import QualityEstimator, read_metadata

    est = shared_estimator()
    assert est.tagger is not None and est.tagger.threshold < est.recipe.span_threshold
    assert SpanTagger.from_meta(read_metadata(est.path)["span_tagger"]) == est.tagger
    assert f"|spans:{est.tagger.signature()}|" in offline_scorer().signature()
    own = own_estimator()  # not the shared one: saving renames it, and this sets its tagger
    own.tagger = SpanTagger(est.tagger.weights, est.tagger.bias, 0.6, 3)
    assert QualityEstimator.load(own.save(tmp_path / "copy.safetensors")).tagger == own.tagger
    own.tagger = None
    assert QualityEstimator.load(own.save(tmp_path / "none.safetensors")).tagger is None


def test_scored_spans_are_offsets_into_the_text_as_given_and_do_not_depend_on_fields():
    source = "The company earned 250 million dollars in 2020."
    given = (
        "Компания  заработала 520 миллионов\u00addолларов в 2020 году."  # two spaces, soft hyphen
    )
    spans = {
        fields: offline_scorer(fields=fields).score([source], [given])[0].error_spans
        for fields in (("score",), ("score", "evidence"))
    }
    (first, second) = spans.values()
    assert first == second and first
    for s in first:
        assert given[s.start : s.end] == s.text
    assert any("520" in s.text for s in first)
