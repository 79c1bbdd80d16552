"""posbias:symmetric-polynomial (X3): verified (and, slow, with --thorough); the check refutes a
row with the degree off by one."""

from __future__ import annotations

import pytest

from posbias.proofs_checks.claims.posbias import symmetric_polynomial
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

CID = "posbias:symmetric-polynomial"


def test_claim_verified(exact_structure_verified):
    exact_structure_verified(CID)


@pytest.mark.slow
def test_claim_verified_thorough(verified_thorough):
    verified_thorough(CID)


def test_symmetric_check_refutes_a_wrong_formula(monkeypatch):
    orig = symmetric_polynomial.symmetric_polynomial_profile_exact
    monkeypatch.setattr(symmetric_polynomial, "symmetric_polynomial_profile_exact",
                        lambda L, H: orig(L, H + 1) if H == 3 else orig(L, H))
    ev = run_claim(get_claim(CID), CheckContext()).evidence
    assert ev.verdict == "refuted" and "H=3" in ev.counterexample


def test_posbias_card_states_posbias_own_result(states_posbias_own_result):
    states_posbias_own_result(CID)


# --- power: the rule fed a plausible false version ----------------------------------------

def test_symmetric_polynomial_wrong_degree_refuted():
    orig = symmetric_polynomial.symmetric_polynomial_profile_exact
    ev = symmetric_polynomial.check(CheckContext(), profile=lambda L, H: orig(L, H + 1))
    assert ev.verdict == "refuted" and "H=0" in ev.counterexample
