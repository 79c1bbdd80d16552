"""posbias:rope-score-law: the expected verdict, and a non-orthogonal map (1.2 k) refuted
through the real Monte Carlo test."""

from __future__ import annotations

from posbias.proofs_checks.claims.posbias import rope_score_law
from posbias.proofs_checks.registry import CheckContext

CID = "posbias:rope-score-law"


def test_expected_verdict(continuum_expected_verdict):
    continuum_expected_verdict(CID)


def test_posbias_card_states_posbias_own_result(states_posbias_own_result):
    states_posbias_own_result(CID)


# --- power: the rule fed a plausible false version ----------------------------------------

def test_rope_score_law_non_orthogonal_map_refuted():
    ev = rope_score_law.check(CheckContext(), transform=lambda k, rng: 1.2 * k)
    assert ev.verdict == "refuted" and ev.figures["variance_z"] > 5
