"""duerinckx2026:valley-past-t-crit: behaviour (qualified: the interior minimum leaves through the
final token at c_crit only for lambda < ln 4) and power (the scans find the valley on the side
the curvature at the end predicts)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from posbias.proofs_checks.claims.duerinckx2026 import valley_past_t_crit as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture(scope="module")
def result():
    return run_claim(get_claim("duerinckx2026:valley-past-t-crit"), CheckContext())


def test_qualified_as_a_variant_with_its_correction(result):
    ev = result.evidence
    assert ev.verdict == "qualified" == result.expected and result.scope == "variant"
    assert ev.figures == {"small_slope_mismatches": 0, "large_slope_mismatches": len(mod.LARGE),
                          "symbolic_open": 0}
    assert "ln 4" in ev.correction and "lambda = 8" in ev.correction


@pytest.mark.parametrize("lam, survives", [(Fraction(13, 10), False), (Fraction(5, 2), True)])
def test_the_valley_follows_the_sign_of_the_curvature_at_the_end(lam, survives):
    """Just below ln 4 = 1.386 the valley is gone past c_crit; above it, it is still there."""
    assert float(lam) < math.log(4) or survives
    assert mod._has_valley(lam, 1 - mod.OFFSET)
    assert mod._has_valley(lam, 1 + mod.OFFSET) is survives


def test_survival_grows_with_the_slope():
    assert mod.survival(Fraction(2)) == "21/20"
    assert Fraction(mod.survival(Fraction(5))) > Fraction(mod.survival(Fraction(3)))


def test_rule_examples_reach_their_verdicts():
    for ex in mod.RULE.examples:
        assert mod.RULE.decide(ex.figures, mod.RULE.values()) == ex.verdict, ex.label
