"""Anchors from word alignment in e5's space against the dictionary's anchors.

    python experiments/alignment_anchors.py --choose ../shared/data/wmt22-enru-mqm-dev.tsv \
        --report ../shared/data/wmt21-enru-mqm-newstest2021.tsv

For every floor of the cosine similarity, the alignment anchors (:mod:`xlscore.metric.wordalign`:
mutual best matches of e5@9 word vectors, two rounds) are compared with Müller's dictionary
anchors where the dictionary can judge: Russian words with an entry in it. Precision: the
share of alignment anchors of such words that the dictionary also gives; recall: the share of
the dictionary's anchors that the alignment finds. The floor with the best harmonic mean on
the ``--choose`` file (unique pairs) is the one reported on the ``--report`` file, which played
no part in choosing it. Needs Müller's dictionary (``mueller7-dict``).
"""

from __future__ import annotations

import argparse
import warnings

from _results import cpu_name, write_markdown

from xlscore import Encoder, Lexicon
from xlscore.evaluation.agreement import read_judgments
from xlscore.metric.anchors import find_anchors, is_cyrillic
from xlscore.metric.bertscore import cosine_matrix
from xlscore.metric.wordalign import ALIGN_ROUNDS, mutual_best

FLOORS = (0.0, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85)


def _pairs(path: str, limit: int) -> list[tuple[str, str]]:
    rows = read_judgments(path)
    pairs = list(dict.fromkeys((r.source, r.translation) for r in rows))
    return pairs[:limit] if limit else pairs


def counts(e5: Encoder, lex: Lexicon, pairs: list[tuple[str, str]]) -> dict[float, list[int]]:
    """``{floor: [both, alignment only, dictionary only]}`` over the judgeable words."""
    src = e5.embed_words([s for s, _ in pairs])
    mt = e5.embed_words([t for _, t in pairs])
    out = {f: [0, 0, 0] for f in FLOORS}
    for s, m in zip(src, mt):
        known = {i for i, w in enumerate(m.words) if is_cyrillic(w) and lex.translate(w)}
        gold = find_anchors(s.words, m.words, lex.translate, lex.en_keys, lex.headwords)
        dictionary = {(e, r) for e, r in gold.pairs if r in known}
        sim = cosine_matrix(s.vectors.float(), m.vectors.float())
        for f in FLOORS:
            found = {(e, r) for e, r in mutual_best(sim, f, ALIGN_ROUNDS) if r in known}
            c = out[f]
            c[0] += len(found & dictionary)
            c[1] += len(found - dictionary)
            c[2] += len(dictionary - found)
    return out


def _prf(c: list[int]) -> tuple[float, float, float]:
    p = c[0] / max(1, c[0] + c[1])
    r = c[0] / max(1, c[0] + c[2])
    return p, r, 2 * p * r / max(1e-9, p + r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--choose", required=True, help="judged pairs the floor is chosen on")
    ap.add_argument("--report", required=True, help="judged pairs the chosen floor is reported on")
    ap.add_argument("--limit", type=int, default=0, help="first N unique pairs of each file")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    e5 = Encoder.load("pack:e5-small", layer=9)
    lex = Lexicon.mueller7()
    lines = [
        "| file | floor | alignment anchors | precision | recall | harmonic mean |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    chosen = None
    for role, path in (("choose", args.choose), ("report", args.report)):
        pairs = _pairs(path, args.limit)
        table = counts(e5, lex, pairs)
        if role == "choose":
            chosen = max(FLOORS, key=lambda f: _prf(table[f])[2])
        for f in FLOORS:
            p, r, h = _prf(table[f])
            mark = " (chosen)" if f == chosen else ""
            lines.append(
                f"| {path.rsplit('/', 1)[-1]} ({len(pairs)} pairs) | {f}{mark} | "
                f"{table[f][0] + table[f][1]} | {p:.3f} | {r:.3f} | {h:.3f} |"
            )
            print(lines[-1], flush=True)
    write_markdown(
        "alignment_anchors",
        "\n".join(
            [
                f"e5@9 word vectors, {ALIGN_ROUNDS} rounds of mutual best matches; judged "
                "against Müller's dictionary anchors on the Russian words it has an entry for. "
                "The floor is chosen on the first file and reported on the second "
                f"({cpu_name()}).",
                "",
                *lines,
            ]
        ),
        title="Anchors from word alignment against the dictionary's",
    )


if __name__ == "__main__":
    main()
