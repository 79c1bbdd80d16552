"""Claims of the continuum family: verdicts as expected; the checks can fail."""

import pytest
import sympy

from posbias.proofs_checks import CheckContext, get_claim, run_claim
from posbias.proofs_checks.claims import posbias as pb

IDS = [
    "posbias:laguerre",
    "posbias:alibi-warp",
    "posbias:rope-score-law",
]


@pytest.mark.parametrize("claim_id", IDS)
def test_expected_verdict(claim_id):
    c = get_claim(claim_id)
    result = run_claim(c, CheckContext())
    ev = result.evidence
    assert ev.verdict == c.expected, ev.details
    assert ev.method
    latex = c.latex_text
    assert isinstance(latex, str) and latex
    if ev.verdict == "qualified":
        assert ev.correction


def test_laguerre_check_fails_for_wrong_form():
    def wrong(h, a, t):
        return a * (1 - a) ** (h - 1) * sympy.assoc_laguerre(h - 1, 1, a * t / (1 - a))
    ev = pb.laguerre_check(CheckContext(dps=20, max_dps=40), closed=wrong)
    assert ev.verdict == "refuted"


def test_alibi_check_reports_correct_warp_for_wrong_substitution():
    import sympy as sp

    from posbias.derivations import alibi

    def wrong(xx, ll=alibi.lam):
        return (1 - sp.exp(-ll * xx)) / (1 - sp.exp(-ll))
    ev = pb.alibi_warp_check(CheckContext(), phi=wrong)
    assert ev.verdict == "qualified"
    assert ev.details["working_warps"] == ["(exp(lambda x) - 1)/(exp(lambda) - 1)"]
    assert "(exp(lambda x) - 1)/(exp(lambda) - 1)" in ev.correction


@pytest.mark.slow
def test_thorough_laguerre_up_to_30():
    ev = pb.laguerre_check(CheckContext(thorough=True))
    assert ev.verdict == "verified"
    assert ev.details["symbolic"]["laguerre"]["identities"] == 31
