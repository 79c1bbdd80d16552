"""posbias:laguerre: the expected verdict, and the check refutes wrong closed forms (the
order-0 Laguerre polynomial, a sign flip in its argument); with --thorough (slow) H = 1..30."""

from __future__ import annotations

import pytest
import sympy

from posbias.proofs_checks.claims.posbias import laguerre
from posbias.proofs_checks.registry import CheckContext

CID = "posbias:laguerre"
CTX = CheckContext(max_dps=60)  # a false version is refuted after one escalation


def test_expected_verdict(continuum_expected_verdict):
    continuum_expected_verdict(CID)


def test_laguerre_check_fails_for_wrong_form():
    def wrong(h, a, t):
        return a * (1 - a) ** (h - 1) * sympy.assoc_laguerre(h - 1, 1, a * t / (1 - a))
    ev = laguerre.check(CheckContext(dps=20, max_dps=40), closed=wrong)
    assert ev.verdict == "refuted"


@pytest.mark.slow
def test_thorough_laguerre_up_to_30():
    ev = laguerre.check(CheckContext(thorough=True))
    assert ev.verdict == "verified"
    assert ev.details["symbolic"]["laguerre"]["identities"] == 31


def test_posbias_card_states_posbias_own_result(states_posbias_own_result):
    states_posbias_own_result(CID)


# --- power: the rule fed a plausible false version ----------------------------------------

def test_laguerre_wrong_order_refuted():
    wrong = lambda h, a, t: a * (1 - a) ** (h - 1) * sympy.assoc_laguerre(h - 1, 0, -a * t / (1 - a))  # noqa: E731
    ev = laguerre.check(CTX, closed=wrong)
    assert ev.verdict == "refuted" and ev.figures["discrepancy"][0] > 0.1
    assert ev.figures["symbolic_open"] > 0
