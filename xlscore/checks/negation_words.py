"""Word tables for the ``negation`` check of :mod:`xlscore.checks`: English and Russian
negations, English words that make a Russian negation legitimate, and idioms with ``не``.

Russian entries are lower case with ``ё`` written ``е``; a Russian *stem* matches any word
that starts with it.
"""

from __future__ import annotations

from xlscore.checks.common import words

EN_NEGATIONS = frozenset(
    words(
        """
    not never no nobody nothing none neither nor without cannot nowhere noone no-one
    """
    )
)
# words that make a Russian negation legitimate without being a negation themselves; they
# only stop the "negation added" finding
EN_WEAK_NEGATIONS = frozenset(
    words(
        """
    fail fails failed failing failure unable lack lacks lacked lacking refuse refused refuses
    refusing deny denied denies denying avoid avoided avoiding prevent prevented preventing until
    unless except rather instead hardly barely scarcely seldom rarely few little ignore ignored
    ignoring miss missed missing almost nearly before than only stop stopped impossible absent
    absence free neglect neglected lest whether regardless too yet any anything anyone anybody ever
    either unknown unclear unlikely less doubt doubts against beyond outside aside keep kept remain
    remains remained still lose lost forget forgot forgotten unaware wrong false off out away minus
    zero short shortage reluctant unwilling hesitant surplus insufficient inadequate refrain
    """
    )
)
RU_NEGATIONS = frozenset(
    words(
        """
    не ни нет никто ничто ничего никого никому никем ничем ничему никогда нигде никуда ниоткуда
    никак никакой никакая никакое никакие никакого никакой никаких никакими никакому никаким ничей
    ничья ничье ничьи нисколько ничуть без безо нельзя вряд отнюдь нету некого нечего негде некуда
    некогда незачем отсутствие отсутствия отсутствии отсутствует отсутствуют отсутствовал
    отсутствовала отсутствовали
    """
    )
)
# words before ``не`` that make it part of an idiom, not a negated verb (чуть не, пока не)
RU_NE_IDIOM_BEFORE = frozenset(
    words(
        """
    чуть едва пока если а чем или лишь только ли
    """
    )
)
RU_VERB_POS = frozenset(("VERB", "INFN", "GRND"))
