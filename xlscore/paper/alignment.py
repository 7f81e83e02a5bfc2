"""Orthogonal (Procrustes) alignment of the Russian encoder's space onto the English one.

Given anchor pairs ``(x_i, y_i)`` (Russian and English word vectors), the map ``W`` maximises
``sum_i <x_i W, y_i>`` over matrices with orthonormal columns (or rows): with
``M = sum_i x_i^T y_i = U S V^T``, ``W = U V^T``. When the two dimensions differ ``W`` is
semi-orthogonal. Only ``M`` (and sums for centring) is accumulated, so a large corpus is
fitted in chunks with :meth:`ProcrustesAligner.partial_fit` without holding its vectors.

A fit on fewer pairs than dimensions is ill-posed. With a ``prior`` map (the dictionary map
:mod:`xlscore.paper.mapping` fits once per encoder pair) the fit is regularised towards it: ``M``
gets ``prior_strength`` pseudo-pairs' worth of the prior, ``M + λ W0``, which also lets corpus
anchors refine the prior map as they accumulate. Without a prior such a fit warns and is marked
``reliable = False``.

Saved maps are ``.npz`` files (no pickle) that record what they were fitted with; loading
one for other encoders raises :class:`~xlscore.errors.AlignmentMismatchError`.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import warnings
import zipfile
from pathlib import Path

import numpy as np
import torch

from xlscore.errors import (
    AlignmentMismatchError,
    InputError,
    LexiconError,
    XLScoreError,
    XLScoreWarning,
)
from xlscore.io.cache import atomic_write_bytes

FORMAT = "xlscore-procrustes-1"
#: anchor vectors are put on a grid of ``2**-GRID_BITS`` (a unit vector's components move by at
#: most ``2**-21``) and the sums kept as whole numbers of steps (products' in ``2**-40``, as high
#: and low int64 parts): all exact, so a corpus's statistics, and its map, are the same to the
#: last bit however it is cut into parts and in whatever order the parts are added
GRID_BITS = 20
_STEP = 2.0**GRID_BITS
_LOW = 32  # bits of the low part


def _carry(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """``[high, low]`` with ``low`` brought into ``[0, 2**_LOW)``, its excess carried up."""
    return np.stack([high + (low >> _LOW), low & ((1 << _LOW) - 1)])


class IllPosedAlignmentWarning(XLScoreWarning):
    """An alignment fitted on fewer anchor pairs than dimensions, with no prior."""


class ProcrustesAligner:
    """Orthogonal map from Russian vectors (rows) into the English space.

    ``center``: subtract each side's mean before fitting (the map becomes affine:
    ``(x - mean_x) W + mean_y``). ``normalize``: scale every vector to unit length before
    accumulating, so that each pair counts once whatever its norms. ``prior``: a map to
    regularise towards, worth ``prior_strength`` pairs (default: the dimension).
    """

    def __init__(
        self,
        *,
        center: bool = False,
        normalize: bool = True,
        prior: ProcrustesAligner | None = None,
        prior_strength: float | None = None,
    ) -> None:
        self.center = center
        self.normalize = normalize
        self.prior = prior
        self.prior_strength = prior_strength
        self.meta: dict = {}
        self.reset()

    # ------------------------------------------------------------------ fitting
    def reset(self) -> ProcrustesAligner:
        """Forget accumulated pairs."""
        self.cross_: np.ndarray | None = None
        self.sum_x_: np.ndarray | None = None
        self.sum_y_: np.ndarray | None = None
        self.scale_: int = 0
        self.n_pairs_ = 0
        self.W_: np.ndarray | None = None
        self.mean_x_: np.ndarray | None = None
        self.mean_y_: np.ndarray | None = None
        self.reliable = False
        return self

    @staticmethod
    def _as_array(a) -> np.ndarray:
        if isinstance(a, torch.Tensor):
            a = a.detach().cpu().numpy()
        a = np.asarray(a, dtype=np.float64)
        if a.ndim != 2:
            raise InputError(f"expected a 2-D array of vectors, got shape {a.shape}")
        return a

    def add_pairs(self, X, Y) -> ProcrustesAligner:
        """Accumulate anchor pairs (row ``i`` of ``X``, Russian, with row ``i`` of ``Y``) without
        solving for the map; :meth:`solve` (or :meth:`partial_fit`) solves."""
        X, Y = self._as_array(X), self._as_array(Y)
        if len(X) != len(Y):
            raise InputError(f"{len(X)} Russian vectors but {len(Y)} English ones")
        if self.normalize:
            X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
            Y = Y / np.maximum(np.linalg.norm(Y, axis=1, keepdims=True), 1e-12)
        X, Y = np.rint(X * _STEP), np.rint(Y * _STEP)  # whole grid steps, as float64
        # a block's products and partial sums are whole numbers below 2**53: exact in any order
        largest = max(float(np.abs(X).max(initial=0) * np.abs(Y).max(initial=0)), 1.0)
        block = max(1, int(2.0**53 // largest))
        cross = np.zeros((2, X.shape[1], Y.shape[1]), dtype=np.int64)
        for a in range(0, len(X), block):
            part = (X[a : a + block].T @ Y[a : a + block]).astype(np.int64)
            cross = _carry(cross[0], cross[1] + part)
        norms = np.rint(np.linalg.norm(X, axis=1) * np.linalg.norm(Y, axis=1) / _STEP)
        self._add(
            {
                "grid": GRID_BITS,
                "cross": cross,
                "sum_x": X.astype(np.int64).sum(0),
                "sum_y": Y.astype(np.int64).sum(0),
                "scale": int(norms.astype(np.int64).sum()),
                "n_pairs": len(X),
            }
        )
        return self

    def _add(self, stats: dict) -> None:
        if int(stats.get("grid", -1)) != GRID_BITS:
            why = f"grid {stats.get('grid')}, not {GRID_BITS}"
            raise InputError(f"map statistics of another xlscore version ({why}): redo them")
        cross = np.asarray(stats["cross"], dtype=np.int64)
        if self.cross_ is None or self.sum_x_ is None or self.sum_y_ is None:
            self.cross_ = np.zeros(cross.shape, dtype=np.int64)
            self.sum_x_, self.sum_y_ = (np.zeros(n, dtype=np.int64) for n in cross.shape[1:])
        elif cross.shape != self.cross_.shape:
            raise InputError(
                f"vectors of {cross.shape[1]}/{cross.shape[2]} dimensions, but "
                f"earlier pairs had {self.cross_.shape[1]}/{self.cross_.shape[2]}"
            )
        self.cross_ = _carry(self.cross_[0] + cross[0], self.cross_[1] + cross[1])
        self.sum_x_ += np.asarray(stats["sum_x"], dtype=np.int64)
        self.sum_y_ += np.asarray(stats["sum_y"], dtype=np.int64)
        self.scale_ += int(stats["scale"])
        self.n_pairs_ += int(stats["n_pairs"])

    def statistics(self) -> dict:
        """What the map is solved from: the cross-covariance of the accumulated pairs, the sums
        of each side, the sum of norm products and the number of pairs, as whole numbers of
        grid steps (:data:`GRID_BITS`). Statistics of parts of a corpus add up (:meth:`merge`)
        to those of the whole, to the last bit."""
        if self.cross_ is None:
            return {"n_pairs": 0}
        return {
            "grid": GRID_BITS,
            "cross": self.cross_,
            "sum_x": self.sum_x_,
            "sum_y": self.sum_y_,
            "scale": self.scale_,
            "n_pairs": self.n_pairs_,
        }

    def merge(self, stats: dict) -> ProcrustesAligner:
        """Add the :meth:`statistics` of pairs accumulated elsewhere (another process, another
        machine), without solving."""
        if int(stats.get("n_pairs", 0)):
            self._add(stats)
        return self

    def partial_fit(self, X, Y) -> ProcrustesAligner:
        """Accumulate anchor pairs: row ``i`` of ``X`` (Russian) pairs with row ``i`` of ``Y``."""
        return self.add_pairs(X, Y).solve()

    def fit(self, X, Y) -> ProcrustesAligner:
        """Fit on anchor pairs (rows of ``X`` Russian, of ``Y`` English)."""
        return self.reset().partial_fit(X, Y)

    def solve(self) -> ProcrustesAligner:
        """Solve for the map from the accumulated pairs (and the prior)."""
        if self.cross_ is None or self.sum_x_ is None or self.sum_y_ is None:
            raise XLScoreError("no anchor pairs to fit an alignment on")
        n = self.n_pairs_
        _, d_x, d_y = self.cross_.shape
        self.mean_x_ = self.sum_x_ / _STEP / max(n, 1) if self.center else np.zeros(d_x)
        self.mean_y_ = self.sum_y_ / _STEP / max(n, 1) if self.center else np.zeros(d_y)
        high, low = self.cross_.astype(np.float64)
        cross = (high * 2.0**_LOW + low) / _STEP**2
        m = cross - n * np.outer(self.mean_x_, self.mean_y_)
        if self.prior is not None and self.prior.W_ is not None:
            if self.prior.W_.shape != (d_x, d_y):
                raise InputError("the prior map has other dimensions than the anchor vectors")
            strength = min(d_x, d_y) if self.prior_strength is None else self.prior_strength
            per_pair = self.scale_ / _STEP / n if n else 1.0
            m = m + strength * per_pair * self.prior.W_
            self.reliable = self.prior.reliable or n >= min(d_x, d_y)
        else:
            self.reliable = n >= min(d_x, d_y)
            if not self.reliable:
                warnings.warn(
                    f"Procrustes fitted on {n} anchor pairs, fewer than the "
                    f"{min(d_x, d_y)} dimensions: the map is ill-posed, and so are "
                    "F1, P and R (the estimator's score does not use it); fit on "
                    "more text, or "
                    "use a dictionary map as a prior (needs Müller's dictionary)",
                    IllPosedAlignmentWarning,
                    stacklevel=3,
                )
        u, _, vt = np.linalg.svd(m, full_matrices=False)
        self.W_ = u @ vt
        return self

    # ------------------------------------------------------------------ applying
    def _check_fitted(self) -> None:
        if self.W_ is None:
            raise AlignmentMismatchError("the alignment is not fitted yet")

    def transform(self, X) -> torch.Tensor:
        """Map Russian vectors (rows) into the English space."""
        return self.transform_each([X])[0]

    def transform_each(self, parts: list) -> list[torch.Tensor]:
        """:meth:`transform` of each part (of one dtype) by a product of its own, so that a
        part's result depends on it alone, the map converted once for all of them."""
        self._check_fitted()
        ts = [X if isinstance(X, torch.Tensor) else torch.as_tensor(np.asarray(X)) for X in parts]
        dtype = ts[0].dtype if ts else torch.float32
        w = torch.as_tensor(self.W_, dtype=dtype)
        if not self.center:
            return [t @ w for t in ts]
        mx, my = (torch.as_tensor(m, dtype=dtype) for m in (self.mean_x_, self.mean_y_))
        return [(t - mx) @ w + my for t in ts]

    @classmethod
    def identity(cls, dim: int) -> ProcrustesAligner:
        """The identity map (for a single multilingual encoder)."""
        a = cls(normalize=False)
        a.W_, a.mean_x_, a.mean_y_ = np.eye(dim), np.zeros(dim), np.zeros(dim)
        a.reliable = True
        a.meta = {"kind": "identity"}
        return a

    @property
    def digest(self) -> str:
        """Short digest of the map (matrix, means, preprocessing), for signatures."""
        self._check_fitted()
        h = hashlib.sha256(np.ascontiguousarray(self.W_, dtype=np.float32).tobytes())
        h.update(np.asarray(self.mean_x_, dtype=np.float32).tobytes())
        h.update(np.asarray(self.mean_y_, dtype=np.float32).tobytes())
        h.update(f"center={self.center};normalize={self.normalize}".encode())
        return h.hexdigest()[:12]

    # ------------------------------------------------------------------ saving
    def save(self, path: str | os.PathLike) -> Path:
        """Write the map and what it was fitted with to an ``.npz`` file."""
        if self.W_ is None or self.mean_x_ is None or self.mean_y_ is None:
            raise AlignmentMismatchError("the alignment is not fitted yet")
        path = Path(path)
        meta = dict(
            self.meta,
            format=FORMAT,
            n_pairs=self.n_pairs_,
            center=self.center,
            normalize=self.normalize,
            reliable=self.reliable,
        )
        arrays = {
            "W": self.W_,
            "mean_x": self.mean_x_,
            "mean_y": self.mean_y_,
            "meta": np.array(json.dumps(meta, sort_keys=True)),
        }
        if self.cross_ is not None and self.sum_x_ is not None and self.sum_y_ is not None:
            arrays.update(
                cross=self.cross_,
                sum_x=self.sum_x_,
                sum_y=self.sum_y_,
                scale=np.array(self.scale_),
                grid=np.array(GRID_BITS),
            )
        buf = io.BytesIO()
        # numpy's stub matches **arrays against savez's `allow_pickle: bool` too
        np.savez(buf, **arrays)  # type: ignore[arg-type]
        atomic_write_bytes(path, buf.getvalue())
        return path

    @classmethod
    def load(cls, path: str | os.PathLike, *, expect: dict | None = None) -> ProcrustesAligner:
        """Read a saved map. ``expect``: encoder descriptions (``{"en": {...}, "ru": {...}}``)
        the map must have been fitted with; any difference raises
        :class:`~xlscore.errors.AlignmentMismatchError`."""
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                if meta.get("format") != FORMAT:
                    raise ValueError(f"unknown format {meta.get('format')!r}")
                a = cls(center=bool(meta["center"]), normalize=bool(meta["normalize"]))
                a.W_, a.mean_x_, a.mean_y_ = z["W"], z["mean_x"], z["mean_y"]
                if "grid" in z and int(z["grid"]) == GRID_BITS:  # earlier files: the map only
                    a.cross_, a.sum_x_, a.sum_y_ = z["cross"], z["sum_x"], z["sum_y"]
                    a.scale_ = int(z["scale"])
                a.n_pairs_ = int(meta["n_pairs"])
                a.reliable = bool(meta.get("reliable", True))
        except FileNotFoundError:
            raise InputError("no such alignment file", path=path) from None
        except IsADirectoryError:
            raise InputError("is a directory, not an alignment file", path=path) from None
        except (
            OSError,
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            zipfile.BadZipFile,
        ) as err:
            raise InputError(f"not a saved xlscore alignment ({err})", path=path) from None
        if (
            a.W_.ndim != 2
            or a.mean_x_.shape != (a.W_.shape[0],)
            or a.mean_y_.shape != (a.W_.shape[1],)
        ):
            raise InputError("not a saved xlscore alignment (inconsistent shapes)", path=path)
        a.meta = {
            k: v
            for k, v in meta.items()
            if k not in ("format", "n_pairs", "center", "normalize", "reliable")
        }
        if expect:
            for side, want in expect.items():
                have = a.meta.get("encoders", {}).get(side)
                if have is None or any(
                    have.get(k) != want.get(k) for k in ("fingerprint", "layer", "dim", "prefix")
                ):
                    raise AlignmentMismatchError(
                        f"{path}: this alignment was fitted for {side} encoder "
                        f"{_brief(have)}, not {_brief(want)}; fit a new one (xlscore fit)"
                    )
        return a


