"""xiao2024:streaming-profile: the closed form equals the rollout and the fast path is log-safe;
a window polynomial one step too long, or sinks without mixing, are refuted."""

from fractions import Fraction

from posbias.errors import InvalidArgument
from posbias.numerics.sinks import streaming_profile_closed_exact
from posbias.proofs_checks.claims.xiao2024 import streaming_profile as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_and_log_safe():
    r = run_claim(get_claim("xiao2024:streaming-profile"), CheckContext())
    f = r.evidence.figures
    assert r.evidence.verdict == "verified" and f["route_mismatches"] == 0
    assert f["fast_log_error"] < 1e-10 and f["sink_mass_error"] < 1e-10


def test_false_closed_forms_refuted():
    def long_window(L, S, W, lams):  # the polynomial 1 + z + ... + z^W: a window of W + 1
        try:
            return streaming_profile_closed_exact(L, S, W + 1, lams)
        except InvalidArgument:  # no longer clear of the sinks: no closed form at all
            return [Fraction(0)] * L

    def flat_sinks(L, S, W, lams):
        p = streaming_profile_closed_exact(L, S, W, lams)
        mass = sum(p[:S], Fraction(0))
        return ([mass / S] * S if S else []) + p[S:]

    for closed in (long_window, flat_sinks):
        ev = mod.check(CheckContext(), closed=closed)
        assert ev.verdict == "refuted" and ev.figures["route_mismatches"] > 0, closed.__name__
