"""posbias:schedule-products (X7): verified (and, slow, with --thorough), never as an exact
zero; the check refutes a wrong Hurwitz-zeta tail and the sine form without its factor."""

from __future__ import annotations

import mpmath
import pytest

from posbias.proofs_checks.claims.posbias import schedule_products
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

CID = "posbias:schedule-products"
CTX = CheckContext(max_dps=60)  # a false version is refuted after one escalation


def test_claim_verified(exact_structure_verified):
    exact_structure_verified(CID)


@pytest.mark.slow
def test_claim_verified_thorough(verified_thorough):
    verified_thorough(CID)


def test_products_check_refutes_a_wrong_tail(monkeypatch):
    monkeypatch.setattr(schedule_products, "_tail_factor", lambda c, T, d: 1)
    ev = run_claim(get_claim(CID), CheckContext(max_dps=60)).evidence
    assert ev.verdict == "refuted" and "c = 1 - 1/" in ev.counterexample


def test_numerical_agreement_is_not_reported_as_an_exact_zero(not_an_exact_zero):
    not_an_exact_zero(CID)


def test_posbias_card_states_posbias_own_result(states_posbias_own_result):
    states_posbias_own_result(CID)


# --- power: the rule fed a plausible false version ----------------------------------------

def test_products_sine_form_without_its_factor_refuted():
    wrong = lambda c: mpmath.sin(mpmath.pi * mpmath.sqrt(c)) / (mpmath.pi * mpmath.sqrt(c))  # noqa: E731
    ev = schedule_products.check(CTX, sine=wrong)
    assert ev.verdict == "refuted" and max(ev.figures["discrepancy"]) > 0.1
