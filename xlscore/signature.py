"""The scorer's identity: every setting that changes a score, each component describing its own
part (the paper's settings by :func:`xlscore.scoring.presets.settings_description`, through
:meth:`xlscore.paper.paper_scorer.PaperScorer.describe` when the paper's scorer is built,
:meth:`xlscore.scoring.blend.ScoreBlend.describe`), gathered in one order (:data:`KEYS`) by
:meth:`xlscore.scoring.scorer.XLScorer.describe`; and the sacreBLEU-style one-line signature made of
them (:func:`signature_of`), which results carry: a :class:`Signature` record, its parts in
order, that formats itself, parses back, and says which parts differ from another's (what
``--resume`` compares).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from xlscore.fields import resolve_fields


class SignedEstimator(Protocol):
    """What the signature reads of an estimator
    (:class:`xlscore.estimator.model.QualityEstimator`, which sits above this module)."""

    formula: Any

    @property
    def separate_similarity(self) -> bool: ...

    def signature(self) -> str: ...

    def spans_signature(self) -> str | None: ...


#: the description's keys, in its order
KEYS = (
    "version",
    "en",
    "ru",
    "variant",
    "idf",
    "rescale",
    "consensus",
    "baseline",
    "lexicon",
    "words",
    "translator",
    "alignment",
    "align_center",
    "align_normalize",
    "estimator",
    "fields",
    "similarity",
)


#: the paper's settings that act only on its columns (the words, idf, rescaling, the map):
#: signed only when the fields compute them
PAPER_ONLY = ("variant", "idf", "rescale", "align")


@dataclass(frozen=True)
class Signature:
    """A signature: its parts in order, each a ``(key, value)`` pair, written ``key:value``
    and joined by ``|`` (``xlscore:0.1.0|est:...|fields:score+evidence``, sacreBLEU's form).
    A key is never empty and holds no ``:``, ``|`` or space (a value comes from the settings,
    a model's name among them, and is kept as it is)."""

    parts: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        for key, _ in self.parts:
            if not key or any(c in key for c in ":| "):
                raise ValueError(f"not a signature key: {key!r}")

    def format(self) -> str:
        """The one line results carry."""
        return "|".join(f"{k}:{v}" for k, v in self.parts)

    __str__ = format

    @classmethod
    def parse(cls, line: str) -> Signature:
        """A signature from its line (:meth:`format`'s inverse)."""
        return cls(tuple(tuple(p.partition(":")[::2]) for p in line.split("|") if p))  # type: ignore[misc]

    def value(self, key: str, default: str | None = None) -> str | None:
        """The value of the part ``key`` (``default`` when there is no such part)."""
        return dict(self.parts).get(key, default)

    def with_part(self, key: str, value: str) -> Signature:
        """This signature with one more part at the end."""
        return Signature((*self.parts, (key, value)))

    def without(self, keys: Iterable[str]) -> Signature:
        """This signature without the parts ``keys``."""
        drop = set(keys)
        return Signature(tuple(p for p in self.parts if p[0] not in drop))

    def differing(self, other: Signature) -> list[str]:
        """The keys of this signature's parts whose value ``other`` does not share (a part it
        lacks included), in this signature's order."""
        theirs = dict(other.parts)
        return [k for k, v in self.parts if theirs.get(k) != v]


def signature_of(d: dict, qe: SignedEstimator | None) -> Signature:
    """The sacreBLEU-style signature of a scorer's description ``d`` (:data:`KEYS`), whose
    estimator is ``qe`` (``None``: none). It names only the settings that acted on the
    numbers computed: without the paper's columns among the fields (``"paper"``), its
    :data:`PAPER_ONLY` settings change nothing and are left out, so that a run resumed with
    another of them is accepted."""

    def enc(e: dict) -> str:
        return f"{e['model']}@{e['layer']}#{e['fingerprint'][:8]}/{e['dtype']}"

    est = "no"
    if qe is not None:
        blended = d["similarity"] is not None and qe.separate_similarity  # in the score
        est = qe.signature() + qe.formula.signature(enc(d["similarity"]) if blended else None)
        # the pull of degenerate output (xlscore.checks.degenerate)
        est = est.removeprefix("est:") + "-degenerate"
    spans = qe.spans_signature() if qe is not None else None
    paper = "paper" in d["fields"]
    rescale = "/".join(f"{b:.4f}" for b in d["baseline"] or ()) or "yes"
    every = resolve_fields("all", estimator=qe is not None)
    sig = Signature(
        (
            ("xlscore", d["version"]),
            ("est", est),
            *([("spans", spans)] if spans else []),
            ("en", enc(d["en"]) if d["en"] is not None else "no"),
            ("ru", enc(d["ru"])),
            ("variant", d["variant"]),
            ("cons", d["consensus"] or "no"),
            ("idf", "yes" if d["idf"] else "no"),
            ("rescale", rescale if d["rescale"] else "no"),
            ("lex", d["lexicon"]),
            ("words", d["words"]),
            ("tr", d["translator"].split(":")[0]),
            ("align", d["alignment"]),
            ("fields", "all" if set(d["fields"]) == every else "+".join(d["fields"])),
        )
    )
    if not paper:
        sig = sig.without(PAPER_ONLY)
    if d["similarity"] is not None and not (
        qe is not None and qe.separate_similarity
    ):  # the similarity field, beside the score
        sig = sig.with_part("sim", enc(d["similarity"]))
    return sig
