"""herasimchyk2026:diagonal-positive: the check's verdict and evidence, the mismatch counts it
reads (non-zero for non-causal kernels), and its power against a wrong product."""

from __future__ import annotations

from fractions import Fraction

from posbias_tests_herasimchyk2026 import (
    CTX,
    assert_expected_verdict_with_evidence,
    assert_states_its_rule,
    through_registry,
)

from posbias.numerics.kernels import prefix_kernel_exact, uniform_causal_kernel_exact
from posbias.proofs_checks.claims.herasimchyk2026 import diagonal_positive

F = Fraction


def test_check_returns_expected_verdict_with_evidence():
    assert_expected_verdict_with_evidence("diagonal-positive")


def test_check_states_its_rule():
    assert_states_its_rule("diagonal-positive")


def test_diagonal_formula_fails_for_non_causal_kernels():
    A = prefix_kernel_exact(3, 2)  # bidirectional prefix block: not lower-triangular
    fm, pm, _, _ = diagonal_positive.diagonal_mismatches([A, A], [F(1), F(1)], causal=False)
    assert fm > 0
    fm, pm, mp, zero = diagonal_positive.diagonal_mismatches([uniform_causal_kernel_exact(3)] * 2, [F(1), F(1, 2)])
    assert (fm, pm, zero) == (0, 0, 0) and mp == F(1, 3) * F(2, 3)


def test_diagonal_refutes_the_wrong_product():
    # Π_t (1 - λ_t A(t)[i,i]): the residual and attention weights swapped
    r = through_registry("diagonal-positive", diagonal_positive.check, factor=lambda lam, a: 1 - lam * a)
    assert r.evidence.verdict == "refuted" and r.evidence.figures["formula mismatches"] == 290
    # Π_t (1 - λ_t)(1 - A(t)[i,i])... any other product: also refuted
    ev = diagonal_positive.check(CTX, factor=lambda lam, a: (1 - lam) + lam * a * a)
    assert ev.verdict == "refuted"
