"""The Russian->English lexicon: Müller parsing, morphology, user word lists."""

import pytest

from xlscore import InputError, Lexicon, LexiconError
from xlscore.lexicon.dictd import parse_entry
from xlscore.lexicon.dictionary import _en_candidates, fold_ru


@pytest.fixture(scope="module")
def mueller():
    return Lexicon.mueller7()


def test_parse_entry_keeps_translations_and_drops_examples():
    body = (
        "house\n   1. _n. [haʊs], _pl. [↗haʊzɪz]\n      1) дом; жилище; здание\n"
        "      2) дом; семья; to keep house вести хозяйство; лодки\n"
        "      3) (тж. the H.) палата (парламента)\n   2. _v. радовать(ся), веселиться\n"
        "   3. человек, идущий на уступки\n"
    )
    words, base = parse_entry(body)
    assert words == [
        "дом",
        "жилище",
        "здание",
        "дом",
        "семья",
        "палата",
        "радовать",
        "радоваться",
        "веселиться",
    ]
    assert base is None


def test_parse_entry_finds_the_base_of_a_form():
    assert parse_entry("said\n   [sɛd]\n   1. _p. и _p-p. от say 1\n")[1] == "say"
    assert parse_entry("children\n   [↗tʃɪldrɜn] _pl. от child\n") == ([], "child")


def test_english_spelling_candidates():
    assert "house" in _en_candidates("houses")
    assert "stop" in _en_candidates("stopped")
    assert "study" in _en_candidates("studies")
    assert "make" in _en_candidates("making")


def test_fold():
    assert fold_ru("Учёный") == "ученый"


def test_mueller_table_size_and_cache(mueller):
    assert 80_000 < len(mueller) < 200_000  # about 100k single-word pairs
    assert len(mueller.headwords) > 30_000
    again = Lexicon.mueller7()  # from the cache
    assert again.table == mueller.table and again.describe() == mueller.describe()


@pytest.mark.parametrize(
    ("ru", "en"),
    [
        ("урок", "lesson"),
        ("вчера", "yesterday"),
        ("домой", "home"),
        ("ужасные", "terrible"),
        ("розовые", "pink"),
        ("дому", "house"),
        ("учёные", "learned"),
        ("понедельник", "monday"),
        ("бланки", "slip"),
        ("обнаружил", "find"),
    ],
)
def test_mueller_translates_inflected_words(mueller, ru, en):
    assert en in mueller.translate(ru)


@pytest.mark.parametrize(
    ("ru", "en"),
    [("пообещало", "promise"), ("откроется", "open"), ("придя", "come"), ("наняла", "hire")],
)
def test_verbs_borrow_their_aspect_partners_translations(mueller, ru, en):
    assert en in mueller.translate(ru)


@pytest.mark.parametrize(
    ("form", "lemma"),
    [
        ("houses", "house"),
        ("learned", "learn"),
        ("found", "find"),
        ("said", "say"),
        ("children", "child"),
        ("was", "be"),
        ("taped", "tape"),
    ],
)
def test_english_keys(mueller, form, lemma):
    assert lemma in mueller.en_keys(form)
    assert (
        mueller.match({"house": "дома", "learn": "учиться"}.get(lemma, "дом"), "houses")
        or lemma != "house"
    )


def test_missing_dictionary_says_how_to_install(tmp_path):
    with pytest.raises(LexiconError, match="apt-get install mueller7-dict"):
        Lexicon.mueller7(tmp_path)


def test_user_tsv(tmp_path):
    p = tmp_path / "lex.tsv"
    p.write_text("# my words\nКошка\tcat\nкот\tCat\n\nёж\thedgehog\n", encoding="utf-8")
    lex = Lexicon.load(p)
    assert lex.translate("кошки") == frozenset({"cat"})  # via the normal form
    assert lex.translate("еж") == frozenset({"hedgehog"})
    assert lex.name == "tsv:lex.tsv" and len(lex) == 3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"cat only\n", "line 1: expected 'russian<TAB>english'"),
        ("кот\tcat\nплохо\n".encode(), "line 2"),
        ("кот\tcat\n".encode("cp1251"), "not UTF-8"),
        (b"# nothing\n", "holds no word pairs"),
    ],
)
def test_user_tsv_errors(tmp_path, content, message):
    p = tmp_path / "bad.tsv"
    p.write_bytes(content)
    with pytest.raises((InputError, LexiconError), match=message):
        Lexicon.from_tsv(p)
    with pytest.raises(InputError, match="no such lexicon file"):
        Lexicon.from_tsv(tmp_path / "missing.tsv")
