"""Synthetic accuracy errors (xlscore.training.corruptions): each kind applies where it should, its
spans point at the changed material, it is reproducible, and it never raises.

All sentences here are written for these tests (no project data)."""

from __future__ import annotations

import random

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xlscore.training.corruptions as C
from xlscore.text.morph import parses
from xlscore.training.corruptions import KINDS, Corruption, corrupt
from xlscore.training.corruptions import words as W

POOL = [
    "Президент подписал новый закон о налогах вчера вечером.",
    "В Париже открылась выставка современного искусства.",
    "Компания Samsung представила новый смартфон в Сеуле.",
    "Депутаты обсудили бюджет на следующий год.",
    "Мария Иванова возглавила крупный банк в Казани.",
    "Из-за сильного снега в аэропорту отменили десятки рейсов.",
]

# kind -> (English source, Russian translation) where the kind applies
APPLIES: dict[str, list[tuple[str, str]]] = {
    "number": [
        ("Prices rose by 14% in 2008.", "В 2008 году цены выросли на 14%."),
        ("More than 20,000 people came.", "Пришли более 20 000 человек."),
        ("The train leaves at 7:45.", "Поезд отправляется в 7:45."),
        ("Growth was 3.5 percent.", "Рост составил 3,5 процента."),
    ],
    "spelled_number": [
        ("He dealt with two tasks.", "Он справился с двумя задачами."),
        ("Two hundred people came.", "Пришли двести человек."),
        ("The second round starts today.", "Второй тур начинается сегодня."),
        ("Exports fell by half.", "Экспорт сократился вдвое."),
        ("It cost 5 million roubles.", "Это стоило 5 млн рублей."),
    ],
    "negation": [
        ("The museum will not open.", "Музей не откроется."),
        ("The dog chased the cat.", "Собака выгнала кошку."),
        ("Nobody came.", "Никто не пришёл."),
    ],
    "named_entity": [
        ("Ivan met Anna in Moscow.", "Вчера Иван встретился с Анной в Москве."),
        ("Apple reported a profit.", "Компания Apple сообщила о прибыли."),
        ("The talks were held in Berlin.", "Переговоры прошли в Берлине."),
    ],
    "omission": [
        (
            "The old bridge, which was built in 1890, will be closed for repairs.",
            "Старый мост, который был построен в 1890 году, закроют на ремонт.",
        ),
        (
            "The museum will not open on Monday because of the storm.",
            "Музей не откроется в понедельник из-за шторма.",
        ),
    ],
    "addition": [
        ("The mayor opened a school.", "Мэр открыл школу в центре города."),
        ("Prices rose.", "Цены на нефть выросли."),
    ],
    "antonym": [
        ("Prices rose.", "Цены выросли."),
        ("The bank raised the rate.", "Банк повысил ставку."),
        ("A big house.", "Это большой дом."),
    ],
    "untranslated": [
        (
            "The government supported the proposal to raise pensions.",
            "Правительство поддержало предложение о повышении пенсий.",
        )
    ],
    "role_swap": [
        ("The cat chased the dog away.", "Кошка выгнала собаку."),
        ("The flight from Moscow to London was delayed.", "Рейс из Москвы в Лондон задержали."),
    ],
    "date_unit": [
        ("The vote will take place in May.", "Голосование пройдёт в мае."),
        ("He paid 5 dollars.", "Он заплатил 5 долларов."),
        ("The trip took two hours.", "Поездка заняла два часа."),
        ("It rained at night.", "Ночью шёл дождь."),
    ],
    "substitution": [
        ("The minister opened a new hospital.", "Министр открыл новую больницу в пригороде.")
    ],
    "scramble": [
        (
            "The government supported the proposal.",
            "Правительство поддержало предложение о повышении пенсий.",
        )
    ],
}

# kind -> a translation where it cannot apply (with an empty pool)
DECLINES: dict[str, tuple[str, str]] = {
    "number": ("Yes.", "Да, конечно."),
    "spelled_number": ("He came.", "Он пришёл домой."),
    "negation": ("Yes.", "Да."),
    "named_entity": ("He came home.", "он пришёл домой."),
    "omission": ("Yes.", "Да."),
    "addition": ("Yes.", "Да."),
    "antonym": ("The cat sleeps.", "Кошка спит."),
    "untranslated": ("Yes.", "Да, конечно."),
    "role_swap": ("The cat sleeps.", "Кошка спит."),
    "date_unit": ("The cat sleeps.", "Кошка спит."),
    "substitution": ("The cat sleeps.", "Кошка спит."),
    "scramble": ("Yes.", "Да, конечно."),
}

