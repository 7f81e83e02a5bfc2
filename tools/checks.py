"""How reliable are the rule-based accuracy checks (:mod:`xlscore.checks`)? Each
check's findings against human MQM error annotations.

    python tools/checks.py --data-dir ../shared/data

* WMT21 newstest MQM spans (``wmt21-enru-mqm-newstest2021-spans.tsv``): machine translations
  only, and all rows (with the two human references).
* WMT22 word-level dev (``wmt22-enru-word-dev.tsv``): BAD/OK tags per token.

Per check: findings; *segment precision* (share of flagged segments with at least one rater
error), next to the base rate (share of all segments with an error); *span precision* (share
of findings that point at a translation span overlapping a rater span / BAD token), next to
the share of all words that do; recall-ish figures from the error categories; on WMT22 the
word-level MCC of tagging BAD the tokens a finding points at, alone and in union with the
"every token with a Latin letter" rule. No model is needed. Writes
experiments/results/checks.md and, for each rule whose findings cost nothing in the score, its
false alarms and hits on newstest (all rows) to xlscore/checks/measured.tsv, where each such
finding's ``why_free`` reads them (:mod:`xlscore.checks.measured`).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import time
from collections import Counter
from pathlib import Path

import regex
from _results import write_markdown

from xlscore.checks import CHECKS as ALL_CHECKS
from xlscore.checks import REGISTRY, find_mismatches
from xlscore.checks.measured import COLUMNS, MEASURED_FILE

# the WMT21 MQM categories of this release that concern meaning (accuracy) rather than form;
# ``Lexical Selection`` is this typology's mistranslation category
ACCURACY = (
    "Lexical Selection",
    "Untranslated",
    "Addition",
    "Other POS omitted",
    "Omitted Preposition",
    "Omitted Conjunction",
    "Omitted Pronoun",
    "Omitted Auxiliary Verb",
    "Named Entity",
    "Shouldn't be transliterated",
    "Shouldn't have been translated",
    "Wrong Transliteration",
    "Wrong Unit Conversion",
    "Wrong Date/Time",
    "MT Hallucination",
    "Ambiguous Translation",
    "Overly Literal",
)
NAME_CATEGORIES = (
    "Named Entity",
    "Shouldn't be transliterated",
    "Shouldn't have been translated",
    "Wrong Transliteration",
)
NUMBER_CATEGORIES = ("Wrong Unit Conversion", "Wrong Date/Time")
#: the checks whose findings are counted one by one (the ``degenerate`` share is measured by
#: experiments/degenerate.py)
CHECKS = tuple(c for c in ALL_CHECKS if not REGISTRY[c].pulls)
#: the set whose figures each free finding's reason quotes
MEASURED_SET = "WMT21 newstest MQM"
# each check in all, then its two kinds of finding: something of the source the translation
# lacks (no translation span), and something of the translation the finding points at
GROUPS = [
    g
    for c in CHECKS
    for g in (
        (c, lambda f: True, f"**{c}** (all)"),
        (c, lambda f: f.span is None, f"{c}: source item missing"),
        (c, lambda f: f.span is not None, f"{c}: points at the translation"),
    )
]
_WORD = regex.compile(r"[\p{L}\p{N}]+")
_LATIN = regex.compile(r"\p{Latin}")
_RU_NEG = regex.compile(
    r"(?<![\p{L}])(?:не|нет|ни|без|никто|ничего|никогда|нельзя)(?![\p{L}])", regex.I
)


def read_tsv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Character spans overlap; a zero-length (omission) span counts when it touches."""
    if b[0] == b[1]:
        return a[0] <= b[0] <= a[1]
    if a[0] == a[1]:
        return b[0] <= a[0] <= b[1]
    return max(a[0], b[0]) < min(a[1], b[1])


def pct(num: int, den: int) -> str:
    return f"{num / den:.2f} ({num}/{den})" if den else "-"


def wilson(num: int, den: int) -> str:
    """A share with its 95% Wilson interval (segments treated as independent)."""
    if not den:
        return "-"
    z, p = 1.96, num / den
    mid = (p + z * z / (2 * den)) / (1 + z * z / den)
    half = z * math.sqrt(p * (1 - p) / den + z * z / (4 * den * den)) / (1 + z * z / den)
    return f"{p:.2f} ({num}/{den}; {max(0.0, mid - half):.2f}-{min(1.0, mid + half):.2f})"


def mcc(tp: int, fp: int, fn: int, tn: int) -> float:
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return (tp * tn - fp * fn) / den if den else 0.0


