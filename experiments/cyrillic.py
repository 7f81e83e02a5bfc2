"""Does the other-Cyrillic-language rule (:mod:`xlscore.text.cyrillic_languages`) flag real
Russian? It must not: a Russian translation flagged ``wrong_language`` is ranked last.

    python experiments/cyrillic.py --data-dir ../shared/data

Reads every Russian text of the judged sets: the translations of WMT21 newstest MQM (14
engines and the two human references) and its reference column, the WMT21 newstest DA
translations, the WMT22 en-ru dev translations, and the Russian sources of MLQE-PE's ru-en
pair (``multilingual/da.tsv.gz``; Wikipedia and Reddit text, names and quotations of other
languages included). Per set: distinct texts, those with a word that marks another language
(:func:`~xlscore.text.cyrillic_languages.marks_other`), and those the rule flags, each
flagged text listed; then how often each word of
:data:`~xlscore.text.cyrillic_languages.MARKER_WORDS` occurs in lower case. Writes
``experiments/results/cyrillic.md``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
from collections import Counter
from pathlib import Path

import _tools  # noqa: F401  (tools/ on the import path)
from _results import write_markdown

from xlscore.lexicon.anchor_pairs import _sentence_initial
from xlscore.text.cyrillic_languages import (
    MARKED_SHARE,
    MARKER_WORDS,
    MIN_MARKED,
    marks_other,
    other_cyrillic,
)
from xlscore.text.words import normalize_text, split_words


def _rows(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def russian_texts(data_dir: Path) -> dict[str, list[str]]:
    """Each set's distinct Russian texts, in file order."""
    news = _rows(data_dir / "wmt21-enru-mqm-newstest2021.tsv")
    da = _rows(data_dir / "wmt21-enru-da-newstest2021.tsv")
    qe = _rows(data_dir / "wmt22-enru-mqm-dev.tsv")
    mlqe = _rows(data_dir / "multilingual" / "da.tsv.gz")
    sets = {
        "WMT21 newstest MQM, machine translations": [
            r["translation"] for r in news if r["is_human_translation"] == "0"
        ],
        "WMT21 newstest MQM, human translations": [
            r["translation"] for r in news if r["is_human_translation"] == "1"
        ],
        "WMT21 newstest MQM, reference column": [r["reference"] for r in news],
        "WMT21 newstest DA, all translations": [r["translation"] for r in da],
        "WMT22 en-ru dev": [r["translation"] for r in qe],
        "MLQE-PE ru-en, Russian sources": [r["source"] for r in mlqe if r["lp"] == "ru-en"],
    }
    return {k: list(dict.fromkeys(v)) for k, v in sets.items()}


def words(text: str) -> list[str]:
    """The words of a text as the anchors see them (punctuation its own token)."""
    return [w.text for w in split_words(normalize_text(text))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="the shared data folder")
    args = ap.parse_args()
    sets = russian_texts(args.data_dir)
    table, listed, markers = [], [], Counter()
    for label, texts in sets.items():
        marked = flagged = 0
        for t in texts:
            ws = words(t)
            initial = _sentence_initial(ws)
            marked += any(marks_other(w, i) for w, i in zip(ws, initial))
            markers.update(w.casefold() for w in ws if w.casefold() in MARKER_WORDS and w.islower())
            if other_cyrillic(ws, _sentence_initial):
                flagged += 1
                listed.append(f"* {label}: {t}")
        table.append(f"| {label} | {len(texts)} | {marked} | {flagged} |")
    body = [
        "Russian texts of the judged sets read by the other-Cyrillic-language rule "
        "(`xlscore.text.cyrillic_languages`): a text is flagged `wrong_language` when at "
        f"least {MIN_MARKED} of its Cyrillic words, and {MARKED_SHARE:.0%} of them, mark another "
        "language (a letter "
        "Russian does not use, one of the marker words, a Bulgarian `ъ`; capitalised words "
        "inside a sentence are names and mark nothing). Distinct texts per set.",
        "",
        "| set | texts | with a marking word | flagged |",
        "| --- | --- | --- | --- |",
        *table,
        "",
        "Flagged texts:" if listed else "No text is flagged.",
        "",
        *listed,
        "",
        "Marker words found in lower case in these texts (each should be rare in Russian): "
        + (", ".join(f"`{w}` {n}" for w, n in markers.most_common()) or "none")
        + ".",
        "",
    ]
    write_markdown("cyrillic", "\n".join(body), title="Other Cyrillic languages in Russian text")


if __name__ == "__main__":
    main()