# sentences where a kind has several ways to apply
VARIED = {
    "negation": ("", "Музей не откроется в понедельник, сообщили в мэрии."),
    "role_swap": ("", "Кошка выгнала собаку, а Иван встретил Анну."),
}

CASES = [(k, s, t) for k, examples in APPLIES.items() for s, t in examples]


@pytest.fixture(autouse=True)
def _strict(monkeypatch):
    """Let internal errors surface instead of turning into None."""
    monkeypatch.setattr(C, "_STRICT", True)


def _parse(word: str):
    return [p.analysis for p in parses(word.lower())]


def check_spans(original: str, c: Corruption) -> None:
    """Every span lies in the text and holds changed material (no surrounding spaces); what
    lies outside the spans comes from the original, in order."""
    assert c.spans == tuple(sorted(c.spans))
    bounds = [0]
    for a, b in c.spans:
        assert 0 <= a <= b <= len(c.text)
        if a < b:
            piece = c.text[a:b]
            assert piece == piece.strip() and piece
        bounds += [a, b]
    bounds.append(len(c.text))
    outside = [
        c.text[bounds[k] : bounds[k + 1]].strip().casefold() for k in range(0, len(bounds), 2)
    ]
    low = original.casefold()
    assert low.startswith(outside[0]) and low.endswith(outside[-1]), (original, c)
    at = 0
    for piece in outside:
        found = low.find(piece, at)
        assert found >= 0, (piece, original, c)
        at = found + len(piece)


def first(kind: str, source: str, text: str, seeds=range(30), pool=POOL) -> Corruption:
    for seed in seeds:
        c = KINDS[kind](source, text, random.Random(seed), pool)
        if c is not None:
            return c
    raise AssertionError(f"{kind} never applied to {text!r}")


def changed(original: str, c: Corruption) -> list[str]:
    return [c.text[a:b] for a, b in c.spans]


def test_kinds_are_named_in_order():
    assert list(KINDS) == [
        "number",
        "spelled_number",
        "negation",
        "named_entity",
        "omission",
        "addition",
        "antonym",
        "untranslated",
        "role_swap",
        "date_unit",
        "substitution",
        "scramble",
    ]
    assert all(callable(f) for f in KINDS.values())


@pytest.mark.parametrize(
    ("kind", "source", "text"), CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CASES)]
)
def test_each_kind_applies_and_marks_its_change(kind, source, text):
    for seed in range(6):
        c = KINDS[kind](source, text, random.Random(seed), POOL)
        assert c is not None, (kind, text, seed)
        assert c.kind == kind and c.text != text and c.spans
        check_spans(text, c)
        if kind == "omission":
            assert len(c.spans) == 1 and c.spans[0][0] == c.spans[0][1]
        elif kind != "negation":  # removing a negation is a pure deletion
            assert any(a < b for a, b in c.spans)


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_is_reproducible_and_varies(kind):
    source, text = VARIED.get(kind) or max(APPLIES[kind], key=lambda st_: len(st_[1]))
    runs = [KINDS[kind](source, text, random.Random(s), POOL) for s in range(25)]
    again = [KINDS[kind](source, text, random.Random(s), POOL) for s in range(25)]
    assert runs == again
    outputs = {c.text for c in runs if c is not None}
    assert len(outputs) >= 2, outputs


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_declines_where_it_cannot_apply(kind):
    source, text = DECLINES[kind]
    for seed in range(5):
        assert KINDS[kind](source, text, random.Random(seed), []) is None


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "...",
        "!!! ,,, ???",
        "😀🎉 👍",
        "12 ... 34",
        "Hello world, this is Latin only.",
        "а",
        "Да.",
    ],
)
def test_odd_input_gives_none_or_a_valid_corruption(kind, text):
    c = KINDS[kind]("Hello world.", text, random.Random(0), POOL)
    assert c is None or (c.text != text and all(0 <= a <= b <= len(c.text) for a, b in c.spans))
    if not regex.search(r"\p{Cyrillic}", text) and kind != "number":
        assert c is None


def test_very_long_text_is_handled():
    text = " ".join(t for cases in APPLIES.values() for _, t in cases) * 10
    source = "The government supported the proposal to raise pensions. " * 10
    for kind, fn in KINDS.items():
        c = fn(source, text, random.Random(1), POOL)
        assert c is None or all(0 <= a <= b <= len(c.text) for a, b in c.spans), kind


