"""What scoring returns: one :class:`ScoreResult` per translation with its parts (the
word-level :class:`Evidence`, the predicted :class:`ErrorSpan` list and the checks'
:class:`~xlscore.finding.Finding` list), rankings of several translations of one source, and
the rule that orders them.

This is the bottom of the package with :mod:`xlscore.text`: it imports nothing of xlscore's
but the finding record and the text's words. Every offset in a result is a character offset
into the text as the caller gave it (the source or the translation); the components work on
the normalised text (:func:`xlscore.text.words.normalize_text`), and :func:`on_given_texts`
moves their offsets once, where the scorer hands the results out.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any, TypeVar

import numpy as np

from xlscore.finding import Finding
from xlscore.text.words import move_span, normalize_text, offset_map

#: a character span, ``(start, end)``
Span = tuple[int, int]
#: the flags of a pair scored at the floor because a side is empty
EMPTY_FLAGS = frozenset({"empty", "empty_source"})


def _read(hint: Any, value: Any) -> Any:
    """A JSON value as a field of type ``hint`` holds it (``X | None``, ``tuple[X, ...]``,
    fixed tuples, records with ``from_dict``, and plain types); a value of the wrong shape
    raises ``TypeError`` or ``ValueError``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (hint,) = [a for a in args if a is not type(None)]
        return _read(hint, value)
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_read(args[0], x) for x in value)
        if len(value) != len(args):
            raise ValueError(f"expected {len(args)} items, got {value!r}")
        return tuple(_read(a, x) for a, x in zip(args, value))
    if hasattr(hint, "from_dict"):
        return hint.from_dict(value)
    if hint is bool and not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return hint(value)


def _from_fields(cls: Any, d: Mapping, required: Sequence[str] = ()) -> Any:
    """The record ``cls`` from the dictionary its ``to_dict`` wrote, read field by field from
    the fields' types; a field without a default, or named in ``required``, must be present
    (``KeyError``), any other takes its default when absent."""
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in d:
            out[f.name] = _read(hints[f.name], d[f.name])
        elif f.name in required or (f.default is MISSING and f.default_factory is MISSING):
            raise KeyError(f.name)
    return cls(**out)


@dataclass(frozen=True)
class ErrorSpan:
    """A predicted error (:mod:`xlscore.estimator.spans`): ``text == translation[start:end]``,
    ``severity`` ``"minor"`` or ``"major"``, ``probability`` the largest error probability of
    its words."""

    start: int
    end: int
    text: str
    severity: str
    probability: float

    def to_dict(self) -> dict:
        """Plain dictionary (for JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping) -> ErrorSpan:
        """The span :meth:`to_dict` wrote."""
        return _from_fields(cls, d)


@dataclass(frozen=True)
class Evidence:
    """What the words of one pair show (:mod:`xlscore.scoring.evidence`); each list comes with
    the character spans of its items (``*_at``) in the source or translation as given.

    Attributes:
        unmatched_source: source content words (not function words) with no anchor, in
            source order.
        foreign_words: translation words counted as foreign.
        numbers_missing, numbers_added: numbers of the source whose value the translation
            lacks and the other way round, as written (each side read in its own language:
            English ``1,250`` is Russian ``1 250``, English ``3.5`` Russian ``3,5``).
    """

    unmatched_source: tuple[str, ...] = ()
    foreign_words: tuple[str, ...] = ()
    numbers_missing: tuple[str, ...] = ()
    numbers_added: tuple[str, ...] = ()
    unmatched_source_at: tuple[Span, ...] = ()
    foreign_words_at: tuple[Span, ...] = ()
    numbers_missing_at: tuple[Span, ...] = ()
    numbers_added_at: tuple[Span, ...] = ()

    @classmethod
    def from_dict(cls, d: Mapping) -> Evidence:
        """The evidence :meth:`ScoreResult.to_dict` wrote at its top level."""
        return _from_fields(cls, d)


@dataclass(frozen=True)
class ScoreResult:
    """The score of one translation: one record per pair, whose fields are the output's
    columns (:mod:`xlscore.io.schema` derives TSV, JSON, Parquet and the report from them).

    Attributes:
        score: what rankings and system scores use. With an estimator: its ``estimate``
            pulled towards the estimator's floor by ``foreign`` text (or, for an estimator with
            a ``similarity_weight`` ``w``, ``estimate - w * (1 - similarity)``), pulled
            towards the floor by the share of the translation that is degenerate
            (:mod:`xlscore.checks.degenerate`), minus its ``check_weight`` per finding that
            counts
            (:func:`xlscore.checks.counted`), for at most four of them
            (``check_cost``). Without one: F1 with the foreign-text penalty. When three or
            more candidates of one source are scored together (consensus on), the candidates'
            agreement is blended in: :meth:`xlscore.scoring.blend.ScoreBlend.blend_consensus`.
            Never below the floor, an empty translation's score (-4 with the default
            estimator, -1 for the paper's F1).
        estimate: the quality estimator's prediction (``None`` without an estimator), before
            the rules (foreign words, degenerate output, the checks) and the consensus; an
            empty translation's is the estimator's floor.
        adequacy: the part of ``estimate`` the estimator's word head and blended meaning head
            contribute (``estimate - adequacy`` is its sentence head's part; 0 for an
            estimator without them).
        similarity: the cross-lingual all-words BERTScore F1 of the multilingual encoder,
            foreign text penalised (``None`` when not computed: :mod:`xlscore.fields`).
        precision, recall, f1: the paper's BERTScore of the chosen words (anchors or all);
            ``None``, like ``n_anchors``, when the paper's columns are not computed.
        consensus: the translation's mean sentence chrF (0..1) against the other candidates
            of the same source, when it entered the score (at least
            :data:`~xlscore.scoring.blend.CONSENSUS_MIN` scored together, consensus on); else
            ``None``. ``estimate`` never depends on the other candidates.
        n_anchors, anchors: the anchor pairs, ``(english_word, russian_word)``.
        anchors_at: where they are, ``(source_start, source_end, translation_start,
            translation_end)``.
        foreign: share of the translation's words that are not Russian (names and acronyms
            excepted).
        flags: ``untranslated``, ``wrong_language``, ``empty``, ``empty_source``, and
            ``degenerate`` (at least half of it, :mod:`xlscore.checks.degenerate`).
        evidence: word-level evidence (:class:`Evidence`): source
            content words with no counterpart, foreign words, numbers on one side only.
        error_spans: where the estimator's word head sees errors
            (:class:`ErrorSpan`).
        check_cost: what the rules took off ``score``, as taken (never more than down to the
            floor): the findings with ``counts`` -- the checks' weight each, and the pull of
            degenerate output; ``None`` without an estimator, or when neither could take
            anything (no check weight, nothing degenerate).
        findings: the rule checks' findings (:class:`~xlscore.finding.Finding`): every check's
            when the evidence is computed, else those of the checks the score counts when it
            counts any.
        consensus_shift: how much the candidates' agreement moved ``score`` (the score minus
            the score before the consensus, ``score - estimate`` being then, with an
            estimator, the foreign-text or similarity term, ``-check_cost`` and this); ``None``
            when the consensus did not enter (as ``consensus``).
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
    consensus_shift: float | None = None

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
        """The result :meth:`to_dict` wrote, read field by field from the fields' types (other
        keys, such as ``segment``, are ignored). A field that may be ``None`` (not computed)
        must be present, if only as ``None``; a missing or malformed field raises
        ``KeyError``, ``TypeError`` or ``ValueError``."""
        optional = [f.name for f in fields(cls) if f.default is None]
        return _from_fields(cls, {**d, "evidence": d}, required=optional)

    @property
    def is_empty(self) -> bool:
        """Whether this is the result of an empty translation or source (scored at the
        floor)."""
        return not EMPTY_FLAGS.isdisjoint(self.flags)


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


