"""posbias:bernstein (X2): verified (and, slow, with --thorough), never as an exact zero; the
check refutes a perturbed integral and (slow) a Binomial law in place of the Poisson-binomial."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from posbias.numerics.schedules import list_schedule
from posbias.proofs_checks.claims.posbias import bernstein
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

CID = "posbias:bernstein"
F = Fraction
CTX = CheckContext(max_dps=60)  # a false version is refuted after one escalation


def test_claim_verified(exact_structure_verified):
    exact_structure_verified(CID)


@pytest.mark.slow
def test_claim_verified_thorough(verified_thorough):
    verified_thorough(CID)


def test_bernstein_check_refutes_a_wrong_integral(monkeypatch):
    orig = bernstein.bernstein_profile_precise
    # a relative error of 1e-8 in every entry must be caught at any dps
    monkeypatch.setattr(bernstein, "bernstein_profile_precise",
                        lambda L, s, d: [x * (1 + mpmath.mpf(10) ** -8) for x in orig(L, s, d)])
    ev = run_claim(get_claim(CID), CheckContext(max_dps=60)).evidence
    assert ev.verdict == "refuted"


def test_numerical_agreement_is_not_reported_as_an_exact_zero(not_an_exact_zero):
    not_an_exact_zero(CID)


def test_posbias_card_states_posbias_own_result(states_posbias_own_result):
    states_posbias_own_result(CID)


# --- power: the rule fed a plausible false version ----------------------------------------

@pytest.mark.slow
def test_bernstein_binomial_law_in_place_of_poisson_binomial_refuted():
    def binomial(L, sched, d):
        if sched.is_rational:
            lams = sched.exact()
            mean = sum(lams, F(0)) / len(lams)
            sched = list_schedule([mean] * len(lams))
        return bernstein.bernstein_profile_precise(L, sched, d)

    ev = bernstein.check(CTX, profile=binomial)
    assert ev.verdict == "refuted" and "mixed" in ev.counterexample
