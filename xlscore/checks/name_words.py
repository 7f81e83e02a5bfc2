"""Word tables for the ``name`` check of :mod:`xlscore.checks`: transliteration rules,
Russian names of Latin letters and case endings, and the capitalised English words that are
not names to check (titles, institutions, geography words, days and months...).

Russian entries are lower case with ``ё`` written ``е``; a Russian *stem* matches any word
that starts with it.
"""

from __future__ import annotations

from xlscore.checks.common import pairs, words


def _calendar_words() -> frozenset[str]:
    """English month names (full and short) and day names, lower case, from CLDR (Babel)."""
    from babel import Locale

    en = Locale("en")
    months, days = en.months["format"], en.days["format"]
    names = [*months["wide"].values(), *months["abbreviated"].values(), *days["wide"].values()]
    return frozenset(n.lower() for n in names)


# English -> Cyrillic transliteration: grapheme, options (the first is the usual one);
# longest graphemes first. Context rules (initial ``e``/``y``, ``c``/``g`` before e/i/y,
# final ``e``/``y``) are applied in code.
TRANSLIT = tuple(
    (k, tuple(v.split(",")))
    for k, v in pairs(
        """
    mc=мак,мк cester=стер shire=шир tch=тч,ч sch=ш,ск cz=ч,ц,чж,кз igh=ай,и ght=т
    tion=шн,ци,цион,ш sion=жн,шн,зи sh=ш ch=ч,к,ш zh=ж,чж kh=х ph=ф th=т,с,з gh=,г ck=к qu=кв,к
    wh=у,в wr=р kn=н ts=ц,тс tz=ц ee=и ea=и,е,иа,еа ia=ия,иа,ья ja=джа,жа,я,ха jo=джо,жо,йо,хо
    ju=джу,ю,жу,ху oo=у,о ou=у,ау,о,оу ow=оу,ау,о ai=ей,э,ай,аи ay=ей,эй,ай ey=ей,и,эй
    ei=ей,и,ай,эй ie=и,ай,ье,ие oa=о,оу oi=ой,уа oy=ой au=о,ау aw=о,оу ew=ью,у eu=ев,ю,еу,е,ой
    ui=у,уи,и,уй ue=у,ю, ll=лл,л ss=сс,с tt=тт,т nn=нн,н rr=рр,р mm=мм,м ff=фф,ф pp=пп,п dd=дд,д
    bb=бб,б gg=гг,г zz=цц,зз,з cc=кк,кс a=а,э,е,ей,эй,о b=б c=к d=д e=е,э,и f=ф g=г h=х,г,
    i=и,ай,ы j=дж,ж,й,х,цз k=к l=л,ль m=м n=н o=о,оу,а p=п q=к,ц,ч r=р s=с,з t=т u=у,а,ю v=в
    w=у,в x=кс,х,з,с y=и,й,ай z=з,ц
    """
    )
)
# Russian names of Latin letters, to match acronyms spelt out (BBC -> Би-би-си)
LETTER_NAMES = dict(
    pairs(
        """
    a=эй b=би c=си d=ди e=и f=эф g=джи h=эйч i=ай j=джей k=кей l=эл m=эм n=эн o=оу p=пи q=кью
    r=ар s=эс t=ти u=ю v=ви w=дабл-ю x=экс y=уай z=зед
    """
    )
)

# Russian case endings (longest first), stripped before comparing a word with a name
RU_ENDINGS = words(
    """
    ами ями ого его ому ему ыми ими ой ей ом ем ам ям ах ях ов ев ую юю ая яя ые ие ый ий ым им ых
    их а я у ю е ы и ь й о
    """
)

