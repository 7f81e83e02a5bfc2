"""Word-level evidence: omission candidates, foreign words, numbers on one side only."""

from xlscore.encoders.words import split_words
from xlscore.metric.anchors import find_anchors
from xlscore.metric.evidence import Evidence, gather

LEX = {"музей": {"museum"}, "откроется": {"open"}, "понедельник": {"monday"}, "шторма": {"storm"}}


def _evidence(src: str, mt: str) -> Evidence:
    s = [w.text for w in split_words(src)]
    m = [w.text for w in split_words(mt)]
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
    return gather(s, m, anchors)


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
    # a number repeated on one side only counts once per extra occurrence
    ev = _evidence("7 of 7", "7 из 7 и 7")
    assert ev.numbers_added == ("7",) and ev.numbers_missing == ()
