"""Claims of the continuum family: verdicts as expected; the checks can fail."""

import pytest
import sympy

from posbias.proofs_checks import CheckContext, get_claim, run_claim
from posbias.proofs_checks.claims import posbias as pb
from posbias.proofs_checks.claims.chowdhury2026 import _legacy as ch

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


def test_rope_score_law_detects_a_non_orthogonal_map():
    ev = ch.rope_law_check(CheckContext(), transform=lambda k, rng: 1.2 * k)
    assert ev.verdict == "refuted"
    assert ev.counterexample


def test_rope_score_law_inconclusive_when_an_identity_stays_open(monkeypatch):
    import dataclasses

    from posbias.proofs_checks.claims import _common

    orig = _common.derivation_by_name

    def open_identity(name):
        d = orig(name)
        bad = dataclasses.replace(d.identities[0], residual=1, proven=False)
        return dataclasses.replace(d, identities=(bad, *d.identities[1:]))

    monkeypatch.setattr(ch, "derivation_by_name", open_identity)
    ev = ch.rope_law_check(CheckContext())
    assert ev.verdict == "inconclusive", ev.as_dict()


def test_rope_monte_carlo_is_seeded():
    a = ch.rope_monte_carlo(5, samples=2000, dim=8)
    b = ch.rope_monte_carlo(5, samples=2000, dim=8)
    assert a == b
    assert a["ks_ok"] and a["moments_ok"]


def test_ks_statistic():
    assert ch.ks_two_sample([0, 1, 2, 3], [10, 11, 12, 13]) == 1.0
    assert ch.ks_two_sample([0, 1], [0, 1]) == 0.0


@pytest.mark.slow
def test_thorough_laguerre_up_to_30():
    ev = pb.laguerre_check(CheckContext(thorough=True))
    assert ev.verdict == "verified"
    assert ev.details["symbolic"]["laguerre"]["identities"] == 31
