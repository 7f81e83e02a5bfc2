"""Word tables for the ``number`` check of :mod:`xlscore.checks`: English and Russian number
words, scales, currencies, and units whose numbers a translation may convert.

Russian entries are lower case with ``ё`` written ``е``; a Russian *stem* matches any word
that starts with it.
"""
from __future__ import annotations

EN_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
EN_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100,
    "thousandth": 1000, "millionth": 1e6,
}
EN_SCALES = {"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9,
             "trillion": 1e12}
# words that stand for a number on their own; the bool says whether the word is *optional*
# (it may absorb a counterpart but is never reported missing: it is too often translated
# without a number word)
EN_SPECIAL = {"half": (0.5, False), "dozen": (12, False), "twice": (2, True),
              "double": (2, True), "triple": (3, True), "quarter": (0.25, True),
              "centenary": (100, True), "centennial": (100, True), "bicentenary": (200, True),
              "decade": (10, True), "fortnight": (14, True)}
# English number words that only absorb a counterpart (``one`` is often a pronoun, ``first``
# becomes ``впервые``, ``second`` a unit of time)
EN_OPTIONAL_VALUES = {"one": 1, "first": 1, "second": 2}
# closed compounds that start with a number (``foursomes``, ``twofold``): optional
EN_NUMBER_COMPOUND = ("some", "somes", "fold", "ball", "balls", "score", "pence",
                      "sided", "way")

# scale written after digits: ``2.5bn``, ``5 million``, ``3 тыс.``
SCALE_SUFFIX = {
    "thousand": 1e3, "thousands": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6,
    "mln": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9,
    "bln": 1e9, "trillion": 1e12, "trillions": 1e12, "tn": 1e12, "trn": 1e12,
    "hundred": 100,
    "тыс": 1e3, "млн": 1e6, "млрд": 1e9, "трлн": 1e12,
}
RU_SCALE_PREFIX = (("тысяч", 1e3), ("миллион", 1e6), ("миллиард", 1e9), ("триллион", 1e12))
# currencies: symbols before a number, and words after it (English; Russian stems). English
# ``pounds`` may be a weight, so only ``£`` and ``pounds sterling`` say pounds.
CURRENCY_SYMBOLS = {"$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY", "₹": "INR", "₽": "RUB"}
EN_CURRENCY_WORDS = {"dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR",
                     "yen": "JPY", "rupee": "INR", "rupees": "INR", "yuan": "CNY",
                     "rouble": "RUB", "roubles": "RUB", "ruble": "RUB", "rubles": "RUB",
                     "sterling": "GBP"}
RU_CURRENCY_STEMS = (("доллар", "USD"), ("фунт", "GBP"), ("евро", "EUR"), ("иен", "JPY"),
                     ("йен", "JPY"), ("рупи", "INR"), ("юан", "CNY"), ("рубл", "RUB"))
# abbreviations after which a bare ``m`` / ``b`` means million / billion for sure
CURRENCY = set("$£€¥₽") | {"us$", "usd", "eur", "gbp"}

