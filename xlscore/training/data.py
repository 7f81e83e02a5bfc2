"""Training data: the examples a quality estimator learns from and the batches they go in.

Each data set's human scores become targets on one scale (:func:`normal_scores`), each judged
translation an :class:`Example` with its error spans; a share of the English->Russian ones gets a
synthetic corruption (:func:`draw_corruptions`); :func:`piece_labels` gives the word classes the
word head learns; :func:`plan_batches` groups the examples into an epoch's batches, the
translations of one source together (:func:`set_shares`: how much of an epoch each set gets).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from xlscore.errors import InputError
from xlscore.estimator.recipe import Recipe, _corruption_kinds
from xlscore.io.judgments import DEFAULT_LP, Judgment
from xlscore.text.words import move_span, normalize_text, offset_map


def normal_scores(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Normal scores of ``values``: the standard normal quantile of each value's average rank
    ``(rank - 0.5) / n``. Monotone, ties kept, about N(0, 1) whatever the original scale."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return v
    return stats.norm.ppf((stats.rankdata(v) - 0.5) / v.size)


#: the largest standardised target of the ``z`` targets (either sign)
Z_CLIP = 4.0


def set_targets(values: Sequence[float], how: str) -> np.ndarray:
    """One set's human scores as training targets (:data:`xlscore.estimator.recipe.TARGETS`):
    ``normal`` scores, ``z`` scores clipped to +-:data:`Z_CLIP` (a set whose scores are all
    equal gets 0), or ``raw``."""
    v = np.asarray(values, dtype=float)
    if how == "normal":
        return normal_scores(v)
    if how == "z":
        sd = v.std() if v.size else 0.0
        return np.clip((v - v.mean()) / sd, -Z_CLIP, Z_CLIP) if sd > 0 else np.zeros_like(v)
    return v


#: word class of each MQM severity (:data:`xlscore.estimator.crossencoder.WORD_CLASSES`; critical
#: errors count as major, a post-editor's edit as minor when the recipe learns from edits)
_SEVERITY_CLASS = {"minor": 1, "major": 2, "critical": 2, "edit": 1}


@dataclass
class Example:
    """One training translation. ``group``: translations of one source share it (-1: the
    example is synthetic); ``parent``: for a synthetic corruption, the example it was made
    from (else -1); ``weight``: weight of its squared error. Two translations of a group form
    a ranking pair when their ``rank_value`` differ by more than the larger ``rank_gap``.
    ``errors``: character spans of the translation with their word class (1 minor, 2 major);
    ``clean``: whether the rest of the translation is known to be right (``False``: only the
    spans are labelled); ``word_weight``: weight of its pieces in the word loss."""

    source: str
    translation: str
    target: float
    group: int
    dataset: int
    weight: float = 1.0
    parent: int = -1
    rank_value: float = 0.0
    rank_gap: float = 0.05
    errors: tuple[tuple[int, int, int], ...] = ()
    clean: bool = False
    word_weight: float = 1.0


def _errors_of(
    row: Judgment, text: str, edits: bool
) -> tuple[tuple[tuple[int, int, int], ...], bool]:
    """A judged translation's error spans moved onto its normalised ``text``, and whether
    the rest of it is known to be right. Post-editing marks count only with ``edits``
    (otherwise the translation has no word labels)."""
    if row.errors is None or (not edits and any(m.severity == "edit" for m in row.errors)):
        return (), False
    where = offset_map(row.translation, text)
    return tuple(
        (*move_span(where, m.start, m.end), _SEVERITY_CLASS.get(m.severity, 2)) for m in row.errors
    ), True


def make_examples(
    datasets: Sequence[Sequence[Judgment]], recipe: Recipe, corrupt: Callable | None = None
) -> list[Example]:
    """Examples from judged data sets (one target scale per set), plus synthetic corruptions
    of a ``recipe.synthetic`` share of the English->Russian ones when ``corrupt`` is given
    (:func:`xlscore.training.corruptions.corrupt`: it returns the corrupted text and the characters
    that carry the error). A corruption keeps its parent's error marks (moved onto its text)
    and adds its own, as a major error. With ``recipe.foreign_words_only`` the translations of
    other language pairs teach the word head only (no squared error, no ranking pair); a
    translation labelled by post-edits weighs ``recipe.edit_word_weight`` in the word loss."""
    out: list[Example] = []
    groups: dict[tuple[int, str], int] = {}
    russian: list[bool] = []  # per example: an en-ru translation (the corruptions are Russian)
    for d, rows in enumerate(datasets):
        if not rows:
            raise InputError(f"training data set {d + 1} has no judged translations")
        da = all(r.kind == "da" and r.raw is not None for r in rows)
        human = [r.human for r in rows]
        targets = set_targets(human, recipe.targets)
        for r, t in zip(rows, targets):
            g = groups.setdefault((d, r.seg_id), len(groups))
            text = normalize_text(r.translation)
            errors, clean = _errors_of(r, text, recipe.edit_tags)
            russian.append(r.lp == DEFAULT_LP)
            words_only = recipe.foreign_words_only and r.lp != DEFAULT_LP
            edited = r.kind == "hter" and r.errors is not None  # tags from post-edits
            out.append(
                Example(
                    normalize_text(r.source),
                    text,
                    float(t),
                    g,
                    d,
                    0.0 if words_only or (da and not recipe.da_regression) else 1.0,
                    -1,
                    float(r.raw) if da and r.raw is not None else float(t),
                    math.inf if words_only else recipe.da_gap if da else 0.05,
                    errors,
                    clean,
                    recipe.edit_word_weight if edited else 1.0,
                )
            )
    if corrupt is not None and recipe.synthetic > 0:
        pairs = [(e.source, e.translation) for e in out]
        for i, bad in draw_corruptions(
            pairs, russian, recipe.synthetic, recipe.kinds(), recipe.seed + 7, corrupt
        ):
            e = out[i]
            # the parent's own marks move onto the corrupted text; the corruption is major
            where = offset_map(e.translation, bad.text)
            errors = tuple((*move_span(where, a, b), c) for a, b, c in e.errors) + tuple(
                (a, b, 2) for a, b in bad.spans
            )
            out.append(
                Example(
                    e.source,
                    bad.text,
                    e.target,
                    -1,
                    e.dataset,
                    0.0,
                    i,
                    errors=errors,
                    clean=e.clean,
                )
            )
    return out


def draw_corruptions(
    pairs: Sequence[tuple[str, str]],
    eligible: Sequence[bool],
    share: float,
    kinds: Sequence[str],
    seed: int,
    corrupt: Callable,
) -> list[tuple[int, Any]]:
    """Corruptions of about ``share`` of the ``eligible`` (English->Russian) ``pairs``, as
    ``(index of the pair, corruption)``: one per drawn pair, of the kind among ``kinds``
    (empty: every kind) used least so far that applies to it, so that kinds that apply to few
    sentences (numbers, names, roles) are not crowded out by those that apply to any.
    ``corrupt``: :func:`xlscore.training.corruptions.corrupt`. Deterministic for a ``seed``."""
    rng = random.Random(seed)
    pool = [t for (_, t), ok in zip(pairs, eligible) if ok]
    used = dict.fromkeys(kinds or _corruption_kinds(), 0)
    out = []
    for i, ((source, translation), ok) in enumerate(zip(pairs, eligible)):
        if not (ok and rng.random() < share):
            continue
        for kind in sorted(used, key=lambda k: (used[k], rng.random())):
            bad = corrupt(source, translation, rng, pool, [kind])
            if bad is not None and bad.text != translation:
                used[kind] += 1
                out.append((i, bad))
                break
    return out


def piece_labels(example: Example, offsets: Sequence[tuple[int, int]]) -> list[int]:
    """The word class of each translation piece (its character span in the translation):
    the most severe error span it overlaps; a zero-length span (an omission marked at a
    position) labels the piece that ends there, or the first piece at position 0. Pieces
    with no error are 0 when the example is known to be clean elsewhere, else -100 (no
    label); empty pieces are -100."""
    out = [0 if example.clean else -100] * len(offsets)
    for k, (a, b) in enumerate(offsets):
        if a >= b:
            out[k] = -100
    for start, end, cls in example.errors:
        if start < end:
            hit = [k for k, (a, b) in enumerate(offsets) if a < b and a < end and start < b]
        else:
            before = [k for k, (a, b) in enumerate(offsets) if a < b and a < start <= b]
            after = [k for k, (a, b) in enumerate(offsets) if a < b and a >= start]
            hit = before[-1:] or after[:1]
        for k in hit:
            out[k] = max(out[k], cls)
    return out


def set_shares(sizes: Sequence[int], pairs: Sequence[str], recipe: Recipe) -> list[float] | None:
    """How much of an epoch each training set gets, from its number of units (``sizes``) and
    language pair: ``size ** balance``, times ``enru_weight`` for en-ru sets (normalised to sum
    to 1). ``None`` when that is every set's own share (each unit once per epoch)."""
    from xlscore.io.judgments import DEFAULT_LP

    w = [
        n**recipe.balance * (recipe.enru_weight if lp == DEFAULT_LP else 1.0)
        for n, lp in zip(sizes, pairs)
    ]
    total, n_all = sum(w), sum(sizes)
    shares = [x / total for x in w]
    if all(abs(sh * n_all - n) < 0.5 for sh, n in zip(shares, sizes)):
        return None
    return shares


