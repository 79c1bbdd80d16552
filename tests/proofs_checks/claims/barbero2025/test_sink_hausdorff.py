"""barbero2025:sink-hausdorff: four exact routes agree on the sink layer's Hausdorff moments; the
moments without the sink, or with the sink weight on every moment, are refuted."""

from fractions import Fraction

from posbias.numerics.sinks import sink_moments_exact
from posbias.proofs_checks.claims.barbero2025 import sink_hausdorff as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified():
    r = run_claim(get_claim("barbero2025:sink-hausdorff"), CheckContext())
    assert r.evidence.verdict == "verified" and r.evidence.figures["route_mismatches"] == 0


def _false(extra):
    def moments(count, alpha, lams):
        out = []
        for k in range(count):
            mu = Fraction(1)
            for lam in lams:
                mu *= (1 - lam) + lam * (extra(alpha, k) + (1 - alpha) / (k + 1))
            out.append(mu)
        return out
    return moments


def test_false_moments_refuted():
    no_sink = mod.check(CheckContext(), moments=_false(lambda a, k: 0))
    everywhere = mod.check(CheckContext(), moments=_false(lambda a, k: a))
    for ev in (no_sink, everywhere):
        assert ev.verdict == "refuted" and ev.figures["route_mismatches"] > 0
    assert _false(lambda a, k: a if k == 0 else 0)(3, Fraction(1, 2), [1]) == sink_moments_exact(
        3, Fraction(1, 2), [1])
