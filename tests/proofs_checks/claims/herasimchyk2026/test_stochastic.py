"""herasimchyk2026:stochastic: the check's verdict and evidence, the margins it reads, and its
power against a layer that forgets the residual weight."""

from __future__ import annotations

from fractions import Fraction

from posbias_tests_herasimchyk2026 import (
    CTX,
    assert_expected_verdict_with_evidence,
    assert_states_its_rule,
    through_registry,
)

from posbias.numerics.kernels import uniform_causal_kernel_exact
from posbias.proofs_checks.claims.herasimchyk2026 import stochastic

F = Fraction


def test_check_returns_expected_verdict_with_evidence():
    assert_expected_verdict_with_evidence("stochastic")


def test_check_states_its_rule():
    assert_states_its_rule("stochastic")


def test_stochastic_margins_detect_a_broken_matrix():
    good = uniform_causal_kernel_exact(3)
    assert stochastic.stochastic_margins([good]) == (0, 0, 0)
    not_stochastic = [[F(1), F(0)], [F(1, 2), F(1, 3)]]
    assert stochastic.stochastic_margins([not_stochastic])[0] == F(1, 6)
    not_causal = [[F(1, 2), F(1, 2)], [F(0), F(1)]]
    assert stochastic.stochastic_margins([not_causal])[1] == F(1, 2)
    negative = [[F(1), F(0)], [F(3, 2), F(-1, 2)]]
    assert stochastic.stochastic_margins([negative])[2] == F(-1, 2)


def test_stochastic_refutes_a_layer_that_forgets_the_residual_weight():
    def forgotten(A, lam):  # (1-λ)I + A: row sums 2-λ
        return [[(1 - lam) * (i == j) + A[i][j] for j in range(len(A))] for i in range(len(A))]

    r = through_registry("stochastic", stochastic.check, layer=forgotten)
    assert r.evidence.verdict == "refuted" and "error" not in r.evidence.details
    assert r.evidence.figures["max |row sum - 1|"] == 31  # five layers with λ = 0: row sums 2^5
    assert r.evidence.counterexample

    def faithful(A, lam):
        return [[(1 - lam) * (i == j) + lam * A[i][j] for j in range(len(A))] for i in range(len(A))]

    assert stochastic.check(CTX, layer=faithful).verdict == "verified"
