"""Word tables for the ``number`` check of :mod:`xlscore.checks`: English and Russian
number words, scales, currencies, and units whose numbers a translation may convert.

Russian entries are lower case with ``ё`` written ``е``; a Russian *stem* matches any word
that starts with it.

Where the tables come from:

* **num2words** (imported, LGPL) spells the cardinals 0-19, the tens, the Russian hundreds,
  the ordinals and the scales in both languages (:data:`EN_UNITS`, :data:`EN_ORDINALS`,
  :data:`EN_SCALES`, :data:`RU_NUMBERS`, :data:`RU_SCALES`), and **pymorphy3** inflects the
  Russian cardinals into the genitive that starts compounds (``двух``-дневный,
  :data:`RU_NUMBER_STEMS`).
* **By hand**, what neither library has: words that stand for a number without being one
  (``dozen``, ``twice``, ``вдвое``, ``полтора``, the collectives ``двое``-``десятеро``),
  short scale marks after digits (``bn``, ``млн``), currency signs and words, the units a
  translation may convert, and the compound stems and exceptions that are not genitives
  (``одно``, ``столет``, ``полуостров``). num2words has no collectives or number-like
  nouns, and CLDR's unit and currency names are display names, not the abbreviations and
  stems that running news text uses.
"""

from __future__ import annotations

from num2words import num2words

from xlscore.checks.common import number, pairs, words
from xlscore.text.morph import analyzer, fold_ru

_TEENS = range(20)
_TENS = range(20, 100, 10)


def _spelt(n: int, lang: str, to: str = "cardinal") -> str:
    """num2words' spelling of ``n`` (its last word: ``one hundred`` -> ``hundred``), folded."""
    return fold_ru(num2words(n, lang=lang, to=to).split()[-1])


EN_UNITS = {_spelt(n, "en"): n for n in (*_TEENS, *_TENS)}
EN_ORDINALS = {_spelt(n, "en", "ordinal"): n for n in (*_TEENS[1:], *_TENS, 100, 1000, 10**6)}
EN_SCALES = {_spelt(10**k, "en"): 10**k for k in (2, 3, 6, 9, 12)}
# words that stand for a number on their own: (value, *optional*); an optional word (``?``)
# may absorb a counterpart but is never reported missing: it is too often translated without
# a number word
EN_SPECIAL = {
    k: (number(v.rstrip("?")), v.endswith("?"))
    for k, v in pairs(
        """
    half=0.5 dozen=12 twice=2? double=2? triple=3? quarter=0.25? centenary=100? centennial=100?
    bicentenary=200? decade=10? fortnight=14?
    """
    )
}
# English number words that only absorb a counterpart (``one`` is often a pronoun, ``first``
# becomes ``впервые``, ``second`` a unit of time)
EN_OPTIONAL_VALUES = {"one": 1, "first": 1, "second": 2}
# closed compounds that start with a number (``foursomes``, ``twofold``): optional
EN_NUMBER_COMPOUND = words(
    """
    some somes fold ball balls score pence sided way
    """
)

# scale written after digits: ``2.5bn``, ``5 million``, ``3 тыс.``
SCALE_SUFFIX = {
    k: number(v)
    for k, v in pairs(
        """
    thousand=1000.0 thousands=1000.0 k=1000.0 million=1000000.0 millions=1000000.0 mln=1000000.0
    mn=1000000.0 m=1000000.0 billion=1000000000.0 billions=1000000000.0 bn=1000000000.0
    b=1000000000.0 bln=1000000000.0 trillion=1000000000000.0 trillions=1000000000000.0
    tn=1000000000000.0 trn=1000000000000.0 hundred=100 тыс=1000.0 млн=1000000.0
    млрд=1000000000.0 трлн=1000000000000.0
    """
    )
}
RU_SCALE_PREFIX = (("тысяч", 1e3), ("миллион", 1e6), ("миллиард", 1e9), ("триллион", 1e12))
# currencies: symbols before a number, and words after it (English; Russian stems). English
# ``pounds`` may be a weight, so only ``£`` and ``pounds sterling`` say pounds.
CURRENCY_SYMBOLS = {"$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY", "₹": "INR", "₽": "RUB"}
EN_CURRENCY_WORDS = dict(
    pairs(
        """
    dollar=USD dollars=USD euro=EUR euros=EUR yen=JPY rupee=INR rupees=INR yuan=CNY rouble=RUB
    roubles=RUB ruble=RUB rubles=RUB sterling=GBP
    """
    )
)
RU_CURRENCY_STEMS = tuple(
    pairs(
        """
    доллар=USD фунт=GBP евро=EUR иен=JPY йен=JPY рупи=INR юан=CNY рубл=RUB
    """
    )
)
# abbreviations after which a bare ``m`` / ``b`` means million / billion for sure
CURRENCY = set("$£€¥₽") | {"us$", "usd", "eur", "gbp"}

