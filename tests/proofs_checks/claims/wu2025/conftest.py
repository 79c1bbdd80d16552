"""Helpers shared by the tests of wu2025's claims (fixtures: test files are imported by path and
cannot import each other)."""

from __future__ import annotations

import pytest

from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture
def expected_verdict_with_evidence():
    """Run a rollout claim (W1-W3) at the defaults: its expected verdict, with filled evidence,
    the rule in the details, and under 15 s."""

    def assert_for(claim_id: str) -> None:
        c = get_claim(claim_id)
        r = run_claim(c, CheckContext())
        ev = r.evidence
        assert ev.verdict == c.expected, ev.as_dict()
        assert ev.cases and ev.cases > 0 and ev.worst_margin and ev.parameters
        assert "verified" in ev.details["rule"] and "refuted" in ev.details["rule"]
        assert c.latex_text.strip() and c.section
        assert r.seconds < 15

    return assert_for