def newstest_rows(rows: list[dict], findings: list[list]) -> tuple[list[str], dict]:
    """Table rows for one newstest selection."""
    spans = [json.loads(r["spans"]) for r in rows]
    n = len(rows)
    err = [bool(s) for s in spans]
    acc = [any(x["category"] in ACCURACY for x in s) for s in spans]
    # what a penalty in the score must be precise about (issue 51): a major or critical one
    grave = [
        any(x["category"] in ACCURACY and x["severity"] in ("major", "critical") for x in s)
        for s in spans
    ]
    # chance level for span precision: the share of words inside a rater span
    words = in_any = in_acc = 0
    for r, s in zip(rows, spans):
        for m in _WORD.finditer(r["translation"]):
            words += 1
            w = (m.start(), m.end())
            in_any += any(overlaps(w, (x["start"], x["end"])) for x in s)
            in_acc += any(
                overlaps(w, (x["start"], x["end"])) for x in s if x["category"] in ACCURACY
            )
    base = {
        "segments": n,
        "error": sum(err),
        "accuracy": sum(acc),
        "grave": sum(grave),
        "words": words,
        "words_err": in_any,
        "words_acc": in_acc,
    }
    lines = []
    for check, part, label in GROUPS:
        f_seg = [[f for f in fs if f.check == check and part(f)] for fs in findings]
        flagged = [i for i, fs in enumerate(f_seg) if fs]
        n_find = sum(len(fs) for fs in f_seg)
        pointed = [(i, f) for i, fs in enumerate(f_seg) for f in fs if f.span is not None]
        hit = sum(
            any(overlaps(f.span, (x["start"], x["end"])) for x in spans[i]) for i, f in pointed
        )
        hit_acc = sum(
            any(
                overlaps(f.span, (x["start"], x["end"]))
                for x in spans[i]
                if x["category"] in ACCURACY
            )
            for i, f in pointed
        )
        sources = len({rows[i]["source"] for i in flagged})
        lines.append(
            f"| {label} | {n_find} | {len(flagged)} ({sources}) | "
            f"{wilson(sum(err[i] for i in flagged), len(flagged))} | "
            f"{wilson(sum(acc[i] for i in flagged), len(flagged))} | "
            f"{wilson(sum(grave[i] for i in flagged), len(flagged))} | "
            f"{pct(hit, len(pointed))} | {pct(hit_acc, len(pointed))} |"
        )
    return lines, base


def recall_rows(rows: list[dict], findings: list[list]) -> list[str]:
    """Share of segments with a name / number / negation error that the check flags."""
    lines = []
    spans = [json.loads(r["spans"]) for r in rows]
    targets = {
        "name": (
            "segments with a " + " / ".join(NAME_CATEGORIES) + " span",
            [any(x["category"] in NAME_CATEGORIES for x in s) for s in spans],
        ),
        "number": (
            "segments with a rater span containing a digit, or a "
            + " / ".join(NUMBER_CATEGORIES)
            + " span",
            [
                any(
                    x["category"] in NUMBER_CATEGORIES or regex.search(r"[0-9]", x["text"])
                    for x in s
                )
                for s in spans
            ],
        ),
        "negation": (
            "segments with a rater span containing a Russian negation word "
            "(не, нет, ни, без, никто, ничего, никогда, нельзя) -- a weak proxy",
            [any(_RU_NEG.search(x["text"]) for x in s) for s in spans],
        ),
    }
    for check in CHECKS:
        label, target = targets[check]
        hit = sum(
            1 for i, t in enumerate(target) if t and any(f.check == check for f in findings[i])
        )
        lines.append(f"| {check} | {label} | {pct(hit, sum(target))} |")
    return lines


