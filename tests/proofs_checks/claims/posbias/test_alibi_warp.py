"""posbias:alibi-warp (X6): the expected verdict; a wrong substitution is qualified with the
working warp named; (slow) the density without its Jacobian is refuted."""

from __future__ import annotations

import pytest
import sympy

from posbias.derivations import alibi
from posbias.proofs_checks.claims.posbias import alibi_warp
from posbias.proofs_checks.registry import CheckContext

CID = "posbias:alibi-warp"
CTX = CheckContext(max_dps=60)  # a false version is refuted after one escalation


def test_expected_verdict(continuum_expected_verdict):
    continuum_expected_verdict(CID)


def test_alibi_check_reports_correct_warp_for_wrong_substitution():
    def wrong(xx, ll=alibi.lam):
        return (1 - sympy.exp(-ll * xx)) / (1 - sympy.exp(-ll))
    ev = alibi_warp.check(CheckContext(), phi=wrong)
    assert ev.verdict == "qualified"
    assert ev.details["working_warps"] == ["(exp(lambda x) - 1)/(exp(lambda) - 1)"]
    assert "(exp(lambda x) - 1)/(exp(lambda) - 1)" in ev.correction


def test_posbias_card_states_posbias_own_result(states_posbias_own_result):
    states_posbias_own_result(CID)


# --- power: the rule fed plausible false versions -----------------------------------------

@pytest.mark.slow
def test_alibi_density_without_its_jacobian_refuted_and_a_wrong_warp_qualified():
    no_jacobian = lambda h, ll=alibi.lam, yy=alibi.y: (  # noqa: E731
        sympy.log(1 / alibi.warp(yy, ll)) ** (h - 1) / sympy.factorial(h - 1))
    ev = alibi_warp.check(CTX, density=no_jacobian)
    assert ev.verdict == "refuted" and ev.figures["discrepancy"][0] > 0.1
    other = lambda xx, ll=alibi.lam: (1 - sympy.exp(-ll * xx)) / (1 - sympy.exp(-ll))  # noqa: E731
    q = alibi_warp.check(CTX, phi=other)
    assert q.verdict == "qualified" and "use u = (exp(lambda x) - 1)" in q.correction
