"""chowdhury2026:dead-zone (C6): the verdict as computed, refuted in the residual regime at the
paper's depth, with figures matching independent sums; verified when read at α = 1, qualified
at α = 1/2, refuted for a density not factorial even at α = 1, inconclusive when the routes
disagree; the card."""

from fractions import Fraction
from math import comb

import mpmath

from posbias.proofs_checks.claims.chowdhury2026 import dead_zone
from posbias.proofs_checks.claims.chowdhury2026._analytic import continuous_part
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:dead-zone")


def test_figure_matches_an_independent_sum():
    """ρ(1/2) at H = 24, α = 1/2 from the binomial mixture summed here (mpmath, 40 digits)."""
    with mpmath.workdps(40):
        t = mpmath.log(2)
        rho = sum(comb(24, k) * mpmath.mpf(2) ** -24 * t ** (k - 1) / mpmath.factorial(k - 1)
                  for k in range(1, 25))
    assert mpmath.nstr(rho, 3) == "0.000116"  # 1.15994e-4
    ev = run_claim(get_claim("chowdhury2026:dead-zone"), CheckContext()).evidence
    assert ev.figures["rho_half_by_alpha"]["1/2"] == 0.000116
    assert "(α = 1/2: 0.000116)" in ev.counterexample and "3.87e-23" in ev.counterexample


def _consistent(density):
    """A discrete route that agrees with an injected density: L·p(L/2) = ρ(1/2)."""
    return lambda L, H, a: float(density(H, a)(mpmath.mpf(1) / 2))


def test_refuted_in_the_residual_regime_at_the_paper_depth():
    r = run_claim(get_claim("chowdhury2026:dead-zone"), CheckContext())
    ev = r.evidence
    assert ev.verdict == "refuted", ev.details
    f = ev.figures
    assert 0.3 < f["rho_half"] < 0.7 and f["scaled"] > 1e21 and f["scaled_attn"] < 1e-3
    # the independent sum: ρ(1/2) at H = 24, α = 7/100 from the binomial mixture
    with mpmath.workdps(30):
        a, t = mpmath.mpf(7) / 100, mpmath.log(2)
        rho = sum(comb(24, k) * a**k * (1 - a) ** (24 - k) * t ** (k - 1) / mpmath.factorial(k - 1)
                  for k in range(1, 25))
    assert abs(f["rho_half_by_alpha"]["7/100"] / float(rho) - 1) < 1e-3
    flip = ev.details["decision"]["flip"]
    assert flip["threshold"] == "dead_level" and flip["to"] == "qualified"
    assert abs(flip["flips_at"] - f["rho_half"]) < 1e-3 * f["rho_half"]


def test_verified_when_read_at_alpha_one():
    """The attention-only reading (every α replaced by 1): ρ_24(1/2) = (ln 2)^23/23!."""
    def at_one(h, a):
        return continuous_part(h, Fraction(1))

    ev = dead_zone.check(CheckContext(), density=at_one, profile=_consistent(at_one))
    assert ev.verdict == "verified", ev.figures
    with mpmath.workdps(30):
        exact = mpmath.log(2) ** 23 / mpmath.factorial(23)
    assert abs(ev.figures["rho_half"] / float(exact) - 1) < 1e-5


def test_qualified_for_a_network_with_alpha_one_half():
    """α = 1/2 in place of the fitted α: an exponential dead zone (1.16e-4), not factorial."""
    def half(h, a):
        return continuous_part(h, Fraction(1, 2) if a < 1 else a)

    ev = dead_zone.check(CheckContext(), density=half, profile=_consistent(half))
    assert ev.verdict == "qualified" and "exponential, not factorial" in ev.correction
    assert abs(ev.figures["rho_half"] - 1.16e-4) < 1e-6


def test_refuted_for_a_density_not_factorial_at_alpha_one():
    """A false density whose value at 1/2 is (ln 2)^(H-1)/(H/2)!: refuted even at α = 1."""
    def false(h, a):
        return lambda x: mpmath.log(1 / x) ** (h - 1) / mpmath.factorial(h // 2)

    ev = dead_zone.check(CheckContext(), density=false, profile=_consistent(false))
    assert ev.verdict == "refuted" and "at α = 1" in ev.counterexample
    assert ev.figures["scaled_attn"] > 1e6


def test_inconclusive_when_the_routes_disagree():
    ev = dead_zone.check(CheckContext(), profile=lambda L, H, a: 1.0)
    assert ev.verdict == "inconclusive" and not ev.figures["routes_agree"]


def test_card_states_the_setting_scope_and_proof(card_states):
    card_states("dead-zone", "paper", "numeric")
