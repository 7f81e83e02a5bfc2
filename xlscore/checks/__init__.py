"""Explicit accuracy checks of an English source against its Russian translation.

Four rule-based checks compare what can be compared without a model:

* ``number`` -- numbers as values after normalisation (``40,000`` = ``40 000``, ``1.2`` =
  ``1,2``, ``$2.5bn`` = ``2,5 млрд``, ``three`` = ``трёх``, ``half`` = ``половина``, times,
  ordinals, decades, ranges); a number on one side with no equal value on the other is a
  finding. Numbers that a translation may legitimately drop or convert (``one``, ``first``,
  ``twice``, numbers next to miles/feet/°F, ``24/7`` and other slashed numbers) are never
  reported.
* ``name`` -- Latin-script names of the source (capitalised words inside a sentence, acronyms,
  CamelCase) must appear copied or transliterated (``Boston`` -> ``Бостоне``) or, for names
  Russian translates (``Germany`` -> ``Германии``, ``EU`` -> ``ЕС``), as one of the known
  translations; a capitalised Cyrillic name of the translation that matches nothing in the
  source is reported too.
* ``negation`` -- a source with a negation (``not``, ``n't``, ``never``, ``no``, ``without``...)
  whose translation has none, or a negated verb (``не`` + verb) in a translation whose source
  has no negation at all (nor a word such as ``fail``, ``until``, ``unless`` that Russian
  renders with ``не``).
* ``degenerate`` -- output that is no translation at all: words repeated back to back, no
  letters, keyboard mash, a length far outside what its source allows
  (:mod:`.degenerate`). Its findings pull the score towards the floor by the share of the
  translation they cover, instead of costing a check weight each.

A finding is a place to look, not a verdict: rules miss paraphrases, and a translation may
legitimately differ (a human translator rounds, merges sentences, writes "two weeks" for
"14 days"). How precise each check is on machine translations with expert error spans:
``experiments/results/checks.md``, summarised in ``docs/estimator.md``.

Each check is a :class:`Check` in :data:`REGISTRY`. ``find_mismatches`` never raises: on any
input it returns a (possibly empty) list.

What a check reports is a :class:`~xlscore.finding.Finding` (kept in each
:class:`~xlscore.ScoreResult`). Every finding either costs points (``counts``) or says why it
does not (``why_free``: its rule's false alarms and hits on WMT21 newstest MQM, from
:mod:`.measured`, which ``tools/checks.py`` writes). The package: :mod:`.text` (shared
helpers), the number check in :mod:`.numbers` (with :mod:`.quantities`, :mod:`.digits` and
:mod:`.numerals`), the name check in :mod:`.names` (with :mod:`.translit`), the negation check
in :mod:`.negation`, and their word tables in :mod:`.number_words`, :mod:`.name_words`,
:mod:`.known_names` and :mod:`.negation_words`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from xlscore.checks.degenerate import _check_degenerate
from xlscore.checks.measured import why_free
from xlscore.checks.names import _check_names
from xlscore.checks.negation import _check_negation
from xlscore.checks.numbers import _check_numbers
from xlscore.checks.translit import name_matches, transliterate
from xlscore.finding import Finding

__all__ = [
    "CHECKS",
    "COUNTED",
    "REGISTRY",
    "Check",
    "Finding",
    "counted",
    "find_mismatches",
    "name_matches",
    "transliterate",
]


@dataclass(frozen=True)
class Check:
    """One rule check: its ``name`` (``Finding.check``), ``find(source, translation)`` (it may
    raise on odd input: :func:`find_mismatches` makes that no finding), ``counts``, which
    of its findings cost the estimator's check weight each (``None``: none; they measured
    precise on MT), and ``pulls``: its findings cost points through the share of the
    translation they cover instead (:mod:`.degenerate`); ``rule`` names the rule a finding
    comes from (``all`` for a check of one rule), under which :mod:`.measured` keeps why its
    findings that cost nothing cost nothing."""

    name: str
    find: Callable[[str, str], list[Finding]]
    counts: Callable[[Finding], bool] | None = None
    pulls: bool = False
    rule: Callable[[Finding], str] = lambda f: "all"

    def costs(self, f: Finding) -> bool:
        """Whether the finding ``f`` of this check costs points in the score."""
        return self.pulls or bool(self.counts and self.counts(f))

    def why_free(self, f: Finding) -> str:
        """Why the finding ``f`` costs nothing, with its rule's measured figures
        (:func:`.measured.why_free`); ``""`` when it costs points."""
        return "" if self.costs(f) else why_free(self.name, self.rule(f))


def _negation_rule(f: Finding) -> str:
    """A negation finding's rule: the source's negation ``dropped`` (no span in the
    translation) or a negated verb ``added``."""
    return "dropped" if f.span is None else "added"


#: every check, in the order findings are reported; a dropped negation (no span in the
#: translation) counts, the restricted "negation added" rule does not
REGISTRY = {
    c.name: c
    for c in (
        Check("number", _check_numbers, lambda f: True),
        Check("name", _check_names),
        Check("negation", _check_negation, lambda f: f.span is None, rule=_negation_rule),
        Check("degenerate", _check_degenerate, pulls=True),
    )
}
CHECKS = tuple(REGISTRY)


def find_mismatches(source: str, translation: str, checks: Sequence[str] = CHECKS) -> list[Finding]:
    """Findings of the named ``checks`` (any of :data:`CHECKS`) for one sentence pair, in
    check order, each marked with whether it costs points in the score (``counts``:
    :meth:`Check.costs`) and, when it does not, why (``why_free``: :meth:`Check.why_free`).
    Never raises: a check that fails on odd input reports nothing."""
    if not isinstance(source, str) or not isinstance(translation, str):
        return []
    if isinstance(checks, str):
        checks = (checks,)
    out: list[Finding] = []
    for name in checks:
        check = REGISTRY.get(name) if isinstance(name, str) else None
        if check is None:
            continue
        try:
            found = check.find(source, translation)
        except Exception:  # a place to look, never a crash
            continue
        out.extend(
            replace(f, counts=check.costs(f), why_free=check.why_free(f))
            for f in found
            if _in_bounds(f, len(source), len(translation))
        )
    return out


def _in_bounds(f: Finding, n_src: int, n_tr: int) -> bool:
    """Both spans of a finding lie inside their texts."""
    ok_tr = f.span is None or 0 <= f.span[0] <= f.span[1] <= n_tr
    ok_src = f.source_span is None or 0 <= f.source_span[0] <= f.source_span[1] <= n_src
    return ok_tr and ok_src


#: the checks some of whose findings cost points in the score
COUNTED = tuple(c.name for c in REGISTRY.values() if c.counts is not None or c.pulls)


def counted(findings: Sequence[Finding]) -> int:
    """How many of a pair's findings count in the score (each check's ``counts``: numbers, and
    a negation of the source missing from the translation; not the restricted "negation
    added" rule, nor names). What an estimator's ``check_weight`` subtracts, per finding."""
    return sum(1 for f in findings if (c := REGISTRY.get(f.check)) and c.counts and c.counts(f))