def _brief(desc: dict | None) -> str:
    if not desc:
        return "(unknown)"
    return f"{desc.get('model')} layer {desc.get('layer')} [{desc.get('fingerprint')}]"


# ---------------------------------------------------------------------- dictionary map
DICTIONARY_PAIRS = 10_000


def dictionary_pairs(
    lexicon, n_pairs: int = DICTIONARY_PAIRS, seed: int = 0
) -> list[tuple[str, str]]:
    """Word pairs ``(russian, english)`` for the dictionary map: both words alphabetic and at
    least three letters long, the Russian word with at most three translations (the least
    ambiguous), sampled reproducibly."""
    import random

    pairs = sorted(
        (ru, en)
        for ru, ens in lexicon.table.items()
        if len(ens) <= 3
        for en in ens
        if len(ru) >= 3 and len(en) >= 3 and ru.isalpha() and en.isalpha()
    )
    if len(pairs) > n_pairs:
        pairs = random.Random(seed).sample(pairs, n_pairs)
    return sorted(pairs)


def dictionary_alignment(
    en_encoder,
    ru_encoder,
    lexicon,
    *,
    center: bool = False,
    normalize: bool = True,
    n_pairs: int = DICTIONARY_PAIRS,
    progress: bool = False,
) -> ProcrustesAligner:
    """The default map of an encoder pair: Procrustes on dictionary word pairs, each word
    embedded on its own (Mikolov et al. 2013; Xing et al. 2015). Fitted once and cached per
    encoder weights, layers, lexicon and options."""
    from xlscore.io import cache

    key_src = json.dumps(
        [
            en_encoder.describe(),
            ru_encoder.describe(),
            lexicon.describe(),
            n_pairs,
            center,
            normalize,
            GRID_BITS,  # maps fitted off the grid (earlier versions) are fitted again
        ],
        sort_keys=True,
    )
    key = "dictmap-" + hashlib.sha256(key_src.encode()).hexdigest()[:20]
    target = cache.entry_path("alignments", key)

    def build(tmp: Path) -> dict:
        pairs = dictionary_pairs(lexicon, n_pairs)
        logging.getLogger("xlscore").info(
            "building the dictionary map once into the cache (%d word pairs embedded by both "
            "encoders; minutes on a CPU)...",
            len(pairs),
        )
        ru_words = sorted({r for r, _ in pairs})
        en_words = sorted({e for _, e in pairs})
        ru_vec = _single_word_vectors(ru_encoder, ru_words, progress)
        en_vec = _single_word_vectors(en_encoder, en_words, progress)
        keep = [(r, e) for r, e in pairs if r in ru_vec and e in en_vec]
        if not keep:
            raise LexiconError(
                f"{lexicon.describe()} has no word pairs usable for a dictionary "
                "map (single words of three letters or more, at most three "
                "translations each)"
            )
        aligner = ProcrustesAligner(center=center, normalize=normalize)
        aligner.fit(
            torch.stack([ru_vec[r] for r, _ in keep]), torch.stack([en_vec[e] for _, e in keep])
        )
        aligner.meta = {
            "kind": "dictionary",
            "lexicon": lexicon.describe(),
            "encoders": {"en": en_encoder.describe(), "ru": ru_encoder.describe()},
        }
        aligner.save(tmp / "map.npz")
        return {"pairs": len(keep)}

    folder = cache.ensure_dir(target, build)
    return ProcrustesAligner.load(folder / "map.npz")


def _single_word_vectors(encoder, words: list[str], progress: bool) -> dict[str, torch.Tensor]:
    out = {}
    for word, wv in zip(words, encoder.embed_words(words, progress=progress)):
        if len(wv) == 1:
            out[word] = wv.vectors[0]
    return out