def on_given_texts(
    r: ScoreResult,
    source: str,
    translation: str,
    seen: tuple[str, str] | None = None,
) -> ScoreResult:
    """``r``, made on the normalised texts, with every offset (anchors, evidence, findings,
    error spans) moved into ``source`` and ``translation`` as given; the error spans' text
    re-read from ``translation``. ``seen``: the two texts as normalised, when the caller has
    them (:func:`~xlscore.text.words.normalize_text` of each, by default). Unchanged when
    normalising changes neither text."""
    seen_s, seen_t = seen or (normalize_text(source), normalize_text(translation))
    if seen_s == source and seen_t == translation:
        return r
    on_s, on_t = offset_map(seen_s, source), offset_map(seen_t, translation)

    def s(span: Span) -> Span:
        return move_span(on_s, *span)

    def t(span: Span) -> Span:
        return move_span(on_t, *span)

    ev = r.evidence
    return replace(
        r,
        anchors_at=tuple((*s((a, b)), *t((c, d))) for a, b, c, d in r.anchors_at),
        evidence=replace(
            ev,
            unmatched_source_at=tuple(map(s, ev.unmatched_source_at)),
            foreign_words_at=tuple(map(t, ev.foreign_words_at)),
            numbers_missing_at=tuple(map(s, ev.numbers_missing_at)),
            numbers_added_at=tuple(map(t, ev.numbers_added_at)),
        ),
        findings=tuple(
            replace(
                f,
                span=None if f.span is None else t(f.span),
                source_span=None if f.source_span is None else s(f.source_span),
            )
            for f in r.findings
        ),
        error_spans=tuple(
            ErrorSpan(a, b, translation[a:b], e.severity, e.probability)
            for e in r.error_spans
            for a, b in [t((e.start, e.end))]
        ),
    )


def rank_order(results: Sequence[ScoreResult]) -> list[int]:
    """Indices of ``results`` best first: flagged results (untranslated, wrong language, empty)
    last, then by descending score; ties keep input order."""
    return sorted(range(len(results)), key=lambda i: (bool(results[i].flags), -results[i].score, i))


#: a number or an array of them (the score arithmetic works on both)
Values = TypeVar("Values", float, np.ndarray)


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
