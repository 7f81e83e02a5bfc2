"""Agreement among candidate translations of one source (a minimum-Bayes-risk style signal).

When several engines translate the same source, a candidate that shares much with the others
is more often right than one that stands apart. Engines that are copies of each other
(the same or nearly the same text in most segments: :func:`alike`) are one voter: a
duplicated engine, or one with a comma changed per line, does not vote for itself.
:func:`chrf_agreement` measures it as each candidate's mean sentence chrF (sacreBLEU's
defaults: character n-grams of orders 1 to 6, whitespace removed, beta 2, averaged over the
orders both sides have) against every *other* candidate, in one vectorised pass per group:
each candidate's n-grams are counted once, and the matches of every two candidates come from
one array operation. The values equal sacreBLEU's
``sentence_chrf`` (tests/test_consensus.py checks it) at a fraction of its cost.

:func:`blend` is how the agreement enters a score (issue 61): within the group, the agreement's
z score times the spread of the scores, times a weight, is added to each score. Within a
source this orders the candidates as ``z(score) + weight * z(agreement)`` would, while the
scores keep their scale and location. Both are order-independent: sums are taken with
:func:`math.fsum`, so that the same candidates in another order get bit-identical values.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xlscore.text.words import normalize_text

#: chrF's settings (sacreBLEU's defaults): character n-gram orders and the recall weight
CHAR_ORDER = 6
BETA = 2.0
#: a voter's key in a group (:class:`Voters`)
Key = tuple[str, ...]
#: the utility's name in signatures
UTILITY = "chrF"
#: consensus is used when at least this many candidates of one source (copied engines
#: counted once) are scored together
CONSENSUS_MIN = 3
#: two translations of one source are near-copies when they are at most this share of the
#: longer one's characters apart in character edits (:mod:`xlscore.text.edits`), and never
#: less than :data:`NEAR_EDITS_MIN` edits: a punctuation mark or a letter changed. Chosen on
#: real engines (``experiments/near_copies.py``, ``experiments/results/near-copies.md``): no
#: two distinct systems of the judged sets are this alike in more than half their segments,
#: which would make them copies (:func:`copied`), but for the pairs already the same text in
#: most of them
NEAR_EDITS = 0.01
#: the fewest edits two near-copies may differ by, however short the texts
NEAR_EDITS_MIN = 1


def _order_counts(candidates: Sequence[str], order: int) -> list[np.ndarray]:
    """For each n-gram order 1..``order``, a ``[k, V_n]`` matrix: how often each candidate
    has each n-gram of that order that any candidate has (chrF's n-grams: whitespace
    removed). The n-grams are integer codes of their characters' ranks within the group, so
    that counting is a few array operations."""
    texts = ["".join(c.split()) for c in candidates]
    k = len(texts)
    points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)
    if not points.size:
        return [np.zeros((k, 0), dtype=np.int32) for _ in range(order)]
    alphabet, ranks = np.unique(points, return_inverse=True)
    bits = max(1, len(alphabet).bit_length())
    lengths = np.array([len(t) for t in texts])
    owner = np.repeat(np.arange(k), lengths)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    out = []
    if bits * order > 62:  # too many distinct characters for one 64-bit code: n-grams as text
        joined = "".join(texts)
        for n in range(1, order + 1):
            at = [i for c in range(k) for i in range(starts[c], starts[c + 1] - n + 1)]
            grams = np.array([joined[i : i + n] for i in at], dtype=object)
            out.append(_counts(owner[at], np.unique(grams, return_inverse=True)[1], k))
        return out
    code = ranks.astype(np.int64)
    for n in range(1, order + 1):
        if n > 1:  # the n-gram starting at i: the (n-1)-gram at i, then the character i+n-1
            code = (code[:-1] << bits) | ranks[n - 1 :]
        # an n-gram starting at i stays inside its candidate when i + n <= its end
        ends = starts[1:][owner[: len(code)]]
        keep = np.arange(len(code)) + n <= ends
        _, cols = np.unique(code[keep], return_inverse=True)
        out.append(_counts(owner[: len(code)][keep], cols, k))
    return out


def _counts(owner: np.ndarray, cols: np.ndarray, k: int) -> np.ndarray:
    """``[k, V]`` counts of the columns ``cols`` each row ``owner`` has."""
    v = int(cols.max()) + 1 if cols.size else 0
    return np.bincount(owner * v + cols, minlength=k * v).reshape(k, v).astype(np.int32)


def pairwise_chrf(candidates: Sequence[str], order: int = CHAR_ORDER) -> np.ndarray:
    """``[k, k]``: sentence chrF (0..100) of candidate ``i`` as hypothesis against candidate
    ``j`` as reference, for every two candidates (the diagonal: a candidate against itself).
    The matches ``sum(min(count_i, count_j))`` of every two candidates are sums over the
    count thresholds ``t`` of a product of 0/1 matrices, ``[count >= t] @ [count >= t].T``."""
    k = len(candidates)
    totals = np.zeros((k, order))
    match = np.zeros((k, k, order))
    for n, counts in enumerate(_order_counts(candidates, order)):
        if not counts.size:  # no candidate is that long
            continue
        totals[:, n] = counts.sum(1)
        for t in range(1, int(counts.max()) + 1):
            hit = (counts >= t).astype(np.float64)
            match[:, :, n] += hit @ hit.T
    hyp, ref = totals[:, None, :], totals[None, :, :]
    both = (hyp > 0) & (ref > 0)
    prec = np.where(both, match / np.where(hyp > 0, hyp, 1), 0.0)
    rec = np.where(both, match / np.where(ref > 0, ref, 1), 0.0)
    orders = np.maximum(both.sum(-1), 1)
    avg_p, avg_r = prec.sum(-1) / orders, rec.sum(-1) / orders
    f2 = BETA**2
    denom = f2 * avg_p + avg_r
    return np.where(denom > 0, 100 * (1 + f2) * avg_p * avg_r / np.where(denom > 0, denom, 1), 0.0)


def copied(alike: int, segments: int, most: float = 0.5) -> bool:
    """Whether two engines whose translations are alike (:func:`alike`) in ``alike`` of the
    ``segments`` both have are copies: in more than ``most`` of them, two segments or more
    (one segment says nothing of an engine). The one rule ``score`` and ``batch`` both
    apply."""
    return segments >= 2 and alike > most * segments


def near_edits(a: str, b: str) -> int:
    """How many character edits apart two translations may be and still be near-copies:
    :data:`NEAR_EDITS` of the longer one's characters, at least :data:`NEAR_EDITS_MIN`."""
    return max(NEAR_EDITS_MIN, int(NEAR_EDITS * max(len(a), len(b))))


