"""herasimchyk2026:constant-residual-collapse: the check's verdict and evidence, the Hausdorff sum
as an independent route to the rollout tail, and the check's power against a wrong bound and a
wrong rate."""

from __future__ import annotations

from fractions import Fraction

from posbias_tests_herasimchyk2026 import (
    CTX,
    assert_expected_verdict_with_evidence,
    assert_states_its_rule,
    through_registry,
)

from posbias.numerics.kernels import rollout_matrices_exact, uniform_causal_kernel_exact
from posbias.proofs_checks.claims.herasimchyk2026 import constant_residual_collapse

F = Fraction


def test_check_returns_expected_verdict_with_evidence():
    assert_expected_verdict_with_evidence("constant-residual-collapse")


def test_check_states_its_rule():
    assert_states_its_rule("constant-residual-collapse")


def test_hausdorff_tail_is_an_independent_route():
    M = uniform_causal_kernel_exact(4)
    lam = F(1, 3)
    P = rollout_matrices_exact(M, [lam] * 5)
    for t in range(6):
        assert constant_residual_collapse.hausdorff_tail(4, lam, t) == 1 - P[t][3][0]
    assert constant_residual_collapse.hausdorff_tail(4, F(1, 2), 5) != 1 - P[5][3][0]


def test_constant_residual_collapse_refutes_a_wrong_bound_and_a_wrong_rate():
    # the bound with the wrong product (1-λ/2)^T lies below the tail (L-1)(1-λ/2)^T for L >= 3
    r = through_registry("constant-residual-collapse", constant_residual_collapse.check,
                         bound_ratio=lambda L, lam: 1 - lam / 2)
    assert r.evidence.verdict == "refuted" and r.evidence.figures["bound failures"] == 450
    # the rate 1-λ/L in place of 1-λ/2 (the product bound taken as the rate)
    ev = constant_residual_collapse.check(CTX, lead_ratio=lambda L, lam: 1 - lam / L)
    assert ev.verdict == "refuted"
    assert ev.figures["max |ratio - 1| of the leading term at depth 200/λ+200"] >= 0.99
