"""posbias:hausdorff (X1): verified (and, slow, with --thorough); the check refutes a wrong
formula and moments with a shifted index."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from posbias.proofs_checks.claims.posbias import hausdorff
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

CID = "posbias:hausdorff"
F = Fraction


def test_claim_verified(exact_structure_verified):
    exact_structure_verified(CID)


@pytest.mark.slow
def test_claim_verified_thorough(verified_thorough):
    verified_thorough(CID)


def test_hausdorff_check_refutes_a_wrong_formula(monkeypatch):
    orig = hausdorff.hausdorff_profile_exact

    def wrong(L, lams):  # swap the first two entries: a formula that is wrong for L >= 3
        p = list(orig(L, lams))
        if L >= 3:
            p[0], p[1] = p[1], p[0]
        return p

    monkeypatch.setattr(hausdorff, "hausdorff_profile_exact", wrong)
    ev = run_claim(get_claim(CID), CheckContext()).evidence
    assert ev.verdict == "refuted" and "L=" in ev.counterexample


def test_posbias_card_states_posbias_own_result(states_posbias_own_result):
    states_posbias_own_result(CID)


# --- power: the rule fed a plausible false version ----------------------------------------

def _shifted_hausdorff(L, lams):
    """A false X1: moments with a shifted index, μ_n = Π_t (1 - λ_t + λ_t/(n+2))."""
    lams = [F(x) for x in lams]
    mu = []
    for n in range(L):
        m = F(1)
        for lam in lams:
            m *= 1 - lam + lam / (n + 2)
        mu.append(m)
    N = L - 1
    return [comb(N, k) * sum((-1) ** j * comb(N - k, j) * mu[k + j] for j in range(N - k + 1))
            for k in range(L)]


def test_hausdorff_shifted_moments_refuted():
    ev = hausdorff.check(CheckContext(), profile=_shifted_hausdorff)
    assert ev.verdict == "refuted" and ev.figures["mismatches"] == 1 and ev.counterexample