def _draw(units: list[list[int]], quota: int, rng: random.Random) -> list[list[int]]:
    """``quota`` units of ``units``: whole rounds of all of them, then a sample."""
    whole, rest = divmod(quota, len(units)) if units else (0, 0)
    return units * whole + rng.sample(units, rest)


#: batches of similar length are cut from windows of this many batches' examples
LENGTH_WINDOW = 50


def plan_length_batches(
    lengths: Sequence[int], batch_size: int, rng: random.Random
) -> list[list[int]]:
    """Batches of example indices for one epoch of the ``length`` batching: every example
    once, shuffled, then sorted by length within windows of :data:`LENGTH_WINDOW` batches
    and cut into batches of ``batch_size``, whose order is shuffled again."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = batch_size * LENGTH_WINDOW
    batches = []
    for k in range(0, len(order), window):
        part = sorted(order[k : k + window], key=lambda i: lengths[i])
        batches += [part[j : j + batch_size] for j in range(0, len(part), batch_size)]
    rng.shuffle(batches)
    return batches


def plan_batches(
    examples: Sequence[Example],
    lengths: Sequence[int],
    batch_size: int,
    rng: random.Random,
    shares: Sequence[float] | None = None,
) -> list[list[int]]:
    """Batches of example indices for one epoch of the ``source`` batching. A unit is a source
    with all its translations (and their corruptions) when it has several, else one translation
    with its corruptions; units of several are packed in random order, single ones in runs of
    similar length within their data set; the batches are then shuffled. ``shares``: the part of the
    epoch's units each data set gets (:func:`set_shares`; default: each unit once), drawn
    at random, a set's units repeated when its share is larger than the set."""
    children: dict[int, list[int]] = {}
    members: dict[int, list[int]] = {}
    for i, e in enumerate(examples):
        if e.parent >= 0:
            children.setdefault(e.parent, []).append(i)
        else:
            members.setdefault(e.group, []).append(i)
    multi: list[list[int]] = []
    single: dict[int, list[list[int]]] = {}
    for idx in members.values():
        unit = idx + [c for i in idx for c in children.get(i, [])]
        if len(idx) > 1:
            multi.append(unit)
        else:
            single.setdefault(examples[idx[0]].dataset, []).append(unit)
    if shares is not None:
        n_units = len(multi) + sum(map(len, single.values()))
        by_set: dict[int, list[list[int]]] = {}
        for u in multi:
            by_set.setdefault(examples[u[0]].dataset, []).append(u)
        multi = [
            u for d in sorted(by_set) for u in _draw(by_set[d], round(shares[d] * n_units), rng)
        ]
        single = {d: _draw(u, round(shares[d] * n_units), rng) for d, u in sorted(single.items())}
    batches: list[list[int]] = []

    def pack(units: list[list[int]]) -> None:
        cur: list[int] = []
        for u in units:
            cur = cur + u
            if len(cur) >= batch_size:
                batches.append(cur)
                cur = []
        if cur:
            batches.append(cur)

    rng.shuffle(multi)
    pack(multi)
    for d in sorted(single):
        units = single[d]
        rng.shuffle(units)
        window = batch_size * 16
        for k in range(0, len(units), window):
            pack(sorted(units[k : k + window], key=lambda u: lengths[u[0]]))
    rng.shuffle(batches)
    return batches
