"""wu2025:causal-collapse (W1): the expected verdict with filled evidence, the exact margins
detect a claimed ε above the kernel's smallest entry, and the check refutes a world with such
kernels and a faster rate than the stated one."""

from __future__ import annotations

from fractions import Fraction

import pytest

from posbias.errors import InvalidArgument
from posbias.numerics.kernels import min_entry_on_mask, uniform_causal_kernel_exact
from posbias.proofs_checks.claims.wu2025 import causal_collapse
from posbias.proofs_checks.registry import CheckContext

F = Fraction


def test_check_returns_expected_verdict_with_evidence(expected_verdict_with_evidence):
    expected_verdict_with_evidence("wu2025:causal-collapse")


def test_causal_collapse_margins():
    M = uniform_causal_kernel_exact(5)
    eps = min_entry_on_mask(M)
    assert eps == F(1, 5)
    m = causal_collapse.causal_collapse_margins([M] * 6, eps)
    assert m["bound"] >= 0 and m["step"] >= 0 and m["best_C"] <= 1
    assert m["off_first"] <= m["off_first_bound"]
    # a claimed ε larger than the kernel's smallest entry breaks the bound
    bad = causal_collapse.causal_collapse_margins([M] * 6, F(6, 25))
    assert bad["bound"] < 0 and bad["step"] < 0 and bad["best_C"] > 1
    with pytest.raises(InvalidArgument):
        causal_collapse.causal_collapse_margins([M] * 6, F(1, 4))


def test_causal_collapse_verdict_is_reachable(monkeypatch):
    """Refuted in a world whose kernels have entries below the ε the bound is given (ε claimed
    11/10 of the true smallest entry on the mask)."""
    orig = causal_collapse.epsilon
    monkeypatch.setattr(causal_collapse, "epsilon", lambda ks, mask: orig(ks, mask) * F(11, 10))
    ev = causal_collapse.check(CheckContext())
    assert ev.verdict == "refuted" and ev.counterexample and "rule" in ev.details


# --- power: the rule fed the stated version and plausible false ones -----------------------

def test_causal_collapse_stated_rate_is_attained_and_a_faster_one_refuted():
    ev = causal_collapse.check(CheckContext())
    assert ev.verdict == "verified" and ev.figures["bound_margin"] == 0  # attained exactly
    for a in (F(2), F(11, 10)):
        bad = causal_collapse.check(CheckContext(), exponent=a)
        assert bad.verdict == "refuted" and bad.figures["bound_margin"] < 0, a
        assert bad.counterexample
