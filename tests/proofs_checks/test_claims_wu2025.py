"""Tests of the wu2025 claims (causal collapse, sliding window, prefix): expected verdicts with
filled evidence, and the predicates detect deliberately wrong inputs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from posbias.errors import InvalidArgument

from posbias.numerics.kernels import (
    min_entry_on_mask,
    prefix_kernel_exact,
    prefix_mask,
    sliding_window_kernel_exact,
    uniform_causal_kernel_exact,
)
from posbias.proofs_checks.claims import wu2025
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

F = Fraction

IDS = ["wu2025:causal-collapse", "wu2025:sliding-window", "wu2025:prefix"]


@pytest.mark.parametrize("claim_id", IDS)
def test_check_returns_expected_verdict_with_evidence(claim_id):
    c = get_claim(claim_id)
    r = run_claim(c, CheckContext())
    ev = r.evidence
    assert ev.verdict == c.expected, ev.as_dict()
    assert ev.cases and ev.cases > 0 and ev.worst_margin and ev.parameters
    assert c.latex_text.strip() and c.section
    assert r.seconds < 15


def test_causal_collapse_margins():
    M = uniform_causal_kernel_exact(5)
    eps = min_entry_on_mask(M)
    assert eps == F(1, 5)
    m = wu2025.causal_collapse_margins([M] * 6, eps)
    assert m["bound"] >= 0 and m["step"] >= 0 and m["best_C"] <= 1
    assert m["off_first"] <= m["off_first_bound"]
    # a claimed ε larger than the kernel's smallest entry breaks the bound
    bad = wu2025.causal_collapse_margins([M] * 6, F(6, 25))
    assert bad["bound"] < 0 and bad["step"] < 0 and bad["best_C"] > 1
    with pytest.raises(InvalidArgument):
        wu2025.causal_collapse_margins([M] * 6, F(1, 4))


def test_sliding_window_margins():
    L, w = 6, 2
    A = sliding_window_kernel_exact(L, w)
    eps = F(1, 2)
    m = wu2025.sliding_window_margins([A] * 12, eps, w)
    assert m["h"] == 5 and m["fails"] == 0 and m["block_min"] >= m["eps_h"]
    # pretending the window is wider (smaller h) claims a faster rate than the rollout has
    bad = wu2025.sliding_window_margins([A] * 12, F(1, 6), L)
    assert bad["h"] == 1 and bad["fails"] > 0


def test_prefix_margins():
    L, K = 5, 2
    A = prefix_kernel_exact(L, K)
    eps = min_entry_on_mask(A, prefix_mask(L, K))
    assert eps == F(1, 5)
    m = wu2025.prefix_margins([A] * 5, eps, K)
    assert m["keep"] >= 0 and m["suffix"] >= 0
    # every row ends with equal mass on the two prefix tokens
    assert all(row[0] == row[1] for row in m["final"])
    bad = wu2025.prefix_margins([A] * 5, F(1, 2), K)
    assert bad["keep"] < 0
    # a causal prefix block (the causal mask) loses the second prefix token
    M = uniform_causal_kernel_exact(L)
    causal = wu2025.prefix_margins([M] * 5, F(1, 5), K)
    assert causal["keep"] < 0


def test_sliding_window_bound_is_tested_where_it_is_not_vacuous():
    """With C = 1/q the bound exceeds 1 for t <= 2h; the check must reach depths t > 2h."""
    from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

    ev = run_claim(get_claim("wu2025:sliding-window"), CheckContext()).evidence
    assert ev.verdict == "verified"
    assert ev.details["informative depths (t > 2h, where C q^(t/2h) < 1)"] >= ev.cases
