"""What a check reports: a :class:`Finding`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One mismatch between a source and its translation.

    ``span`` is the character span in the translation the finding points at (``None`` when
    there is nothing to point at, e.g. a number of the source that the translation lacks);
    ``source_span`` the span in the source.
    """

    check: str
    message: str
    span: tuple[int, int] | None
    source_span: tuple[int, int] | None
