"""The checks' word tables: what comes from Babel (CLDR), pycountry, num2words and pymorphy3,
and the text format of what is kept by hand."""

import pytest

from xlscore.checks import known_names, name_words, number_words
from xlscore.checks.common import number, pairs, words
from xlscore.text import morph


def test_a_russian_stem_is_the_prefix_its_case_forms_share():
    assert morph.word_stem("Германия") == "германи"
    assert morph.word_stem("Новая") == "нов"  # not the superlative's ``наинов``
    assert morph.word_stem("Штаты") == "штат"  # a plural noun in its own number
    assert morph.word_stem("Коста-Рика") == "коста-рик"
    assert morph.word_stem("Чили") == "чили"  # indeclinable: the word itself
    assert known_names.name_stems("Соединенные Штаты") == "соединенн штат"
    assert known_names.name_stems("Канарские о-ва") == "канар"


def test_the_known_names_come_from_cldr_and_iso_with_what_they_lack_by_hand():
    lib = known_names.library_names()
    assert "германи" in lib["Germany"]  # CLDR territory
    assert "лондон" in lib["London"]  # CLDR time-zone city
    assert "техас" in lib["Texas"]  # ISO 3166-2, pycountry
    assert {"нью-йорк", "нью йорк"} <= set(lib["New York"])
    assert "Davis" in lib and "World" not in lib
    assert not [k for k in lib if k.lower() in name_words.NOT_NAMES]
    table = known_names.KNOWN_NAMES
    # a key of both has the stems of both; the hand-kept ones are what CLDR lacks
    assert {"германи", "немц", "берлин"} <= set(table["Germany"])
    assert "оон" in table["UN"] and "UN" not in lib
    assert all(
        stems and all(s == s.lower() and "ё" not in s for s in stems) for stems in table.values()
    )


def test_the_number_words_are_num2words_spellings():
    assert number_words.EN_UNITS["nineteen"] == 19 and number_words.EN_UNITS["ninety"] == 90
    assert len(number_words.EN_UNITS) == 28
    assert number_words.EN_ORDINALS["twelfth"] == 12
    assert number_words.EN_ORDINALS["millionth"] == 10**6
    assert number_words.EN_SCALES == {
        "hundred": 100,
        "thousand": 1e3,
        "million": 1e6,
        "billion": 1e9,
        "trillion": 1e12,
    }
    ru = number_words.RU_NUMBERS
    assert ru["четвертый"] == 4 and ru["девятьсот"] == 900 and ru["сороковой"] == 40
    assert ru["двое"] == 2 and ru["полторы"] == 1.5  # kept by hand: num2words lacks them
    assert number_words.RU_SCALES["миллиард"] == 1e9
    stems = dict(number_words.RU_NUMBER_STEMS)
    assert stems["трех"] == 3 and stems["сорока"] == 40 and stems["одно"] == 1
    order = [s for s, _ in number_words.RU_NUMBER_STEMS]
    assert order.index("пяти") < order.index("пятидесяти")


def test_calendar_words_are_not_names():
    assert {"january", "sep", "wednesday"} <= name_words.NOT_NAMES
    assert "mon" not in name_words.NOT_NAMES  # CLDR's short day names are not taken


def test_hand_tables_are_written_as_running_text():
    assert words(" a  b\nc ") == ("a", "b", "c")
    assert pairs("x=1 gh=,г") == [("x", "1"), ("gh", ",г")]
    assert number("2") == 2 and isinstance(number("2"), int)
    assert number("0.25") == 0.25 and number("1e3") == 1000.0
    with pytest.raises(ValueError, match="not key=value"):
        pairs("x=1 broken")
    assert dict(name_words.TRANSLIT)["gh"] == ("", "г")
    assert name_words.LETTER_NAMES["b"] == "би"
    assert number_words.SCALE_SUFFIX["bn"] == 1e9
