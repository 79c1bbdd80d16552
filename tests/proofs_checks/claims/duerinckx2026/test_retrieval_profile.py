"""duerinckx2026:retrieval-profile: behaviour (the discrete causal ALiBi dynamics converge to the
formula at O(1/L); the kinetic equation is proven) and power (a formula without the warp's
Jacobian, or with I_0 for I_1, does not converge and the rule refutes it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posbias.numerics.kinetic import KineticHead, KineticModel, kinetic_profile, kinetic_values
from posbias.proofs_checks.claims.duerinckx2026 import retrieval_profile as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture(scope="module")
def result():
    return run_claim(get_claim("duerinckx2026:retrieval-profile"), CheckContext())


def test_verified_as_a_variant(result):
    ev = result.evidence
    assert ev.verdict == "verified" == result.expected
    assert result.scope == "variant"  # the linear dynamics, not the particle system
    assert 0.9 <= ev.figures["order"] <= 1.1 and ev.figures["final_error"] < 5e-3
    assert set(ev.details["errors"]) == {label for label, _ in mod.CASES}


def _without_jacobian(L, model):
    lam = float(model.heads[0].lam)
    s = np.arange(1, L + 1) / L
    jac = lam * np.exp(lam * s) / math.expm1(lam) if lam else np.ones(L)
    return kinetic_profile(L, model) / jac


def _with_i0(L, model):
    """psi with (k!)^2: c I_0(2 sqrt(c y)) in place of sqrt(c/y) I_1(2 sqrt(c y))."""
    from scipy.special import i0

    head = model.heads[0]
    lam, c = float(head.lam), float(head.c)
    s = np.arange(1, L + 1) / L
    Y = np.log(math.expm1(lam) / np.expm1(lam * s))
    return lam * np.exp(lam * s) / math.expm1(lam) * c * i0(2 * np.sqrt(c * Y))


@pytest.mark.parametrize("wrong", [_without_jacobian, _with_i0])
def test_wrong_formulas_do_not_converge_and_are_refuted(wrong):
    model = KineticModel([KineticHead(2, c=1)])
    errs = mod.interior_errors(model, (512, 1024, 2048), wrong)
    order = math.log2(errs[-2] / errs[-1])
    assert order < 0.3 and errs[-1] > 0.05
    figures = {"order": order, "final_error": errs[-1], "symbolic_open": 0}
    assert mod.RULE.apply(figures).verdict == "refuted"


def test_the_right_formula_converges_in_the_same_test():
    model = KineticModel([KineticHead(2, c=1)])
    errs = mod.interior_errors(model, (512, 1024, 2048))
    assert math.log2(errs[-2] / errs[-1]) > 0.9


def test_values_at_positions_and_on_a_grid_agree():
    model = KineticModel([KineticHead(1, beta=1)], t="3/2")
    assert np.array_equal(kinetic_profile(16, model), kinetic_values(np.arange(1, 17) / 16, model))


def test_rule_examples_reach_their_verdicts():
    for ex in mod.RULE.examples:
        assert mod.RULE.decide(ex.figures, mod.RULE.values()) == ex.verdict, ex.label
