"""A visual report comparing engines: one self-contained HTML file (``xlscore report``).

The page holds everything it shows: the ranking and the pairwise significance matrix (from
:mod:`xlscore.evaluation.compare`), each engine's segment scores and its mean score by source
length as inline SVG (:mod:`xlscore.report.charts`), and the per-segment data as a JSON block
that a small script (shipped in ``xlscore/report/templates/report.js``) turns into a sortable,
filterable, paginated table (whole translations with the checks' findings) and a segment view
with the terms that add up to each score, word-level evidence and the estimator's predicted
error spans (marked on the translations as given, which the page shows: every offset of a
result points into them).
Nothing is fetched at view time: a Content-Security-Policy meta tag forbids every remote load
and allows only the page's own script (by its SHA-256).

Safety: every text from the inputs reaches the page either through Jinja2's autoescaping or
inside the JSON block (with ``<``, ``>``, ``&`` and the line separators escaped, so no text
can close the block), and the script writes texts into the page with ``textContent`` only.
Plots never contain input text (engines are numbered in them and named in an escaped legend).
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from xlscore._version import __version__
from xlscore.errors import InputError
from xlscore.evaluation.compare import EngineComparison, compare_engines
from xlscore.finding import Finding
from xlscore.io.cache import atomic_write_bytes
from xlscore.io.inputs import json_lines
from xlscore.report.charts import colour, page_plots
from xlscore.results import ScoreResult
from xlscore.text.words import move_span, normalize_text, offset_map, split_words

TEMPLATES = Path(__file__).resolve().parent / "templates"


class Words(NamedTuple):
    """The words of a text as given: ``spans`` as ``[start, end]`` and their ``texts`` (the
    one segmentation the scorer used, that of the normalised text, moved onto the text as
    given as the result's offsets are: they fall on these boundaries)."""

    spans: list[list[int]]
    texts: list[str]


def _words(text: str) -> Words:
    seen = normalize_text(text)
    found = split_words(seen)
    where = offset_map(seen, text) if seen != text else None
    spans = [list(move_span(where, w.start, w.end)) if where else [w.start, w.end] for w in found]
    return Words(spans, [w.text for w in found])


def _at(words: list[list[int]], spans: Sequence[Sequence[int]]) -> list[int]:
    """The indices of the words that the character ``spans`` cover (sorted, unique)."""
    hit = {i for a, b in spans for i, (s, e) in enumerate(words) if s < b and a < e}
    return sorted(hit)


def _by_text(words: list[str], items: Sequence[str]) -> list[int]:
    """Word indices of ``items`` matched by text, the first unused occurrence of each: for
    results written before results carried offsets."""
    used: set[int] = set()
    for item in items:
        k = next((k for k, w in enumerate(words) if w == item and k not in used), None)
        if k is not None:
            used.add(k)
    return sorted(used)


def _marks(words: Words, found: Sequence[str], spans) -> list[int]:
    """Word indices of an evidence list: by its offsets, or by text when it has none."""
    return _at(words.spans, spans) if spans or not found else _by_text(words.texts, found)


def _anchor_indices(src: Words, mt: Words, r: ScoreResult) -> list[int]:
    """Anchor word pairs as flat ``[i, j, ...]`` word indices, from their offsets (by text,
    first unused occurrence, for a result written before results carried offsets)."""
    if r.anchors and not r.anchors_at:
        used_s: set[int] = set()
        used_t: set[int] = set()
        flat: list[int] = []
        for en, ru in r.anchors:
            i = next((k for k, w in enumerate(src.texts) if w == en and k not in used_s), None)
            j = next((k for k, w in enumerate(mt.texts) if w == ru and k not in used_t), None)
            if i is not None and j is not None:
                used_s.add(i)
                used_t.add(j)
                flat += [i, j]
        return flat
    start_s = {a: i for i, (a, _) in enumerate(src.spans)}
    start_t = {a: i for i, (a, _) in enumerate(mt.spans)}
    flat = []
    for a, _, b, _ in r.anchors_at:
        if a in start_s and b in start_t:
            flat += [start_s[a], start_t[b]]
    return flat


def _r(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


def _shown_spans(given: str, spans) -> list:
    """Predicted error spans (offsets into ``given``, the translation as the caller gave it
    and as the page shows it) as ``[[start, end, severity, probability], ...]``, sorted,
    without overlaps. A span that does not match ``given`` (offsets out of range, other text)
    or shows nothing (only characters normalisation removes) is left out; a severity other
    than ``major`` counts as ``minor``."""
    out: list = []
    for sp in sorted(spans, key=lambda x: (int(x.start), int(x.end))):
        a, b = int(sp.start), int(sp.end)
        if not 0 <= a < b <= len(given) or given[a:b] != sp.text or not normalize_text(sp.text):
            continue
        if out and a < out[-1][1]:
            a = out[-1][1]
        if a >= b:
            continue
        p = float(sp.probability)
        p = min(1.0, max(0.0, p)) if math.isfinite(p) else 0.0
        out.append([a, b, "major" if sp.severity == "major" else "minor", round(p, 4)])
    return out


def _finding(f: Finding) -> list:
    """A check's finding as the page shows it: ``[check, message, whether it costs points,
    why it costs nothing ("" when it costs points or no reason is known)]``."""
    return [f.check, f.message, bool(f.counts), f.why_free]


def _rest(r: ScoreResult) -> float | None:
    """What moved ``score`` away from its estimate (or the paper's F1 without an estimator)
    besides the checks and the consensus: the foreign-text pull (or the similarity term of an
    estimator that blends it in), and the floor; ``None`` when there is no estimate or F1."""
    start = r.estimate if r.estimate is not None else r.f1
    if start is None:
        return None
    return r.score - (r.consensus_shift or 0.0) + (r.check_cost or 0.0) - start


def _segment_data(
    sources: Sequence[str],
    translations: Mapping[str, Sequence[str]],
    results: Sequence[Mapping[str, ScoreResult]],
    names: list[str],
) -> list:
    """Compact per-segment rows: ``[source, [pair per engine], source word spans]``, a pair
    being ``[text, score, estimate, f1, precision, recall, foreign share, flags, anchors,
    unmatched source words, foreign words, numbers missing, numbers added, predicted error
    spans, adequacy, similarity, word spans, whether a number is on one side only, the
    checks' findings (:func:`_finding`), check cost, consensus shift, consensus, the rest of
    the score's terms (:func:`_rest`)]``. The
    texts are as given (every offset of a result points into them); anchors are flat
    ``[source word, translation word, ...]`` indices and the evidence lists word indices,
    all read off the result's offsets (no word is matched by its text); the error spans
    (:func:`_shown_spans`) point into the text."""
    rows = []
    for k, (src, by) in enumerate(zip(sources, results)):
        src_words = _words(src)
        pairs = []
        for n in names:
            r, text = by[n], translations[n][k]
            ev, mt_words = r.evidence, _words(text)
            pairs.append(
                [
                    text,
                    _r(r.score),
                    _r(r.estimate),
                    _r(r.f1),
                    _r(r.precision),
                    _r(r.recall),
                    _r(r.foreign),
                    list(r.flags),
                    _anchor_indices(src_words, mt_words, r),
                    _marks(src_words, ev.unmatched_source, ev.unmatched_source_at),
                    _marks(mt_words, ev.foreign_words, ev.foreign_words_at),
                    _marks(src_words, ev.numbers_missing, ev.numbers_missing_at),
                    _marks(mt_words, ev.numbers_added, ev.numbers_added_at),
                    _shown_spans(text, r.error_spans),
                    _r(r.adequacy),
                    _r(r.similarity),
                    mt_words.spans,
                    bool(ev.numbers_missing or ev.numbers_added),
                    [_finding(f) for f in r.findings],
                    _r(r.check_cost),
                    _r(r.consensus_shift),
                    _r(r.consensus),
                    _r(_rest(r)),
                ]
            )
        rows.append([src, pairs, src_words.spans])
    return rows


def _json_block(data) -> str:
    """JSON that cannot end the ``<script type="application/json">`` block it sits in."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (
        ("&", "\\u0026"),
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(ch, esc)
    return text


def build_report(
    sources: Sequence[str],
    translations: Mapping[str, Sequence[str]],
    results: Sequence[Mapping[str, ScoreResult]],
    *,
    signature: str,
    command: str | None = None,
    comparison: EngineComparison | None = None,
    n_boot: int = 1000,
    title: str = "xlscore report",
    created: _dt.datetime | None = None,
) -> str:
    """The report page as a string. ``translations``: ``{engine: [text per segment]}`` in
    display order; ``results[i]``: ``{engine: ScoreResult}`` of segment ``i``."""
    names = list(translations)
    if len(names) < 2:
        raise InputError("a report compares at least two engines")
    if len(results) != len(sources) or any(len(v) != len(sources) for v in translations.values()):
        raise InputError(f"{len(sources)} sources but results or translations of another length")
    if not sources:
        raise InputError("no segments to report")
    comparison = comparison or compare_engines(results, n_boot=n_boot)
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    style = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    order = {e.engine: k for k, e in enumerate(comparison.engines)}
    matrix = [
        [None if a == b else comparison.test(a.engine, b.engine) for b in comparison.engines]
        for a in comparison.engines
    ]
    data = {
        "engines": names,
        "colours": [colour(k) for k in range(len(names))],
        "segments": _segment_data(sources, translations, results, names),
    }
    has_spans = any(pair[13] for row in data["segments"] for pair in row[1])
    created = created or _dt.datetime.now(_dt.timezone.utc)
    return env.get_template("report.html.j2").render(
        title=title,
        version=__version__,
        signature=signature,
        command=command or "",
        created=created.strftime("%Y-%m-%d %H:%M UTC"),
        comparison=comparison,
        matrix=matrix,
        names=names,
        colours=data["colours"],
        order=order,
        n_segments=len(sources),
        plots=page_plots(names, [len(_words(s).texts) for s in sources], results),
        data=_json_block(data),
        script=script,
        style=style,
        script_hash=f"sha256-{digest}",
        has_spans=has_spans,
    )


def write_report(
    path: str | os.PathLike,
    sources: Sequence[str],
    translations: Mapping[str, Sequence[str]],
    results: Sequence[Mapping[str, ScoreResult]],
    **kwargs,
) -> Path:
    """Write the report page to ``path`` (atomically: a complete file or none); returns the
    path. Keyword arguments as :func:`build_report`."""
    path = Path(path)
    atomic_write_bytes(path, build_report(sources, translations, results, **kwargs).encode("utf-8"))
    return path


def read_saved_scores(
    path: str | os.PathLike, engines: Sequence[str], n_segments: int
) -> tuple[str, str | None, list[dict[str, ScoreResult]]]:
    """The first line, the final signature (with the digest of the map used; ``None`` when the
    run did not finish) and the results of a saved ``xlscore score --format json`` run, checked
    to hold every one of ``engines`` for segments 1..``n_segments``."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path)
    head = final = None
    found: dict[int, dict[str, ScoreResult]] = {}
    for n, row in json_lines(path, skip_blank=True):
        if n == 1:
            if "xlscore" not in row:
                raise InputError(
                    "not an `xlscore score --format json` file (no signature on the first line)",
                    path=path,
                    line=1,
                )
            head = str(row["xlscore"])
            continue
        if "segment" not in row:  # a system-score line
            final = row.get("signature", final)
            continue
        try:
            result = ScoreResult.from_dict(row)
            found.setdefault(int(row["segment"]), {})[str(row["engine"])] = result
        except (KeyError, TypeError, ValueError) as err:
            raise InputError(f"not a score row ({err})", path=path, line=n) from None
    if head is None:
        raise InputError("empty file", path=path)
    results = []
    for seg in range(1, n_segments + 1):
        by = found.get(seg, {})
        missing = [e for e in engines if e not in by]
        if missing:
            raise InputError(
                f"segment {seg} has no score for {', '.join(missing)} (the run "
                "was cut short, or made from other files)",
                path=path,
            )
        results.append({e: by[e] for e in engines})
    extra = sorted(set(found) - set(range(1, n_segments + 1)))
    if extra:
        raise InputError(
            f"scores for segment {extra[0]}, beyond the {n_segments} segments of the input files",
            path=path,
        )
    return head, final, results
