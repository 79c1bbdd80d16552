"""The chowdhury2026 discrete-vs-continuum claims: verdicts as computed, corrections that match
independent recomputations, and checks that can fail."""

from fractions import Fraction
from math import comb

import mpmath
import numpy as np
import pytest

from posbias.proofs_checks.claims import chowdhury2026 as cd
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

IDS = [
    "chowdhury2026:cesaro-stochastic",
    "chowdhury2026:discrete-limit",
    "chowdhury2026:residual-density",
    "chowdhury2026:recency-delta",
    "chowdhury2026:dead-zone",
    "chowdhury2026:u-shape",
    # with the measured Step-0 part (torch models built in memory): ~15 s in a fresh process
    pytest.param("chowdhury2026:peak-valley", marks=pytest.mark.slow),
]


@pytest.fixture
def no_measurement(monkeypatch):
    """peak-valley without its measured Step-0 appendix (tested in test_claims_measured)."""
    from posbias.proofs_checks import measured

    monkeypatch.setattr(measured, "measured_peak_valley", lambda ctx: None)


@pytest.mark.parametrize("cid", IDS)
def test_verdict_equals_expected(cid):
    c = get_claim(cid)
    ev = run_claim(c, CheckContext()).evidence
    assert "error" not in ev.details, ev.details
    assert ev.verdict == c.expected, ev.as_dict()
    if ev.verdict == "qualified":
        assert ev.correction


def test_dead_zone_figure_matches_an_independent_sum():
    """ρ(1/2) at H = 24, α = 1/2 from the binomial mixture summed here (mpmath, 40 digits)."""
    with mpmath.workdps(40):
        t = mpmath.log(2)
        rho = sum(comb(24, k) * mpmath.mpf(2) ** -24 * t ** (k - 1) / mpmath.factorial(k - 1)
                  for k in range(1, 25))
    assert mpmath.nstr(rho, 3) == "0.000116"  # 1.15994e-4
    ev = run_claim(get_claim("chowdhury2026:dead-zone"), CheckContext()).evidence
    assert "ρ(1/2) = 0.000116" in ev.correction and "3.87e-23" in ev.correction


def test_u_shape_correction_matches_the_profiles():
    ev = run_claim(get_claim("chowdhury2026:u-shape"), CheckContext()).evidence
    assert ev.verdict == "qualified" and "no interior valley" in ev.correction
    # the example named in the correction has its minimum at the last token
    from posbias.numerics.cesaro import cesaro_profile_exact

    p = cesaro_profile_exact(8, [Fraction(9, 10)] * 2)
    assert min(p) == p[-1] and all(p[j] > p[j + 1] for j in range(6))


def test_u_shape_check_can_say_verified(monkeypatch):
    """A profile with an interior valley (a stand-in for an ALiBi one) flips the verdict."""
    import posbias.numerics.cesaro as ces

    def valley(L, sched):
        p = [Fraction(1, L)] * L
        if L >= 4:
            p[L // 2] -= Fraction(1, 2 * L)
            p[0] += Fraction(1, 2 * L)
        return p

    monkeypatch.setattr(ces, "cesaro_profile_exact", valley)
    assert run_claim(get_claim("chowdhury2026:u-shape"), CheckContext()).evidence.verdict == "verified"


def test_peak_valley_correction_is_computed_not_typed(no_measurement):
    ev = run_claim(get_claim("chowdhury2026:peak-valley"), CheckContext()).evidence
    assert ev.verdict == "qualified"
    # the α range is the grid actually swept, not (0, 1]
    assert "(0,1]" not in ev.correction and "1/50, 2/50, ..., 1" in ev.correction
    assert "at α = 1/10000: first/min 1.01" in ev.correction
    # an independent recomputation of the largest first/min on the grid (α = 1, H = 24, L = 4096):
    # p(j) = (1/L) h_23(1/j, ..., 1/L), p(L) = L^-24; summed here with mpmath
    with mpmath.workdps(30):
        L, H = 4096, 24
        u = [mpmath.mpf(0)] * L
        u[-1] = mpmath.mpf(1)
        for _ in range(H):
            s = mpmath.mpf(0)
            new = [None] * L
            for j in range(L - 1, -1, -1):
                s += u[j] / (j + 1)
                new[j] = s
            u = new
        ratio = u[0] / u[-1]
    assert mpmath.nstr(ratio, 3) == "4.97e+86"
    assert ev.details["table"]["H=24,L=4096"]["first/min range over alpha"].endswith("4.97e+86")


def test_peak_valley_is_inconclusive_when_float64_disagrees(monkeypatch, no_measurement):
    import posbias.numerics.cesaro as ces

    orig = ces.cesaro_profile

    def noisy(L, sched):
        p = orig(L, sched)
        return p * (1 + 1e-9 * np.arange(L) / L)

    monkeypatch.setattr(ces, "cesaro_profile", noisy)
    ev = run_claim(get_claim("chowdhury2026:peak-valley"), CheckContext()).evidence
    assert ev.verdict == "inconclusive"


def test_recency_delta_can_be_refuted(monkeypatch):
    import posbias.numerics.cesaro as ces

    orig = ces.cesaro_profile_exact
    monkeypatch.setattr(ces, "cesaro_profile_exact",
                        lambda L, s: orig(L, s)[:-1] + [orig(L, s)[-1] + Fraction(1, 10**9)])
    assert run_claim(get_claim("chowdhury2026:recency-delta"), CheckContext()).evidence.verdict == "refuted"


def test_discrete_limit_can_be_refuted(monkeypatch):
    """A profile off by a constant (no O(1/L) convergence) is caught by the rate fit."""
    import posbias.numerics.cesaro as ces

    orig = ces.cesaro_profile_exact
    monkeypatch.setattr(ces, "cesaro_profile_exact",
                        lambda L, s: [x + Fraction(1, 20 * L) for x in orig(L, s)])
    assert run_claim(get_claim("chowdhury2026:discrete-limit"), CheckContext()).evidence.verdict == "refuted"


def test_rate_criterion_accepts_faster_and_rejects_slower_decay():
    """O(1/L) means L·err(L) stays bounded: faster (pre-asymptotic) decay is consistent with it,
    a slower one (err ~ L^-1/2) is not."""
    from posbias.proofs_checks.claims.chowdhury2026 import _growth

    lengths = [64, 128, 256, 512]
    assert _growth(lengths, [mpmath.mpf(L) ** -1.3 for L in lengths]) < 1
    assert abs(_growth(lengths, [mpmath.mpf(3) / L for L in lengths]) - 1) < 1e-12
    assert _growth(lengths, [mpmath.mpf(L) ** -0.5 for L in lengths]) > 1.4
