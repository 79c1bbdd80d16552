"""Power of posbias' own rules at the claim level: every check, fed a plausible false version of
its statement (a parameter of the check: a wrong closed form, a wrong law, a wrong recurrence),
gives the refuted verdict through the real computation, and the stated version passes."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from math import comb

import mpmath
import numpy as np
import pytest
import sympy

from posbias.derivations import alibi
from posbias.numerics.alibi import alibi_propagate_precise
from posbias.numerics.schedules import list_schedule
from posbias.proofs_checks.claims import posbias as pb
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

F = Fraction
CTX = CheckContext(max_dps=60)  # a false version is refuted after one escalation


def test_laguerre_wrong_order_refuted():
    wrong = lambda h, a, t: a * (1 - a) ** (h - 1) * sympy.assoc_laguerre(h - 1, 0, -a * t / (1 - a))  # noqa: E731
    ev = pb.laguerre_check(CTX, closed=wrong)
    assert ev.verdict == "refuted" and ev.figures["discrepancy"][0] > 0.1
    assert ev.figures["symbolic_open"] > 0


@pytest.mark.slow
def test_alibi_density_without_its_jacobian_refuted_and_a_wrong_warp_qualified():
    no_jacobian = lambda h, ll=alibi.lam, yy=alibi.y: (  # noqa: E731
        sympy.log(1 / alibi.warp(yy, ll)) ** (h - 1) / sympy.factorial(h - 1))
    ev = pb.alibi_warp_check(CTX, density=no_jacobian)
    assert ev.verdict == "refuted" and ev.figures["discrepancy"][0] > 0.1
    other = lambda xx, ll=alibi.lam: (1 - sympy.exp(-ll * xx)) / (1 - sympy.exp(-ll))  # noqa: E731
    q = pb.alibi_warp_check(CTX, phi=other)
    assert q.verdict == "qualified" and "use u = (exp(lambda x) - 1)" in q.correction


def test_content_first_order_gamma_refuted():
    ev = pb.check_content_as_residual(CTX, gamma=lambda e, a: e * a)
    assert ev.verdict == "refuted"
    assert pb.check_content_as_residual(CheckContext()).verdict == "verified"


def test_linear_time_recurrence_without_the_diagonal_refuted_timing_never_decides():
    def no_diagonal(v, lay, dps):
        return alibi_propagate_precise(
            v, dataclasses.replace(lay, diagonal=np.zeros_like(lay.diagonal)), dps=dps)

    ev = pb.check_alibi_linear_time(CTX, propagate=no_diagonal)
    assert ev.verdict == "refuted" and ev.figures["operations_affine_in_L"]
    # the rule ignores the timing exponent: any value gives the same verdict
    good = run_claim(get_claim("posbias:alibi-linear-time")).evidence
    assert good.verdict == "verified"
    for e in (0.5, 1.0, 3.0):
        assert pb.LINEAR_TIME_RULE.apply({**good.figures, "time_exponent": e}).verdict == "verified"


def _shifted_hausdorff(L, lams):
    """A false X1: moments with a shifted index, μ_n = Π_t (1 - λ_t + λ_t/(n+2))."""
    lams = [F(x) for x in lams]
    mu = []
    for n in range(L):
        m = F(1)
        for lam in lams:
            m *= 1 - lam + lam / (n + 2)
        mu.append(m)
    N = L - 1
    return [comb(N, k) * sum((-1) ** j * comb(N - k, j) * mu[k + j] for j in range(N - k + 1))
            for k in range(L)]


def test_hausdorff_shifted_moments_refuted():
    ev = pb._check_hausdorff(CheckContext(), profile=_shifted_hausdorff)
    assert ev.verdict == "refuted" and ev.figures["mismatches"] == 1 and ev.counterexample


def test_symmetric_polynomial_wrong_degree_refuted():
    orig = pb.symmetric_polynomial_profile_exact
    ev = pb._check_symmetric(CheckContext(), profile=lambda L, H: orig(L, H + 1))
    assert ev.verdict == "refuted" and "H=0" in ev.counterexample


@pytest.mark.slow
def test_bernstein_binomial_law_in_place_of_poisson_binomial_refuted():
    def binomial(L, sched, d):
        if sched.is_rational:
            lams = sched.exact()
            mean = sum(lams, F(0)) / len(lams)
            sched = list_schedule([mean] * len(lams))
        return pb.bernstein_profile_precise(L, sched, d)

    ev = pb._check_bernstein(CTX, profile=binomial)
    assert ev.verdict == "refuted" and "mixed" in ev.counterexample


def test_products_sine_form_without_its_factor_refuted():
    wrong = lambda c: mpmath.sin(mpmath.pi * mpmath.sqrt(c)) / (mpmath.pi * mpmath.sqrt(c))  # noqa: E731
    ev = pb._check_products(CTX, sine=wrong)
    assert ev.verdict == "refuted" and max(ev.figures["discrepancy"]) > 0.1


def test_rope_score_law_non_orthogonal_map_refuted():
    ev = pb.rope_score_law_check(CheckContext(), transform=lambda k, rng: 1.2 * k)
    assert ev.verdict == "refuted" and ev.figures["variance_z"] > 5


@pytest.mark.parametrize("cid", ["posbias:laguerre", "posbias:alibi-warp",
                                 "posbias:content-as-residual", "posbias:hausdorff",
                                 "posbias:bernstein", "posbias:symmetric-polynomial",
                                 "posbias:schedule-products", "posbias:rope-score-law"])
def test_posbias_cards_state_posbias_own_result(cid):
    card = get_claim(cid).card.resolve()
    assert card["paper"].source.startswith("posbias")
    assert card["scope"] in ("paper", "reduced")


def test_alibi_linear_time_is_machinery():
    assert get_claim("posbias:alibi-linear-time").card.resolve()["scope"] == "machinery"
