"""The rule checks as a component of the scorer, the one place the scorer runs them: each
distinct pair's findings (:func:`xlscore.checks.find_mismatches`, each marked with whether it
costs points), kept in the prepared corpus and then in each result, where the evidence, the
score, the span tagger and distillation read them. Which checks run is the scorer's plan's
(:attr:`xlscore.scoring.plan.Plan.checks`).
"""

from __future__ import annotations

from xlscore.scoring.corpus import PreparedCorpus


class RuleChecks:
    """Runs the named rule checks over a prepared corpus.

    Args:
        names: the checks to run (:data:`xlscore.checks.CHECKS`); empty: none.
    """

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names

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
