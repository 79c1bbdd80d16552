"""Helpers shared by the tests of posbias' own claims (fixtures: test files are imported by path
and cannot import each other)."""

from __future__ import annotations

import pytest

from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture
def exact_structure_verified():
    """An exact-structure claim (X1, X2, X3, X7) at the defaults: verified as expected, with its
    method, precision and cases, and a LaTeX statement."""

    def assert_for(cid):
        c = get_claim(cid)
        r = run_claim(c, CheckContext())
        assert r.evidence.verdict == c.expected == "verified", r.evidence.as_dict()
        assert r.evidence.method and r.evidence.precision
        assert r.evidence.cases and r.evidence.cases > 0
        assert c.latex_text.strip() and "\\" in c.latex_text

    return assert_for


@pytest.fixture
def verified_thorough():
    """A claim verified with --thorough (its larger grid)."""

    def assert_for(cid):
        r = run_claim(get_claim(cid), CheckContext(thorough=True))
        assert r.evidence.verdict == "verified", r.evidence.as_dict()

    return assert_for


@pytest.fixture
def continuum_expected_verdict():
    """A continuum-family claim (symbolic and numeric routes): its expected verdict, a method,
    a LaTeX statement, and a correction when qualified."""

    def assert_for(claim_id):
        c = get_claim(claim_id)
        result = run_claim(c, CheckContext())
        ev = result.evidence
        assert ev.verdict == c.expected, ev.details
        assert ev.method
        latex = c.latex_text
        assert isinstance(latex, str) and latex
        if ev.verdict == "qualified":
            assert ev.correction

    return assert_for


@pytest.fixture
def alibi_expected_verdict():
    """An ALiBi/content claim: its expected verdict with no internal error, a LaTeX statement."""

    def assert_for(cid):
        c = get_claim(cid)
        r = run_claim(c, CheckContext())
        ev = r.evidence
        assert "error" not in ev.details, ev.details
        assert ev.verdict == c.expected, ev.as_dict()
        assert c.latex_text and "\\" in c.latex_text

    return assert_for


@pytest.fixture
def not_an_exact_zero():
    """A numerical agreement (quadrature, Gamma) is not reported as an exact zero."""

    def assert_for(cid):
        ev = run_claim(get_claim(cid), CheckContext()).evidence
        assert ev.discrepancy != "0" and ev.discrepancy != "0 (exact)"

    return assert_for


@pytest.fixture
def states_posbias_own_result():
    """The card of a posbias claim states posbias' own result (paper or reduced scope)."""

    def assert_for(cid):
        card = get_claim(cid).card.resolve()
        assert card["paper"].source.startswith("posbias")
        assert card["scope"] in ("paper", "reduced")

    return assert_for
