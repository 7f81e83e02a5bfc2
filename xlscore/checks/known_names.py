"""Names that Russian translates rather than transliterates (``Germany`` -> ``Германии``,
``EU`` -> ``ЕС``), for the ``name`` check of :mod:`xlscore.checks`: English name ->
Russian stems.

Russian entries are lower case with ``ё`` written ``е``; a Russian *stem* matches any word
that starts with it, and a stem with a space matches consecutive words (``соединенн штат``).

Where the table comes from:

* **Libraries** (:func:`library_names`): CLDR, through Babel, for the English and Russian
  names of the territories and world regions and of the cities that name time zones
  (``Europe/Berlin``); ISO 3166-2, through pycountry, for the states and provinces of the
  US, Canada and Australia. The Russian name is reduced to stems by pymorphy3's paradigms
  (:func:`word_stem`). Built once per process, on import.
* **By hand** (``known_names.tsv`` beside this module, one entry per line), only what they
  do not have: the other English names the news uses (``Holland``, ``Ivory Coast``,
  ``Kiev``, ``UK``, ``US``), the shorter or other Russian stems that cover the adjectives and
  peoples (``немец``, ``датск``, ``албан``), capitals and seats that stand for a country
  (``берлин``, ``кремл``), Russian abbreviations (``фрг``, ``кнр``, ``рф``), cities, states,
  regions, rivers and mountains that name no time zone, organisations, agencies, leagues and
  events, US state abbreviations, and peoples, religions and parties. A key of both has the
  stems of both.
"""

from __future__ import annotations

import functools
from pathlib import Path

import regex

from xlscore.checks.name_words import NOT_NAMES
from xlscore.text.morph import fold_ru, word_stem

#: the hand table (see the module's docstring): a data file, one entry per line
BY_HAND_FILE = Path(__file__).with_name("known_names.tsv")


_PAREN = regex.compile(r"\s*\(.*?\)")


def name_stems(russian: str) -> str:
    """A Russian name as the table holds it: each word's stem, joined by spaces. CLDR's
    ``о-в``/``о-ва`` (island, islands) is left out and an adjective's ``-ск`` with it, as
    the news writes islands by their own name (``Канарские о-ва`` -> ``канар``: ``на
    Канары``, ``Канарских и Балеарских островов``)."""
    names = _PAREN.sub("", russian).replace("’", "'").split()
    kept = [w for w in names if fold_ru(w) not in ("о-в", "о-ва")] or names
    stems = [word_stem(w) for w in kept]
    if len(kept) < len(names):
        stems = [st[:-2] if st.endswith("ск") and len(st) >= 5 else st for st in stems]
    return " ".join(stems)


def _english_key(name: str) -> str | None:
    """How an English text writes a CLDR name (``&`` as ``and``, no parenthesis), or None
    for names no running text writes so (``Congo - Kinshasa``, ``St. Lucia``)."""
    name = _PAREN.sub("", name).replace(" & ", " and ").strip()
    if not regex.fullmatch(r"\p{Lu}[\p{L}]*(?: [\p{L}]+)*", name):
        return None
    return name


def _cldr_pairs() -> list[tuple[str, str]]:
    """(English, Russian) names from CLDR, through Babel: the territories and world regions,
    and the cities that name time zones (``Europe/Berlin``; deeper ids such as
    ``America/Indiana/Knox`` are left out)."""
    from babel import Locale

    en, ru = Locale("en"), Locale("ru")
    pairs = [(en.territories[c], ru.territories[c]) for c in en.territories if c in ru.territories]
    cities = en.time_zones
    for zone, names in ru.time_zones.items():
        if zone.count("/") == 1 and "city" in names:
            english = cities.get(zone, {}).get("city") or zone.split("/")[1].replace("_", " ")
            pairs.append((english, names["city"]))
    return pairs


def _iso_pairs() -> list[tuple[str, str]]:
    """(English, Russian) names of the states and provinces of the US, Canada and Australia
    (ISO 3166-2 through pycountry, where it has a Russian name): the subdivisions whose ISO
    name is English."""
    import gettext

    import pycountry

    russian = gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=["ru"])
    return [
        (s.name, russian.gettext(s.name))
        for country in ("US", "CA", "AU")
        for s in pycountry.subdivisions.get(country_code=country)
        if russian.gettext(s.name) != s.name
    ]


@functools.lru_cache(maxsize=1)
def library_names() -> dict[str, tuple[str, ...]]:
    """English name -> Russian stems, from CLDR (:func:`_cldr_pairs`) and ISO 3166-2
    (:func:`_iso_pairs`). Names that :data:`~.name_words.NOT_NAMES` says are not names to
    check stay out."""
    out: dict[str, tuple[str, ...]] = {}
    for english, russian in _cldr_pairs() + _iso_pairs():
        key = _english_key(english)
        if key is None or key.lower() in NOT_NAMES or key.lower() == "world":
            continue
        stem = name_stems(russian)
        # a hyphenated name also as words (``Нью - Йорка``, ``Нью Йорк``)
        for form in dict.fromkeys((stem, stem.replace("-", " "))):
            if form not in out.get(key, ()):
                out[key] = (*out.get(key, ()), form)
    return out


def _by_hand(path: Path = BY_HAND_FILE) -> dict[str, tuple[str, ...]]:
    """The hand table: ``English name<TAB>stem,stem`` per line (``#`` comments)."""
    out: dict[str, tuple[str, ...]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            key, stems = line.split("\t")
            out[key] = (*out.get(key, ()), *(s.strip() for s in stems.split(",")))
    return out


def _merge(*tables: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for table in tables:
        for key, stems in table.items():
            out[key] = (*out.get(key, ()), *(s for s in stems if s not in out.get(key, ())))
    return out


KNOWN_NAMES = _merge(library_names(), _by_hand())
