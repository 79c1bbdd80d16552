"""Every built-in claim carries a card and a rule with the power to fail.

For each claim: a :class:`~posbias.proofs_checks.cards.Card` with the paper's source, a
:class:`~posbias.proofs_checks.cards.Rule` fixed on a stated date, and examples that reach every
verdict the rule allows: the paper's own figures (where it reports any) and at least one
plausible false version of the claim that the rule refutes.  A rule with a branch no example
reaches, or with no refuted branch, fails here.
"""

from __future__ import annotations

import re

import pytest

from posbias.proofs_checks.cards import Card, Rule
from posbias.proofs_checks.registry import all_claims

CLAIMS = all_claims()


@pytest.mark.parametrize("c", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_has_card_and_rule(c):
    assert isinstance(c.card, Card), f"{c.id} has no claim card"
    assert c.card.paper.source, f"{c.id}: the card names no section, figure or table"
    assert isinstance(c.rule, Rule), f"{c.id}: its rule is not data (a cards.Rule)"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", c.rule.fixed), f"{c.id}: the rule states no date"


@pytest.mark.parametrize("c", CLAIMS, ids=[c.id for c in CLAIMS])
def test_rule_reaches_every_verdict(c):
    rule = c.rule
    if not isinstance(rule, Rule):
        pytest.fail(f"{c.id}: no Rule")
    assert "refuted" in rule.outcomes, f"{c.id}: the rule has no refuted branch"
    reached = {}
    for ex in rule.examples:
        got = rule.decide(ex.figures, rule.values())
        assert got == ex.verdict, f"{c.id}: example {ex.label!r} gives {got}, not {ex.verdict}"
        reached.setdefault(got, []).append(ex.label)
    missing = [v for v in rule.outcomes if v not in reached]
    assert not missing, f"{c.id}: no example reaches {missing}"
    assert any(ex.kind == "false" and ex.verdict != c.expected for ex in rule.examples), (
        f"{c.id}: no plausible false version of the claim gets another verdict")
    assert any(ex.kind == "false" and ex.verdict == "refuted" for ex in rule.examples), (
        f"{c.id}: no plausible false version of the claim is refuted")
    assert any(ex.kind == "paper" for ex in rule.examples) or rule.no_paper_figures, (
        f"{c.id}: neither the paper's figures nor the reason they are absent")
