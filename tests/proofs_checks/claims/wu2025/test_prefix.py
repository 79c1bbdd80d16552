"""wu2025:prefix (W3): the expected verdict with filled evidence, the exact margins (every prefix
token keeps ε, a causal prefix block does not), and the check refutes a world with kernels below
the claimed ε and an equal share κ = 1/K."""

from __future__ import annotations

from fractions import Fraction

from posbias.numerics.kernels import (
    min_entry_on_mask,
    prefix_kernel_exact,
    prefix_mask,
    uniform_causal_kernel_exact,
)
from posbias.proofs_checks.claims.wu2025 import prefix
from posbias.proofs_checks.registry import CheckContext

F = Fraction


def test_check_returns_expected_verdict_with_evidence(expected_verdict_with_evidence):
    expected_verdict_with_evidence("wu2025:prefix")


def test_prefix_margins():
    L, K = 5, 2
    A = prefix_kernel_exact(L, K)
    eps = min_entry_on_mask(A, prefix_mask(L, K))
    assert eps == F(1, 5)
    m = prefix.prefix_margins([A] * 5, eps, K)
    assert m["keep"] >= 0 and m["suffix"] >= 0
    # every row ends with equal mass on the two prefix tokens
    assert all(row[0] == row[1] for row in m["final"])
    bad = prefix.prefix_margins([A] * 5, F(1, 2), K)
    assert bad["keep"] < 0
    # a causal prefix block (the causal mask) loses the second prefix token
    M = uniform_causal_kernel_exact(L)
    causal = prefix.prefix_margins([M] * 5, F(1, 5), K)
    assert causal["keep"] < 0


def test_prefix_verdict_is_reachable(monkeypatch):
    """Refuted in a world whose kernels have entries below the ε the bound is given (ε claimed
    6/5 of the true smallest entry on the mask, capped at 1/K)."""
    orig = prefix.epsilon
    monkeypatch.setattr(prefix, "epsilon",
                        lambda ks, mask: min(orig(ks, mask) * F(6, 5), F(1, sum(mask[0]))))
    ev = prefix.check(CheckContext())
    assert ev.verdict == "refuted" and ev.counterexample and "rule" in ev.details


# --- power: the rule fed the stated version and plausible false ones -----------------------

def test_prefix_equal_share_kappa_refuted():
    ev = prefix.check(CheckContext(), kappa=lambda eps, K: F(1, K))
    assert ev.verdict == "refuted" and ev.figures["keep_margin"] < 0
    assert prefix.check(CheckContext()).verdict == "verified"
