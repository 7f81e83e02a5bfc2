"""Names that Russian translates rather than transliterates (``Germany`` -> ``Германии``,
``EU`` -> ``ЕС``), for the ``name`` check of :mod:`xlscore.estimator.checks`: English name ->
Russian stems.

Russian entries are lower case with ``ё`` written ``е``; a Russian *stem* matches any word
that starts with it, and a stem with a space matches consecutive words (``соединенн штат``).
"""

from __future__ import annotations

# names that Russian translates: English name -> Russian stems. Keys with several words are
# matched as a phrase in the source.
_KNOWN = """
Afghanistan|афганистан,афган
Albania|албан
Algeria|алжир
Andorra|андорр
Angola|ангол
Argentina|аргентин
Armenia|армени,армян
Australia|австрали
Austria|австри
Azerbaijan|азербайджан
Bahamas|багам
Bahrain|бахрейн
Bangladesh|бангладеш
Belarus|белорус,беларус
Belgium|бельги
Benin|бенин
Bhutan|бутан
Bolivia|боливи
Bosnia|босни
Botswana|ботсван
Brazil|бразил
Brunei|бруне
Bulgaria|болгар
Burkina Faso|буркина
Burundi|бурунди
Cambodia|камбодж
Cameroon|камерун
Canada|канад
Chad|чад
Chile|чили
China|кита,кнр,пекин
Colombia|колумби
Congo|конго
Costa Rica|коста-рик,коста
Croatia|хорвати
Cuba|куб
Cyprus|кипр
Czech Republic|чехи,чешск
Czechia|чехи,чешск
Denmark|дани,датск
Dominican Republic|доминикан
Ecuador|эквадор
Egypt|египет,египт
El Salvador|сальвадор
Eritrea|эритре
Estonia|эстони
Ethiopia|эфиопи
Fiji|фиджи
Finland|финлянди,финск
France|франц,париж
Gabon|габон
Gambia|гамби
Georgia|грузи,джорджи
Germany|германи,немец,немц,фрг,германск,берлин
Ghana|ган
Greece|грец,греч,грек,афин
Guatemala|гватемал
Guinea|гвине
Haiti|гаити
Honduras|гондурас
Hungary|венгри,венгерск
Iceland|исланди
India|инди
Indonesia|индонези
Iran|иран,тегеран
Iraq|ирак
Ireland|ирланди
Israel|израил
Italy|итал,рим
Ivory Coast|кот-д,кот д
Jamaica|ямайк
Japan|япони,японск,токио
Jordan|иордан,джордан
Kazakhstan|казахстан
Kenya|кени
Kosovo|косов
Kuwait|кувейт
Kyrgyzstan|киргиз,кыргыз
Laos|лаос
Latvia|латви
Lebanon|ливан
Liberia|либери
Libya|ливи
Lithuania|литв
Luxembourg|люксембург
Madagascar|мадагаскар
Malawi|малави
Malaysia|малайзи
Maldives|мальдив
Mali|мали
Malta|мальт
Mauritania|мавритани
Mauritius|маврики
Mexico|мексик,мехико
Moldova|молдав,молдов
Monaco|монако
Mongolia|монголи
Montenegro|черногори
Morocco|марокк
Mozambique|мозамбик
Myanmar|мьянм
Namibia|намиби
Nepal|непал
Netherlands|нидерланд,голланд
Holland|голланд,нидерланд
New Zealand|нов зеланди,зеланди
Nicaragua|никарагу
Niger|нигер
Nigeria|нигери
North Korea|кндр,северн коре,пхеньян
North Macedonia|македони
Macedonia|македони
Norway|норвеги,норвежск
Oman|оман
Pakistan|пакистан
Palestine|палестин
Panama|панам
Paraguay|парагва
Peru|перу
Philippines|филиппин
Poland|польш,польск,поляк,варшав
Portugal|португал
Qatar|катар
Romania|румыни
Russia|росси,рф,русск,москв,кремл
Rwanda|руанд
Saudi Arabia|саудовск,сауд,кса
Senegal|сенегал
Serbia|серби
Sierra Leone|сьерра
Singapore|сингапур
Slovakia|словаки
Slovenia|словени
Somalia|сомали
South Africa|юар,южн африк,южноафрик
South Korea|южн коре,коре,сеул
South Sudan|южн судан
Spain|испан,мадрид
Sri Lanka|шри-ланк,шри ланк,ланк
Sudan|судан
Sweden|швец,швед
Switzerland|швейцари
Syria|сири,дамаск
Taiwan|тайван
Tajikistan|таджик
Tanzania|танзани
Thailand|таиланд,тайланд
Tunisia|тунис
Turkey|турци,турецк,анкар
Turkmenistan|туркмен
Uganda|уганд
Ukraine|украин,киев
United Arab Emirates|оаэ,эмират
UAE|оаэ,эмират
United Kingdom|великобритан,британ,соединенн королевств,англи,лондон
UK|великобритан,британ,соединенн королевств,англи,лондон
Britain|великобритан,британ,англи,соединенн королевств
Great Britain|великобритан,британ
England|англи
Scotland|шотланд
Wales|уэльс,валли
Northern Ireland|северн ирланд
United States|сша,соединенн штат,америк,вашингтон
US|сша,соединенн штат,америк,вашингтон
USA|сша,соединенн штат,америк
America|америк,сша
Uruguay|уругва
Uzbekistan|узбек
Vatican|ватикан
Venezuela|венесуэл
Vietnam|вьетнам
Yemen|йемен
Zambia|замби
Zimbabwe|зимбабве
Hong Kong|гонконг
Macau|макао
Catalonia|каталони
Crimea|крым
Chechnya|чечн
Siberia|сибир
Tibet|тибет
Kashmir|кашмир
Gaza|газ
West Bank|западн берег
Middle East|ближн восток,ближневосточ
Europe|европ,ес,евросоюз
Asia|ази
Africa|африк
Antarctica|антарктид,антарктик
Arctic|арктик
Caribbean|карибск
Mediterranean|средиземномор
Pacific|тихоокеан,тих океан
Atlantic|атлант
Balkans|балкан
Scandinavia|скандинав
Latin America|латинск америк
Munich|мюнхен
Vienna|вен
Warsaw|варшав
Prague|праг
Rome|рим
Venice|венеци
Florence|флоренци
Naples|неапол
Genoa|генуя,генуе,генуи
Athens|афин
Cologne|кельн
The Hague|гааг
Hague|гааг
Brussels|брюссел
Lisbon|лиссабон
Moscow|москв
Beijing|пекин
Peking|пекин
Tokyo|токио
Seoul|сеул
Delhi|дели
Mumbai|мумба,бомбе
Kyiv|киев
Kiev|киев
Belgrade|белград
Bucharest|бухарест
Geneva|женев
Zurich|цюрих
Jerusalem|иерусалим
Cairo|каир
Tehran|тегеран
Damascus|дамаск
Istanbul|стамбул
Riyadh|эр-рияд,рияд
Mecca|мекк
Jakarta|джакарт
Sydney|сидне
Melbourne|мельбурн
Montreal|монреал
Quebec|квебек
Mexico City|мехико
Havana|гаван
Sao Paulo|сан-паулу,паулу
Bogota|богот
Calcutta|калькутт
Kolkata|калькутт
Chennai|ченна,мадрас
Lyon|лион
Marseille|марсел
Strasbourg|страсбург
Edinburgh|эдинбург
Glasgow|глазго
Antwerp|антверпен
Gothenburg|гетеборг
Leipzig|лейпциг
Krakow|краков
Gdansk|гданьск
Kharkiv|харьков,харкив
Odessa|одесс
Odesa|одесс
Lviv|львов,львив
Yerevan|ереван
Pyongyang|пхеньян
Taipei|тайбэ,тайбе
Shanghai|шанха
Wuhan|ухан
Guangzhou|гуанчжоу
Shenzhen|шэньчжэн,шеньчжень,шэньчжень
Xinjiang|синьцзян
Kyoto|киото
San Francisco|сан-франциско,франциско
New Orleans|нов орлеан,орлеан
New Mexico|нью-мексик,мексик
Texas|техас
Virginia|вирджини
Hawaii|гава
Ohio|огайо
Illinois|иллинойс
Pennsylvania|пенсильвани
Massachusetts|массачусетс
Louisiana|луизиан
Iowa|айов
Utah|юта,юте,юты,юту
Philadelphia|филадельфи
Houston|хьюстон
Seattle|сиэтл
Miami|майами
Phoenix|финикс
Pittsburgh|питтсбург
Queens|куинс
Hollywood|голливуд
Silicon Valley|кремниев долин,силиконов долин
Ottawa|оттав
Rhine|рейн
Danube|дуна
Thames|темз
Nile|нил
Alps|альп
Himalayas|гимала
UN|оон,объединенн наци
United Nations|оон,объединенн наци
EU|ес,евросоюз,европейск союз,евро,брюссел
European Union|ес,евросоюз,европейск союз
European Commission|еврокомисс,европейск комисс,ек
NATO|нато,северо-атлантическ,альянс
WHO|воз,всемирн организац здравоохран
World Health Organization|воз,всемирн организац здравоохран
IMF|мвф,международн валютн
World Bank|всемирн банк,миров банк
WTO|вто
OPEC|опек
FBI|фбр
CIA|цру
NSA|анб
KGB|кгб
FSB|фсб
NHS|национальн служб здравоохран,гсз,служб здравоохран,здравоохран
BBC|би-би-си
EPA|агентств по охран,агентств охран
FDA|управлени по санитарн,управлени по контрол
CDC|центр по контрол,центры по контрол,центров по контрол
SEC|комисс по ценн
GDP|ввп
AI|ии,искусствен
TV|тв,телевид,телевиз,телеканал
PM|премьер
MP|депутат,член парламент,парламентари
CEO|генеральн директор,гендиректор,директор,глав,руководител,президент
CFO|финансов директор
GOP|республикан
ISIS|игил,иг,исламск государств
ISIL|игил,иг,исламск государств
DNA|днк
HIV|вич
AIDS|спид
Aids|спид
COVID|ковид,коронавирус
Covid|ковид,коронавирус
UNICEF|юнисеф
UNESCO|юнеско
EFL|английск футбольн лиг
NFL|нфл
NBA|нба
NHL|нхл
FIFA|фифа
UEFA|уефа
Red Cross|красн крест
White House|бел дом
Kremlin|кремл
Capitol Hill|капитоли
Capitol|капитоли
Supreme Court|верховн суд
Foreign Office|мид,министерств иностранн
State Department|госдеп,государственн департамент
Treasury|минфин,казначейств,финанс
Foreign Ministry|мид,министерств иностранн
Ministry of Defence|минобороны,министерств оборон,оборонн
Ministry of Defense|минобороны,министерств оборон,оборонн
Defense Department|минобороны,министерств оборон,пентагон
Department of Defense|минобороны,министерств оборон,пентагон
Associated Press|ассошиэйтед,ап
AP|ап,ассошиэйтед
AFP|афп,франс
Reuters|рейтер,ройтер
GMT|гринвич
Cal|калифорни
Foreign Affairs|мид,иностранн дел
Commonwealth|содружеств
Utd|юнайтед
Algerian|алжир
Algerians|алжир
Tunisian|тунис
Tunisians|тунис
Wash|вашингтон
Ore|орегон
Calif|калифорни
Fla|флорид
Ariz|аризон
Colo|колорадо
Conn|коннектикут
Tenn|теннесси
Tex|техас
Okla|оклахом
Minn|миннесот
Wis|висконсин
Ala|алабам
Nev|невад
Mich|мичиган
Ill|иллинойс
NY|нью-йорк,нью йорк
NYC|нью-йорк,нью йорк
NJ|нью-джерси,нью джерси
DC|вашингтон,округ колумби
LA|лос-андж,лос андж
Rs|руп
Home Office|министерств внутренн,мвд,хоум-офис
Scotland Yard|скотленд-ярд
Premier League|премьер-лиг,апл,английск премьер
Champions League|лиг чемпион,лч
Europa League|лиг европ
World Cup|чемпионат мира,кубок мира,кубка мира,мундиал,чм
Olympics|олимпи
Olympic|олимпи
Paralympics|паралимпи
Bible|библи
Koran|коран
Quran|коран
Christmas|рождеств
Easter|пасх
Thanksgiving|благодарени
God|бог,господ
Earth|земл
Moon|лун
Sun|солнц
Gulf|залив
Pentagon|пентагон
American|америк,сша
Americans|америк,сша
British|британ,великобритан,англи
English|англи
Scottish|шотланд
Irish|ирланд
Welsh|уэльс,валлий
French|франц,француз
German|немец,немц,германск,герман
Germans|немц,герман
Russian|росси,русск,рф
Russians|росси,русск
Chinese|кита,кнр
Japanese|япон
Korean|коре
Indian|инди
Pakistani|пакистан
Iranian|иран
Iraqi|ирак
Israeli|израил
Israelis|израил
Palestinian|палестин
Palestinians|палестин
Arab|араб
Arabs|араб
Spaniard|испан
Spaniards|испан
Swede|швед
Swedes|швед
Briton|британ,англичан
Britons|британ,англичан
Scot|шотланд
Scots|шотланд
Frenchman|француз
Dane|датчан,датск
Pole|поляк,польск
Poles|поляк,польск
Turk|турок,турк,турец
Turks|турк,турец
Syrian|сири
Turkish|турец,турк,турц
Greek|греч,грек,греци
Italian|итальян,итали
Spanish|испан
Portuguese|португал
Dutch|голланд,нидерланд
Belgian|бельги
Swiss|швейцар
Austrian|австри
Swedish|швед
Norwegian|норвеж,норвеги
Danish|датск,дани
Finnish|финск,финлянд,финн
Polish|польск,поляк,польш
Czech|чешск,чехи,чех
Hungarian|венгер,венгр
Romanian|румын
Bulgarian|болгар
Serbian|серб
Croatian|хорват
Ukrainian|украин
Ukrainians|украин
Belarusian|белорус
Georgian|грузин,грузи
Armenian|армян,армени
Egyptian|египет,египт
Saudi|саудовск,сауд
Afghan|афган
Mexican|мексик
Canadian|канад
Brazilian|бразил
Argentine|аргентин
Argentinian|аргентин
Australian|австрали
African|африк
European|европ,ес,евро
Europeans|европ
Asian|азиат,ази
Latin|латин
Muslim|мусульман,ислам
Muslims|мусульман,ислам
Islamic|ислам,мусульман
Christian|христиан
Christians|христиан
Catholic|католи
Jewish|евре,иуде
Jews|евре,иуде
Hindu|индуис,инду
Buddhist|будд
Orthodox|православ
Democrat|демократ
Democrats|демократ
Democratic|демократ
Republican|республикан
Republicans|республикан
Conservative|консерватор,тори
Conservatives|консерватор,тори
Labour|лейборист
Tory|тори,консерватор
Tories|тори,консерватор
Liberal|либерал
Soviet|советск,ссср
Nazi|нацист
Nazis|нацист
Kurdish|курд
Kurds|курд
Taliban|талиб
Hamas|хамас
Hezbollah|хезболл
"""


def _parse_known(text: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for line in text.strip().splitlines():
        key, stems = line.split("|")
        out[key] = tuple(s.strip() for s in stems.split(","))
    return out


KNOWN_NAMES = _parse_known(_KNOWN)
