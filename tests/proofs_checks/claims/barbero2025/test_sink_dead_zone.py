"""barbero2025:sink-dead-zone: the sink scales the k-th term by (1-α)^k; the discrete rollout
follows that density, not one scaled by (1-α)^H, and not one that a sink would raise."""

import mpmath

from posbias.proofs_checks.claims.barbero2025 import sink_dead_zone as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_with_the_chowdhury_values():
    r = run_claim(get_claim("barbero2025:sink-dead-zone"), CheckContext())
    f = r.evidence.figures
    assert r.evidence.verdict == "verified" and f["domination_failures"] == 0
    assert f["ratio_max"] < 1 and f["route_gap"] < 0.01
    rows = r.evidence.details["ρ(1/2) by λ and α"]
    assert rows["λ = 7/100"]["α = 0 (chowdhury2026)"].startswith("0.546")


def test_wrong_exponent_and_filled_middle_refuted():
    def wrong_exponent(H, alpha, lam):
        base = mod.sink_density_at(H, 0, lam)
        return lambda x: base(x) * (1 - mpmath.mpmathify(alpha)) ** H

    def filled(H, alpha, lam):
        base = mod.sink_density_at(H, 0, lam)
        return lambda x: base(x) * (1 + mpmath.mpmathify(alpha))

    for density in (wrong_exponent, filled):
        ev = mod.check(CheckContext(), density=density)
        assert ev.verdict == "refuted", density.__name__
