"""What scoring returns: one :class:`ScoreResult` per translation, rankings of several
translations of one source, and the rule that orders them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TypeVar

import numpy as np

from xlscore.estimator.spans import ErrorSpan
from xlscore.finding import Finding
from xlscore.metric.evidence import Evidence


@dataclass(frozen=True)
class ScoreResult:
    """The score of one translation: one record per pair, whose fields are the output's
    columns (:mod:`xlscore.io.schema` derives TSV, JSON, Parquet and the report from them).

    Attributes:
        score: what rankings and system scores use. With an estimator: its ``estimate``
            pulled towards the estimator's floor by ``foreign`` text (or, for an estimator with
            a ``similarity_weight`` ``w``, ``estimate - w * (1 - similarity)``), minus its
            ``check_weight`` per finding that counts
            (:func:`xlscore.checks.counted`), for at most four of them
            (``check_cost``). Without one: F1 with the foreign-text penalty. When three or
            more candidates of one source are scored together (consensus on), the candidates'
            agreement is blended in: :meth:`xlscore.final_score.FinalScore.blend_consensus`.
            Never below the floor, an empty translation's score (-4 with the default
            estimator, -1 for the paper's F1).
        estimate: the quality estimator's prediction (``None`` without an estimator).
        adequacy: the part of ``estimate`` the estimator's alignment features and word head
            contribute (``estimate - adequacy`` is its sentence head's part; 0 for an
            estimator without them).
        similarity: the cross-lingual all-words BERTScore F1 of the multilingual encoder,
            foreign text penalised (``None`` when not computed: :mod:`xlscore.fields`).
        precision, recall, f1: the paper's BERTScore of the chosen words (anchors or all);
            ``None``, like ``n_anchors``, when the paper's columns are not computed.
        consensus: the translation's mean sentence chrF (0..1) against the other candidates
            of the same source, when it entered the score (at least
            :data:`~xlscore.final_score.CONSENSUS_MIN` scored together, consensus on); else
            ``None``. ``estimate`` never depends on the other candidates.
        n_anchors, anchors: the anchor pairs, ``(english_word, russian_word)``.
        anchors_at: where they are, ``(source_start, source_end, translation_start,
            translation_end)`` in the normalised texts.
        foreign: share of the translation's words that are not Russian (names and acronyms
            excepted).
        flags: ``untranslated``, ``wrong_language``, ``empty``, ``empty_source``.
        evidence: word-level evidence (:class:`~xlscore.metric.evidence.Evidence`): source
            content words with no counterpart, foreign words, numbers on one side only.
        error_spans: where the estimator's word head sees errors
            (:class:`~xlscore.estimator.spans.ErrorSpan`: offsets into the translation as
            given).
        check_cost: what the rule checks took off ``score`` (the findings with ``counts``;
            ``None`` without an estimator whose score counts them).
        findings: the rule checks' findings (:class:`~xlscore.finding.Finding`:
            offsets into the source as normalised and the translation as given): every check's
            when the evidence is computed, else those of the checks the score counts when it
            counts any.
    """

    score: float
    estimate: float | None = None
    adequacy: float | None = None
    similarity: float | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    consensus: float | None = None
    n_anchors: int | None = None
    anchors: tuple[tuple[str, str], ...] = ()
    anchors_at: tuple[tuple[int, int, int, int], ...] = ()
    foreign: float = 0.0
    flags: tuple[str, ...] = field(default=(), metadata={"tsv": ","})
    evidence: Evidence = field(default_factory=Evidence)
    error_spans: tuple[ErrorSpan, ...] = ()
    findings: tuple[Finding, ...] = ()
    check_cost: float | None = None

    def to_dict(self) -> dict:
        """Plain dictionary (for JSON): the fields, with the evidence's lists at top level and
        the error spans and findings as lists of dictionaries."""
        d: dict = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "evidence":  # its lists in its place
                d.update({k: _plain(x) for k, x in asdict(v).items()})
            else:
                d[f.name] = _plain(v)
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
        return cls(
            score=float(d["score"]),
            estimate=opt("estimate"),
            adequacy=opt("adequacy"),
            similarity=opt("similarity"),
            precision=opt("precision"),
            recall=opt("recall"),
            f1=opt("f1"),
            consensus=opt("consensus"),
            n_anchors=None if d["n_anchors"] is None else int(d["n_anchors"]),
            anchors=tuple((str(a), str(b)) for a, b in d["anchors"]),
            anchors_at=tuple(
                (int(a), int(b), int(c), int(e)) for a, b, c, e in d.get("anchors_at", ())
            ),
            foreign=float(d.get("foreign", 0.0)),
            flags=tuple(str(f) for f in d.get("flags", ())),
            evidence=Evidence.from_dict(d),
            error_spans=tuple(ErrorSpan.from_dict(s) for s in d.get("error_spans", ())),
            findings=tuple(Finding.from_dict(f) for f in d.get("findings", ())),
            check_cost=opt("check_cost"),
        )


def _plain(v):
    """A field's value for JSON: tuples as lists, records as their dictionaries."""
    if isinstance(v, tuple):
        return [x.to_dict() if hasattr(x, "to_dict") else _plain(x) for x in v]
    return v


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
