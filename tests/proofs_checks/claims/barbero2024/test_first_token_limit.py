"""barbero2024:first-token-limit: the gap to the first-token limit shrinks on every kernel meeting
the assumption (the non-diagonalizable window of 2 included); without it the limit fails."""

from posbias.proofs_checks.claims.barbero2024 import first_token_limit as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_with_a_small_gap():
    r = run_claim(get_claim("barbero2024:first-token-limit"), CheckContext())
    ev = r.evidence
    assert ev.verdict == "verified" and ev.figures["criterion_failures"] == 0
    assert ev.figures["gap_at_256"] < 1e-4
    assert "Jordan block" in ev.details["proof note"]


def test_dropping_the_assumption_is_refuted():
    ev = mod.check(CheckContext(), identity_rows=True)
    assert ev.verdict == "refuted" and ev.figures["criterion_failures"] > 0
    assert ev.figures["gap_at_256"] == 1.0