# pymorphy3 normal forms of Russian number words
RU_NUMBERS = {
    "ноль": 0, "нуль": 0, "один": 1, "два": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6,
    "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "одиннадцать": 11, "двенадцать": 12,
    "тринадцать": 13, "четырнадцать": 14, "пятнадцать": 15, "шестнадцать": 16,
    "семнадцать": 17, "восемнадцать": 18, "девятнадцать": 19, "двадцать": 20,
    "тридцать": 30, "сорок": 40, "пятьдесят": 50, "шестьдесят": 60, "семьдесят": 70,
    "восемьдесят": 80, "девяносто": 90, "сто": 100, "двести": 200, "триста": 300,
    "четыреста": 400, "пятьсот": 500, "шестьсот": 600, "семьсот": 700, "восемьсот": 800,
    "девятьсот": 900, "полтора": 1.5, "полторы": 1.5, "двое": 2, "трое": 3, "четверо": 4,
    "пятеро": 5, "шестеро": 6, "семеро": 7, "восьмеро": 8, "девятеро": 9, "десятеро": 10,
    "первый": 1, "второй": 2, "третий": 3, "четвертый": 4, "пятый": 5, "шестой": 6,
    "седьмой": 7, "восьмой": 8, "девятый": 9, "десятый": 10, "одиннадцатый": 11,
    "двенадцатый": 12, "тринадцатый": 13, "четырнадцатый": 14, "пятнадцатый": 15,
    "шестнадцатый": 16, "семнадцатый": 17, "восемнадцатый": 18, "девятнадцатый": 19,
    "двадцатый": 20, "тридцатый": 30, "сороковой": 40, "пятидесятый": 50,
    "шестидесятый": 60, "семидесятый": 70, "восьмидесятый": 80, "девяностый": 90,
    "сотый": 100, "тысячный": 1000, "миллионный": 1e6,
    "половина": 0.5,
}
RU_SCALES = {"тысяча": 1e3, "миллион": 1e6, "миллиард": 1e9, "триллион": 1e12}
# number words that only absorb a counterpart, never reported missing
RU_OPTIONAL = {
    "один": 1, "первый": 1, "второй": 2, "оба": 2, "пара": 2, "четверть": 0.25,
    "десяток": 10, "десятка": 10, "дюжина": 12, "сотня": 100, "двойка": 2, "тройка": 3,
    "четверка": 4, "пятерка": 5, "шестерка": 6, "семерка": 7, "восьмерка": 8, "девятка": 9,
    "вдвое": 2, "дважды": 2, "двойной": 2, "удвоить": 2, "удвоиться": 2, "втрое": 3,
    "трижды": 3, "тройной": 3, "вчетверо": 4, "четырежды": 4, "впятеро": 5, "вдесятеро": 10,
    "однажды": 1, "впервые": 1, "треть": 3, "наполовину": 0.5, "полчаса": 0.5, "полгода": 0.5,
    "полвека": 0.5, "полдня": 0.5,
}
# further values of Russian words (``сократился вдвое`` = fell by half)
RU_EXTRA_VALUES = {"вдвое": (0.5,), "втрое": (1 / 3,)}
# stems of Russian compound words that start with a number (``двухдневный``, ``пятилетний``)
RU_NUMBER_STEMS = (
    ("одно", 1), ("двух", 2), ("двое", 2), ("трех", 3), ("четырех", 4), ("пяти", 5),
    ("шести", 6), ("семи", 7), ("восьми", 8), ("девяти", 9), ("десяти", 10),
    ("одиннадцати", 11), ("двенадцати", 12), ("пятнадцати", 15), ("двадцати", 20),
    ("тридцати", 30), ("сорока", 40), ("пятидесяти", 50), ("столет", 100), ("стократ", 100),
    ("тысячелет", 1000), ("полу", 0.5),
)
RU_NUMBER_STEM_EXCEPTIONS = ("семинар", "семит", "семиот", "пятилетк", "полуостров", "получ",
                             "полус", "полуб")

# units whose numbers a translation may legitimately convert (°F -> °C, miles -> km)
IMPERIAL_UNITS = {
    "mile", "miles", "mi", "mph", "foot", "feet", "ft", "inch", "inches", "yard",
    "yards", "yd", "pound", "pounds", "lb", "lbs", "ounce", "ounces", "oz", "gallon",
    "gallons", "acre", "acres", "fahrenheit", "f", "degree", "degrees", "stone", "pint",
    "pints", "square", "sq", "cubic", "fl", "knots",
}
METRIC_PREFIXES = ("км", "километр", "метр", "м", "см", "сантиметр", "мм", "миллиметр", "кг",
                   "килограмм", "грамм", "г", "тонн", "т", "литр", "л", "гектар", "га",
                   "градус", "с", "c", "°", "фут", "дюйм", "фунт", "унц", "галлон",
                   "акр", "квадратн", "кубическ", "узл")
