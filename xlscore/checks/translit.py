"""English->Russian practical transliteration of Latin-script names (:func:`transliterate`),
and :func:`name_matches`: whether a Cyrillic word is a case form of one, by an edit distance
over the transliteration options.
"""

from __future__ import annotations

import functools
import heapq
import math
import unicodedata
from collections.abc import Sequence

import regex

from xlscore.checks import name_words as W
from xlscore.text.morph import fold_ru

_TRANSLIT = sorted(W.TRANSLIT, key=lambda r: -len(r[0]))
_VOWELS = frozenset("aeiouy")
_GLIDES = frozenset(("aw", "ew", "ow", "ay", "ey", "oy"))
_Y_VOWEL = {
    "a": ("я", "йа"),
    "e": ("е", "йе", "ье"),
    "i": ("йи", "и"),
    "o": ("йо", "е"),
    "u": ("ю", "йу"),
}


def _plain_latin(name: str) -> str:
    """Lower-case ASCII letters of a Latin-script word (accents dropped)."""
    decomposed = unicodedata.normalize("NFKD", name.lower())
    return "".join(c for c in decomposed if "a" <= c <= "z")


def _y_vowel(word: str, i: int) -> tuple[str, ...] | None:
    """Options of ``y`` and the vowel after it at ``word[i]``, where the ``y`` starts the word
    or follows a vowel; else None."""
    if word[i] == "y" and (i == 0 or word[i - 1] in _VOWELS):
        return _Y_VOWEL.get(word[i + 1 : i + 2])
    return None


def _context_options(word: str, i: int, gr: str, opts: tuple[str, ...]) -> tuple[str, ...]:
    """Options of grapheme ``gr`` at ``word[i]`` adjusted for its neighbours."""
    n = len(word)
    nxt = word[i + len(gr)] if i + len(gr) < n else ""
    last = i + len(gr) == n
    if gr == "c" and nxt in ("e", "i", "y"):
        return ("с", "ц")
    if gr == "g" and nxt in ("e", "i", "y"):
        return ("г", "дж")
    if gr == "e" and i == 0:
        return ("э", "е", "и")
    if gr == "e" and last and n > 3 and word[i - 1] not in _VOWELS:
        return ("", "е", "и")
    if gr == "y" and last:
        return ("и", "й")
    if gr in ("i", "y") and i == 0:
        return ("и", "ай", "й")
    if gr == "j" and i == 0:
        return ("дж", "ж", "й", "х", "ю", "цз")
    if gr in ("ja", "jo", "ju") and i > 0:
        return opts[:2] + opts[2:3]
    if gr == "h" and i > 0 and nxt not in _VOWELS:
        return ("", "х")
    if gr == "mc" and i > 0:
        return ("мк",)
    return opts


@functools.lru_cache(maxsize=50_000)
def _segments(word: str) -> tuple[tuple[str, ...], ...]:
    """Transliteration options of each grapheme of a lower-case Latin word (``j`` -> дж/ж/й,
    ``th`` -> т/с, ``ee`` -> и, ...), the usual option first: the longest grapheme at each
    step, save a glide before a vowel (Sulawesi: a + we, not aw + e)."""
    segs: list[tuple[str, ...]] = []
    graphemes, i = _graphemes(word), 0
    while i < len(word):
        glide = word[i : i + 2] in _GLIDES and word[i + 2 : i + 3] in _VOWELS
        step = next(((n, o) for n, o in graphemes[i] if not (glide and n == 2)), None)
        if step:
            segs.append(step[1])
        i += step[0] if step else 1
    return tuple(segs)


def _spelt(name: str) -> str | None:
    """An acronym spelt out letter by letter in Russian (``BBC`` -> ``бибиси``)."""
    letters = name.replace(".", "")
    if letters.isalpha() and letters.isupper() and 2 <= len(letters) <= 6:
        return "".join(W.LETTER_NAMES.get(c, "") for c in letters.lower()).replace("-", "")
    return None


@functools.lru_cache(maxsize=50_000)
def transliterate(name: str, limit: int = 64) -> tuple[str, ...]:
    """Cyrillic spellings of a Latin-script name by English->Russian practical
    transliteration, most usual first (``Johnson`` -> ``джонсон``, ``Boston`` ->
    ``бостон``), at most ``limit``; an acronym also spelt out (``BBC`` -> ``бибиси``).
    Matching uses the same options without listing them (see :func:`name_matches`)."""
    segs = _segments(_plain_latin(name))
    out: list[str] = []
    if segs:
        heap = [(0, (0,) * len(segs), 0)]
        visited = {heap[0][1]}
        while heap and len(out) < limit:
            cost, choice, first = heapq.heappop(heap)
            cand = "".join(seg[k] for seg, k in zip(segs, choice))
            if cand and cand not in out:
                out.append(cand)
            for p in range(first, len(segs)):
                if choice[p] + 1 < len(segs[p]) and len(visited) < 50 * limit:
                    nxt = (*choice[:p], choice[p] + 1, *choice[p + 1 :])
                    if nxt not in visited:
                        visited.add(nxt)
                        heapq.heappush(heap, (cost + choice[p] + 1, nxt, p))
    spelt = _spelt(name)
    if spelt and spelt not in out:
        out.append(spelt)
    return tuple(out)


