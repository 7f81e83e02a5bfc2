"""Names that Russian translates rather than transliterates (``Germany`` -> ``Германии``,
``EU`` -> ``ЕС``), for the ``name`` check of :mod:`xlscore.estimator.checks`: English name ->
Russian stems.

Russian entries are lower case with ``ё`` written ``е``; a Russian *stem* matches any word
that starts with it, and a stem with a space matches consecutive words (``соединенн штат``).

Where the table comes from:

* **Libraries** (:func:`library_names`): CLDR, through Babel, for the English and Russian
  names of the territories and world regions and of the cities that name time zones
  (``Europe/Berlin``); ISO 3166-2, through pycountry, for the states and provinces of the
  US, Canada and Australia. The Russian name is reduced to stems by pymorphy3's paradigms
  (:func:`word_stem`). Built once per process, on import.
* **By hand** (``_BY_HAND``), only what they do not have: the other English names the news
  uses (``Holland``, ``Ivory Coast``, ``Kiev``, ``UK``, ``US``), the shorter or other Russian
  stems that cover the adjectives and peoples (``немец``, ``датск``, ``албан``), capitals
  and seats that stand for a country (``берлин``, ``кремл``), Russian abbreviations (``фрг``,
  ``кнр``, ``рф``), cities, states, regions, rivers and mountains that name no time zone,
  organisations, agencies, leagues and events, US state abbreviations, and peoples,
  religions and parties. A key of both has the stems of both.
"""

from __future__ import annotations

import functools

import regex

from xlscore.estimator.checks.name_words import NOT_NAMES
from xlscore.text.morph import fold_ru, word_stem