# --- specific kinds ---------------------------------------------------------------


def test_number_changes_the_value_realistically():
    for seed in range(20):
        c = first("number", "", "Рост цен в 2008 году составил 14%.", seeds=[seed])
        ((a, b),) = c.spans
        new = c.text[a:b]
        assert new.isdigit() and new not in ("2008", "14")
        if "2008" in c.text:  # the percentage changed: a digit, a zero, a swap
            assert len(new) in (1, 2, 3)
        else:  # a year keeps its century
            assert len(new) == 4 and new.startswith("20")
    times = {first("number", "", "Поезд уходит в 7:45.", seeds=[s]).text for s in range(20)}
    for t in times:
        h, m = regex.search(r"(\d+):(\d+)", t).groups()
        assert 0 <= int(h) < 24 and 0 <= int(m) < 60 and (h, m) != ("7", "45")
    grouped = {first("number", "", "Пришли 20 000 человек.", seeds=[s]).text for s in range(30)}
    assert all("20 000" not in t for t in grouped)
    assert any(x in grouped for x in ("Пришли 2000 человек.", "Пришли 200 000 человек."))


def test_spelled_number_keeps_case_and_gender():
    for seed in range(10):
        c = first("spelled_number", "", "Он справился с двумя задачами.", seeds=[seed])
        new = changed("", c)[0]
        assert new != "двумя"
        assert any(p.tag.POS == "NUMR" and p.tag.case == "ablt" for p in _parse(new))
    c = first("spelled_number", "", "Пришли двести человек.")
    assert changed("", c)[0] in (
        "сто",
        "триста",
        "четыреста",
        "пятьсот",
        "шестьсот",
        "семьсот",
        "восемьсот",
        "девятьсот",
    )
    c = first("spelled_number", "", "Второй тур начинается сегодня.")
    new = changed("", c)[0]
    assert new[0].isupper() and any(
        "Anum" in p.tag and p.tag.gender == "masc" and p.tag.case == "nomn" for p in _parse(new)
    )
    outs = {
        first("spelled_number", "", "Экспорт сократился вдвое.", seeds=[s]).text for s in range(10)
    }
    assert outs <= {
        f"Экспорт сократился {w}." for w in ("втрое", "вчетверо", "впятеро", "вдесятеро")
    }
    c = first("spelled_number", "", "Это стоило 5 млн рублей.")
    assert changed("", c)[0] in ("тыс", "млрд", "трлн")


def test_negation_removes_or_inserts_not():
    c = first("negation", "", "Музей не откроется.")
    assert c.text == "Музей откроется." and c.spans == ((6, 6),)
    c = first("negation", "", "Собака выгнала кошку.")
    assert c.text == "Собака не выгнала кошку." and changed("", c) == ["не"]
    c = first("negation", "", "Никто не пришёл.")
    assert c.text == "Кто-то пришёл."
    c = first("negation", "", "У него нет денег.")
    assert c.text == "У него есть деньги."


def test_named_entity_is_replaced_by_one_of_its_kind():
    seen = set()
    for seed in range(20):
        c = first("named_entity", "", "Переговоры прошли в Берлине.", seeds=[seed])
        new = changed("", c)[0]
        seen.add(new)
        assert new != "Берлине" and new[0].isupper()
        assert any("Geox" in p.tag and p.tag.case == "loct" for p in _parse(new)), new
    assert len(seen) > 3
    c = first("named_entity", "", "Компания Apple сообщила о прибыли.")
    new = changed("", c)[0]
    assert regex.fullmatch(r"[A-Za-z]+", new) and new != "Apple"
    for seed in range(10):
        c = first("named_entity", "", "Вчера Анна встретилась с журналистами.", seeds=[seed])
        new = changed("", c)[0]
        assert any(
            "Name" in p.tag and p.tag.gender == "femn" and p.tag.case == "nomn" for p in _parse(new)
        ), new


def test_omission_keeps_the_sentence_well_formed():
    text = "Старый мост, который был построен в 1890 году, закроют на ремонт."
    outs = set()
    for seed in range(30):
        c = first("omission", "", text, seeds=[seed])
        outs.add(c.text)
        assert c.text.endswith(".") and "  " not in c.text and " ," not in c.text
        assert ",," not in c.text and " ." not in c.text
        ((a, b),) = c.spans
        assert a == b
        assert len(c.text) < len(text)
    assert "Старый мост закроют на ремонт." in outs
    c = first("omission", "", "Проект обошёлся в 3,5 миллиарда рублей, сообщили в мэрии.")
    assert "3," not in c.text or "3,5" in c.text


