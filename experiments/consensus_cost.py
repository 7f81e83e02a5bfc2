"""What the candidates' consensus costs when all MT systems of WMT21 newstest are ranked
together: the time of the consensus step alone (every pair of candidates of a source matched
once), against the encoder forward pass over the same translations.

    python experiments/consensus_cost.py --data ../shared/data/wmt21-enru-mqm-newstest2021.tsv

Prints the two times and their ratio (about 2 minutes on 2 CPU cores).
"""

from __future__ import annotations

import argparse
import time

from xlscore import Encoder
from xlscore.evaluation.agreement import read_judgments
from xlscore.metric.consensus import consensus_bertscore_groups


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="wmt21-enru-mqm-newstest2021.tsv")
    args = ap.parse_args()
    rows = read_judgments(args.data)
    by_seg: dict[str, list[str]] = {}
    for r in rows:
        by_seg.setdefault(r.seg_id, []).append(r.translation)
    e5 = Encoder.load("pack:e5-small")
    uniq = list(dict.fromkeys(r.translation for r in rows))
    t0 = time.perf_counter()
    vectors = dict(zip(uniq, e5.embed_words(uniq)))
    t_embed = time.perf_counter() - t0
    t0 = time.perf_counter()
    consensus_bertscore_groups([[vectors[t].vectors for t in c] for c in by_seg.values()])
    t_cons = time.perf_counter() - t0
    n_pairs = sum(len(c) * (len(c) - 1) // 2 for c in by_seg.values())
    print(f"{len(rows)} translations of {len(by_seg)} sources; {n_pairs} candidate pairs")
    print(f"e5 word vectors of the {len(uniq)} distinct translations: {t_embed:.1f} s")
    print(
        f"consensus (all pairs, greedy matching): {t_cons:.1f} s = "
        f"{t_cons / t_embed:.3f} x the embedding time"
    )


if __name__ == "__main__":
    main()
