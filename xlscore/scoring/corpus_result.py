"""What scoring a corpus gives, as one record (COMET's ``Prediction`` is the model): each
segment's results by engine, each engine's system score (:class:`~xlscore.system_score.
SystemScore`), the signature they were made under, and, when asked, the engines compared
with their significance (:func:`~xlscore.evaluation.compare.compare_engines`, what ``xlscore
rank`` prints). The command line only formats it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xlscore.results import ScoreResult
from xlscore.system_score import SystemScore, SystemScores

if TYPE_CHECKING:  # loaded when asked (its bootstrap needs scipy, which scoring does not)
    from xlscore.evaluation.compare import EngineComparison


@dataclass(frozen=True)
class CorpusResult:
    """A scored corpus.

    Attributes:
        segments: ``segments[i]``: ``{engine: ScoreResult}`` of segment ``i + 1``.
        systems: each engine's system score, in the engines' order.
        signature: the settings' signature, the engine set included.
    """

    segments: list[dict[str, ScoreResult]]
    systems: dict[str, SystemScore]
    signature: str

    @classmethod
    def of(
        cls,
        segments: Sequence[Mapping[str, ScoreResult]],
        signature: str,
        engines: Sequence[str] | None = None,
    ) -> CorpusResult:
        """The record of per-segment results, every segment with the same ``engines``
        (default: the first segment's; given, an empty corpus keeps them, each with a system
        score over no segment)."""
        rows = [dict(by) for by in segments]
        systems = SystemScores(engines if engines is not None else rows[0] if rows else ())
        for by in rows:
            for engine, r in by.items():
                systems.add(engine, r.score, r.check_cost, r.is_empty)
        return cls(rows, systems.result(), signature)

    @property
    def engines(self) -> list[str]:
        """The engines' names, in their order."""
        return list(self.systems)

    def results(self, engine: str = "") -> list[ScoreResult]:
        """One engine's results, segment by segment (``""``: the one unnamed list)."""
        if engine not in self.systems:
            raise KeyError(f"no engine {engine!r}: the engines are {self.engines}")
        return [by[engine] for by in self.segments]

    def compare(self, *, n_boot: int = 1000, seed: int = 0) -> EngineComparison:
        """The engines ranked, each mean with its 95% bootstrap interval, wins and mean rank,
        and a paired bootstrap test between every two (at least two engines)."""
        from xlscore.evaluation.compare import compare_engines

        return compare_engines(self.segments, n_boot=n_boot, seed=seed)
