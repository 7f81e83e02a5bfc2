"""What scoring returns: one :class:`ScoreResult` per translation, rankings of several
translations of one source, and the rule that orders them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TypeVar

import numpy as np

from xlscore.estimator.spans import ErrorSpan
from xlscore.metric.evidence import Evidence


@dataclass(frozen=True)
class ScoreResult:
    """The score of one translation.

    ``precision``/``recall``/``f1``: BERTScore of the chosen variant (``None``, like
    ``n_anchors``, when the scorer was told not to compute the paper's columns:
    :mod:`xlscore.fields`). ``consensus``: mean
    BERTScore F1 of the translation against the other candidates of the same source (when at
    least :data:`CONSENSUS_MIN` candidates were scored together and consensus is on, else
    ``None``). ``score`` (what rankings and system scores use): F1 with the foreign-text
    penalty, blended with the consensus as ``(1 - w) * F1 + w * consensus`` when there is one
    (``w`` = :data:`CONSENSUS_WEIGHT`). ``anchors``: the anchor pairs as
    ``(english_word, russian_word)``. ``foreign``: share of the translation's words that are not
    Russian (names and acronyms excepted). ``flags``: ``untranslated``, ``wrong_language``,
    ``empty``, ``empty_source``. ``estimate``: the quality estimator's prediction (when the
    scorer has one; ``score`` is then this value pulled to the estimator's floor by foreign
    text or, for an estimator with a ``similarity_weight`` ``w``, ``estimate - w * (1 -
    similarity)``; an estimator's ``check_weight`` ``b`` subtracts ``b`` per reliable check
    finding, :func:`xlscore.estimator.checks.reliable_findings`). ``adequacy``: the part of
    ``estimate`` that the estimator's alignment features and word head contribute (``estimate -
    adequacy`` is its sentence head's part; ``None`` without an estimator, 0 for an estimator
    without those parts). ``similarity``: the
    cross-lingual all-words BERTScore F1 of the multilingual encoder, foreign text penalised, that
    ``similarity_weight`` blends into ``score`` (``None`` when not used).
    ``error_spans``: where the estimator's word head sees errors in the translation
    (:class:`~xlscore.estimator.spans.ErrorSpan`: character offsets into the translation as given,
    severity, probability). ``evidence``: word-level evidence
    (:class:`~xlscore.metric.evidence.Evidence`): source content words with no counterpart, foreign
    words, numbers on one side only.
    """

    precision: float | None
    recall: float | None
    f1: float | None
    score: float
    n_anchors: int | None
    anchors: tuple[tuple[str, str], ...]
    foreign: float = 0.0
    flags: tuple[str, ...] = ()
    consensus: float | None = None
    estimate: float | None = None
    evidence: Evidence = field(default_factory=Evidence)
    adequacy: float | None = None
    error_spans: tuple[ErrorSpan, ...] = ()
    similarity: float | None = None

    def to_dict(self) -> dict:
        """Plain dictionary (for JSON): the fields, with the evidence's lists at top level and
        the error spans as a list of dictionaries."""
        d = asdict(self)
        d["error_spans"] = [s.to_dict() for s in self.error_spans]
        d["anchors"] = [list(a) for a in self.anchors]
        d["flags"] = list(self.flags)
        ev = d.pop("evidence")
        d.update({k: list(v) for k, v in ev.items()})
        return d

    @classmethod
    def from_dict(cls, d: Mapping) -> ScoreResult:
        """The result :meth:`to_dict` wrote (other keys, such as ``segment``, are ignored);
        a missing or malformed field raises ``KeyError``, ``TypeError`` or ``ValueError``."""

        def opt(key: str) -> float | None:
            return None if d.get(key) is None else float(d[key])

        missing = [k for k in ("precision", "recall", "f1", "n_anchors") if k not in d]
        if missing:  # present, if only as None (fields not computed)
            raise KeyError(missing[0])

        anchors = tuple((str(a), str(b)) for a, b in d["anchors"])
        evidence = Evidence(
            **{f.name: tuple(str(w) for w in d.get(f.name, ())) for f in fields(Evidence)}
        )
        n_anchors = None if d["n_anchors"] is None else int(d["n_anchors"])
        return cls(
            opt("precision"),
            opt("recall"),
            opt("f1"),
            float(d["score"]),
            n_anchors,
            anchors,
            float(d.get("foreign", 0.0)),
            tuple(str(f) for f in d.get("flags", ())),
            opt("consensus"),
            opt("estimate"),
            evidence,
            opt("adequacy"),
            tuple(ErrorSpan.from_dict(s) for s in d.get("error_spans", ())),
            opt("similarity"),
        )


@dataclass(frozen=True)
class RankedTranslation:
    """One translation in a ranking: its position in the input, text, result and 1-based rank."""

    index: int
    translation: str
    result: ScoreResult
    rank: int

    @property
    def score(self) -> float:
        return self.result.score

    @property
    def f1(self) -> float | None:
        return self.result.f1

    @property
    def precision(self) -> float | None:
        return self.result.precision

    @property
    def recall(self) -> float | None:
        return self.result.recall

    @property
    def n_anchors(self) -> int | None:
        return self.result.n_anchors


def rank_order(results: Sequence[ScoreResult]) -> list[int]:
    """Indices of ``results`` best first: flagged results (untranslated, wrong language, empty)
    last, then by descending score; ties keep input order."""
    return sorted(range(len(results)), key=lambda i: (bool(results[i].flags), -results[i].score, i))


#: a number or an array of them (the score arithmetic works on both)
Values = TypeVar("Values", float, np.ndarray)


def is_empty(r: ScoreResult) -> bool:
    """Whether a result is that of an empty translation or source (scored at the floor)."""
    return "empty" in r.flags or "empty_source" in r.flags


def empty_cost(scores: Sequence[float], empty: Sequence[bool]) -> float:
    """How much the empty segments lower a mean: the mean over the segments that are not
    empty minus the mean over all (0 without empty segments, or when every one is)."""
    if not any(empty):
        return 0.0
    kept = [s for s, e in zip(scores, empty, strict=True) if not e]
    mean = sum(scores) / len(scores)
    return (sum(kept) / len(kept) if kept else mean) - mean


def penalised(f1: Values, foreign: Values, floor: float) -> Values:
    """Move F1 towards ``floor`` (the lowest possible score) by the share of foreign words."""
    return f1 - foreign * (f1 - floor)
