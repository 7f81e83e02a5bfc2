import unicodedata

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from xlscore.encoders.pieces import (
    _sparse_piece_word_matrix,
    piece_word_matrix,
    unreached_words,
)
from xlscore.text.words import Word, normalize_text, split_words


def texts(words):
    return [w.text for w in words]


def test_split_runs_and_single_punctuation():
    t = "Вдруг что-то выпало — большой, неровно (1,5 кг)!"
    assert texts(split_words(t)) == [
        "Вдруг",
        "что",
        "-",
        "то",
        "выпало",
        "—",
        "большой",
        ",",
        "неровно",
        "(",
        "1",
        ",",
        "5",
        "кг",
        ")",
        "!",
    ]


def test_spans_point_into_text():
    t = "Hello, мир 42..."
    for w in split_words(t):
        assert t[w.start : w.end] == w.text


def test_each_symbol_is_its_own_word():
    assert texts(split_words("a+b=c 🙂🙂")) == ["a", "+", "b", "=", "c", "🙂", "🙂"]


def test_nfc_and_nfd_give_the_same_words():
    nfd = unicodedata.normalize("NFD", "Йошкар-Ола, ёжик")
    assert nfd != "Йошкар-Ола, ёжик"
    assert normalize_text(nfd) == "Йошкар-Ола, ёжик"
    assert texts(split_words(normalize_text(nfd))) == ["Йошкар", "-", "Ола", ",", "ёжик"]


def test_invisible_characters_separate_and_vanish():
    t = normalize_text("\u200bслово\u200b\tдругое\x00\u00a0\n конец ")
    assert t == "слово другое конец"
    assert texts(split_words(t)) == ["слово", "другое", "конец"]


def test_piece_word_matrix_straddling_and_missing():
    words = [Word("ab", 0, 2), Word(",", 2, 3), Word("cd", 4, 6), Word("e", 7, 8)]
    pieces = [(0, 1), (1, 3), (3, 3), (3, 6)]  # "a", "b,", empty, " cd"
    m, missing = piece_word_matrix(pieces, words)
    assert missing == [3]
    expected = torch.tensor([[0.5, 0.5, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    assert torch.allclose(m, expected)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab ,-", max_size=30),
    st.lists(st.tuples(st.integers(0, 32), st.integers(0, 32)), max_size=20),
)
def test_the_words_without_a_piece_are_the_matrixs_left_out_words(text, spans):
    """What the words-only path (no vectors) leaves out is what the matrix leaves out, for
    any pieces: straddling, empty, backwards, overlapping, past the end."""
    words = split_words(text)
    missing = piece_word_matrix(spans, words)[1]
    assert unreached_words(spans, words) == missing
    # an empty span (a special token, a bare "▁") reaches no word, inside one too, as in the
    # sparse matrix of a very long text
    bounds = torch.tensor([(w.start, w.end) for w in words], dtype=torch.int64).reshape(-1, 2)
    _, sparse_missing = _sparse_piece_word_matrix(
        torch.tensor(spans, dtype=torch.int64).reshape(-1, 2).numpy(), bounds.numpy()
    )
    assert sparse_missing == missing


def test_piece_word_matrix_empty_inputs():
    m, missing = piece_word_matrix([], [Word("x", 0, 1)])
    assert m.shape == (0, 0) and missing == [0]
    m, missing = piece_word_matrix([(0, 1)], [])
    assert m.shape == (0, 1) and missing == []


def test_format_characters_vanish_inside_words():
    t = normalize_text("сло\u00adво, ал\u200dло 👍\ufe0f")
    assert texts(split_words(t)) == ["слово", ",", "алло", "👍\ufe0f"]


def test_split_words_views_cut_by_the_same_rule():
    text = "Don't sell G7 bonds in Ростов-на-Дону, 3,5 %"
    plain = [w.text for w in split_words(text)]
    assert plain == [
        "Don",
        "'",
        "t",
        "sell",
        "G7",
        "bonds",
        "in",
        "Ростов",
        "-",
        "на",
        "-",
        "Дону",
        ",",
        "3",
        ",",
        "5",
        "%",
    ]
    letters = split_words(text, joiners="'’-", letters=True)
    assert [w.text for w in letters] == ["Don't", "sell", "G", "bonds", "in", "Ростов-на-Дону"]
    assert all(text[w.start : w.end] == w.text for w in letters)
    # a joiner joins only with no space around it; digits join when not letters-only
    assert [w.text for w in split_words("Су-35 - a", joiners="-")] == ["Су-35", "-", "a"]
    # a stress mark stays inside its word in both views
    stressed = "сло\u0301во"
    assert [w.text for w in split_words(stressed, letters=True)] == [stressed]
