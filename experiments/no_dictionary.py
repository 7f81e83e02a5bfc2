"""The default and the paper's anchors F1 with Müller's dictionary and without it.

    python experiments/no_dictionary.py --data-dir ../shared/data --limit 100

Without the dictionary (``lexicon="english-words"``), anchors come from word alignment in
e5's space (``translator="alignment"``, :mod:`xlscore.metric.wordalign`). With both, English
words are told from names by the MiniLM pack's vocabulary
(:func:`xlscore.metric.lexicon.english_word_list`). For each lexicon: the hand-written
challenge set per category (the correct translation ranked first), with the default's score
and with the offline paper pipeline's anchors-only F1 (MiniLM@6 + e5@9, corpus map);
per-segment and system Kendall with MQM on the MT translations of the first ``--limit``
newstest2021 segments; how often the word-level evidence points at the challenge set's error
(more unmatched source words in the wrong translation than in the correct one); and how many
default scores differ between the two lexicons on the WMT22 dev set (none should: the
estimator reads no anchor, and the foreign-word share takes its English words from the
MiniLM pack with either lexicon). Needs the dictionary installed.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from _results import cpu_name, write_markdown

from xlscore import Lexicon, XLScorer
from xlscore.evaluation.agreement import agreement, read_judgments
from xlscore.evaluation.challenge import read_challenge, run_challenge

CHALLENGE = Path(__file__).resolve().parent.parent / "data" / "challenge" / "challenge.tsv"
LEXICONS = ("mueller7", "english-words")
KINDS = {"default": {}, "paper offline, anchors F1": {"estimator": None}}


def _evidence_wins(scorer: XLScorer, cases) -> dict[str, list[int]]:
    """``{phenomenon: [pairs whose wrong translation has more unmatched source words than
    the correct one, pairs]}``."""
    res = scorer.score(
        [c.source for c in cases] * 2, [c.good for c in cases] + [c.bad for c in cases]
    )
    n = len(cases)
    out: dict[str, list[int]] = {}
    for k, c in enumerate(cases):
        row = out.setdefault(c.phenomenon, [0, 0])
        row[0] += len(res[n + k].evidence.unmatched_source) > len(res[k].evidence.unmatched_source)
        row[1] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="the shared data folder")
    ap.add_argument("--limit", type=int, default=100, help="newstest segments (default 100)")
    ap.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    cases = read_challenge(CHALLENGE)
    news = read_judgments(args.data_dir / "wmt21-enru-mqm-newstest2021.tsv")
    keep = set(list(dict.fromkeys(r.seg_id for r in news))[: args.limit])
    news = [r for r in news if r.seg_id in keep]
    qe = read_judgments(args.data_dir / "wmt22-enru-mqm-dev.tsv")
    lines: list[str] = []
    default_scores = {}
    evidence: dict[str, dict[str, list[int]]] = {}
    for kind, options in KINDS.items():
        tables, stats = {}, {}
        for lex in LEXICONS:
            scorer = XLScorer.offline(lexicon=Lexicon.load(lex), **options)
            tables[lex] = run_challenge(scorer, cases)
            res = scorer.score([r.source for r in news], [r.translation for r in news])
            got = [r.score if kind == "default" else r.f1 for r in res]
            stats[lex] = agreement(
                [r.seg_id for r in news],
                [r.system for r in news],
                [r.human for r in news],
                got,
                n_boot=args.n_boot,
            )
            if kind == "default":
                default_scores[lex] = np.array(
                    [
                        r.score
                        for r in scorer.score([r.source for r in qe], [r.translation for r in qe])
                    ]
                )
                evidence[lex] = _evidence_wins(scorer, cases)
            print(kind, lex, "done", flush=True)
        lines += [
            f"## {kind}",
            "",
            "| | " + " | ".join(LEXICONS) + " |",
            "| --- | " + " | ".join("---" for _ in LEXICONS) + " |",
        ]
        for cat in sorted(tables[LEXICONS[0]]):
            lines.append(
                f"| challenge: {cat} | "
                + " | ".join(f"{tables[x][cat].wins}/{tables[x][cat].total}" for x in LEXICONS)
                + " |"
            )
        lines.append(
            "| challenge: all | "
            + " | ".join(
                f"{sum(v.wins for v in tables[x].values())}/{len(cases)}" for x in LEXICONS
            )
            + " |"
        )
        lines.append(
            f"| newstest per-segment Kendall ({len(news)} pairs) | "
            + " | ".join(str(stats[x]["seg_kendall"]) for x in LEXICONS)
            + " |"
        )
        lines.append(
            "| newstest system Kendall | "
            + " | ".join(str(stats[x]["sys_kendall"]) for x in LEXICONS)
            + " |"
        )
        lines.append("")
    lines += [
        "## Evidence on the challenge set",
        "",
        "Pairs in which the wrong translation has more unmatched source words (source "
        "content words with no anchor) than the correct one, i.e. the evidence points at "
        "the error:",
        "",
        "| | " + " | ".join(LEXICONS) + " |",
        "| --- | " + " | ".join("---" for _ in LEXICONS) + " |",
    ]
    for cat in sorted(evidence[LEXICONS[0]]):
        lines.append(
            f"| {cat} | " + " | ".join("{}/{}".format(*evidence[x][cat]) for x in LEXICONS) + " |"
        )
    lines.append(
        "| all | "
        + " | ".join(f"{sum(v[0] for v in evidence[x].values())}/{len(cases)}" for x in LEXICONS)
        + " |"
    )
    lines.append("")
    d = np.abs(default_scores["mueller7"] - default_scores["english-words"])
    lines.append(
        f"Default score, WMT22 dev ({len(d)} pairs): {int((d > 0).sum())} scores differ "
        f"between the lexicons (largest difference {d.max():.3f}; the foreign-word "
        "share, the only part of the score a lexicon could touch, uses the same "
        "English word list with both)."
    )
    write_markdown(
        "no_dictionary",
        "\n".join(
            [
                f"Made on {cpu_name()}. Challenge: {len(cases)} hand-written pairs. Columns: "
                "Müller's dictionary (`mueller7`, dictionary anchors) and none (`english-words`, "
                "alignment anchors).",
                "",
                *lines,
            ]
        ),
        title="With and without Müller's dictionary",
    )


if __name__ == "__main__":
    main()