def alike(texts: Sequence[str]) -> np.ndarray:
    """``[k, k]`` booleans: whether translations ``i`` and ``j`` of one source are the same
    text or near-copies, once normalised (:func:`normalize_text`: whitespace and invisible
    characters aside): at most :func:`near_edits` character edits apart. An empty
    translation is alike to nothing; a text is alike to itself."""
    from xlscore.text.edits import within

    norm = [normalize_text(t) for t in texts]
    k = len(norm)
    out = np.zeros((k, k), dtype=bool)
    for i in range(k):
        if not norm[i]:
            continue
        out[i, i] = True
        for j in range(i + 1, k):
            a, b = norm[i], norm[j]
            if b and within(a, b, near_edits(a, b)):
                out[i, j] = out[j, i] = True
    return out


def duplicate_engines(
    engines: Mapping[str, Sequence[str]], most: float = 0.5
) -> list[tuple[str, str, int]]:
    """Pairs of engines whose translations are alike (:func:`alike`: the same text or a
    near-copy) on more than ``most`` of the segments, as ``(engine, engine, segments alike)``
    in the engines' order: one may be a copy of the other. Needs two segments or more (one
    segment says nothing of an engine); empty translations are never alike."""
    names = list(engines)
    n = min((len(v) for v in engines.values()), default=0)
    if len(names) < 2 or n < 2:
        return []
    counts = np.zeros((len(names), len(names)), dtype=np.int64)
    for i in range(n):
        counts += alike([engines[name][i] for name in names])
    return [
        (names[a], names[b], int(counts[a, b]))
        for a in range(len(names))
        for b in range(a + 1, len(names))
        if copied(int(counts[a, b]), n, most)
    ]


