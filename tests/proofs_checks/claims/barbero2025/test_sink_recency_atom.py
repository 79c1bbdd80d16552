"""barbero2025:sink-recency-atom: the atom (1-λ)^H does not depend on the sink; atoms that the
sink would scale are refuted."""

import pytest

from posbias.proofs_checks.claims.barbero2025 import sink_recency_atom as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_and_chowdhury_atoms():
    r = run_claim(get_claim("barbero2025:sink-recency-atom"), CheckContext())
    f = r.evidence.figures
    assert r.evidence.verdict == "verified" and r.scope == "paper"
    assert f["identity_failures"] == f["below_atom"] == f["continuum_failures"] == 0
    assert f["bernoulli_max"] <= 1
    assert f["atom_at_H24"]["7/100"] == 0.1752


@pytest.mark.slow
def test_scaled_atoms_refuted():
    scaled = mod.check(CheckContext(), atom=lambda lam, a, h: (1 - lam) ** h * (1 - a) ** h)
    sink_free = mod.check(CheckContext(), atom=lambda lam, a, h: (1 - lam * (1 - a)) ** h)
    assert scaled.verdict == "refuted" and scaled.figures["bernoulli_max"] > 1
    assert sink_free.verdict == "refuted" and sink_free.figures["below_atom"] > 0
