"""An engine's system score: the mean of its segment scores, with how many of its segments
were empty (scored at the floor) or lowered by the rule checks, and by how much each lowers
the mean (:class:`SystemScore`); gathered a segment at a time (:class:`SystemScores`), so that
a run streamed to a file, or resumed from one, gets it from the scores it wrote."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xlscore.results import empty_cost


@dataclass(frozen=True)
class SystemScore:
    """One engine over a corpus.

    Attributes:
        engine: the engine's name (``""`` for one unnamed list of translations).
        mean: the mean segment score (NaN over no segment).
        segments: how many segments.
        empty: segments with an empty translation or source, scored at the floor.
        empty_cost: how much they lower the mean (the mean without them minus the mean).
        checked: segments whose score the rule checks lowered.
        check_cost: how much the checks lower the mean (their mean cost per segment).
    """

    engine: str
    mean: float
    segments: int
    empty: int = 0
    empty_cost: float = 0.0
    checked: int = 0
    check_cost: float = 0.0

    def notes(self) -> str:
        """`` (N empty, scored at the floor: -C of this mean) (the checks took points in M
        segments: -D of this mean)``, each part only when it applies."""
        out = ""
        if self.empty:
            out += (
                f" ({self.empty} empty, scored at the floor: {-self.empty_cost:+.4f} of this mean)"
            )
        if self.checked:
            where = f"{self.checked} segment" + ("s" if self.checked != 1 else "")
            out += f" (the checks took points in {where}: {-self.check_cost:+.4f} of this mean)"
        return out

    def to_dict(self) -> dict:
        """The fields by name (``xlscore score --format json``'s system record)."""
        return {
            "system": self.engine,
            "score": self.mean,
            "segments": self.segments,
            "empty": self.empty,
            "empty_cost": self.empty_cost,
            "checked": self.checked,
            "check_cost": self.check_cost,
        }


class SystemScores:
    """Each engine's segment scores, check costs and emptiness, added a segment at a time;
    :meth:`result` then gives each engine's :class:`SystemScore`."""

    def __init__(self, engines: Iterable[str]) -> None:
        self._rows: dict[str, list[tuple[float, float, bool]]] = {e: [] for e in engines}

    def add(self, engine: str, score: float, check_cost: float | None, empty: bool) -> None:
        """One segment of ``engine``: its score, the points the checks took (``None``: none)
        and whether it was empty."""
        self._rows[engine].append((score, check_cost or 0.0, empty))

    def result(self) -> dict[str, SystemScore]:
        """Each engine's system score, in the engines' order."""
        return {engine: _system(engine, rows) for engine, rows in self._rows.items()}


def _system(engine: str, rows: list[tuple[float, float, bool]]) -> SystemScore:
    if not rows:
        return SystemScore(engine, float("nan"), 0)
    scores = [s for s, _, _ in rows]
    costs = [c for _, c, _ in rows]
    empty = [e for _, _, e in rows]
    return SystemScore(
        engine,
        sum(scores) / len(scores),
        len(scores),
        sum(empty),
        empty_cost(scores, empty),
        sum(c > 0 for c in costs),
        sum(costs) / len(costs),
    )