@functools.lru_cache(maxsize=50_000)
def _graphemes(word: str) -> tuple[tuple[tuple[int, tuple[str, ...]], ...], ...]:
    """For each position of a lower-case Latin word, the graphemes that start there (length,
    options) -- every segmentation, not only the greedy one (``wiltshire``: ``t`` + ``shire``
    as well as ``ts`` + ``h``...)."""
    out = []
    for i in range(len(word)):
        y_vowel = _y_vowel(word, i)
        here = [(2, y_vowel)] if y_vowel else []
        for gr, opts in _TRANSLIT:
            if word.startswith(gr, i):
                here.append((len(gr), _context_options(word, i, gr, opts)))
        out.append(tuple(here))
    return tuple(out)


def _lattice_costs(latin: str, word: str, cap: int) -> list[list[int]]:
    """``D[p][j]``: edit cost of spelling ``latin[:p]`` as ``word[:j]`` with free
    transliteration options; substitutions, deletions and insertions cost 1, an inserted soft
    or hard sign 0. Costs above ``cap`` are cut."""
    inf = cap + 1
    n, m = len(latin), len(word)
    graphemes = _graphemes(latin)
    table = [[inf] * (m + 1) for _ in range(n + 1)]
    table[0][0] = 0
    for p in range(n + 1):
        row = table[p]
        for j in range(m):
            ins = row[j] + (0 if word[j] in "ьъ" else 1)
            if ins < row[j + 1]:
                row[j + 1] = ins
        if p == n or min(row) > cap:
            continue
        nxt = table[p + 1]
        for j in range(m + 1):
            c = row[j]
            if c > cap:
                continue
            if c + 1 < nxt[j]:
                nxt[j] = c + 1
            if j < m and c + 1 < nxt[j + 1]:
                nxt[j + 1] = c + 1
            for length, opts in graphemes[p]:
                target = table[p + length]
                for o in opts:
                    if word.startswith(o, j) and c < target[j + len(o)]:
                        target[j + len(o)] = c
    return table


def _strip_ending(word: str) -> str:
    """A Russian word without its case ending (a stem of three letters or more kept)."""
    for end in W.RU_ENDINGS:
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


def _first_letters(segs: Sequence[tuple[str, ...]]) -> frozenset[str]:
    """Cyrillic letters a transliteration of the word can start with."""
    out: set[str] = set()
    for seg in segs[:2]:
        out |= {o[0] for o in seg if o}
        if "" not in seg:
            break
    return frozenset(out)


_ADJ_REST = regex.compile(r"(?:[сц]к)?(?:ий|ая|ое|ие|ого|ому|ом|ой|ую|их|им|ими|ых|ым|ыми|ий)?")


@functools.lru_cache(maxsize=500_000)
def name_matches(name: str, word: str) -> bool:
    """Whether a Cyrillic word is a case form of a transliteration of a Latin-script name:
    the first ~75% of the name against the start of the word within an edit distance of a
    quarter of that length (``Merkel`` ~ ``Меркель``, ``Boston`` ~ ``Бостоне``, ``Johnson`` ~
    ``Джонсона``, ``Chicago`` ~ ``Чикаго``)."""
    word = fold_ru(word).replace("-", "").replace("‑", "")
    latin = _plain_latin(name)
    if not latin or not word or len(latin) > 30 or len(word) > 40:
        return False
    spelt = _spelt(name)
    if spelt and word.startswith(spelt):
        return True
    segs = _segments(latin)
    if not segs or word[0] not in _first_letters(segs):
        return False
    primary = "".join(s[0] or "x" for s in segs)
    if len(primary) <= 3 or len(latin) <= 3:
        last = _lattice_costs(latin, word, 0)[len(latin)]
        return any(
            c == 0 and (word[j:] in W.RU_ENDINGS or _ADJ_REST.fullmatch(word[j:]))
            for j, c in enumerate(last)
        )
    shortest = sum(min(len(o) for o in seg) for seg in segs)
    if len(_strip_ending(word)) < 0.75 * max(shortest, 2) - 1:
        return False
    k = math.ceil(0.75 * len(latin))
    allowed = k // 4
    table = _lattice_costs(latin, word, allowed)
    return min(min(row) for row in table[k:]) <= allowed
