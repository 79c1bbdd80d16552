"""The posbias:* exact-structure claims: verdicts as computed, and each check can fail."""

from __future__ import annotations

import mpmath
import pytest

from posbias.proofs_checks import CheckContext, get_claim, run_claim
from posbias.proofs_checks.claims import posbias as posbias_exact

IDS = ["posbias:hausdorff", "posbias:bernstein", "posbias:symmetric-polynomial",
       "posbias:schedule-products"]


@pytest.mark.parametrize("cid", IDS)
def test_claim_verified(cid):
    c = get_claim(cid)
    r = run_claim(c, CheckContext())
    assert r.evidence.verdict == c.expected == "verified", r.evidence.as_dict()
    assert r.evidence.method and r.evidence.precision
    assert r.evidence.cases and r.evidence.cases > 0
    assert c.latex_text.strip() and "\\" in c.latex_text


@pytest.mark.slow
@pytest.mark.parametrize("cid", IDS)
def test_claim_verified_thorough(cid):
    r = run_claim(get_claim(cid), CheckContext(thorough=True))
    assert r.evidence.verdict == "verified", r.evidence.as_dict()


def test_default_run_is_fast():
    total = sum(run_claim(get_claim(cid), CheckContext()).seconds for cid in IDS)
    assert total < 20  # budget 10 s on a quiet machine; margin for shared CI cores


def test_hausdorff_check_refutes_a_wrong_formula(monkeypatch):
    orig = posbias_exact.hausdorff_profile_exact

    def wrong(L, lams):  # swap the first two entries: a formula that is wrong for L >= 3
        p = list(orig(L, lams))
        if L >= 3:
            p[0], p[1] = p[1], p[0]
        return p

    monkeypatch.setattr(posbias_exact, "hausdorff_profile_exact", wrong)
    ev = run_claim(get_claim("posbias:hausdorff"), CheckContext()).evidence
    assert ev.verdict == "refuted" and "L=" in ev.counterexample


def test_symmetric_check_refutes_a_wrong_formula(monkeypatch):
    orig = posbias_exact.symmetric_polynomial_profile_exact
    monkeypatch.setattr(posbias_exact, "symmetric_polynomial_profile_exact",
                        lambda L, H: orig(L, H + 1) if H == 3 else orig(L, H))
    ev = run_claim(get_claim("posbias:symmetric-polynomial"), CheckContext()).evidence
    assert ev.verdict == "refuted" and "H=3" in ev.counterexample


def test_bernstein_check_refutes_a_wrong_integral(monkeypatch):
    orig = posbias_exact.bernstein_profile_precise
    # a relative error of 1e-8 in every entry must be caught at any dps
    monkeypatch.setattr(posbias_exact, "bernstein_profile_precise",
                        lambda L, s, d: [x * (1 + mpmath.mpf(10) ** -8) for x in orig(L, s, d)])
    ev = run_claim(get_claim("posbias:bernstein"), CheckContext(max_dps=60)).evidence
    assert ev.verdict == "refuted"


def test_products_check_refutes_a_wrong_tail(monkeypatch):
    monkeypatch.setattr(posbias_exact, "_tail_factor", lambda c, T, d: 1)
    ev = run_claim(get_claim("posbias:schedule-products"), CheckContext(max_dps=60)).evidence
    assert ev.verdict == "refuted" and "c = 1 - 1/" in ev.counterexample


def test_numerical_agreement_is_not_reported_as_an_exact_zero():
    from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

    for cid in ("posbias:bernstein", "posbias:schedule-products"):
        ev = run_claim(get_claim(cid), CheckContext()).evidence
        assert ev.discrepancy != "0" and ev.discrepancy != "0 (exact)"