def source_key(source: str) -> str:
    """The digest a source is known by when rows are gathered by source (``batch``'s
    consensus pass groups on it)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def row_hash(key: str, translation: str) -> int:
    """A 64-bit hash of one engine's translation of the source whose :func:`source_key` is
    ``key``."""
    digest = hashlib.blake2b(f"{key}\x00{translation}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def engine_sum(sources: Sequence[str], translations: Sequence[str]) -> int:
    """One engine's rows as a multiset hash: the sum of their :func:`row_hash` modulo
    2**64, which no order of the rows changes and which parts of a corpus add up to."""
    return sum(row_hash(source_key(s), t) for s, t in zip(sources, translations)) % 2**64


def engine_set(sums: Iterable[int]) -> str:
    """The engines a consensus was computed over, as a signature names them: their count and
    a digest of their outputs (``4#1f2e3d4c``), from each engine's :func:`engine_sum`. The
    engines' names and order do not enter it (the scores depend on neither); one changed
    translation changes it."""
    each = sorted(sums)
    digest = hashlib.sha256("".join(f"{x:016x}" for x in each).encode()).hexdigest()
    return f"{len(each)}#{digest[:8]}"


def chrf_agreement(candidates: Sequence[str]) -> list[float]:
    """For each candidate, its mean sentence chrF (0..100) against every *other* candidate.

    Identical candidates count as agreeing with each other (chrF 100) and get exactly the same
    value, whatever the candidates' order: two engines that agree word for word on a sentence
    are two votes for it. (Engines that are copies of each other are one voter:
    :class:`Voters`.) With fewer than two candidates there is nothing to agree with and
    every value is 0."""
    k = len(candidates)
    if k < 2:
        return [0.0] * k
    chrf = pairwise_chrf(candidates)
    return [math.fsum(chrf[i, j] for j in range(k) if j != i) / (k - 1) for i in range(k)]


def copy_engines(engines: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """The engines that are copies of another (:func:`duplicate_engines`: the same or nearly
    the same text in most segments), each mapped to the first engine, in the engines' order,
    of its group of copies (that one too). Their translations of a segment count once in the
    consensus when they are alike (:func:`alike`)."""
    return copy_groups(list(engines), [(a, b) for a, b, _ in duplicate_engines(engines)])


def copy_groups(names: Sequence[str], alike: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Engines joined by the pairs ``alike`` (one is a copy of the other), each mapped to the
    first of ``names`` in its group."""
    root = {n: n for n in names}

    def find(n: str) -> str:
        while root[n] != n:
            n = root[n]
        return n

    order = {n: k for k, n in enumerate(names)}
    for a, b in alike:
        ra, rb = find(a), find(b)
        if ra != rb:
            first, last = sorted((ra, rb), key=order.__getitem__)
            root[last] = first
    joined = {n: find(n) for n in names}
    sizes = Counter(joined.values())
    return {n: r for n, r in joined.items() if sizes[r] > 1}


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard deviation of a group's values (``math.fsum`` rounds each sum
    exactly, so the order of the values changes nothing)."""
    n = len(values)
    mean = math.fsum(values) / n
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n)


def blend(scores: Sequence[float], agreement: Sequence[float], weight: float) -> list[float]:
    """One group's scores with its candidates' agreement blended in: ``score + weight * sd *
    z(agreement)``, ``sd`` the spread of the group's scores (an agreement that is the same for
    all adds nothing). Within the group this orders the candidates as ``z(score) + weight *
    z(agreement)``; the scores keep their scale."""
    sd = _mean_sd(scores)[1]
    mean, sd_a = _mean_sd(agreement)
    if sd_a == 0:
        return list(scores)
    return [s + weight * sd * ((a - mean) / sd_a) for s, a in zip(scores, agreement)]


@dataclass(frozen=True)
class Voters:
    """A group's candidates as the consensus counts them: a voter per candidate, but one for
    the candidates of engines that are copies of each other (:func:`copy_engines`) when they
    give the same or nearly the same text (:func:`alike`). ``keys``: each candidate's voter;
    ``texts``: each voter's text, in the voters' sorted order (so that the candidates' order
    changes nothing); ``agreement``: each voter's mean chrF (0..100) against the other
    voters."""

    keys: list[Key]
    texts: list[str]
    agreement: list[float]

    @classmethod
    def of(
        cls,
        candidates: Sequence[str],
        engines: Sequence[str] | None = None,
        copies: Mapping[str, str] | None = None,
    ) -> Voters | None:
        """The voters of a group whose candidates come from ``engines`` (``copies``: which of
        them are copies, :func:`copy_engines`); ``None`` for fewer than
        :data:`CONSENSUS_MIN` voters (no consensus). The candidates of one group of copies
        that are alike, directly or through another, are one voter, named by the smallest of
        their normalised texts, whose text it takes."""
        keys: list[Key] = [("own", str(k)) for k in range(len(candidates))]
        if copies and engines is not None:
            by_root: dict[str, list[int]] = {}
            for k, engine in enumerate(engines):
                if engine in copies:
                    by_root.setdefault(copies[engine], []).append(k)
            for root, members in by_root.items():
                linked = np.argwhere(np.triu(alike([candidates[k] for k in members]), 1))
                places = [str(k) for k in members]
                joined = copy_groups(places, [(places[a], places[b]) for a, b in linked])
                parts: dict[str, list[int]] = {}
                for k, place in zip(members, places):
                    parts.setdefault(joined.get(place, place), []).append(k)
                for at in parts.values():
                    name = min(normalize_text(candidates[k]) for k in at)
                    for k in at:
                        keys[k] = ("copy", root, name)
        text: dict[Key, str] = {}
        for key, given in zip(keys, candidates):  # the voter's text: one order-free choice
            text[key] = min(text.get(key, given), given, key=lambda t: (normalize_text(t), t))
        voters = sorted(text)
        if len(voters) < CONSENSUS_MIN:
            return None
        texts = [text[v] for v in voters]
        return cls(keys, texts, chrf_agreement(texts))

    def _by_key(self) -> dict[Key, int]:
        return {v: i for i, v in enumerate(sorted(set(self.keys)))}

    def per_candidate(self, values: Sequence[float]) -> list[float]:
        """Each candidate's value of ``values`` (one per voter, in the voters' order)."""
        at = self._by_key()
        return [values[at[k]] for k in self.keys]

    def candidates_agreement(self) -> list[float]:
        """Each candidate's agreement on the results' 0..1 scale."""
        return self.per_candidate([a / 100 for a in self.agreement])

    def blend(self, scores: Sequence[float], weight: float, floor: float) -> list[float]:
        """The candidates' ``scores`` with the agreement blended in (:func:`blend`) over the
        voters: each voter once, with its candidates' mean score (copies of one text score
        alike), so that a copied engine moves neither the agreement nor the z scores; each
        candidate moves by its voter's shift, and no further down than ``floor`` (a score
        already below it stays where it was)."""
        at = self._by_key()
        copies: list[list[float]] = [[] for _ in self.texts]
        for k, s in zip(self.keys, scores):
            copies[at[k]].append(s)
        own = [math.fsum(c) / len(c) for c in copies]
        shift = [b - s for s, b in zip(own, blend(own, self.agreement, weight))]
        return [max(s + shift[at[k]], min(s, floor)) for k, s in zip(self.keys, scores)]


def group_consensus(
    texts: Sequence[str],
    scores: Sequence[float],
    weight: float,
    floor: float,
    engines: Sequence[str] | None = None,
    copies: Mapping[str, str] | None = None,
) -> tuple[list[float | None], list[float]]:
    """One group's consensus as a result carries it: each candidate's agreement with the
    others (its mean chrF against the other voters, 0..1) and its score with that agreement
    blended in (:meth:`Voters.blend`: engines that are copies of each other count once when
    they give the same text, so that adding a copy of an engine changes no score), never
    below ``floor``. The one place ``xlscore score``, ``xlscore batch`` and every other path
    take it from.

    Args:
        texts: the candidates of one source, as given.
        scores: their scores before the consensus.
        weight: the consensus weight (``ScoreFormula.consensus_weight``).
        floor: the lowest score there is: the consensus takes no score below it.
        engines: each candidate's engine, when known.
        copies: the engines that are copies of another (:func:`copy_engines`).

    Returns:
        ``(agreement, scores)``, in the order of ``texts``; a group of fewer than
        :data:`CONSENSUS_MIN` voters gets no agreement (``None``) and keeps its scores.
    """
    voters = Voters.of(texts, engines, copies)
    if voters is None:
        return [None] * len(texts), list(scores)
    return list(voters.candidates_agreement()), voters.blend(scores, weight, floor)
