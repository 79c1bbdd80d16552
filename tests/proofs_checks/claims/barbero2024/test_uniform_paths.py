"""barbero2024:uniform-paths: three exact routes agree on the λ = 1/2 Cesàro rollout and the path
sum falls from the first token; shifted moments or no residual are refuted."""

from fractions import Fraction

from posbias.proofs_checks.claims.barbero2024 import uniform_paths as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_with_all_routes_and_monotone():
    r = run_claim(get_claim("barbero2024:uniform-paths"), CheckContext())
    assert r.evidence.verdict == "verified"
    assert r.evidence.figures == {"route_mismatches": 0, "monotone_failures": 0, "symbolic_proven": True}
    assert mod.uniform_moments(2, 3) == [Fraction(1), Fraction(27, 64)]


def test_false_moments_are_refuted():
    shifted = mod.check(CheckContext(), moments=lambda c, L: [((1 + Fraction(1, k + 2)) / 2) ** L
                                                            for k in range(c)])
    no_residual = mod.check(CheckContext(), moments=lambda c, L: [Fraction(1, k + 1) ** L
                                                                for k in range(c)])
    for ev in (shifted, no_residual):
        assert ev.verdict == "refuted" and ev.figures["route_mismatches"] > 0
