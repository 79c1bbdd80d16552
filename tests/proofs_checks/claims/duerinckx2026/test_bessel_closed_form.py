"""duerinckx2026:bessel-closed-form: behaviour (the two routes agree at two precisions, sympy
closes) and power (the rule refutes the plausible wrong closed forms fed through the check)."""

from __future__ import annotations

import mpmath
import pytest

from posbias.proofs_checks.claims.duerinckx2026 import bessel_closed_form as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture(scope="module")
def result():
    return run_claim(get_claim("duerinckx2026:bessel-closed-form"), CheckContext())


def test_verified_in_the_papers_setting(result):
    assert result.evidence.verdict == "verified" == result.expected
    assert result.scope == "paper"
    f = result.evidence.figures
    assert f["dps"] == [30, 60] and f["symbolic_open"] == 0
    assert f["digits"][0] >= 20 and f["digits"][1] >= 50
    assert result.card["proof"].level == "all"


def _i0(c, y, dps):
    with mpmath.workdps(dps):
        c, y = mpmath.mpf(c.numerator) / c.denominator, mpmath.mpf(y.numerator) / y.denominator
        return c if y == 0 else mpmath.sqrt(c / y) * mpmath.besseli(0, 2 * mpmath.sqrt(c * y))


def _half_argument(c, y, dps):
    with mpmath.workdps(dps):
        c, y = mpmath.mpf(c.numerator) / c.denominator, mpmath.mpf(y.numerator) / y.denominator
        return c if y == 0 else mpmath.sqrt(c / y) * mpmath.besseli(1, mpmath.sqrt(c * y))


@pytest.mark.parametrize("wrong", [_i0, _half_argument], ids=["I_0", "I_1(sqrt(c y))"])
def test_wrong_closed_forms_are_refuted(wrong):
    ev = mod.check(CheckContext(), closed=wrong)
    assert ev.verdict == "refuted"
    assert ev.figures["digits"][1] < ev.figures["dps"][1] - 10


def test_rule_examples_reach_their_verdicts():
    for ex in mod.RULE.examples:
        assert mod.RULE.decide(ex.figures, mod.RULE.values()) == ex.verdict, ex.label
    assert {ex.verdict for ex in mod.RULE.examples} == set(mod.RULE.outcomes)
