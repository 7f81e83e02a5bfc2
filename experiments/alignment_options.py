"""Which Procrustes preprocessing aligns MiniLM (en) and e5 (ru) best: centring, unit length?

Two measures for each of the four combinations:
* dictionary induction: fit on 10,000 dictionary word pairs (each word embedded alone), then
  for 2,000 held-out Russian words check whether the nearest mapped English word (among the
  held-out English words) is a dictionary translation (precision at 1);
* agreement with humans on WMT21 en-ru MQM (MT systems only): mean per-segment Kendall tau-b
  of the anchor variant, the map fitted on the anchors of the other half of the documents
  with the dictionary map as prior (honest cross-fitting).

    python experiments/alignment_options.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv
"""

from __future__ import annotations

import argparse
import random

import torch
from _results import write_markdown

from xlscore import ProcrustesAligner, XLScorer
from xlscore.evaluation.agreement import per_segment, read_judgments
from xlscore.metric.alignment import _single_word_vectors
from xlscore.metric.lexicon import fold_ru


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    args = ap.parse_args()
    scorer = XLScorer.offline()
    lex = scorer.lexicon
    pairs = sorted(
        (ru, en)
        for ru, ens in lex.table.items()
        if len(ens) <= 3
        for en in ens
        if len(ru) >= 3 and len(en) >= 3 and ru.isalpha() and en.isalpha() and ru == fold_ru(ru)
    )
    ru_words = sorted({r for r, _ in pairs})
    random.Random(1).shuffle(ru_words)
    test_ru = set(ru_words[:2000])
    train = [p for p in pairs if p[0] not in test_ru]
    train = random.Random(0).sample(train, min(10_000, len(train)))
    test = [p for p in pairs if p[0] in test_ru]
    ru_vec = _single_word_vectors(scorer.ru, sorted({r for r, _ in train + test}), True)
    en_vec = _single_word_vectors(scorer.en, sorted({e for _, e in train + test}), True)
    train = [(r, e) for r, e in train if r in ru_vec and e in en_vec]
    test = [(r, e) for r, e in test if r in ru_vec and e in en_vec]
    test_en = sorted({e for _, e in test})
    gold: dict[str, set[str]] = {}
    for r, e in test:
        gold.setdefault(r, set()).add(e)
    test_ru_list = sorted(gold)
    en_mat = torch.nn.functional.normalize(torch.stack([en_vec[e] for e in test_en]), dim=1)

    rows = read_judgments(args.data)
    corpus = scorer.prepare([r.source for r in rows], [r.translation for r in rows], progress=True)
    head = (
        f"{len(train)} training pairs, {len(test_ru_list)} held-out Russian words, "
        f"{len(test_en)} English candidates; {len(rows)} WMT pairs (MT systems only).\n\n"
    )
    lines = [
        "| centre | unit length | P@1 dictionary (held out) | per-segment Kendall, anchors, "
        "cross-fitted |",
        "| --- | --- | --- | --- |",
    ]
    for center in (False, True):
        for normalize in (False, True):
            prior = ProcrustesAligner(center=center, normalize=normalize).fit(
                torch.stack([ru_vec[r] for r, _ in train]),
                torch.stack([en_vec[e] for _, e in train]),
            )
            mapped = prior.transform(
                torch.stack([ru_vec[r] for r in test_ru_list]).double()
            ).float()
            nn = (torch.nn.functional.normalize(mapped, dim=1) @ en_mat.T).argmax(1)
            p1 = sum(test_en[j] in gold[r] for r, j in zip(test_ru_list, nn.tolist())) / len(gold)
            scorer.align_center, scorer.align_normalize = center, normalize
            scorer._dictionary_map = prior
            results = scorer.score_cross_fitted(corpus, [r.doc for r in rows], "anchors", folds=2)
            k, _, _ = per_segment(
                [r.seg_id for r in rows], [r.human for r in rows], [x.score for x in results]
            )
            lines.append(f"| {center} | {normalize} | {p1:.3f} | {k:+.4f} |")
            print(lines[-1], flush=True)
    write_markdown(
        "alignment_options",
        head + "\n".join(lines),
        title="Procrustes preprocessing: centring and unit length",
    )


if __name__ == "__main__":
    main()