def test_addition_inserts_material_and_nothing_else():
    for seed in range(20):
        text = "Мэр открыл школу в центре города."
        c = first("addition", "", text, seeds=[seed])
        ((a, b),) = c.spans
        rest = (c.text[:a] + c.text[b:]).replace("  ", " ").replace(" .", ".")
        assert rest == text
    forms = set()
    for seed in range(40):
        c = KINDS["addition"]("", "Мэр открыл школу.", random.Random(seed), [])
        if c is not None and c.text.endswith("школу."):
            forms.add(changed("", c)[0])
    assert forms
    for w in forms:  # an adjective agreeing with школу, or an adverb
        assert any(
            (p.tag.POS == "ADJF" and p.tag.case == "accs" and p.tag.gender == "femn")
            or p.tag.POS == "ADVB"
            or p.tag.POS == "PRCL"
            for p in _parse(w)
        ), w


def test_antonym_keeps_the_form():
    for seed in range(10):
        c = first("antonym", "", "Цены выросли.", seeds=[seed])
        new = changed("", c)[0]
        p = _parse(new)[0]
        assert p.normal_form in ("упасть", "снизиться")
        assert p.tag.number == "plur" and p.tag.tense == "past"
    c = first("antonym", "", "Банк повысил ставку.")
    assert changed("", c)[0] in ("понизил", "снизил")
    c = first("antonym", "", "Это большой дом.")
    assert changed("", c)[0] in ("маленький", "небольшой")
    c = first("antonym", "", "Компания сообщила о рекордной прибыли.")
    assert c.text == "Компания сообщила о рекордном убытке."
    c = first("antonym", "", "Цены стали больше.")
    assert c.text == "Цены стали меньше."


def test_antonym_table_is_large_and_symmetric():
    pairs = (
        W.ANTONYM_VERBS
        + W.ANTONYM_ADJECTIVES
        + W.ANTONYM_ADVERBS
        + W.ANTONYM_NOUNS
        + [(a[0], b[0]) for a, b in W.ANTONYM_PREPOSITIONS]
    )
    assert len(pairs) >= 150
    table = C._antonyms()
    for a, b in W.ANTONYM_VERBS[:20]:
        assert b in table[("V", C.fold_ru(a))] and a in table[("V", C.fold_ru(b))]


def test_untranslated_uses_the_source():
    src = "The government supported the proposal to raise pensions."
    text = "Правительство поддержало предложение о повышении пенсий."
    english = set(regex.findall(r"[A-Za-z]+", src.lower()))
    for seed in range(10):
        c = first("untranslated", src, text, seeds=[seed])
        new = changed(text, c)[0]
        words = new.lower().split()
        assert 2 <= len(words) <= 7 and set(words) <= english
    assert KINDS["untranslated"]("", text, random.Random(0), POOL) is None


def test_role_swap_swaps_who_does_what():
    c = first("role_swap", "", "Кошка выгнала собаку.")
    assert c.text == "Собака выгнала кошку."
    assert changed("", c) == ["Собака", "кошку"]
    c = first("role_swap", "", "Мальчик увидел девочку.")
    assert c.text == "Девочка увидела мальчика."
    c = first("role_swap", "", "Рейс из Москвы в Лондон задержали.")
    assert c.text == "Рейс из Лондона в Москву задержали."
    c = first("role_swap", "", "Цены выросли с 5 до 7 рублей.")
    assert "с 7 до 5" in c.text


def test_date_unit_agrees_with_its_number_and_case():
    for seed in range(10):
        c = first("date_unit", "", "Голосование пройдёт в мае.", seeds=[seed])
        new = changed("", c)[0]
        assert any(p.tag.case == "loct" and p.tag.POS == "NOUN" for p in _parse(new))
    outs = {first("date_unit", "", "Он заплатил 5 долларов.", seeds=[s]).text for s in range(20)}
    assert outs <= {
        "Он заплатил 5 евро.",
        "Он заплатил 5 рублей.",
        "Он заплатил 5 фунтов.",
        "Он заплатил 5 юаней.",
        "Он заплатил 5 иен.",
        "Он заплатил 5 франков.",
    }
    c = first("date_unit", "", "Поездка заняла 2 часа.")
    new = changed("", c)[0]
    lemma = next(q for q in _parse(new) if q.tag.POS == "NOUN").normal_form
    assert _parse(lemma)[0].make_agree_with_number(2).word == new
    assert first("date_unit", "", "Цена: $5.").text[6] in "€£₽¥"


