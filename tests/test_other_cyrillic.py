"""Output in another Cyrillic language is flagged ``wrong_language`` (issue 82, point 5):
Ukrainian, Belarusian, Bulgarian, Serbian, Macedonian and Kazakh translations, even when most of
their words are spelt with Russian letters; Russian with such a letter in a name, a quoted word
or a ``60-е`` is not. The sentences were written for these tests. Each test of a flag failed
before the rule (those translations were scored as partly foreign but not flagged)."""

from __future__ import annotations

import pytest

from xlscore.lexicon.anchor_pairs import find_anchors
from xlscore.text.cyrillic_languages import other_cyrillic
from xlscore.text.words import split_words

SOURCE = "The government said that the new rules will take effect next week."

#: translations of SOURCE (or of the sentence beside it) into other Cyrillic languages
OTHER = {
    "uk": "Уряд заявив, що нові правила набудуть чинності наступного тижня.",
    "uk2": "Ціни зросли на п'ятнадцять відсотків за минулий рік, повідомило міністерство.",
    "uk3": "Президент відвідав собор у понеділок і зустрівся з мером міста.",
    "be": "Урад заявіў, што новыя правілы ўступяць у сілу на наступным тыдні.",
    "bg": "Правителството заяви, че новите правила ще влязат в сила от следващата седмица.",
    "bg2": "Цените са се повишили с петнадесет процента през миналата година.",
    "sr": "Влада је саопштила да ће нова правила ступити на снагу следеће недеље.",
    "mk": "Владата соопшти дека новите правила ќе стапат во сила следната недела.",
    "kk": "Үкімет жаңа ережелер келесі аптадан бастап күшіне енетінін мәлімдеді.",
}

#: Russian that must not be flagged: a Ukrainian or Serbian name, one quoted Ukrainian word,
#: a decade written ``60-е``, a ``ъ`` before е and я
RUSSIAN = [
    "Правительство заявило, что новые правила вступят в силу на следующей неделе.",
    "Президент Зеленский прибыл в Київ и встретился с журналистами.",
    "Теннисист Ђоковић выиграл турнир в третий раз подряд.",
    "Местные жители называют этот праздник «Купала», а отдых по-украински — «відпочинок».",
    "«И под старым мусором я подразумеваю 60-е, 70-е», — сказал он.",
    "Он объявил, что подъезд закроют, а съёмки перенесут.",
]


def _flags(translation: str) -> tuple[str, ...]:
    """The anchors' flags of ``translation`` against :data:`SOURCE`, no dictionary."""
    en = [w.text for w in split_words(SOURCE)]
    ru = [w.text for w in split_words(translation)]
    none: frozenset[str] = frozenset()
    return find_anchors(
        en, ru, lambda w: none, lambda w: frozenset({w.lower()}), frozenset(en)
    ).flags


@pytest.mark.parametrize("lang", list(OTHER))
def test_another_cyrillic_language_is_flagged_wrong_language(lang):
    assert _flags(OTHER[lang]) == ("wrong_language",), OTHER[lang]


@pytest.mark.parametrize("translation", RUSSIAN)
def test_russian_with_a_foreign_letter_in_a_name_or_quote_is_not_flagged(translation):
    assert _flags(translation) == ()


def test_the_rule_reads_sentence_starts():
    """A capitalised word that starts the sentence may mark the language; one inside it is a
    name and does not."""
    words = ["Він", "пішов", "додому", "."]
    assert other_cyrillic(words, lambda ws: [True, False, False, False])
    assert not other_cyrillic(words, lambda ws: [False, False, False, False])
