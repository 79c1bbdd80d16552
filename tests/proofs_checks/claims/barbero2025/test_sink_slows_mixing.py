"""barbero2025:sink-slows-mixing: every token after the first loses influence as the sink grows;
a sink read as extra mixing is refuted."""

from fractions import Fraction

from posbias.numerics.cesaro import cesaro_profile_exact
from posbias.proofs_checks.claims.barbero2025 import sink_slows_mixing as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_variant():
    r = run_claim(get_claim("barbero2025:sink-slows-mixing"), CheckContext())
    f = r.evidence.figures
    assert r.evidence.verdict == "verified" and r.scope == "variant"
    assert f["monotonicity_failures"] == f["strictness_failures"] == f["spread_failures"] == 0
    assert all(v < 0.1 for v in f["spread_ratio_at_4_5"].values())


def test_sink_as_extra_mixing_refuted():
    def extra(L, alpha, lams):  # the sink weight added to the mixing weight
        return cesaro_profile_exact(L, [min(Fraction(1), lam * (1 + alpha)) for lam in lams])

    ev = mod.check(CheckContext(), profile=extra)
    assert ev.verdict == "refuted" and ev.figures["monotonicity_failures"] > 0
