"""Word-level evidence: omission candidates, foreign words, numbers on one side only."""

from types import SimpleNamespace

from xlscore.checks import find_mismatches
from xlscore.metric.anchor_pairs import find_anchors
from xlscore.metric.evidence import gather, number_evidence
from xlscore.results import Evidence
from xlscore.text.words import split_words

LEX = {"музей": {"museum"}, "откроется": {"open"}, "понедельник": {"monday"}, "шторма": {"storm"}}


def _evidence(src: str, mt: str) -> Evidence:
    sw, mw = split_words(src), split_words(mt)
    s, m = [w.text for w in sw], [w.text for w in mw]
    anchors = find_anchors(
        s,
        m,
        lambda w: frozenset(LEX.get(w.lower(), ())),
        lambda w: frozenset({w.lower()}),
        frozenset(
            {
                "museum",
                "open",
                "monday",
                "storm",
                "because",
                "the",
                "will",
                "not",
                "of",
                "at",
                "said",
            }
        ),
    )
    src_words = SimpleNamespace(words=s, spans=[(w.start, w.end) for w in sw])
    mt_words = SimpleNamespace(words=m, spans=[(w.start, w.end) for w in mw])
    return gather(
        src_words,
        mt_words,
        anchors,
        number_evidence(src, mt, find_mismatches(src, mt, ("number",))),
    )


def test_unmatched_content_words_are_omission_candidates():
    ev = _evidence(
        "The museum will not open on Monday because of the storm.", "Музей откроется в понедельник."
    )
    assert ev.unmatched_source == ("because", "storm")  # function words are not listed
    assert ev.foreign_words == () and ev.numbers_missing == () and ev.numbers_added == ()


def test_foreign_words_and_numbers_are_listed():
    ev = _evidence(
        "The museum will open on Monday at 10, said 25 officials.",
        "Музей откроется в понедельник at 11, said 25 чиновников.",
    )
    assert ev.foreign_words == ("at", "said")
    assert ev.numbers_missing == ("10",) and ev.numbers_added == ("11",)
    # numbers are values, each side read in its language (issue 52): English 1,250 is Russian
    # 1250, 1 250 or 1\u00a0250, English 3.5 Russian 3,5; a Russian 1,250 is 1.25
    src = "Sales rose 3.5 percent to 1,250 dollars."
    for good in ("1250", "1 250", "1\u00a0250"):
        ev = _evidence(src, f"Продажи выросли на 3,5 процента до {good} долларов.")
        assert ev.numbers_missing == () and ev.numbers_added == (), good
    ev = _evidence(src, "Продажи выросли на 3,5 процента до 1,250 долларов.")
    assert ev.numbers_missing == () and ev.numbers_added == ("1,250",)
    ev = _evidence(src, "Продажи выросли на 35 процентов до 1250 долларов.")
    assert ev.numbers_missing == ("3.5",) and ev.numbers_added == ("35",)
