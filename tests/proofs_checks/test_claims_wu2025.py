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
    assert "verified" in ev.details["rule"] and "refuted" in ev.details["rule"]
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


def test_sliding_window_rate_is_exercised_beyond_4h():
    """With C = 1/q the bound follows from one h-layer block for t <= 4h; the check must reach
    depths where C q_2^(t/(2h)) <= 1/4, far beyond 4h."""
    ev = run_claim(get_claim("wu2025:sliding-window"), CheckContext()).evidence
    assert ev.verdict == "verified" and "rule" in ev.details
    assert ev.details["informative depths (t > 2h, where C q^(t/2h) < 1)"] >= ev.parameters["cases"]
    assert ev.details["rate-exercising depths (t > 4h, beyond the one-block bound)"] > 0
    deep = ev.details["deep cases"]
    assert deep and all(r["T/4h"] >= 5 and float(r["C q_2^(T/2h)"]) <= 0.25 for r in deep)
    assert any(r["h"] == 3 for r in deep)
    assert float(ev.details["smallest exponent multiplier a* supported at t > 4h "
                            "(P <= C q^(a t/(2h)) for a <= a*)"]) >= 1


def test_deep_window_depth():
    # L = 4, w = 3: h = 2, ε = 1/3, q_2 = 8/9: T = ceil(4 (1 + ln 4 / ln(9/8))) = 52
    assert wu2025.deep_window_depth(4, 3, F(1, 3)) == 52
    import math

    T = wu2025.deep_window_depth(5, 3, F(1, 5))
    q = 1 - F(1, 25)
    assert float(q) ** (T / 4 - 1) <= 0.25 < float(q) ** ((T - 1) / 4 - 1)
    assert math.isclose(T, 4 * (1 + math.log(4) / -math.log(float(q))), abs_tol=1)


def test_a_too_fast_rate_is_caught_only_beyond_4h():
    """A claimed exponent 11 t/(2h) holds at every depth t <= 4h of the uniform window L = 4,
    w = 3 (h = 2) and fails at the deep depths: the depths beyond 4h are what test the rate."""
    A = sliding_window_kernel_exact(4, 3)
    shallow = wu2025.sliding_window_margins([A] * 8, F(1, 3), 3, rate=F(11))
    deep = wu2025.sliding_window_margins([A] * 52, F(1, 3), 3, rate=F(11))
    assert shallow["fails"] == 0 and deep["fails"] > 0
    assert wu2025.sliding_window_margins([A] * 52, F(1, 3), 3)["fails"] == 0
    with pytest.raises(InvalidArgument):
        wu2025.sliding_window_margins([A] * 4, F(1, 3), 3, rate=F(0))


def test_sliding_window_verdicts_are_reachable(monkeypatch):
    # inconclusive: deep cases that stop at 4h never exercise the rate
    monkeypatch.setattr(wu2025, "deep_window_depth", lambda L, w, eps, target=None: 4 * (-(-(L - 1) // (w - 1))))
    ev = wu2025._check_sliding_window(CheckContext())
    assert ev.verdict == "inconclusive" and "rate not exercised" in ev.details["reason"]
    monkeypatch.undo()
    # refuted: a world whose kernels break the window assumption (ε claimed larger than it is)
    orig = wu2025._epsilon
    monkeypatch.setattr(wu2025, "_epsilon", lambda ks, mask: orig(ks, mask) * F(6, 5))
    ev = wu2025._check_sliding_window(CheckContext())
    assert ev.verdict == "refuted" and ev.counterexample


def test_causal_collapse_and_prefix_verdicts_are_reachable(monkeypatch):
    """Refuted in a world whose kernels have entries below the ε the bound is given (ε claimed
    11/10 of the true smallest entry on the mask; for the prefix 6/5, capped at 1/K)."""
    orig = wu2025._epsilon
    for check, inflate in ((wu2025._check_causal_collapse, lambda e, mask: e * F(11, 10)),
                           (wu2025._check_prefix, lambda e, mask: min(e * F(6, 5), F(1, sum(mask[0]))))):
        monkeypatch.setattr(wu2025, "_epsilon", lambda ks, mask, f=inflate: f(orig(ks, mask), mask))
        ev = check(CheckContext())
        assert ev.verdict == "refuted" and ev.counterexample and "rule" in ev.details