# capitalised English words that are not names to check: titles, institutions, geography
# words, days and months, and other words that news capitalises but Russian translates
NOT_NAMES = _calendar_words() | frozenset(
    words(
        """
        i mr mrs ms miss dr prof professor sir dame lord lady president presidents vice prime
        minister ministers secretary secretaries chancellor governor governors mayor senator
        senators sen rep reps representative representatives congressman congresswoman judge justice
        chief king queen prince princess duke duchess earl emperor empress pope saint st general gen
        colonel col captain capt lieutenant lt sergeant sgt major officer commander admiral
        ambassador director chairman chairwoman chair head leader speaker attorney detective
        inspector constable superintendent sheriff bishop archbishop cardinal father rev reverend
        sheikh ayatollah imam rabbi coach manager government governments parliament cabinet ministry
        department office agency commission committee council court courts board bureau service
        services authority authorities administration police army navy force forces guard party
        parties union league association federation foundation institute university college school
        academy hospital church cathedral bank company group corporation corp inc ltd co club team
        museum gallery library theatre theater centre center hall house palace tower bridge station
        airport port stadium arena park square street road avenue ave lane boulevard highway route
        north south east west northern southern eastern western central upper lower new old great
        greater little lake river sea ocean bay island islands mountain mountains mount mt valley
        hill hills beach coast county state states province region district city town village sept
        spring summer autumn fall winter national federal royal supreme high international world
        global foreign home health defence defense interior finance public social security economic
        affairs human rights act bill law day days year week award awards prize cup championship
        championships games open tour festival show day's grand prix fc republic kingdom empire
        democracy capital covid-19 coronavirus internet web online northeast northwest southeast
        southwest northeastern northwestern southeastern southwestern midwest midwestern det insp
        supt cpl pte pvt gov atty cmdr adm maj brig phd md mp3 ok the a an of and or but in on at to
        for with by from into onto as is are was were be been this that these those it its he she we
        they you me my our your his her their them us him who what when where why how which if so
        not no yes all any some every each both either neither one two three four five six seven
        eight nine ten first second third last next after before during while since until then there
        here now today tomorrow yesterday tonight just also only even please thank thanks dear hello
        hi oh well still yet again ever never always more most less best better good bad big small
        low long short full free close live love life against about above across along among around
        behind below beneath beside between beyond despite inside near off outside over through
        toward towards under upon within without account action campaign agriculture aid air
        airlines airways alliance ambulance animal animals application arts artificial assembly
        assessment athletic athletics basketball battle beauty body border brothers budget building
        business care cancer card century challenge chamber channel charity chemical children
        citizen citizens civil climate coalition combat commerce commercial common communications
        community conference congress conservation construction consumer control corps correctional
        country crime crisis cultural culture customs cyber daily dance data democratic design
        development digital disability disaster disease division doctor doctors drug drugs early
        earth economics economy education election elections electoral electric emergency employment
        energy engineering enterprise entertainment environment environmental equality estate ethics
        europe evening event exchange executive express fair family farm fashion film financial fire
        fishing fitness flight food football forest forestry forum freedom friends front fund future
        game garden gas girls gold golf green greens ground growth hearts heritage higher history
        hockey holdings holiday homeland hotel housing hurricane immigration independence
        independent industrial industries industry information infrastructure innovation insurance
        intelligence investigation investment joint journal judicial judiciary junior labor labour
        lab laboratory labs land language learning legal legislative liberal liberty light local
        management marine maritime market markets medal media medical medicine member members
        memorial men men's mental military mining mission mobile modern money morning motor motors
        movement music natural nature naval network news nuclear nutrition oil olympic operations
        order organisation organization overseas parks partners patrol peace pension pensions people
        people's planning policy political popular post power premier press primary prison prisons
        private production program programme progress project property protection publishing race
        racing radio rail railway ranger rangers real record records recovery reform regional
        relations relief republican rescue research reserve resources revenue review revolution
        revolutionary rugby rural safety sales schools science sciences secret senior settlement
        shadow sky socialist society soccer space special sport sports standard standards star
        statistics stock strategic student students studies studio studios summit sun surgery
        systems tax teachers technology telecom television tennis territory thrones times tourism
        trade traffic training transport transportation travel treasury trial tribunal tropical
        trust united unity urban veterans victims war water weather welfare white wildlife women
        women's workers youth zone
        """
    )
)

# words that join the parts of a longer capitalised name (Bank of England)
NAME_CONNECTORS = frozenset(("of", "for", "of the", "for the"))
# a capitalised phrase with one of these is an institution's name, which Russian translates
INSTITUTION_WORDS = frozenset(
    words(
        """
    academy administration agency association authority bank board bureau cabinet centre center
    centers centres church college commission committee company corporation council court courts
    department departments federation force forces foundation fund group hospital house institute
    institution league library ministry museum office organisation organization parliament party
    police programme program project school service services society team tribunal trust union
    university unit
    """
    )
)
# Russian words a translation may add before a name without a source word of their own
RU_NAME_PREFIXES = words(
    """
    сент санкт сан сэр лорд леди мисс мистер миссис доктор г-н г-жа
    """
)
# English suffixes of common nouns and adjectives: such capitalised words are not checked
COMMON_SUFFIXES = words(
    """
    tion tions sion sions ment ments ness ity ities ance ences ence ship ism ology ical ive ives ous
    ful less able ible ians ese ish
    """
)
