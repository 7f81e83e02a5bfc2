"""Meaning errors for the span tagger (issue 73, item 2): do features that see meaning add to it?

    python experiments/span_features.py --data-dir ../shared/data --model-id words73

Three candidate features of each translation word, beside the tagger's
(:data:`xlscore.estimator.span_tagger.FEATURES`):

* ``unanchored``: a Russian content word (Cyrillic, three letters or more, not a function word)
  that no anchor ties to a source word — the default scorer's anchoring with word translation,
  as its evidence computes it (a word with no counterpart in the source);
* ``sentence pull`` and ``meaning pull``: the word's first-order share of the sentence head's
  and of the meaning head's output — the head's gradient at the pooled vector dotted with each
  of the word's pieces' last states, over the number of pieces (the cheapest attribution: one
  gradient of a small head per pair, no backward pass through the encoder). A word that pulls
  the score down is a candidate error.

Each is computed with the fold model that never saw the set (the fold models in the experiment
cache: ``estimator.py run`` first). As ``span_tagger.py`` does, a logistic combination is fitted
on one set's words, its threshold chosen there (best MCC with a span on at most 10% of the
set's error-free translations), and read on the other set, with and without the new features;
the shortest-span rule is left out of both (so the first row differs a little from
``span-tagger-MODEL.md``). Writes ``results/span-features-MODEL.md``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NamedTuple

import _tools  # noqa: F401  (tools/ on the import path)
import folds
import numpy as np
import span_tagger as st
from _protocol import CACHE, load_sets
from _results import write_markdown
from sklearn.linear_model import LogisticRegression

from xlscore.estimator.span_tagger import word_runs


class Span(NamedTuple):
    start: int
    end: int


#: Russian function words that are no content of their own
_FUNCTION_TEXT = (
    "и в во не на с со что как а но к ко у о об от до по за из для же ли бы то это он она они "
    "оно мы вы я ты его ее её их им ими так уже или если при был была были было быть есть чем "
    "тоже также ещё еще лишь только"
)
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())


def unanchored(rows: list) -> list[list[tuple[int, int]]]:
    """Per translation, the character spans (in its normalised text) of its Russian content
    words without an anchor."""
    from xlscore import XLScorer
    from xlscore.text.pairs import distinct_pairs

    scorer = XLScorer.offline()
    corpus = scorer.anchoring.prepare(
        distinct_pairs([r.source for r in rows], [r.translation for r in rows]),
        vectors=False,
        translate=True,
    )
    out = []
    for k in range(len(rows)):
        mt, tied = corpus.mt[k], set(corpus.anchors[k].ru)
        out.append(
            [
                span
                for i, (w, span) in enumerate(zip(mt.words, mt.spans, strict=True))
                if i not in tied
                and len(w) > 2
                and any("а" <= c <= "я" or c == "ё" for c in w.casefold())
                and w.casefold() not in FUNCTION_WORDS
            ]
        )
    return out


def pulls(model_path: Path, rows: list) -> list[list[tuple[int, int, float, float]]]:
    """Per translation, each word's ``(start, end, sentence pull, meaning pull)`` (offsets in
    its normalised text) under the fold model at ``model_path``."""
    import torch

    from xlscore.estimator.model import QualityEstimator
    from xlscore.text.words import normalize_text, split_words

    est = QualityEstimator.load(model_path)
    net = est.model.eval()

    def gradient(head: torch.nn.Module, pooled: torch.Tensor) -> torch.Tensor:
        x = pooled.detach().requires_grad_(True)
        with torch.enable_grad():
            (g,) = torch.autograd.grad(head(x).sum(), x)
        return g

    pairs = [(normalize_text(r.source), normalize_text(r.translation)) for r in rows]
    encoded, _ = est._encode(pairs, est.max_length)
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    out: list = [None] * len(rows)
    with torch.no_grad():
        for k in range(0, len(order), 32):
            idx = order[k : k + 32]
            ids, mask = est._batch([encoded[i] for i in idx])[:2]
            h = net.encoder(input_ids=ids, attention_mask=mask).last_hidden_state.float()
            m = mask.unsqueeze(-1).float()
            n = m.sum(1).clamp(min=1)
            pooled = (h * m).sum(1) / n
            shares = [
                (h * gradient(head, pooled)[:, None, :]).sum(-1) / n
                for head in (net.head, net.meaning)
            ]
            for j, i in enumerate(idx):
                e = encoded[i]
                where = [p for p, s in enumerate(e.side) if s == 2]
                spans = e.translation_offsets()
                words = []
                for w in split_words(pairs[i][1]):
                    ps = [p for p, (a, b) in zip(where, spans) if a < w.end and w.start < b]
                    words.append(
                        (w.start, w.end, *(float(s[j, ps].sum()) if ps else 0.0 for s in shares))
                    )
                out[i] = words
    return out


def extra_columns(items: list, unanchored_spans: list, word_pulls: list) -> list[np.ndarray]:
    """Per item, ``[words, 3]``: unanchored, sentence pull (×10), meaning pull."""
    cols = []
    for it, spans, ws in zip(items, unanchored_spans, word_pulls, strict=True):
        x = np.zeros((len(it.words), 3))
        for k, w in enumerate(it.words):
            x[k, 0] = float(any(a < w.end and w.start < b for a, b in spans))
            over = [p for p in ws if p[0] < w.end and w.start < p[1]]
            if over:
                x[k, 1] = 10 * min(p[2] for p in over)
                x[k, 2] = min(p[3] for p in over)
        cols.append(x)
    return cols


def tag(items: list, xs: list[np.ndarray], w: np.ndarray, b: float, t: float) -> list:
    """Gold tokens tagged where consecutive words at or above ``t`` form a span (a counted
    finding's word always in one)."""
    out = []
    for it, x in zip(items, xs, strict=True):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        p = np.where(it.marked, np.maximum(p, t), p)
        spans = [Span(it.words[k].start, it.words[j].end) for k, j in word_runs(p, t)]
        out.append(folds.tokens_hit(it.tokens, spans))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--model-id", default="words73")
    ap.add_argument("--max-alarms", type=float, default=0.10)
    args = ap.parse_args()
    sets = load_sets(args.data_dir)
    rows = {"newstest2021": [r for r in sets["news"] if not r.is_human], "WMT22 dev": sets["qe22"]}
    fold_of = {"newstest2021": "lodo-news", "WMT22 dev": "lodo-qe22"}
    tags = folds.read_tags(args.data_dir / "wmt22-enru-word-dev.tsv")
    items, extra = {}, {}
    for name, rs in rows.items():
        got = folds.read_fold(args.model_id, fold_of[name], rs)
        model = CACHE / args.model_id / fold_of[name] / "full.safetensors"
        if got is None or not model.exists():
            raise SystemExit(f"{args.model_id}/{fold_of[name]}: fold predictions and model needed")
        gold = [tags[r.seg_id] for r in rs] if name == "WMT22 dev" else None
        items[name] = st.items_of(rs, got[1], gold)
        extra[name] = extra_columns(items[name], unanchored(rs), pulls(model, rs))
    variants = {
        "the tagger's features": [],
        "+ unanchored": [0],
        "+ sentence and meaning pull": [1, 2],
        "+ all three": [0, 1, 2],
    }
    lines = [
        f"Fold model `{args.model_id}`; alarm bound {args.max_alarms:.0%}; no shortest-span "
        "rule. MCC over each set's tokens (the tagger fitted and its threshold chosen on the "
        "other set).",
        "",
        "| features | fitted on | threshold | read on | MCC | tokens tagged | alarms | "
        "weights of the new features |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, cols in variants.items():
        for train, test in (("newstest2021", "WMT22 dev"), ("WMT22 dev", "newstest2021")):

            def xs(name: str, cols: list[int] = cols) -> list[np.ndarray]:
                return [
                    np.hstack([it.x, e[:, cols]])
                    for it, e in zip(items[name], extra[name], strict=True)
                ]

            x_train = xs(train)
            y = np.concatenate([np.asarray(it.word_gold, bool) for it in items[train]])
            fit = LogisticRegression(C=1.0, max_iter=3000).fit(np.concatenate(x_train), y)
            w, b = fit.coef_[0], float(fit.intercept_[0])
            best = None
            for t in st.THRESHOLDS:
                p = tag(items[train], x_train, w, b, t)
                a, n = st.alarms(items[train], p)
                if a <= args.max_alarms * n and (best is None or st.mcc(items[train], p) > best[0]):
                    best = (st.mcc(items[train], p), t)
            if best is None:
                raise SystemExit("no threshold keeps the alarms within the bound")
            p = tag(items[test], xs(test), w, b, best[1])
            a, n = st.alarms(items[test], p)
            new = ", ".join(f"{v:+.2f}" for v in w[len(w) - len(cols) :]) if cols else ""
            lines.append(
                f"| {label} | {train} | {best[1]:g} | {test} | **{st.mcc(items[test], p):+.3f}** "
                f"| {sum(map(sum, p))} | {a} of {n} ({a / n:.1%}) | {new} |"
            )
    write_markdown(f"span-features-{args.model_id}", "\n".join(lines), title="Span features")


if __name__ == "__main__":
    main()
