"""A smaller, faster estimator that learns to give the scores a larger one gives.

The score of a teacher estimator (e.g. ``rtm15-e5s``, the default until issue 51) costs a
12-layer cross-encoder pass over each pair, and with a similarity weight a second encoder's pass
over each side. A student
is a cross-encoder on the lowest few layers of the same base (:attr:`Recipe.layers`) that is
trained to reproduce, in one pass, the teacher's whole score (its estimate, meaning blend and
similarity part) on the teacher's own scale (:attr:`Recipe.targets` ``"raw"``), and the
teacher's predicted error spans as its word labels. It is trained on translations no human
judged: the teacher labels them (:func:`teacher_labels`), and on corruptions of some of them
(:func:`xlscore.training.loop.draw_corruptions`), so that the student also sees the
meaning errors the teacher was taught to notice.

The check findings stay outside: the student keeps the teacher's ``check_weight`` and the
scorer subtracts it per finding, as for the teacher.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xlscore.errors import XLScoreError
from xlscore.io.judgments import ErrorMark, Judgment
from xlscore.training.loop import Recipe, draw_corruptions

if TYPE_CHECKING:
    from xlscore.estimator.model import QualityEstimator
    from xlscore.scoring.scorer import XLScorer

#: the student's recipe unless told otherwise: e5-small's lowest 4 layers, all trained, the
#: teacher's head shapes and word head, no ranking or margin losses (the teacher's scores
#: already order the corruptions below their parents)
STUDENT = Recipe(
    layers=4,
    targets="raw",
    freeze_layers=0,
    head_hidden=256,
    word_weight=1.0,
    word_evidence=True,
    rank_weight=0.0,
    synthetic=0.0,
    meaning_weight=0.0,
    lr=1e-4,
    epochs=2.0,
)


@dataclass(frozen=True)
class Pair:
    """An unjudged translation to label: its source, text and where it came from (``seg_id``,
    ``system``; a corruption's system is ``corrupted:`` and its parent's system)."""

    seg_id: str
    system: str
    source: str
    translation: str


def with_corruptions(pairs: Sequence[Pair], share: float, seed: int) -> list[Pair]:
    """``pairs`` followed by corruptions of about ``share`` of them (one each; see
    :func:`~xlscore.training.loop.draw_corruptions`)."""
    from xlscore.training.corruptions import corrupt

    drawn = draw_corruptions(
        [(p.source, p.translation) for p in pairs], [True] * len(pairs), share, (), seed, corrupt
    )
    extra = [
        Pair(pairs[i].seg_id, f"corrupted:{pairs[i].system}", pairs[i].source, bad.text)
        for i, bad in drawn
    ]
    return [*pairs, *extra]


def teacher_labels(
    scorer: XLScorer, pairs: Sequence[Pair], *, start: int = 0, progress: bool = False
) -> Iterator[tuple[int, Judgment]]:
    """The teacher's label of each pair from ``start`` on, in order, as a :class:`Judgment`:
    ``human`` is the part of the teacher's score that the student learns and ``errors`` the
    teacher's predicted error spans. The student keeps the check term and, like every
    estimator without a similarity, the pull by the share of foreign words itself, so
    ``human`` is the teacher's estimate; a teacher with a similarity weight gives its score
    without the check term (the student learns its similarity part). ``scorer`` holds the
    teacher as its estimator; only its score is computed (``fields="score"``)."""
    est = scorer.estimator
    if est is None:
        raise XLScoreError("teacher_labels needs a scorer with an estimator (the teacher)")
    if scorer.fields != frozenset({"score"}):
        raise XLScoreError('label with a scorer that computes the score alone (fields="score")')
    from xlscore.checks import counted

    sources = [p.source for p in pairs]
    translations = [p.translation for p in pairs]
    for i, by in scorer.iter_score(sources, translations, start=start, progress=progress):
        r, p = by[""], pairs[i]
        empty = r.is_empty
        if not (empty or est.similarity_weight) and r.estimate is not None:
            target = r.estimate  # the scorer pulls the student's by the foreign words itself
        else:
            target = r.score
            if est.check_weight and not empty:
                target += est.check_weight * counted(r.findings)  # found once, by the scorer
        errors = tuple(ErrorMark(s.start, s.end, s.severity) for s in r.error_spans)
        yield i, Judgment(p.seg_id, p.system, p.source, p.translation, float(target), errors=errors)


def student_of(
    teacher_check_weight: float, recipe: Recipe = STUDENT, **kwargs: Any
) -> QualityEstimator:
    """An untrained student (:class:`~xlscore.estimator.model.QualityEstimator` with
    ``recipe``) that will subtract the teacher's ``check_weight`` per check finding;
    ``kwargs`` go to the estimator (``base``, ``device``, ``dtype``)."""
    from xlscore.estimator.model import QualityEstimator

    if recipe.targets != "raw" or not recipe.layers:
        raise XLScoreError("a student's recipe keeps some layers and learns raw targets")
    student = QualityEstimator(recipe=recipe, **kwargs)
    student.check_weight = float(teacher_check_weight)
    return student
