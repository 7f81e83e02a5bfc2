"""Anchor pairs: words of the English source and the Russian translation that translate each
other.

A Russian word and an English word form an anchor when the English word (or its lemma) is
among the Russian word's translations. Numbers, and Latin-script names and acronyms that
appear unchanged on both sides, are anchors too. Matching is one-to-one: a maximum matching
that prefers earlier English words, so that repeated words pair up in order (the k-th with the
k-th).

Copying English into the translation earns nothing: a translatable English word on the Russian
side (one of the English word list, not a name or an acronym) never anchors, and the share
of such *foreign* words is reported so that the scorer can penalise it; a translation that is
mostly foreign is flagged ``untranslated`` (it copies the source) or ``wrong_language``. A
word is foreign when it is in another script or has Cyrillic letters that Russian does not
(Ukrainian ``і``, ``ї``, ``є``, ``ґ``, Belarusian ``ў``, Serbian ``ј``...). A translation in
another Cyrillic language is flagged ``wrong_language`` even when most of its words are spelt
with Russian letters (:mod:`xlscore.text.cyrillic_languages`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from xlscore.text.cyrillic_languages import other_cyrillic
from xlscore.text.scripts import (
    WORD_CACHE,
    has_letter,
    is_cyrillic,
    is_latin,
    is_number,
    is_russian_script,
)

FOREIGN_FLAG_SHARE = 0.5


@dataclass(frozen=True)
class AnchorSet:
    """Anchors of one (source, translation) pair.

    ``pairs`` holds ``(english_index, russian_index)`` word positions, in English order;
    ``identical`` marks those that are the same token on both sides. ``foreign`` is the share of
    the translation's letter-words that are not Russian (names and acronyms excepted), and
    ``foreign_at`` their positions.
    """

    pairs: tuple[tuple[int, int], ...]
    identical: tuple[bool, ...]
    foreign: float
    flags: tuple[str, ...]
    foreign_at: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.pairs)

    @property
    def en(self) -> list[int]:
        """English word positions of the anchors."""
        return [e for e, _ in self.pairs]

    @property
    def ru(self) -> list[int]:
        """Russian word positions of the anchors."""
        return [r for _, r in self.pairs]


def name_like(
    word: str, sentence_initial: bool, headwords: frozenset[str] | set[str] | None = None
) -> bool:
    """A token that is rightly kept as it is in a translation: one with digits, an acronym, a
    word with a capital letter inside a sentence or inside the word (``iPhone``), or, when
    ``headwords`` (English words) is given, a word not among them."""
    if any(c.isdigit() for c in word) or (len(word) > 1 and word.isupper()):
        return True
    if (word[:1].isupper() and not sentence_initial) or any(c.isupper() for c in word[1:]):
        return True
    return headwords is not None and word.lower() not in headwords


#: word pairs (Russian words x English words) above which a pair counts as very long: each
#: Russian word then keeps only its :data:`NEAR_CANDIDATES` nearest candidates (a sentence,
#: even a long one, is far below: 500 words on each side)
LONG_PAIR_CELLS = 250_000
NEAR_CANDIDATES = 8


def _nearest(cands: set[int], where: float, n_en: int) -> list[int]:
    """The :data:`NEAR_CANDIDATES` candidates nearest to relative position ``where`` (ties
    to the earlier)."""
    return sorted(cands, key=lambda j: (abs(j / n_en - where), j))[:NEAR_CANDIDATES]


def _max_matching(edges: list[list[int]], n_right: int) -> list[int]:
    """Maximum bipartite matching (augmenting paths, searched depth-first without recursion)
    of left nodes to right nodes; each left node tries its candidates in the given order.
    Returns the right node of each left node, or -1."""
    match_right = [-1] * n_right
    match_left = [-1] * len(edges)
    for root in range(len(edges)):
        if not edges[root]:
            continue
        seen = [False] * n_right
        stack = [(root, iter(edges[root]))]
        path: list[tuple[int, int]] = []  # (left, right) chosen on the way down
        while stack:
            left, candidates = stack[-1]
            for v in candidates:
                if seen[v]:
                    continue
                seen[v] = True
                path.append((left, v))
                if match_right[v] == -1:  # a free right node: flip the path
                    for lft, rgt in path:
                        match_right[rgt], match_left[lft] = lft, rgt
                    stack = []
                else:
                    stack.append((match_right[v], iter(edges[match_right[v]])))
                break
            else:  # no candidate left: back up
                stack.pop()
                if path:
                    path.pop()
    return match_left


class SourceSide(NamedTuple):
    """What the anchors need of an English source, the same for every translation of it
    (:func:`source_side`): the positions of each word key, the numbers and names kept as they
    are, the case-folded words and the positions of each."""

    positions: dict[str, list[int]]
    kept: set[str]
    folded: list[str]
    at_folded: dict[str, list[int]]


def source_side(en_words: Sequence[str], en_keys: Callable[[str], frozenset[str]]) -> SourceSide:
    """The source's part of :func:`find_anchors`, made once for all its translations."""
    positions: dict[str, list[int]] = {}
    for j, w in enumerate(en_words):
        if has_letter(w):
            for k in en_keys(w):
                positions.setdefault(k, []).append(j)
    en_initial = _sentence_initial(en_words)
    en_kept = {
        w.casefold()
        for j, w in enumerate(en_words)
        if is_number(w) or (is_latin(w) and name_like(w, en_initial[j]))
    }
    en_folded = [e.casefold() for e in en_words]
    at_folded: dict[str, list[int]] = {}
    for j, e in enumerate(en_folded):
        at_folded.setdefault(e, []).append(j)
    return SourceSide(positions, en_kept, en_folded, at_folded)