def wmt22(rows: list[dict], findings: list[list]) -> tuple[list[str], list[str], dict]:
    """Per-check precision and the word-level MCC rows on the WMT22 word-level dev set."""
    toks = []
    for r in rows:
        offs = [tuple(map(int, o.split(":"))) for o in r["offsets"].split()]
        tags = r["tags"].split()
        assert len(offs) == len(tags), r["seg_id"]
        toks.append(list(zip(offs, [t == "BAD" for t in tags])))
    n = len(rows)
    bad_seg = [any(b for _, b in t) for t in toks]
    n_tok = sum(len(t) for t in toks)
    n_bad = sum(b for t in toks for _, b in t)
    lines = []
    for check, part, label in GROUPS:
        f_seg = [[f for f in fs if f.check == check and part(f)] for fs in findings]
        flagged = [i for i, fs in enumerate(f_seg) if fs]
        pointed = [(i, f) for i, fs in enumerate(f_seg) for f in fs if f.span is not None]
        hit = sum(any(b and overlaps(f.span, o) for o, b in toks[i]) for i, f in pointed)
        lines.append(
            f"| {label} | {sum(len(fs) for fs in f_seg)} | {len(flagged)} | "
            f"{wilson(sum(bad_seg[i] for i in flagged), len(flagged))} | "
            f"{pct(hit, len(pointed))} |"
        )

    def tag_by(rule) -> tuple[float, int, float, float]:
        tp = fp = fn = tn = 0
        for i, r in enumerate(rows):
            for o, b in toks[i]:
                p = rule(i, r, o)
                tp += p and b
                fp += p and not b
                fn += (not p) and b
                tn += (not p) and (not b)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        return mcc(tp, fp, fn, tn), tp + fp, prec, rec

    def pointed_by(checks):
        def rule(i, r, o):
            return any(
                f.span is not None and f.check in checks and overlaps(f.span, o)
                for f in findings[i]
            )

        return rule

    def latin(i, r, o):
        return bool(_LATIN.search(r["translation"][o[0] : o[1]]))

    mcc_lines = []
    for label, rule in (
        [("findings of all checks", pointed_by(CHECKS))]
        + [(f"findings of `{c}`", pointed_by((c,))) for c in CHECKS]
        + [
            ("every token with a Latin letter", latin),
            (
                "Latin-letter rule OR findings of all checks",
                lambda i, r, o: latin(i, r, o) or pointed_by(CHECKS)(i, r, o),
            ),
            (
                "Latin-letter rule OR `number` / `name` findings",
                lambda i, r, o: latin(i, r, o) or pointed_by(("number", "name"))(i, r, o),
            ),
        ]
    ):
        m, k, p, rc = tag_by(rule)
        mcc_lines.append(f"| {label} | {k} | {p:.2f} | {rc:.3f} | {m:.3f} |")
    return (
        lines,
        mcc_lines,
        {"segments": n, "bad": sum(bad_seg), "tokens": n_tok, "bad_tokens": n_bad},
    )


def free_rules(rows: list[dict], findings: list[list]) -> list[dict[str, str]]:
    """For each rule whose findings cost nothing (:meth:`xlscore.checks.Check.costs`), in
    check order (those that fire on ``rows``): the error-free rows and how many of them it
    flags (false alarms), the rows with a rater error and how many of them it flags (hits)."""
    err = [bool(json.loads(r["spans"])) for r in rows]
    flagged: dict[tuple[str, str], set[int]] = {}
    for i, fs in enumerate(findings):
        for f in fs:
            if not f.counts and f.check in CHECKS:
                flagged.setdefault((f.check, REGISTRY[f.check].rule(f)), set()).add(i)
    out = []
    for (check, rule), at in sorted(flagged.items(), key=lambda x: CHECKS.index(x[0][0])):
        out.append(
            {
                "check": check,
                "rule": rule,
                "set": MEASURED_SET,
                "error_free": str(err.count(False)),
                "false_alarms": str(sum(not err[i] for i in at)),
                "with_error": str(err.count(True)),
                "hits": str(sum(err[i] for i in at)),
            }
        )
    return out


