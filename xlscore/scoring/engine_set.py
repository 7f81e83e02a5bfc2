"""The engines scored together, as the consensus sees them: which are copies or near-copies
of another (warned about once, when a run starts) and the engine set the signature names
when the consensus enters the score (a score then depends on the other engines)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

from xlscore.errors import DuplicateEnginesWarning
from xlscore.scoring.consensus import (
    CONSENSUS_MIN,
    copy_groups,
    duplicate_engines,
    engine_set,
    engine_sum,
)


def warned_copies(systems: Mapping[str, Sequence[str]], start: int) -> dict[str, str]:
    """The engines that are copies of another over the whole corpus
    (:func:`~xlscore.scoring.consensus.copy_engines`: the same or nearly the same translation
    in most segments), with a :class:`~xlscore.errors.DuplicateEnginesWarning` for each two
    such engines when a run starts (not again when it resumes, ``start`` > 0)."""
    alike = duplicate_engines(systems)
    n = min((len(v) for v in systems.values()), default=0)
    for a, b, same in alike if not start else ():
        warnings.warn(
            f"engines {a} and {b} gave the same or nearly the same translation in {same} of "
            f"{n} segments (is one a copy of the other?): where they agree they count once in "
            "the consensus, but both are ranked",
            DuplicateEnginesWarning,
            stacklevel=3,
        )
    return copy_groups(list(systems), [(a, b) for a, b, _ in alike])


def engines_part(
    consensus: str | None, sources: Sequence[str], engines: Mapping[str, Sequence[str]]
) -> str | None:
    """The engine set (:func:`~xlscore.scoring.consensus.engine_set`) that the scores of
    ``engines`` scored together depend on, for the signature; ``None`` when no consensus
    enters them (``consensus``, the scorer's description of it, is ``None``, or fewer than
    :data:`CONSENSUS_MIN` engines)."""
    if not consensus or len(engines) < CONSENSUS_MIN:
        return None
    return engine_set(engine_sum(sources, texts) for texts in engines.values())
