"""The scorer's plan (issue 85): which parts run is decided once, from the fields and the
estimator, and every component reads that one record."""

from __future__ import annotations

import types

import pytest
from conftest import offline_scorer

from xlscore.checks import CHECKS, COUNTED
from xlscore.scoring.plan import Plan


def _est(tagger=None, check_weight=0.0, separate_similarity=False):
    """What the plan reads of an estimator."""
    return types.SimpleNamespace(
        tagger=tagger, check_weight=check_weight, separate_similarity=separate_similarity
    )


@pytest.mark.parametrize(
    ("fields", "est", "checks"),
    [
        ({"score", "evidence"}, _est(), CHECKS),  # the evidence reads every finding
        ({"score", "paper"}, _est(), CHECKS),  # the paper's columns carry the evidence
        ({"score"}, _est(tagger=object()), CHECKS),  # the span tagger reads every finding
        ({"score"}, _est(check_weight=0.25), COUNTED),  # the score counts these
        ({"score"}, _est(), ("degenerate",)),  # every estimator's score takes its share
        ({"score"}, None, ()),  # the paper's score alone
    ],
)
def test_which_checks_run_follows_what_is_computed(fields, est, checks):
    assert Plan.of(frozenset(fields), est, consensus=True).checks == tuple(checks)


def test_what_needs_an_encoder_beside_the_estimator_is_named():
    plain = Plan.of(frozenset({"score", "evidence"}), _est(), consensus=True)
    assert plain.beside_estimator() == [] and not plain.similarity
    assert Plan.of(frozenset({"score"}), None, consensus=True).beside_estimator() == [
        "the paper's score (no estimator)"
    ]
    sim = Plan.of(frozenset({"score"}), _est(separate_similarity=True), consensus=True)
    assert sim.similarity and sim.beside_estimator() == ["the similarity"]
    aligned = Plan.of(frozenset({"score", "evidence"}), _est(), consensus=True, aligned=True)
    assert aligned.beside_estimator() == ["the evidence by word alignment"]
    assert not Plan.of(
        frozenset({"score"}), _est(), consensus=True, aligned=True
    ).beside_estimator()


@pytest.mark.parametrize("fields", ["score,evidence", "score", "all"])
def test_the_scorer_and_its_parts_read_one_plan(fields):
    scorer = offline_scorer(fields=fields)
    assert scorer.final.plan is scorer.plan and scorer.fields == scorer.plan.fields
    assert scorer.rule_checks.names == scorer.plan.checks
    assert scorer.plan.paper == (fields == "all") and scorer.plan.estimator


@pytest.mark.parametrize(
    ("fields", "est", "saved_map", "built"),
    [
        ({"score", "evidence"}, _est(), False, False),  # the default: never built
        ({"score", "paper"}, _est(), False, True),  # its columns
        ({"score", "paper"}, None, False, True),  # its score (the fields always add "paper")
        ({"score", "evidence"}, _est(), True, True),  # a saved map's digest signs the scores
    ],
)
def test_the_papers_scorer_is_built_only_when_something_asks_for_it(fields, est, saved_map, built):
    plan = Plan.of(frozenset(fields), est, consensus=True, saved_map=saved_map)
    assert plan.paper_scorer is built
