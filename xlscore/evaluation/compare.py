"""Comparing engines on the same sources: per-segment rankings, each engine's mean score with its
95% bootstrap interval, wins and mean rank, and a paired bootstrap test between every two
engines. ``xlscore rank``, ``xlscore report`` and Python users share this one implementation.

    >>> comparison = compare_engines(results)      # results[i] = {engine: ScoreResult}
    >>> comparison.engines[0].engine               # the best engine by mean score
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from xlscore.errors import InputError
from xlscore.evaluation.agreement import bootstrap_mean_difference
from xlscore.results import ScoreResult, empty_cost


@dataclass(frozen=True)
class EngineSummary:
    """One engine over all segments: mean score, its 95% bootstrap interval, the number of
    segments where it ranks first and its mean rank (1 = best; exact ties share their rank,
    :class:`SegmentRanking`), and its ``empty`` segments (an
    empty translation or source, scored at the floor) with ``empty_cost``, how much they lower
    its mean."""

    engine: str
    mean: float
    low: float
    high: float
    wins: int
    mean_rank: float
    empty: int = 0
    empty_cost: float = 0.0


@dataclass(frozen=True)
class PairTest:
    """Paired bootstrap of engine ``a`` against engine ``b``: mean difference ``a - b`` with its
    95% interval and the two-sided p-value of "no difference"."""

    a: str
    b: str
    delta: float
    low: float
    high: float
    p: float

    @property
    def significant(self) -> bool:
        return self.p < 0.05


@dataclass(frozen=True)
class SegmentRanking:
    """The engines of one segment best first (flagged translations last, then by score; exact
    ties by engine name), their scores, flags and ranks: ``1 +`` the number of engines
    strictly better, so that exact ties share their rank whatever the engines' order."""

    segment: int
    ranking: list[str]
    scores: dict[str, float]
    flags: dict[str, list[str]]
    ranks: dict[str, int]


@dataclass(frozen=True)
class EngineComparison:
    """Engines best first, every pair's test (in that order), and the per-segment rankings."""

    engines: list[EngineSummary]
    pairs: list[PairTest]
    segments: list[SegmentRanking]
    n_boot: int

    def test(self, a: str, b: str) -> PairTest:
        """The test of ``a`` against ``b`` (either order; ``delta`` is ``a - b``)."""
        for t in self.pairs:
            if (t.a, t.b) == (a, b):
                return t
            if (t.a, t.b) == (b, a):
                return PairTest(a, b, -t.delta, -t.high, -t.low, t.p)
        raise KeyError(f"no engines {a!r} and {b!r} in this comparison")

    def to_dict(self, *, segments: bool = True) -> dict:
        """Plain dictionaries (the JSON of ``xlscore rank --format json``)."""
        return {
            "engines": [asdict(e) for e in self.engines],
            "pairs": [asdict(p) for p in self.pairs],
            "segments": [asdict(s) for s in self.segments] if segments else None,
        }


def segment_ranking(segment: int, by_engine: Mapping[str, ScoreResult]) -> SegmentRanking:
    """The ranking of one segment's engines (``segment`` is its 1-based number)."""
    key = {n: (bool(r.flags), -r.score) for n, r in by_engine.items()}
    return SegmentRanking(
        segment,
        sorted(key, key=lambda n: (key[n], n)),
        {n: r.score for n, r in by_engine.items()},
        {n: list(r.flags) for n, r in by_engine.items() if r.flags},
        {n: 1 + sum(other < key[n] for other in key.values()) for n in key},
    )


def compare_engines(
    results: Sequence[Mapping[str, ScoreResult]], *, n_boot: int = 1000, seed: int = 0
) -> EngineComparison:
    """Compare engines from per-segment results (``results[i]``: ``{engine: ScoreResult}``
    for segment ``i + 1``, every segment with the same engines)."""
    segments = [segment_ranking(i + 1, r) for i, r in enumerate(results)]
    if not segments:
        raise InputError("no segments to compare")
    names = list(segments[0].scores)
    if len(names) < 2:
        raise InputError("comparing engines needs at least two of them")
    for seg in segments:
        if list(seg.scores) != names:
            raise InputError(
                f"segment {seg.segment} has engines {list(seg.scores)}, the first has {names}"
            )
    columns = {n: [seg.scores[n] for seg in segments] for n in names}
    table = []
    for n in names:
        est, _ = bootstrap_mean_difference(
            columns[n], [0.0] * len(segments), n_boot=n_boot, seed=seed
        )
        ranks = [seg.ranks[n] for seg in segments]
        empty = [r[n].is_empty for r in results]
        table.append(
            EngineSummary(
                n,
                est.value,
                est.low,
                est.high,
                sum(r == 1 for r in ranks),
                sum(ranks) / len(ranks),
                sum(empty),
                empty_cost(columns[n], empty),
            )
        )
    table.sort(key=lambda e: (-e.mean, e.mean_rank, e.engine))  # ties: not by argument order
    pairs = []
    for i, a in enumerate(table):
        for b in table[i + 1 :]:
            est, p = bootstrap_mean_difference(
                columns[a.engine], columns[b.engine], n_boot=n_boot, seed=seed
            )
            pairs.append(PairTest(a.engine, b.engine, est.value, est.low, est.high, p))
    return EngineComparison(table, pairs, segments, n_boot)
