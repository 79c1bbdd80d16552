"""wu2025:sliding-window (W2): the expected verdict with filled evidence, the rate exercised
beyond 4h by the deep cases, the exact margins and the deep depth, and every verdict of the rule
reachable (a rate beyond the slack and kernels below the claimed ε refuted, deep cases stopped at
4h inconclusive)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from posbias.errors import InvalidArgument
from posbias.numerics.kernels import sliding_window_kernel_exact
from posbias.proofs_checks.claims.wu2025 import sliding_window
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

F = Fraction


def test_check_returns_expected_verdict_with_evidence(expected_verdict_with_evidence):
    expected_verdict_with_evidence("wu2025:sliding-window")


def test_sliding_window_margins():
    L, w = 6, 2
    A = sliding_window_kernel_exact(L, w)
    eps = F(1, 2)
    m = sliding_window.sliding_window_margins([A] * 12, eps, w)
    assert m["h"] == 5 and m["fails"] == 0 and m["block_min"] >= m["eps_h"]
    # pretending the window is wider (smaller h) claims a faster rate than the rollout has
    bad = sliding_window.sliding_window_margins([A] * 12, F(1, 6), L)
    assert bad["h"] == 1 and bad["fails"] > 0


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
    assert sliding_window.deep_window_depth(4, 3, F(1, 3)) == 52
    T = sliding_window.deep_window_depth(5, 3, F(1, 5))
    q = 1 - F(1, 25)
    assert float(q) ** (T / 4 - 1) <= 0.25 < float(q) ** ((T - 1) / 4 - 1)
    assert math.isclose(T, 4 * (1 + math.log(4) / -math.log(float(q))), abs_tol=1)


def test_a_too_fast_rate_is_caught_only_beyond_4h():
    """A claimed exponent 11 t/(2h) holds at every depth t <= 4h of the uniform window L = 4,
    w = 3 (h = 2) and fails at the deep depths: the depths beyond 4h are what test the rate."""
    A = sliding_window_kernel_exact(4, 3)
    shallow = sliding_window.sliding_window_margins([A] * 8, F(1, 3), 3, rate=F(11))
    deep = sliding_window.sliding_window_margins([A] * 52, F(1, 3), 3, rate=F(11))
    assert shallow["fails"] == 0 and deep["fails"] > 0
    assert sliding_window.sliding_window_margins([A] * 52, F(1, 3), 3)["fails"] == 0
    with pytest.raises(InvalidArgument):
        sliding_window.sliding_window_margins([A] * 4, F(1, 3), 3, rate=F(0))


def test_sliding_window_verdicts_are_reachable(monkeypatch):
    # inconclusive: deep cases that stop at 4h never exercise the rate
    monkeypatch.setattr(sliding_window, "deep_window_depth",
                        lambda L, w, eps, target=None: 4 * (-(-(L - 1) // (w - 1))))
    ev = sliding_window.check(CheckContext())
    assert ev.verdict == "inconclusive" and "rate not exercised" in ev.details["reason"]
    monkeypatch.undo()
    # refuted: a world whose kernels break the window assumption (ε claimed larger than it is)
    orig = sliding_window.epsilon
    monkeypatch.setattr(sliding_window, "epsilon", lambda ks, mask: orig(ks, mask) * F(6, 5))
    ev = sliding_window.check(CheckContext())
    assert ev.verdict == "refuted" and ev.counterexample


# --- power: the rule fed the stated version and plausible false ones -----------------------

def test_sliding_window_a_rate_beyond_the_slack_is_refuted():
    """The stated rate t/(2h) is loose on the generated cases (exponent multipliers up to
    a* = 7.5 hold, test_sliding_window_rate_is_exercised_beyond_4h); 11 t/(2h) is beyond it and
    the same computation refutes it."""
    bad = sliding_window.check(CheckContext(), rate=F(11))
    assert bad.verdict == "refuted" and bad.figures["bound_failures"] > 0
    assert sliding_window.RULE.apply(bad.figures).verdict == "refuted"