_COLLECTIVES = words("двое трое четверо пятеро шестеро семеро восьмеро девятеро десятеро")
# pymorphy3 normal forms of Russian number words: num2words' cardinals and ordinals, and
# the words it does not spell
RU_NUMBERS: dict[str, float] = {
    **{_spelt(n, "ru"): n for n in (*_TEENS, *_TENS, *range(100, 1000, 100))},
    **{_spelt(n, "ru", "ordinal"): n for n in (*_TEENS[1:], *_TENS, 100, 1000, 10**6)},
    **{k: number(v) for k, v in pairs("нуль=0 полтора=1.5 полторы=1.5 половина=0.5")},
    **dict(zip(_COLLECTIVES, range(2, 11))),
}
RU_SCALES = {_spelt(10**k, "ru"): 10**k for k in (3, 6, 9, 12)}
# number words that only absorb a counterpart, never reported missing
RU_OPTIONAL = {
    k: number(v)
    for k, v in pairs(
        """
    один=1 первый=1 второй=2 оба=2 пара=2 четверть=0.25 десяток=10 десятка=10 дюжина=12
    сотня=100 двойка=2 тройка=3 четверка=4 пятерка=5 шестерка=6 семерка=7 восьмерка=8 девятка=9
    вдвое=2 дважды=2 двойной=2 удвоить=2 удвоиться=2 втрое=3 трижды=3 тройной=3 вчетверо=4
    четырежды=4 впятеро=5 вдесятеро=10 однажды=1 впервые=1 треть=3 наполовину=0.5 полчаса=0.5
    полгода=0.5 полвека=0.5 полдня=0.5
    """
    )
}
# further values of Russian words (``сократился вдвое`` = fell by half)
RU_EXTRA_VALUES = {"вдвое": (0.5,), "втрое": (1 / 3,)}


def _genitive(n: int) -> str:
    """The genitive of a Russian cardinal (``два`` -> ``двух``), as compounds start with it."""
    return fold_ru(analyzer().parse(_spelt(n, "ru"))[0].inflect({"gent"}).word)


# stems of Russian compound words that start with a number (``двухдневный``, ``пятилетний``),
# tried in this order
RU_NUMBER_STEMS: tuple[tuple[str, float], ...] = (
    ("одно", 1),
    ("двое", 2),
    *((_genitive(n), n) for n in (*range(2, 13), 15, 20, 30, 40, 50)),
    ("столет", 100),
    ("стократ", 100),
    ("тысячелет", 1000),
    ("полу", 0.5),
)
RU_NUMBER_STEM_EXCEPTIONS = words(
    """
    семинар семит семиот пятилетк полуостров получ полус полуб
    """
)

# units whose numbers a translation may legitimately convert (°F -> °C, miles -> km)
IMPERIAL_UNITS = frozenset(
    words(
        """
    mile miles mi mph foot feet ft inch inches yard yards yd pound pounds lb lbs ounce ounces oz
    gallon gallons acre acres fahrenheit f degree degrees stone pint pints square sq cubic fl knots
    """
    )
)
METRIC_PREFIXES = words(
    """
    км километр метр м см сантиметр мм миллиметр кг килограмм грамм г тонн т литр л гектар га градус
    с c ° фут дюйм фунт унц галлон акр квадратн кубическ узл
    """
)