def write_measured(lines: list[dict[str, str]], command: str) -> None:
    """:data:`MEASURED_FILE`: one line per free rule (:data:`COLUMNS`)."""
    text = [f"# Made by `{command}`: why findings that cost nothing cost nothing."]
    text.append("\t".join(COLUMNS))
    text += ["\t".join(x[c] for c in COLUMNS) for x in lines]
    MEASURED_FILE.write_text("\n".join(text) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data-dir",
        type=Path,
        default=Path("../shared/data"),
        help="the shared data folder (read only)",
    )
    args = ap.parse_args()
    t0 = time.perf_counter()
    news = read_tsv(args.data_dir / "wmt21-enru-mqm-newstest2021-spans.tsv")
    word = read_tsv(args.data_dir / "wmt22-enru-word-dev.tsv")
    news_f = [find_mismatches(r["source"], r["translation"]) for r in news]
    word_f = [find_mismatches(r["source"], r["translation"]) for r in word]
    seconds = time.perf_counter() - t0
    n_pairs = len(news) + len(word)

    cats = Counter(x["category"] for r in news for x in json.loads(r["spans"]))
    body = [
        "Rule-based checks of `xlscore.checks` (number, name, negation) against the "
        "raters' error annotations. No model; "
        f"{n_pairs} sentence pairs checked in {seconds:.0f} s ({1000 * seconds / n_pairs:.1f} "
        "ms a pair, 2-core machine).",
        "",
        "*Segment precision*: share of flagged segments in which the rater marked at least one "
        "error (any category, or an accuracy-like one), to be compared with the base rate, the "
        "share of all segments with such an error. *Span precision*: of the findings that point "
        "at a span of the translation (a number or name the source lacks, a negated verb), the "
        "share whose span overlaps a rater's error span; its chance level is the share of all "
        "words inside an error span. Findings about something the translation *lacks* (a source "
        "number or name, a source negation) point at nothing and count only at segment level. "
        "Segment precisions carry a 95% Wilson interval that treats segments as independent; on "
        "newstest the 14 machine translations of one source are not (a flagged source name is "
        "usually flagged in most of them), so the distinct sources are given too and the real "
        "uncertainty is wider.",
        "",
        "How the rules were made: the tables and rules of `xlscore.checks` were "
        "refined by reading the findings on both of these sets (mostly WMT22 dev, and the most "
        "frequent findings on newstest), without fitting any threshold to the rater labels. "
        "The figures are therefore in-sample and somewhat optimistic for precision; no held-out "
        "MQM set with error spans was available.",
        "",
        "Accuracy-like categories counted (this release has no `Accuracy/` prefix; these are "
        "the categories about meaning): " + ", ".join(f"`{c}`" for c in ACCURACY) + ". The "
        "others present are about form: "
        + ", ".join(f"`{c}`" for c in sorted(cats) if c not in ACCURACY)
        + ".",
        "",
    ]
    for label, sel in [
        (
            "WMT21 newstest, machine translations (is_human_translation = 0)",
            [i for i, r in enumerate(news) if r["is_human_translation"] == "0"],
        ),
        ("WMT21 newstest, all rows (machine + the two human references)", list(range(len(news)))),
    ]:
        rows = [news[i] for i in sel]
        fs = [news_f[i] for i in sel]
        lines, base = newstest_rows(rows, fs)
        body += [
            f"## {label}",
            "",
            f"{base['segments']} segments; base rate: any error "
            f"{pct(base['error'], base['segments'])}, accuracy-like error "
            f"{pct(base['accuracy'], base['segments'])}, major or critical accuracy-like error "
            f"{pct(base['grave'], base['segments'])}. Chance span precision (share of "
            f"words inside a span): any {base['words_err'] / base['words']:.3f}, "
            f"accuracy-like {base['words_acc'] / base['words']:.3f}.",
            "",
            "| check | findings | flagged segments (distinct sources) | segment precision "
            "(any error) | "
            "segment precision (accuracy-like) | segment precision (major or critical "
            "accuracy-like) | span precision (any) | span precision (accuracy-like) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
            *lines,
            "",
            "Recall-ish (share of the segments with such an error that the check flags):",
            "",
            "| check | segments with an error of its kind | flagged |",
            "| --- | --- | --- |",
            *recall_rows(rows, fs),
            "",
        ]
    free = free_rules(news, news_f)
    write_measured(free, "python tools/checks.py --data-dir ../shared/data")
    body += [
        "## Findings that cost nothing, and why",
        "",
        "A finding of these rules is reported (text, JSON, the report) but takes nothing off "
        "the score; each carries these figures as its `why_free` "
        "(`xlscore/checks/measured.tsv`, written by this script). WMT21 newstest, all "
        f"{len(news)} rows (14 engines and two human references): a *false alarm* is a "
        "translation the rule flags in which the rater marked no error, a *hit* one flagged "
        "with at least one error (any category).",
        "",
        "| check | rule | false alarms (of the error-free translations) | hits (of those with an "
        "error) |",
        "| --- | --- | --- | --- |",
        *(
            f"| {x['check']} | {x['rule']} | {x['false_alarms']} of {x['error_free']} | "
            f"{x['hits']} of {x['with_error']} |"
            for x in free
        ),
        "",
    ]
    lines, mcc_lines, base = wmt22(word, word_f)
    body += [
        "## WMT22 word-level dev (BAD/OK tags)",
        "",
        f"{base['segments']} segments; base rate: segments with a BAD token "
        f"{pct(base['bad'], base['segments'])}; BAD tokens "
        f"{pct(base['bad_tokens'], base['tokens'])} (the chance span precision).",
        "",
        "| check | findings | flagged segments | segment precision | span precision |",
        "| --- | --- | --- | --- | --- |",
        *lines,
        "",
        "Word-level MCC over all tokens of the set (a token is tagged BAD when a finding's "
        "span overlaps it):",
        "",
        "| tagging rule | tokens tagged BAD | precision | recall | MCC |",
        "| --- | --- | --- | --- | --- |",
        *mcc_lines,
        "",
    ]
    write_markdown(
        "checks", "\n".join(body), title="Rule-based accuracy checks against MQM annotations"
    )


if __name__ == "__main__":
    main()
