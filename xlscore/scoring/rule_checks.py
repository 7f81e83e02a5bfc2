"""The rule checks as a component of the scorer, the one place the scorer runs them: each
distinct pair's findings (:func:`xlscore.checks.find_mismatches`, each marked with whether it
costs points), kept in the prepared corpus and then in each result, where the evidence, the
score, the span tagger and distillation read them.

Which checks run follows what the scorer computes: every check when the evidence is computed
(the ``evidence`` field, or the paper's columns, which always carry it) or when the estimator's
span tagger reads the findings (:mod:`xlscore.estimator.span_tagger`); else the checks the
score counts (:data:`~xlscore.checks.COUNTED`) when the estimator's formula counts
any (a ``check_weight``); else, with an estimator, the ``degenerate`` check, whose share every
estimator's score takes (so that its findings say why); else none.
"""

from __future__ import annotations

from xlscore.metric.corpus import PreparedCorpus


class RuleChecks:
    """Runs the named rule checks over a prepared corpus.

    Args:
        names: the checks to run (:data:`xlscore.checks.CHECKS`); empty: none.
    """

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names

    @classmethod
    def needed(
        cls,
        fields: frozenset[str],
        check_weight: float,
        spans: bool = False,
        estimator: bool = True,
    ) -> RuleChecks:
        """The checks a scorer computing ``fields`` needs, its estimator's formula counting
        findings at ``check_weight`` per finding and, with ``spans``, its span tagger reading
        every finding; ``estimator``: whether the score is an estimator's (see the module's
        docstring)."""
        if {"evidence", "paper"} & fields or spans:
            from xlscore.checks import CHECKS

            return cls(CHECKS)
        if check_weight:
            from xlscore.checks import COUNTED

            return cls(COUNTED)
        return cls(("degenerate",) if estimator else ())

    def run(self, corpus: PreparedCorpus) -> None:
        """Set ``corpus.findings``: each pair's findings, with offsets into the normalised
        texts (:func:`xlscore.text.words.normalize_text`), as every component works; the
        scorer moves them onto the texts as given with the rest of the result
        (:func:`xlscore.results.on_given_texts`)."""
        if not self.names:
            return
        from xlscore.checks import find_mismatches

        pairs = corpus.distinct()  # a pair that recurs (one engine's copy of another) once
        found = [tuple(find_mismatches(*p, self.names)) for p in pairs.unique]
        corpus.findings = [found[k] for k in pairs.order]
