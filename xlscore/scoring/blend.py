"""How a pair's parts become its ``score``: the quality estimator's prediction (with the
multilingual similarity blended in when the estimator's file gives it a weight; the default's
does not), or, without an estimator, the paper's F1; then, when three or more translations of
one source are scored together, the candidates' consensus (:mod:`xlscore.scoring.consensus`).

:class:`ScoreBlend` is the scorer's component for it; :func:`estimator_score` is the formula
itself, for numbers or arrays (the experiments and distillation use it too).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from xlscore.checks.degenerate import FLAG_SHARE, degenerate_share
from xlscore.errors import XLScoreError
from xlscore.estimator.formula import CHECK_CAP
from xlscore.estimator.span_tagger import Pointer
from xlscore.results import ScoreResult, Values, penalised
from xlscore.scoring.consensus import CONSENSUS_MIN, UTILITY, group_consensus
from xlscore.scoring.corpus import PreparedCorpus
from xlscore.scoring.similarity import SIMILARITY_ENCODER, Similarity

if TYPE_CHECKING:
    from xlscore.estimator.model import QualityEstimator
    from xlscore.estimator.prediction import Estimate, PairInputs, PassOutputs
    from xlscore.scoring.plan import Plan

__all__ = [
    "CHECK_CAP",
    "CONSENSUS_MIN",
    "PAPER_CONSENSUS_WEIGHT",
    "SIMILARITY_ENCODER",
    "ScoreBlend",
    "check_cost",
    "estimator_score",
]

#: weight of the candidates' consensus in the paper's score (no estimator): the two signals'
#: z scores within the source weighted equally, a choice that reads no human score (the
#: estimator's weight is chosen by the rule and stored in its file)
PAPER_CONSENSUS_WEIGHT = 1.0


def estimator_score(
    estimate: Values,
    *,
    foreign: Values,
    similarity: Values | None,
    weight: float,
    floor: float,
    findings: Values | None = None,
    check_weight: float = 0.0,
    degenerate: Values | None = None,
) -> Values:
    """The score of a non-empty translation from its estimate (numbers or arrays alike):
    ``estimate - weight * (1 - similarity)`` for an estimator with a similarity weight, else
    the estimate pulled towards ``floor`` by the share of ``foreign`` words (the similarity
    carries that penalty itself); then pulled towards the lowest score there is by the
    ``degenerate`` share of the translation (:mod:`xlscore.checks.degenerate`); minus
    :func:`check_cost`; never below the lowest score there is, an empty translation's
    ``floor - 2 * weight``."""
    lowest = floor - 2 * weight
    if weight:
        if similarity is None:
            raise XLScoreError("a similarity weight needs the similarity")
        score = estimate - weight * (1.0 - similarity)
    else:
        score = penalised(estimate, foreign, floor)
    if degenerate is not None:
        score = penalised(score, degenerate, lowest)
    if check_weight:
        if findings is None:
            raise XLScoreError("a check weight needs the checks' findings")
        score = score - check_cost(findings, check_weight)
    return np.maximum(score, lowest) if isinstance(score, np.ndarray) else max(score, lowest)


def check_cost(findings: Values, check_weight: float) -> Values:
    """What the rule checks take off a score: ``check_weight`` per reliable finding
    (:func:`xlscore.checks.counted`), for at most :data:`CHECK_CAP` of them."""
    if isinstance(findings, np.ndarray):
        return check_weight * np.minimum(findings, CHECK_CAP)
    return check_weight * min(findings, CHECK_CAP)


class ScoreBlend:
    """The final score of each result (see the module's docstring).

    Args:
        estimator: the quality estimator whose prediction is the score, or ``None`` (the
            paper's F1).
        plan: what the scorer computes (:class:`~xlscore.scoring.plan.Plan`): whether the
            similarity runs, and whether each group's consensus is blended into the score
            when three or more candidates of one source are scored together (with an
            estimator, at the weight its file stores; 0 there: never).
        similarity: the multilingual similarity, run when the plan says.
    """

    def __init__(
        self, estimator: QualityEstimator | None, *, plan: Plan, similarity: Similarity
    ) -> None:
        self.estimator = estimator
        self.plan = plan
        self.similarity = similarity

    @property
    def consensus(self) -> bool:
        """Whether each source's engines scored together blend their consensus in."""
        return self.plan.consensus

    def finish(
        self,
        corpus: PreparedCorpus,
        results: Sequence[ScoreResult],
        groups: Iterable[Sequence[int]],
        *,
        on_pairs: Callable[[int], None] | None = None,
        where: Callable[[int], str] | None = None,
        forwarded: tuple[PairInputs, PassOutputs] | None = None,
        engines: Sequence[str] | None = None,
        copies: Mapping[str, str] | None = None,
    ) -> list[ScoreResult]:
        """The final ``score`` of each result (of ``corpus``, in its order): the estimator's
        prediction when the scorer has one, else F1; with the consensus of each group of
        candidates of one source (``groups``: their positions) blended in when consensus is on
        (:meth:`blend_consensus`). ``on_pairs``: told how many pairs each estimator pass has
        read; ``where``: how a warning names the pair at a position; ``forwarded``: the
        estimator's inputs and pass outputs for the corpus's texts, when read already
        (:mod:`xlscore.scoring.blocks`); ``engines`` and ``copies``: as
        :meth:`blend_consensus` takes them."""
        if self.estimator is not None:
            results = self.apply_estimator(corpus, results, on_pairs, where, forwarded)
        return self.blend_consensus(corpus, results, groups, engines, copies)

    @property
    def consensus_weight(self) -> float:
        """The weight the candidates' consensus enters the score with (0: it does not)."""
        if not self.consensus:
            return 0.0
        if self.estimator is None:
            return PAPER_CONSENSUS_WEIGHT
        return self.estimator.formula.consensus_weight

    def estimator_inputs(self, corpus: PreparedCorpus) -> PairInputs:
        """The estimator's inputs for ``corpus`` (its distinct normalised pairs read into
        pieces), for a :class:`~xlscore.estimator.prediction.PassQueue` to read and
        :meth:`apply_estimator` to finish (``forwarded``)."""
        from xlscore.estimator.prediction import read_distinct

        if self.estimator is None:
            raise XLScoreError("this scorer has no estimator")
        return read_distinct(self.estimator, corpus.distinct())

    def read(
        self, corpus: PreparedCorpus, on_pairs: Callable[[int], None] | None = None
    ) -> tuple[PairInputs, PassOutputs]:
        """The estimator's inputs for ``corpus`` (:meth:`estimator_inputs`) and its passes'
        outputs over them (``on_pairs``: told how many pairs each pass has read)."""
        from xlscore.estimator.prediction import run_passes

        inputs = self.estimator_inputs(corpus)  # refuses a scorer without an estimator
        assert self.estimator is not None
        return inputs, run_passes(self.estimator, inputs, details=True, on_pairs=on_pairs)

    def apply_estimator(
        self,
        corpus: PreparedCorpus,
        results: Sequence[ScoreResult],
        on_pairs: Callable[[int], None] | None = None,
        where: Callable[[int], str] | None = None,
        forwarded: tuple[PairInputs, PassOutputs] | None = None,
    ) -> list[ScoreResult]:
        """The estimator's part of each result: its prediction and the score made from it.

        For an estimator with a ``similarity_weight`` ``w``, ``score = estimate - w * (1 -
        similarity)`` (``similarity``: the all-words F1 of :data:`SIMILARITY_ENCODER` with the
        foreign-text penalty); otherwise the prediction pulled towards the estimator's floor
        by the share of foreign words. Degenerate output (:mod:`xlscore.checks.degenerate`)
        pulls it towards the lowest score by the share of the translation it covers, and is
        flagged ``degenerate`` from half on. Its ``check_weight`` ``b`` subtracts ``b`` per
        finding that counts (:func:`xlscore.checks.counted`); ``check_cost`` is what these
        rules took, as taken (nothing below the lowest score). An empty translation or source
        gets the lowest score there is, the floor minus ``2 * w``, and the floor as its
        ``estimate``: there is nothing to estimate.

        Args:
            corpus: the prepared pairs (their findings, when the checks ran).
            results: their results so far, in the corpus's order.
            on_pairs: told how many pairs each estimator pass has read.
            where: how a warning names the pair at a position.
            forwarded: the estimator's inputs and pass outputs for the corpus's normalised
                texts (:meth:`estimator_inputs`), when a pass queue read them already.

        Returns:
            ``results`` with ``estimate``, its ``adequacy`` part, the predicted
            ``error_spans``, ``similarity`` and ``score``.
        """
        if self.estimator is None:
            raise XLScoreError("this scorer has no estimator")
        floor, w = self.estimator.floor, self.estimator.similarity_weight
        b = self.estimator.check_weight
        sources, translations = corpus.texts()
        tagger = self.estimator.tagger
        if corpus.findings is None:  # the degenerate check's shares, at least
            raise XLScoreError(
                "the score needs the rule checks' findings: prepare the corpus with "
                "XLScorer.prepare, which runs them"
            )
        if forwarded is None:  # its distinct pairs, as prepared, read here
            forwarded = self.read(corpus, on_pairs)
        pointed = (
            [[Pointer(*f.span, f.counts) for f in found if f.span] for found in corpus.findings]
            if tagger is not None and corpus.findings is not None
            else None
        )
        estimates = self.estimator.estimate(
            sources,
            translations,
            checked=True,
            on_pairs=on_pairs,
            where=where,
            pointed=pointed,
            forwarded=forwarded,
        )
        similarity: Sequence[float | None] = (
            self.similarity.scores(corpus) if self.plan.similarity else [None] * len(results)
        )
        findings: list[int | None] = [None] * len(results)
        if b:
            from xlscore.checks import counted

            findings = [counted(f) for f in corpus.findings or ()]
        # the degenerate share each pair's findings carry (the checks ran once, in one place)
        degenerate = [degenerate_share(f) for f in corpus.findings or ()]
        return [
            _with_estimate(r, e, sim, found, share, floor=floor, weight=w, check_weight=b)
            for r, e, sim, found, share in zip(
                results, estimates, similarity, findings, degenerate, strict=True
            )
        ]

    def blend_consensus(
        self,
        corpus: PreparedCorpus,
        results: Sequence[ScoreResult],
        groups: Iterable[Sequence[int]],
        engines: Sequence[str] | None = None,
        copies: Mapping[str, str] | None = None,
    ) -> list[ScoreResult]:
        """``results`` (of ``corpus``, in its order) with each group's consensus blended into
        the scores; ``groups`` holds the positions of candidates of one source (e.g. all
        engines' translations of a segment). Each candidate of a group of at least
        :data:`CONSENSUS_MIN` gets its ``consensus`` (its mean chrF against the others, 0..1)
        and ``score + w * sd * z(consensus)`` as its score (``sd``: the spread of the group's
        scores; :func:`xlscore.scoring.consensus.group_consensus`: no score goes below the
        floor), and what that moved it by as its ``consensus_shift``; its ``estimate`` stays
        what it was. ``engines``: the engine of each position,
        and ``copies``: the engines that are copies of another
        (:func:`xlscore.scoring.consensus.copy_engines`), whose same texts are one voter.
        Flagged candidates (empty, untranslated, wrong language, degenerate) neither take
        part nor change. Smaller groups (fewer than :data:`CONSENSUS_MIN` voters), and every
        result when the weight is 0, are returned unchanged."""
        out = list(results)
        w = self.consensus_weight
        if not w:
            return out
        texts = corpus.given or corpus.texts()[1]
        for members in groups:
            group = [k for k in members if not out[k].flags]
            agree, scores = group_consensus(
                [texts[k] for k in group],
                [out[k].score for k in group],
                w,
                self.floor,
                None if engines is None else [engines[k] for k in group],
                copies,
            )
            for k, c, s in zip(group, agree, scores):
                if c is not None:
                    shift = s - out[k].score
                    out[k] = replace(out[k], consensus=c, score=s, consensus_shift=shift)
        return out

    @property
    def floor(self) -> float:
        """The lowest score there is, an empty translation's: the estimator's floor minus
        twice its similarity weight (-4 for the default), or -1 for the paper's F1 (its
        rescaled form, ``rescale``, can lie lower; the consensus then takes no score below
        where it was)."""
        if self.estimator is None:
            return -1.0
        return self.estimator.floor - 2 * self.estimator.similarity_weight

    def describe(self) -> dict:
        """This part's settings in the scorer's description (:mod:`xlscore.signature`)."""
        return {
            "consensus": (
                f"{UTILITY}*{self.consensus_weight:g}>={CONSENSUS_MIN}"
                if self.consensus_weight
                else None
            ),
            "estimator": self.estimator.describe() if self.estimator is not None else None,
            "similarity": (self.similarity.encoder().describe() if self.plan.similarity else None),
        }


def _with_estimate(
    r: ScoreResult,
    e: Estimate,
    sim: float | None,
    found: int | None,
    degenerate: float,
    *,
    floor: float,
    weight: float,
    check_weight: float,
) -> ScoreResult:
    """One result with the estimator's part (:meth:`ScoreBlend.apply_estimator`): the
    estimate ``e`` (its score, adequacy and error spans), the similarity ``sim``, the
    ``found`` findings that count, the ``degenerate`` share of the translation, and the score
    made of them; an empty pair the lowest score there is."""
    if r.is_empty:  # nothing to estimate: the lowest score there is
        return replace(r, estimate=floor, adequacy=0.0, similarity=sim, score=floor - 2 * weight)
    own = functools.partial(
        estimator_score, e.score, foreign=r.foreign, similarity=sim, weight=weight, floor=floor
    )
    score = own(findings=found, check_weight=check_weight, degenerate=degenerate)
    ruled = bool(check_weight or degenerate)  # whether the rules could take points
    return replace(
        r,
        estimate=e.score,
        adequacy=e.adequacy,
        error_spans=e.error_spans,
        similarity=sim,
        score=score,
        # what the rules took, as taken: nothing below the floor
        check_cost=own() - score if ruled else None,
        flags=r.flags + ("degenerate",) * (degenerate >= FLAG_SHARE and not r.flags),
    )
