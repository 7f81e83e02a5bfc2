"""Kinds that keep the words but not the translation: ``untranslated`` (a run of the English
source's words copied into the translation) and ``scramble`` (the word order shuffled).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from xlscore.training.corruptions.base import Corruption, _kind, _make
from xlscore.training.corruptions.morphology import _proper
from xlscore.training.corruptions.tokens import (
    Tok,
    _cyr,
    _sentence_start,
    _tight,
    _tokens,
    latin_words,
)

# untranslated ---------------------------------------------------------------------------


def _tight_runs(
    text: str, toks: Sequence[Tok], keep: Callable[[Tok], bool], shortest: int
) -> list[list[int]]:
    """Runs of at least ``shortest`` consecutive tokens that ``keep`` accepts, each joined to
    the previous one by nothing but a space (:func:`_tight`): lists of token indices."""
    runs: list[list[int]] = []
    for i, t in enumerate(toks):
        if not keep(t):
            continue
        if runs and runs[-1][-1] == i - 1 and _tight(text, toks[i - 1], t):
            runs[-1].append(i)
        else:
            runs.append([i])
    return [r for r in runs if len(r) >= shortest]


_EN_FUNCTION = {
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "it",
    "he",
    "she",
    "we",
    "they",
    "there",
    "here",
    "in",
    "on",
    "at",
    "for",
    "from",
    "to",
    "by",
    "with",
    "of",
    "as",
    "after",
    "before",
    "during",
    "more",
    "most",
    "some",
    "many",
    "all",
    "no",
    "not",
    "but",
    "and",
    "or",
    "if",
    "when",
    "while",
    "because",
    "its",
    "his",
    "her",
    "their",
    "our",
}


@_kind
def untranslated(
    source: str, text: str, rng: random.Random, pool: Sequence[str]
) -> Corruption | None:
    """Replace a run of two to six Russian words by a run of the English source's words
    of about the same length (a fragment left untranslated)."""
    en = latin_words(source)
    if len(en) < 2:
        return None
    toks = _tokens(text)
    runs = _tight_runs(text, toks, lambda t: not t.num and _cyr(t.text), 2)
    if not runs:
        return None
    run = rng.choice(runs)
    n = rng.randint(2, min(6, len(run)))
    k = rng.randrange(0, len(run) - n + 1)
    first, last = toks[run[k]], toks[run[k + n - 1]]
    m = max(2, min(len(en), n + rng.choice([-1, 0, 0, 1])))
    rel = run[k] / max(1, len(toks))
    s = round(rel * len(en)) + rng.randint(-2, 2)
    s = max(0, min(len(en) - m, s))
    words = [w.text for w in en[s : s + m]]
    if words[0].lower() in _EN_FUNCTION:
        words[0] = words[0].lower()
    if _sentence_start(text, first.start):
        words[0] = words[0][:1].upper() + words[0][1:]
    return _make("untranslated", text, [(first.start, last.end, " ".join(words))])


# scramble -------------------------------------------------------------------------------


@_kind
def scramble(source: str, text: str, rng: random.Random, pool: Sequence[str]) -> Corruption | None:
    """Shuffle a run of three to six words (a word-order error)."""
    toks = _tokens(text)
    runs = _tight_runs(text, toks, lambda t: True, 3)
    if not runs:
        return None
    run = rng.choice(runs)
    n = rng.randint(3, min(6, len(run)))
    k = rng.randrange(0, len(run) - n + 1)
    idx = run[k : k + n]
    words = [toks[i].text for i in idx]
    at_start = _sentence_start(text, toks[idx[0]].start)
    if at_start and words[0][:1].isupper() and not words[0].isupper() and not _proper(words[0]):
        words[0] = words[0][:1].lower() + words[0][1:]
    order = list(range(n))
    for _ in range(10):
        rng.shuffle(order)
        if [words[j] for j in order] != words:
            break
    else:
        return None
    new = [words[j] for j in order]
    if at_start:
        new[0] = new[0][:1].upper() + new[0][1:]
    a, b = toks[idx[0]].start, toks[idx[-1]].end
    pieces = [new[0]]
    for m in range(1, n):
        pieces.append(text[toks[idx[m - 1]].end : toks[idx[m]].start])
        pieces.append(new[m])
    return _make("scramble", text, [(a, b, "".join(pieces))])
