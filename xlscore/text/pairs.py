"""A corpus's pairs: a corpus validated once (:func:`check_corpus`: the one validation of
sources and translations), cut into chunks of whole segments (:func:`segment_chunks`,
:func:`segment_pairs`), and a block's pairs as every component reads them: each text
normalised once (:func:`~xlscore.text.words.normalize_text`) and each distinct pair found
once (:func:`distinct_pairs`). The scorer makes one :class:`DistinctPairs` per block; the
words, anchors, rule checks and the estimator's inputs read it, work on its normalised texts
and distinct pairs, and the results' offsets move onto the texts as given once, at the end
(:func:`xlscore.results.on_given_texts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from xlscore.errors import InputError
from xlscore.text.words import normalize_text


@dataclass(frozen=True)
class DistinctPairs:
    """Pairs normalised and de-duplicated once.

    Attributes:
        given: the sources and the translations as the caller gave them.
        sources: each pair's source, normalised.
        translations: each pair's translation, normalised.
        unique: the distinct normalised ``(source, translation)`` pairs, in the order first
            seen.
        order: for each pair, the index of its distinct pair in ``unique``.
        first: for each distinct pair, the position of the first pair that is it.
    """

    given: tuple[list[str], list[str]]
    sources: list[str]
    translations: list[str]
    unique: list[tuple[str, str]]
    order: list[int]
    first: list[int]

    def __len__(self) -> int:
        return len(self.order)

    def subset(self, indices: Sequence[int]) -> DistinctPairs:
        """The pairs at ``indices``, in that order (their texts not normalised again)."""
        out = distinct_pairs(
            [self.sources[i] for i in indices],
            [self.translations[i] for i in indices],
            normalised=True,
        )
        given = ([self.given[0][i] for i in indices], [self.given[1][i] for i in indices])
        return replace(out, given=given)


def distinct_pairs(
    sources: Sequence[str], translations: Sequence[str], *, normalised: bool = False
) -> DistinctPairs:
    """The pairs of two parallel lists (checked already: strings, equal lengths) with each
    distinct text normalised once and each distinct pair found once; ``normalised``: the texts
    are normalised already (their own given form)."""
    seen: dict[str, str] = {}

    def norm(text: str) -> str:
        out = seen.get(text)
        if out is None:
            out = seen[text] = text if normalised else normalize_text(text)
        return out

    src, mt = [norm(s) for s in sources], [norm(t) for t in translations]
    keys: dict[tuple[str, str], int] = {}
    order = [keys.setdefault(pair, len(keys)) for pair in zip(src, mt)]
    first = [0] * len(keys)
    for i in range(len(order) - 1, -1, -1):
        first[order[i]] = i
    return DistinctPairs((list(sources), list(translations)), src, mt, list(keys), order, first)


#: pairs embedded and scored together (bounds memory)
CHUNK_PAIRS = 10_000


def check_corpus(sources, systems) -> tuple[list[str], dict[str, list[str]]]:
    """Validate a corpus: a list of sources and one list of translations (or several, by
    name), all strings, of equal length."""
    if isinstance(sources, str) or isinstance(systems, str):
        raise TypeError("sources and translations must be lists of strings")
    sources = list(sources)
    if isinstance(systems, Mapping):
        systems = {str(k): list(v) for k, v in systems.items()}
    else:
        systems = {"": list(systems)}
    for name, seq in systems.items():
        if len(seq) != len(sources):
            raise InputError(
                f"{len(sources)} sources but {len(seq)} translations"
                + (f" from {name}" if name else "")
            )
    for what, seq in [("source", sources)] + [("translation", v) for v in systems.values()]:
        for i, x in enumerate(seq):
            if not isinstance(x, str):
                raise InputError(f"{what} is {type(x).__name__}, not a string", line=i + 1)
    return sources, systems


def segment_chunks(n_segments: int, n_systems: int, chunk_pairs: int) -> list[tuple[int, int]]:
    """Segment ranges holding about ``chunk_pairs`` pairs each (at least one segment)."""
    step = max(1, int(chunk_pairs) // max(n_systems, 1))
    return [(a, min(a + step, n_segments)) for a in range(0, n_segments, step)]


def segment_pairs(
    sources: list[str], systems: dict[str, list[str]], a: int, b: int
) -> tuple[list[str], list[str]]:
    """Segment-major pairs of segments ``a..b``: each source with every engine's translation."""
    src, mt = [], []
    for i in range(a, b):
        for v in systems.values():
            src.append(sources[i])
            mt.append(v[i])
    return src, mt