# what the libraries lack (see the module's docstring), in the order: countries, regions,
# cities, states, rivers and mountains, organisations and acronyms, US state abbreviations,
# events and holidays, peoples, religions and parties. ``English name|Russian stems``,
# entries separated by ``;``; keys with several words are matched as a phrase in the source.
_BY_HAND = """
Afghanistan|афган; Albania|албан; Armenia|армян; Belarus|белорус; Bosnia|босни; Brazil|бразил
Bulgaria|болгар; Burkina Faso|буркина; China|кнр,пекин; Congo|конго; Costa Rica|коста
Czech Republic|чехи,чешск; Czechia|чешск; Denmark|датск; Dominican Republic|доминикан; Finland|финск
France|франц,париж; Germany|немец,немц,фрг,германск,берлин; Greece|грец,греч,грек,афин
Hungary|венгерск; Iran|тегеран; Italy|итал,рим; Ivory Coast|кот-д,кот д; Japan|японск,токио
Jordan|иордан,джордан; Kosovo|косов; Kyrgyzstan|киргиз,кыргыз; Mexico|мехико; Moldova|молдав
Morocco|марокк; Netherlands|голланд; Holland|голланд,нидерланд; New Zealand|зеланди
Nicaragua|никарагу; North Korea|северн коре,пхеньян; North Macedonia|македони; Macedonia|македони
Norway|норвежск; Palestine|палестин; Poland|польск,поляк,варшав; Portugal|португал
Russia|рф,русск,москв,кремл; Saudi Arabia|саудовск,сауд,кса; Sierra Leone|сьерра
South Africa|юар,южн африк,южноафрик; South Korea|южн коре,коре,сеул; Spain|испан,мадрид
Sri Lanka|шри ланк,ланк; Sweden|швец,швед; Syria|дамаск; Tajikistan|таджик; Thailand|тайланд
Turkey|турци,турецк,анкар; Turkmenistan|туркмен; Ukraine|киев; United Arab Emirates|эмират
UAE|оаэ,эмират; United Kingdom|великобритан,британ,соединенн королевств,англи,лондон
UK|великобритан,британ,соединенн королевств,англи,лондон
Britain|великобритан,британ,англи,соединенн королевств; Great Britain|великобритан,британ
England|англи; Scotland|шотланд; Wales|уэльс,валли; Northern Ireland|северн ирланд
United States|сша,америк,вашингтон; US|сша,соединенн штат,америк,вашингтон
USA|сша,соединенн штат,америк; America|америк,сша; Uzbekistan|узбек; Macau|макао; Catalonia|каталони
Crimea|крым; Chechnya|чечн; Siberia|сибир; Tibet|тибет; Kashmir|кашмир; West Bank|западн берег
Middle East|ближн восток,ближневосточ; Europe|европ,ес,евросоюз; Antarctica|антарктик; Arctic|арктик
Mediterranean|средиземномор; Pacific|тихоокеан,тих океан; Atlantic|атлант; Balkans|балкан
Scandinavia|скандинав; Munich|мюнхен; Venice|венеци; Florence|флоренци; Naples|неапол
Genoa|генуя,генуе,генуи; Cologne|кельн; The Hague|гааг; Hague|гааг; Beijing|пекин; Peking|пекин
Delhi|дели; Mumbai|мумба,бомбе; Kiev|киев; Geneva|женев; Riyadh|рияд; Mecca|мекк; Montreal|монреал
Sao Paulo|сан-паулу,паулу; Bogota|богот; Calcutta|калькутт; Chennai|ченна,мадрас; Lyon|лион
Marseille|марсел; Strasbourg|страсбург; Edinburgh|эдинбург; Glasgow|глазго; Antwerp|антверпен
Gothenburg|гетеборг; Leipzig|лейпциг; Krakow|краков; Gdansk|гданьск; Kharkiv|харьков,харкив
Odessa|одесс; Odesa|одесс; Lviv|львов,львив; Taipei|тайбе; Wuhan|ухан; Guangzhou|гуанчжоу
Shenzhen|шэньчжэн,шеньчжень,шэньчжень; Xinjiang|синьцзян; Kyoto|киото
San Francisco|сан-франциско,франциско; New Orleans|нов орлеан,орлеан; New Mexico|нью-мексик,мексик
Hawaii|гава; Utah|юте,юты,юту; Philadelphia|филадельфи; Houston|хьюстон; Seattle|сиэтл; Miami|майами
Pittsburgh|питтсбург; Queens|куинс; Hollywood|голливуд
Silicon Valley|кремниев долин,силиконов долин; Ottawa|оттав; Rhine|рейн; Danube|дуна; Thames|темз
Nile|нил; Alps|альп; Himalayas|гимала; UN|оон,объединенн наци; United Nations|оон,объединенн наци
EU|ес,евросоюз,европейск союз,евро,брюссел; European Union|ес,евросоюз
European Commission|еврокомисс,европейск комисс,ек; NATO|нато,северо-атлантическ,альянс
WHO|воз,всемирн организац здравоохран; World Health Organization|воз,всемирн организац здравоохран
IMF|мвф,международн валютн; World Bank|всемирн банк,миров банк; WTO|вто; OPEC|опек; FBI|фбр; CIA|цру
NSA|анб; KGB|кгб; FSB|фсб; NHS|национальн служб здравоохран,гсз,служб здравоохран,здравоохран
BBC|би-би-си; EPA|агентств по охран,агентств охран; FDA|управлени по санитарн,управлени по контрол
CDC|центр по контрол,центры по контрол,центров по контрол; SEC|комисс по ценн; GDP|ввп
AI|ии,искусствен; TV|тв,телевид,телевиз,телеканал; PM|премьер
MP|депутат,член парламент,парламентари
CEO|генеральн директор,гендиректор,директор,глав,руководител,президент; CFO|финансов директор
GOP|республикан; ISIS|игил,иг,исламск государств; ISIL|игил,иг,исламск государств; DNA|днк; HIV|вич
AIDS|спид; Aids|спид; COVID|ковид,коронавирус; Covid|ковид,коронавирус; UNICEF|юнисеф; UNESCO|юнеско
EFL|английск футбольн лиг; NFL|нфл; NBA|нба; NHL|нхл; FIFA|фифа; UEFA|уефа; Red Cross|красн крест
White House|бел дом; Kremlin|кремл; Capitol Hill|капитоли; Capitol|капитоли
Supreme Court|верховн суд; Foreign Office|мид,министерств иностранн
State Department|госдеп,государственн департамент; Treasury|минфин,казначейств,финанс
Foreign Ministry|мид,министерств иностранн
Ministry of Defence|минобороны,министерств оборон,оборонн
Ministry of Defense|минобороны,министерств оборон,оборонн
Defense Department|минобороны,министерств оборон,пентагон
Department of Defense|минобороны,министерств оборон,пентагон; Associated Press|ассошиэйтед,ап
AP|ап,ассошиэйтед; AFP|афп,франс; Reuters|рейтер,ройтер; GMT|гринвич; Cal|калифорни
Foreign Affairs|мид,иностранн дел; Commonwealth|содружеств; Utd|юнайтед; Algerian|алжир
Algerians|алжир; Tunisian|тунис; Tunisians|тунис; Wash|вашингтон; Ore|орегон; Calif|калифорни
Fla|флорид; Ariz|аризон; Colo|колорадо; Conn|коннектикут; Tenn|теннесси; Tex|техас; Okla|оклахом
Minn|миннесот; Wis|висконсин; Ala|алабам; Nev|невад; Mich|мичиган; Ill|иллинойс
NY|нью-йорк,нью йорк; NYC|нью-йорк,нью йорк; NJ|нью-джерси,нью джерси; DC|вашингтон,округ колумби
LA|лос-андж,лос андж; Rs|руп; Home Office|министерств внутренн,мвд,хоум-офис
Scotland Yard|скотленд-ярд; Premier League|премьер-лиг,апл,английск премьер
Champions League|лиг чемпион,лч; Europa League|лиг европ
World Cup|чемпионат мира,кубок мира,кубка мира,мундиал,чм; Olympics|олимпи; Olympic|олимпи
Paralympics|паралимпи; Bible|библи; Koran|коран; Quran|коран; Christmas|рождеств; Easter|пасх
Thanksgiving|благодарени; God|бог,господ; Earth|земл; Moon|лун; Sun|солнц; Gulf|залив
Pentagon|пентагон; American|америк,сша; Americans|америк,сша; British|британ,великобритан,англи
English|англи; Scottish|шотланд; Irish|ирланд; Welsh|уэльс,валлий; French|франц,француз
German|немец,немц,германск,герман; Germans|немц,герман; Russian|росси,русск,рф; Russians|росси,русск
Chinese|кита,кнр; Japanese|япон; Korean|коре; Indian|инди; Pakistani|пакистан; Iranian|иран
Iraqi|ирак; Israeli|израил; Israelis|израил; Palestinian|палестин; Palestinians|палестин; Arab|араб
Arabs|араб; Spaniard|испан; Spaniards|испан; Swede|швед; Swedes|швед; Briton|британ,англичан
Britons|британ,англичан; Scot|шотланд; Scots|шотланд; Frenchman|француз; Dane|датчан,датск
Pole|поляк,польск; Poles|поляк,польск; Turk|турок,турк,турец; Turks|турк,турец; Syrian|сири
Turkish|турец,турк,турц; Greek|греч,грек,греци; Italian|итальян,итали; Spanish|испан
Portuguese|португал; Dutch|голланд,нидерланд; Belgian|бельги; Swiss|швейцар; Austrian|австри
Swedish|швед; Norwegian|норвеж,норвеги; Danish|датск,дани; Finnish|финск,финлянд,финн
Polish|польск,поляк,польш; Czech|чешск,чехи,чех; Hungarian|венгер,венгр; Romanian|румын
Bulgarian|болгар; Serbian|серб; Croatian|хорват; Ukrainian|украин; Ukrainians|украин
Belarusian|белорус; Georgian|грузин,грузи; Armenian|армян,армени; Egyptian|египет,египт
Saudi|саудовск,сауд; Afghan|афган; Mexican|мексик; Canadian|канад; Brazilian|бразил
Argentine|аргентин; Argentinian|аргентин; Australian|австрали; African|африк; European|европ,ес,евро
Europeans|европ; Asian|азиат,ази; Latin|латин; Muslim|мусульман,ислам; Muslims|мусульман,ислам
Islamic|ислам,мусульман; Christian|христиан; Christians|христиан; Catholic|католи; Jewish|евре,иуде
Jews|евре,иуде; Hindu|индуис,инду; Buddhist|будд; Orthodox|православ; Democrat|демократ
Democrats|демократ; Democratic|демократ; Republican|республикан; Republicans|республикан
Conservative|консерватор,тори; Conservatives|консерватор,тори; Labour|лейборист
Tory|тори,консерватор; Tories|тори,консерватор; Liberal|либерал; Soviet|советск,ссср; Nazi|нацист
Nazis|нацист; Kurdish|курд; Kurds|курд; Taliban|талиб; Hamas|хамас; Hezbollah|хезболл
"""

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


def _parse(text: str) -> dict[str, tuple[str, ...]]:
    """The ``English name|stem,stem; ...`` entries of a table written as running text."""
    entries = (e.split("|") for e in text.replace("\n", ";").split(";") if e.strip())
    return {key.strip(): tuple(s.strip() for s in stems.split(",")) for key, stems in entries}


def _merge(*tables: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for table in tables:
        for key, stems in table.items():
            out[key] = (*out.get(key, ()), *(s for s in stems if s not in out.get(key, ())))
    return out


KNOWN_NAMES = _merge(library_names(), _parse(_BY_HAND))
