"""The scorer's identity: every setting that changes a score, each component describing its own
part (:meth:`xlscore.metric.paper.PaperScorer.describe`,
:meth:`xlscore.scoring.blend.FinalScore.describe`), gathered in one order (:data:`KEYS`) by
:meth:`xlscore.scoring.scorer.XLScorer.describe`; and the sacreBLEU-style one-line signature made of
them (:func:`signature_line`), which results carry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xlscore.fields import resolve_fields

if TYPE_CHECKING:
    from xlscore.estimator.model import QualityEstimator

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


def signature_line(d: dict, qe: QualityEstimator | None) -> str:
    """The sacreBLEU-style one-line signature of a scorer's description ``d``
    (:data:`KEYS`), whose estimator is ``qe`` (``None``: none). It names only the settings
    that acted on the numbers computed: without the paper's columns among the fields
    (``"paper"``), its :data:`PAPER_ONLY` settings change nothing and are left out, so that a
    run resumed with another of them is accepted."""

    def enc(e: dict) -> str:
        return f"{e['model']}@{e['layer']}#{e['fingerprint'][:8]}/{e['dtype']}"

    est = "est:no"
    if qe is not None:
        blended = d["similarity"] is not None and qe.separate_similarity  # in the score
        est = qe.signature() + qe.formula.signature(enc(d["similarity"]) if blended else None)
        est += "-degenerate"  # the pull of degenerate output (xlscore.checks.degenerate)
    spans = qe.spans_signature() if qe is not None else None
    paper = "paper" in d["fields"]
    parts = [
        f"xlscore:{d['version']}",
        est,
        *([f"spans:{spans}"] if spans else []),
        "en:" + (enc(d["en"]) if d["en"] is not None else "no"),
        f"ru:{enc(d['ru'])}",
        f"variant:{d['variant']}",
        "cons:" + (d["consensus"] or "no"),
        f"idf:{'yes' if d['idf'] else 'no'}",
        "rescale:"
        + (
            "no" if not d["rescale"] else "/".join(f"{b:.4f}" for b in d["baseline"] or ()) or "yes"
        ),
        f"lex:{d['lexicon']}",
        f"words:{d['words']}",
        f"tr:{d['translator'].split(':')[0]}",
        f"align:{d['alignment']}",
        "fields:"
        + (
            "all"
            if set(d["fields"]) == resolve_fields("all", estimator=qe is not None)
            else "+".join(d["fields"])
        ),
    ]
    if not paper:
        parts = [p for p in parts if p.partition(":")[0] not in PAPER_ONLY]
    if d["similarity"] is not None and not (
        qe is not None and qe.separate_similarity
    ):  # the similarity field, beside the score
        parts.append(f"sim:{enc(d['similarity'])}")
    return "|".join(parts)
