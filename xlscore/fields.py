"""Which parts of a :class:`~xlscore.ScoreResult` a scorer computes, and so what it costs.

The score always comes with its parts (the estimate, its adequacy part, the similarity, the
predicted error spans) and the flags and foreign-text share, which the score depends on. Two
groups of fields cost extra work and can be left out when nobody reads them:

* ``"evidence"``: unmatched source words, foreign words, numbers on one side only
  (:mod:`xlscore.scoring.evidence`); it needs every translation word looked up in the lexicon
  (anchors).
* ``"similarity"``: the untrained multilingual similarity of source and translation (the
  all-words BERTScore F1 of :data:`xlscore.scoring.similarity.SIMILARITY_ENCODER`, with the
  foreign-text penalty), reported beside a score that does not blend it in; it needs that
  encoder's pass over both sides. An estimator whose file gives the similarity a weight
  computes it anyway (it is part of the score); without an estimator it is not computed.
* ``"paper"``: the paper's columns, ``precision``/``recall``/``f1`` and the ``anchors``; they
  need the English encoder's pass over the sources, anchors, the orthogonal map (with
  ``alignment="corpus"`` fitted on the corpus first, a second pass over a large corpus) and
  BERTScore. Without them both sides are embedded once by the multilingual encoder that the
  score's similarity uses.

Fields left out are ``None`` (``anchors`` and the evidence's lists empty). The score itself is
the same either way, bit for bit. Without an estimator the score *is* the paper's F1, so
``"paper"`` is always computed then.
"""

from __future__ import annotations

from collections.abc import Iterable

from xlscore.errors import XLScoreError

#: every field group, in the order help texts list them
FIELDS = ("score", "evidence", "similarity", "paper")
#: every group
ALL = frozenset(FIELDS)
#: what a scorer computes unless told otherwise, in Python as on the command line (``xlscore
#: score``): the score with its parts, and the evidence; the paper's columns and the untrained
#: similarity are asked for (``"all"``, or by name)
DEFAULT = "score,evidence"


def resolve_fields(fields: str | Iterable[str] | None, *, estimator: bool) -> frozenset[str]:
    """The field groups to compute: ``fields`` as a comma-separated string or names
    (``"all"``: every group that applies; ``None``: :data:`DEFAULT`, as everywhere), always
    with ``"score"``, and with ``"paper"`` and without ``"similarity"`` when there is no
    ``estimator`` (the score is then the paper's F1, and the similarity a field of the
    estimator's score). Unknown names are an error."""
    applicable = ALL if estimator else ALL - {"similarity"}
    if fields is None:
        fields = DEFAULT
    names = [f.strip() for f in (fields.split(",") if isinstance(fields, str) else fields)]
    names = [f for f in names if f]
    if names == ["all"]:
        return applicable
    unknown = [f for f in names if f not in FIELDS]
    if unknown:
        raise XLScoreError(
            f"unknown field {unknown[0]!r}: use a comma-separated list of "
            + ", ".join(FIELDS)
            + " (or 'all')"
        )
    chosen = {"score", *names}
    if not estimator:
        chosen.add("paper")
    return frozenset(chosen) & applicable
