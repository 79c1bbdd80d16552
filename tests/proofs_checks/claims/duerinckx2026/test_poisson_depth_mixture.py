"""duerinckx2026:poisson-depth-mixture: behaviour (Poisson sums of chowdhury2026's rho_H equal the
Bessel form; residual rollouts with steps c/T approach the kinetic dynamics at O(1/T)) and power
(a shifted depth or a residual weight 1/T are refuted)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from posbias.numerics.alibi import alibi_layer, alibi_rollout
from posbias.numerics.kinetic import (
    KineticHead,
    KineticModel,
    kinetic_rollout,
    kinetic_value_precise,
)
from posbias.proofs_checks.claims.duerinckx2026 import poisson_depth_mixture as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture(scope="module")
def result():
    return run_claim(get_claim("duerinckx2026:poisson-depth-mixture"), CheckContext())


def test_verified(result):
    ev = result.evidence
    assert ev.verdict == "verified" == result.expected and result.scope == "paper"
    assert ev.figures["digits"] >= 20 and 0.9 <= ev.figures["residual_order"] <= 1.1


def test_a_shifted_depth_disagrees_with_the_bessel_form():
    """Weights c^H/(H-1)! in place of c^H/H! (the depth shifted by one)."""
    lam, c, s = Fraction(1), Fraction(1, 2), Fraction(1, 2)

    def shifted(H, ss, ll):
        return H * mpmath.mpf(ll) * mpmath.exp(ll * ss) / mpmath.expm1(ll) * mpmath.log(
            mpmath.expm1(ll) / mpmath.expm1(ll * ss)) ** (H - 1) / mpmath.factorial(H - 1)

    wrong = mod._poisson_sum(shifted, lam, c, s, 30)
    with mpmath.workdps(30):
        right = mpmath.exp(-mpmath.mpf(1) / 2) * kinetic_value_precise(s, KineticModel(
            [KineticHead(lam, c=c)]), 30)
        assert abs(wrong - right) / right > 0.1


def test_residual_weight_one_over_t_does_not_approach_the_kinetic_dynamics():
    L, lam, c = 256, 1.0, 2.4
    target = kinetic_rollout(L, lam, c)
    layer = alibi_layer([lam / L])
    gaps = [float(np.max(np.abs(alibi_rollout(L, [layer] * T, [1.0 / T] * T) - target)))
            for T in (64, 256)]
    order = math.log(gaps[0] / gaps[1]) / math.log(4)
    assert order < 0.3
    figures = {"digits": 26.0, "dps": 30, "precision_ran_out": False, "residual_order": order,
               "symbolic_open": 0}
    assert mod.RULE.apply(figures).verdict == "refuted"


def test_the_atom_and_the_mass_of_the_discrete_dynamics():
    p = kinetic_rollout(2048, 1.0, 1.5)
    assert abs(p.sum() - 1) < 1e-13
    # the final token keeps the atom e^(-c) plus O(1/L) of the continuous part
    assert abs(p[-1] - math.exp(-1.5)) < 5e-3


def test_rule_examples_reach_their_verdicts():
    for ex in mod.RULE.examples:
        assert mod.RULE.decide(ex.figures, mod.RULE.values()) == ex.verdict, ex.label
