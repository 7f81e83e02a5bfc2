"""Anchor pairs."""

import pytest

from xlscore import Lexicon
from xlscore.lexicon.anchor_pairs import find_anchors, name_like
from xlscore.text.scripts import is_cyrillic, is_latin, is_number, is_russian_script
from xlscore.text.words import normalize_text, split_words

ISSUE_EN = (
    "He had learned that lesson yesterday when he had come home to find those terrible "
    "pink slips taped up all over the house"
)
ISSUE_RU = (
    "Он усвоил этот урок вчера, когда, придя домой, обнаружил эти ужасные розовые "
    "бланки, заклеенные по всему дому."
)


def words(text):
    return [w.text for w in split_words(normalize_text(text))]


def anchors(lex, en, ru):
    ew, rw = words(en), words(ru)
    a = find_anchors(ew, rw, lex.translate, lex.en_keys, lex.headwords)
    return a, [(ew[e], rw[r]) for e, r in a.pairs]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    p = tmp_path_factory.mktemp("lex") / "small.tsv"
    p.write_text(
        "кошка\tcat\nсобака\tdog\nи\tand\nвидеть\tsee\nбежать\trun\nстарый\told\n"
        "дом\thouse\nдом\thome\n",
        encoding="utf-8",
    )
    return Lexicon.from_tsv(p)


@pytest.mark.slow  # over about 2.5 s (the fast tier's budget: docs/development.md)
def test_the_issue_example_with_the_real_dictionary():
    lex = Lexicon.mueller7()
    a, pairs = anchors(lex, ISSUE_EN, ISSUE_RU)
    for pair in [
        ("lesson", "урок"),
        ("yesterday", "вчера"),
        ("home", "домой"),
        ("terrible", "ужасные"),
        ("pink", "розовые"),
        ("house", "дому"),
    ]:
        assert pair in pairs
    assert not a.flags and a.foreign == 0


def test_one_to_one_and_repeated_words_pair_in_order(small):
    a, pairs = anchors(
        small,
        "the cat sees the dog and the cat runs home",
        "кошка видит собаку, и кошка бежит домой, а кошка спит",
    )
    assert pairs[:2] == [("cat", "кошка"), ("sees", "видит")]
    cats = [(e, r) for e, r in a.pairs if r in (0, 5, 10)]
    assert cats == [(1, 0), (7, 5)]  # 1st with 1st, 2nd with 2nd
    assert len({e for e, _ in a.pairs}) == len(a.pairs) == len({r for _, r in a.pairs})


def test_matching_is_maximal(small):
    # "дом" can be "house" or "home": greedy in order would give the first Russian word "home"
    # and leave the second without a partner; the maximum matching pairs both
    lex = small
    _a, pairs = anchors(lex, "home house", "дом дом")
    assert len(pairs) == 2


def test_identical_numbers_names_and_acronyms_anchor(small):
    a, pairs = anchors(
        small, "Apple sold 300 old iPhones in the UK.", "Apple продала 300 старых iPhone в UK."
    )
    assert ("Apple", "Apple") in pairs and ("300", "300") in pairs and ("UK", "UK") in pairs
    assert ("old", "старых") in pairs
    assert a.foreign == 0 and not a.flags
    assert all(ident == (en == ru) for (en, ru), ident in zip(pairs, a.identical))


def test_untranslated_copy_is_flagged_and_earns_no_word_anchors(small):
    text = "The old dog and the cat saw the house on Monday."
    a, pairs = anchors(small, text, text)
    assert a.flags == ("untranslated",) and a.foreign > 0.8
    assert pairs == [("Monday", "Monday")]  # only the name counts


def test_wrong_language_is_flagged(small):
    a, _ = anchors(small, "The old dog saw the cat.", "Der alte Hund sah die Katze.")
    assert a.flags == ("wrong_language",)
    a, _ = anchors(small, "The old dog saw the cat.", "老狗看见了猫。")
    assert a.flags == ("wrong_language",)
    # Ukrainian is Cyrillic, but its own letters are not Russian: those words are foreign
    a, _ = anchors(
        small, "The old dog saw the cat.", "Старий пес побачив кішку на їхньому подвір'ї."
    )
    assert 0 < a.foreign < 1 and a.foreign_at
    a, _ = anchors(small, "The old dog saw the cat.", "Ії їхні є ґанок і її.")
    assert a.flags == ("wrong_language",)
    ru, _ = anchors(small, "The old dog saw the cat.", "Старый пёс увидел кошку во дворе.")
    assert ru.foreign == 0 and not ru.flags


def test_word_classes():
    from xlscore.lexicon.anchor_pairs import _script
    from xlscore.text.scripts import has_latin, has_letter

    words = [
        "кот",
        "iPhone12",
        "Ёж",
        "съезд2",
        "Бразилії",
        "ґанок",
        "42",
        "—",
        "",
        "Straße",
        "x-ray",
    ]
    for w in words:  # the packed bits find_anchors reads are the separate tests
        tests = (has_letter, is_russian_script, is_number, is_latin, is_cyrillic)
        assert _script(w) == sum(bool(t(w)) << k for k, t in enumerate(tests)), w
    assert has_latin("Ёж-x") and not has_latin("Ёж")
    assert is_number("300") and not is_number("3a")
    assert is_latin("iPhone12") and not is_latin("кот") and is_cyrillic("Ёж")
    assert is_russian_script("Ёж") and is_russian_script("съезд2")
    assert is_cyrillic("Бразилії") and not is_russian_script("Бразилії")
    assert not is_russian_script("ґанок") and not is_russian_script("Југославија")
    heads = {"apple", "the"}
    assert name_like("NATO", True, heads) and name_like("Apple", False, heads)
    assert not name_like("Apple", True, heads) and name_like("Zyxel", True, heads)
    assert name_like("iPhone", True) and not name_like("Zyxel", True)
