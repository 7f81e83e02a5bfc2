"""Error spans: from piece probabilities to word spans, offsets back to the text as given, and
the statistics that compare predicted spans with raters' marks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlscore.estimator.spans import (
    ErrorSpan,
    WordError,
    bad_words,
    decode_spans,
    mcc,
    move_words,
    span_f1,
    word_errors,
    word_mcc,
)
from xlscore.text.words import move_span, normalize_text, offset_map, split_words

TEXT = "Более 30 человек погибли, сообщила полиция."
#        0     6  9       17     24 26       35     42


def _probs(bad):
    """[pieces, 3] probabilities with the given error probabilities, all of them major."""
    bad = np.asarray(bad, float)
    return np.stack([1 - bad, np.zeros_like(bad), bad], 1)


def test_words_take_the_largest_error_probability_of_their_pieces():
    # pieces: "Бол" "ее" "30" "чел" "овек" ... (character spans in TEXT)
    offsets = [(0, 3), (3, 5), (6, 8), (9, 12), (12, 16), (16, 16)]
    words = word_errors(TEXT, offsets, _probs([0.1, 0.2, 0.9, 0.3, 0.6, 0.99]))
    assert [(w.start, w.end) for w in words] == [(0, 5), (6, 8), (9, 16)]
    assert [round(w.probability, 6) for w in words] == [0.2, 0.9, 0.6]  # the empty piece: none


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab ,", max_size=24),
    st.lists(
        st.tuples(st.integers(0, 26), st.integers(0, 26), st.floats(0, 1), st.floats(0, 1)),
        max_size=16,
    ),
)
def test_word_errors_are_the_dense_overlap_of_words_and_pieces(text, pieces):
    """Each word reached by a piece (spans overlapping; empty and backwards spans reach none)
    gets 1 - the least no-error probability of its pieces and their summed minor and major
    probabilities, the sums in piece order, bit for bit as a dense words x pieces reduction."""
    offsets = [(a, b) for a, b, _, _ in pieces]
    probs = np.array([(1 - p, p * q, p * (1 - q)) for _, _, p, q in pieces]).reshape(-1, 3)
    words = split_words(text)
    spans = np.array(offsets, dtype=np.int64).reshape(-1, 2)
    hits = [[a < b and a < w.end and w.start < b for a, b in spans.tolist()] for w in words]
    expected = []
    for w, hit in zip(words, hits):
        if any(hit):
            rows = probs[np.array(hit)]
            minor = major = 0.0
            for r in rows.tolist():
                minor, major = minor + r[1], major + r[2]
            expected.append(WordError(w.start, w.end, 1.0 - rows[:, 0].min(), minor, major))
    assert word_errors(text, offsets, probs) == tuple(expected)


def test_spans_merge_consecutive_words_and_take_the_likelier_severity():
    words = [
        WordError(0, 5, 0.2, 0.1, 0.1),
        WordError(6, 8, 0.9, 0.1, 0.8),
        WordError(9, 16, 0.7, 0.6, 0.1),
        WordError(26, 34, 0.8, 0.7, 0.1),
    ]
    spans = decode_spans(TEXT, words, 0.5)
    assert spans == (
        ErrorSpan(6, 16, "30 человек", "major", 0.9),
        ErrorSpan(26, 34, "сообщила", "minor", 0.8),
    )
    assert decode_spans(TEXT, words, 0.95) == ()
    assert ErrorSpan.from_dict(spans[0].to_dict()) == spans[0]


def test_offsets_move_from_the_normalised_text_to_the_text_as_given():
    given = "  Более\u00a0\u00a030 чел\u00adовек "
    seen = normalize_text(given)
    assert seen == "Более 30 человек"
    where = offset_map(seen, given)
    assert len(where.starts) == len(where.ends) == len(seen) + 1 and where.starts[0] == 2
    # a decomposed letter ending a span moves with the span, both ways
    decomposed = "Мои\u0306 дом"
    shown = normalize_text(decomposed)
    a, b = move_span(offset_map(decomposed, shown), 0, 4)
    assert shown[a:b] == "Мой"
    a, b = move_span(offset_map(shown, decomposed), 0, 3)
    assert decomposed[a:b] == "Мои\u0306"
    # characters only one side has stay outside; a span of only such characters is empty
    assert move_span(where, 6, 16) == (9, 20) and given[9:20] == "30 чел\u00adовек"
    assert move_span(offset_map(given, seen), 15, 16) == (12, 12)
    moved = move_words([WordError(6, 8, 0.9, 0.0, 0.9)], seen, given)
    assert given[moved[0].start : moved[0].end] == "30"
    assert move_words([WordError(0, 5, 0.5, 0.2, 0.3)], seen, seen)[0].start == 0


def test_bad_words_and_mcc():
    assert bad_words(TEXT, [(6, 8)]) == [False, True, False, False, False, False, False, False]
    # a zero-length mark (an omission) marks the word that ends at its position
    assert bad_words(TEXT, [(16, 16)])[2]
    assert mcc([True, False, True, False], [True, False, True, False]) == pytest.approx(1.0)
    assert mcc([False, True, False, True], [True, False, True, False]) == pytest.approx(-1.0)
    assert mcc([False] * 4, [True, False, True, False]) == 0.0
    # word-level MCC over several texts: one hit, one miss, one false alarm
    texts = [TEXT, TEXT]
    m = word_mcc(texts, [[(6, 8)], [(17, 24)]], [[(6, 8)], [(35, 42)]])
    tp, fp, fn, tn = 1, 1, 1, 13
    want = (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert m == pytest.approx(want)


def test_span_f1_counts_characters_but_not_spaces():
    p, r, f = span_f1([TEXT], [[(6, 16)]], [[(9, 16)]])
    assert p == pytest.approx(7 / 9) and r == pytest.approx(1.0)
    assert f == pytest.approx(2 * p * r / (p + r))
    assert span_f1([TEXT], [[]], [[(0, 5)]]) == (0.0, 0.0, 0.0)