def find_anchors(
    en_words: Sequence[str],
    ru_words: Sequence[str],
    translations: Callable[[str], frozenset[str]],
    en_keys: Callable[[str], frozenset[str]],
    headwords: frozenset[str] | set[str],
    source: SourceSide | None = None,
    memo: dict[str, list[int]] | None = None,
) -> AnchorSet:
    """Anchor pairs between an English source and a Russian translation (word lists).

    ``translations(ru_word)`` gives the English keys a Russian word translates to;
    ``en_keys(en_word)`` the keys of an English word form (itself and its lemmas);
    ``headwords`` English words, to tell names from words (the scorer passes
    :meth:`xlscore.lexicon.dictionary.Lexicon.known_words`, the same with any lexicon);
    ``source``: :func:`source_side` of ``en_words`` when the caller made it already (once per
    source for all its translations); ``memo``: a dictionary kept for the source, where each
    Russian word's candidate English positions are remembered for its other translations
    (only when ``translations`` is the same for all of them).
    """
    positions, en_kept, en_folded, at_folded = source or source_side(en_words, en_keys)
    # a very long pair (a document on one line): each word's candidates are the nearest few
    # by relative position, so that memory and time grow with the text, not its square
    near = len(ru_words) * len(en_words) > LONG_PAIR_CELLS
    kinds = [_script(w) for w in ru_words]
    n_letter_words = sum(1 for k in kinds if k & _IS_LETTERS)
    mostly_russian = sum(1 for k in kinds if k & _IS_RUSSIAN) * 2 >= n_letter_words

    edges: list[list[int]] = []
    same: list[set[int]] = []
    foreign_at: list[int] = []
    copied = 0
    for i, (w, kind) in enumerate(zip(ru_words, kinds)):
        cands: set[int] = set()
        if kind & _IS_RUSSIAN:
            known = memo.get(w) if memo is not None else None
            if known is None:
                for t in translations(w):
                    cands.update(positions.get(t, ()))
                known = sorted(cands)
                if memo is not None:
                    memo[w] = known
            if near and len(known) > NEAR_CANDIDATES:
                known = sorted(_nearest(set(known), i / len(ru_words), len(en_words)))
            edges.append(known)
            same.append(set())  # a Russian word is never the same token as an English one
            continue
        if kind & (_IS_NUMBER | _IS_LATIN):
            # inside a Russian sentence a capitalised or unknown Latin word is a name, kept as
            # it is; in a sentence that is mostly not Russian only the source's names (by
            # their spelling) and numbers count
            folded = w.casefold()
            latin = bool(kind & _IS_LATIN)
            kept = folded in en_kept or (
                latin and mostly_russian and name_like(w, False, headwords)
            )
            if kept:
                cands = set(at_folded.get(folded, ()))
            elif latin:
                foreign_at.append(i)
                copied += folded in en_folded
        elif kind & _IS_LETTERS:
            foreign_at.append(i)  # another script, or another language's Cyrillic letters
        if near and len(cands) > NEAR_CANDIDATES:
            cands = set(_nearest(cands, i / len(ru_words), len(en_words)))
        edges.append(sorted(cands))
        same.append(cands if not kind & _IS_CYRILLIC else set())

    matched = _max_matching(edges, len(en_words))
    pairs = _in_order([(e, r) for r, e in enumerate(matched) if e >= 0], en_words, ru_words)
    foreign = len(foreign_at)
    share = foreign / n_letter_words if n_letter_words else 0.0
    flags: tuple[str, ...] = ()
    if share >= FOREIGN_FLAG_SHARE:
        flags = ("untranslated",) if copied >= foreign / 2 else ("wrong_language",)
    elif other_cyrillic(ru_words, _sentence_initial):
        flags = ("wrong_language",)  # Ukrainian, Bulgarian...: partly Russian letters
    return AnchorSet(
        tuple(pairs), tuple(e in same[r] for e, r in pairs), share, flags, tuple(foreign_at)
    )


# what :func:`find_anchors` asks of a word, as bits of :func:`_script`
_IS_LETTERS, _IS_RUSSIAN, _IS_NUMBER, _IS_LATIN, _IS_CYRILLIC = 1, 2, 4, 8, 16


@lru_cache(maxsize=WORD_CACHE)
def _script(word: str) -> int:
    """A word's script tests at once (:func:`has_letter`, :func:`is_russian_script`,
    :func:`is_number`, :func:`is_latin`, :func:`is_cyrillic`) as bits."""
    return (
        has_letter(word) * _IS_LETTERS
        | is_russian_script(word) * _IS_RUSSIAN
        | is_number(word) * _IS_NUMBER
        | is_latin(word) * _IS_LATIN
        | is_cyrillic(word) * _IS_CYRILLIC
    )


def _sentence_initial(words: Sequence[str]) -> list[bool]:
    """Whether each word starts a sentence (the first letter-word, or one after . ! ? …)."""
    out, start = [], True
    for w in words:
        out.append(start)
        if has_letter(w) or is_number(w):
            start = False
        elif w in ".!?…":
            start = True
    return out


def _in_order(
    pairs: list[tuple[int, int]], en_words: Sequence[str], ru_words: Sequence[str]
) -> list[tuple[int, int]]:
    """Re-pair repeated words in order: among anchors whose Russian words are the same word and
    whose English words are the same word, the k-th Russian occurrence gets the k-th English."""
    groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for e, r in pairs:
        groups.setdefault((ru_words[r].casefold(), en_words[e].casefold()), []).append((e, r))
    if len(groups) == len(pairs):  # no word pair repeated: nothing to re-pair
        return sorted(pairs)
    out = []
    for members in groups.values():
        es = sorted(e for e, _ in members)
        rs = sorted(r for _, r in members)
        out += list(zip(es, rs))
    return sorted(out)
