"""The parts of a pair's result that every way of scoring it shares: its flags, its evidence
and its findings, read off a prepared corpus; and the result of a pair prepared without the
paper's columns, whose score the final score then sets.
"""

from __future__ import annotations

from xlscore.encoders.encoder import WordVectors
from xlscore.finding import Finding
from xlscore.lexicon.anchor_pairs import AnchorSet
from xlscore.results import Evidence, ScoreResult
from xlscore.scoring.corpus import PreparedCorpus
from xlscore.scoring.evidence import gather, number_evidence


def flags(src: WordVectors, mt: WordVectors, anchors: AnchorSet) -> tuple[str, ...]:
    """A pair's flags: the anchors' (untranslated, wrong language), and empty sides."""
    return anchors.flags + ("empty",) * (not len(mt)) + ("empty_source",) * (not len(src))


def evidence(corpus: PreparedCorpus, k: int) -> Evidence:
    """The word-level evidence of pair ``k`` of ``corpus``: unmatched source words, foreign
    words, and the numbers one side lacks of the other's (each read in its language, from the
    pair's findings: the scorer's rule checks, :class:`xlscore.scoring.rule_checks.RuleChecks`,
    the one place they run; none for a corpus they did not run on)."""
    src, mt, anchors = corpus.src[k], corpus.mt[k], corpus.anchors[k]
    found = list(findings(corpus, k))
    return gather(src, mt, anchors, number_evidence(src.text, mt.text, found))


def findings(corpus: PreparedCorpus, k: int) -> tuple[Finding, ...]:
    """The findings of pair ``k`` of ``corpus`` (none when the checks did not run)."""
    return () if corpus.findings is None else corpus.findings[k]


def without_paper_columns(corpus: PreparedCorpus, with_evidence: bool) -> list[ScoreResult]:
    """Results of a corpus prepared without the paper's columns: flags, foreign share,
    findings and (``with_evidence``) evidence; no P/R/F1 or anchors, and a ``score`` that the
    final score sets."""
    return [
        ScoreResult(
            score=float("nan"),
            foreign=anchors.foreign,
            flags=flags(src, mt, anchors),
            evidence=evidence(corpus, k) if with_evidence else Evidence(),
            findings=findings(corpus, k),
        )
        for k, (src, mt, anchors) in enumerate(zip(corpus.src, corpus.mt, corpus.anchors))
    ]