def test_substitution_uses_pool_words_of_the_same_part_of_speech():
    text = "Министр открыл новую больницу в пригороде."
    for seed in range(10):
        c = first("substitution", "", text, seeds=[seed])
        (a, b), *_ = c.spans
        old_word = regex.match(r"\w+", text[a:]).group()
        pos_old = _parse(old_word)[0].tag.POS
        new = c.text[a:b]
        assert any(
            pos_old == p.tag.POS or {p.tag.POS, pos_old} <= {"VERB", "INFN"} for p in _parse(new)
        )
    assert KINDS["substitution"]("", text, random.Random(0), []) is None


def test_scramble_shuffles_words_only():
    text = "Правительство поддержало предложение о повышении пенсий."
    for seed in range(10):
        c = first("scramble", "", text, seeds=[seed])
        assert sorted(c.text.lower().rstrip(".").split()) == sorted(
            text.lower().rstrip(".").split()
        )
        assert c.text[0].isupper()


# --- corrupt ---------------------------------------------------------------------


def test_corrupt_uses_only_the_kinds_asked_for():
    text = "В 2008 году компания не открыла новый завод в Казани."
    src = "In 2008 the company did not open a new plant in Kazan."
    kinds = ["number", "negation"]
    seen = set()
    for seed in range(30):
        c = corrupt(src, text, random.Random(seed), POOL, kinds=kinds)
        assert c is not None and c.kind in kinds
        seen.add(c.kind)
    assert seen == set(kinds)
    every = {corrupt(src, text, random.Random(s), POOL).kind for s in range(60)}
    assert len(every) >= 6
    assert corrupt("Yes.", "Да.", random.Random(0), POOL, kinds=["number"]) is None
    with pytest.raises(ValueError, match="unknown corruption kind"):
        corrupt(src, text, random.Random(0), POOL, kinds=["typo"])


def test_corrupt_is_reproducible():
    text = "Собака выгнала кошку из сада в понедельник."
    a = [corrupt("", text, random.Random(s), POOL) for s in range(15)]
    b = [corrupt("", text, random.Random(s), POOL) for s in range(15)]
    assert a == b


# --- never raises --------------------------------------------------------------------

_WORDS = [
    "Собака",
    "выгнала",
    "кошку",
    "из",
    "сада",
    ".",
    "Цены",
    "на",
    "нефть",
    "не",
    "выросли",
    "на",
    "12",
    "%",
    "в",
    "мае",
    ",",
    "сообщили",
    "в",
    "Москве",
    "20",
    "000",
    "человек",
    "двумя",
    "второй",
    "вдвое",
    "млн",
    "Apple",
    "ОПЕК",
    "7:45",
    "3,5",
    "который",
    "и",
    "но",
    "а",
    "для",
    "до",
    "после",
    "большой",
    "!",
    "?",
    "«",
    "»",
    "—",
    "(",
    ")",
    "😀",
    "x",
]
_TEXTS = st.one_of(
    st.text(
        alphabet="абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗ abcXYZ0123456789 ,.:;!?-"
        "—«»()%$€😀\n\t\u00a0",
        max_size=80,
    ),
    st.lists(st.sampled_from(_WORDS), max_size=25).map(" ".join),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(text=_TEXTS, source=st.text(max_size=40), seed=st.integers(0, 2**16), use_pool=st.booleans())
def test_no_kind_ever_raises(text, source, seed, use_pool):
    pool = POOL if use_pool else []
    for kind, fn in KINDS.items():
        c = fn(source, text, random.Random(seed), pool)
        if c is not None:
            assert isinstance(c, Corruption) and c.kind == kind and c.text != text
            assert all(0 <= a <= b <= len(c.text) for a, b in c.spans)


def test_the_recipe_names_the_same_kinds_without_loading_them():
    """A recipe checks its ``synthetic_kinds`` against names of its own, so that loading an
    estimator file loads no corruption code; they are the kinds, in order."""
    from xlscore.estimator.recipe import CORRUPTION_KINDS
    from xlscore.training.corruptions import KINDS

    assert tuple(KINDS) == CORRUPTION_KINDS
