"""xiao2024:streaming-support: the support [1, S] ∪ [i - (W-1)T, i] on generated cases and at the
paper's cache settings; W steps per layer, or no sinks, are refuted."""

from posbias.proofs_checks.claims.xiao2024 import streaming_support as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified():
    r = run_claim(get_claim("xiao2024:streaming-support"), CheckContext())
    assert r.evidence.verdict == "verified" and r.scope == "reduced"
    assert r.evidence.figures == {"support_mismatches": 0, "paper_scale_mismatches": 0}


def test_mask_rows():
    assert mod.streaming_mask(5, 1, 2)[4] == [True, False, False, True, True]


def test_false_supports_refuted():
    def wide(i, S, W, T):
        lo = max(1, i - W * T) if T else i
        return ([(1, min(S, i))] if S and T else []) + [(lo, i)]

    def no_sinks(i, S, W, T):
        return [(max(1, i - (W - 1) * T), i)]

    for support in (wide, no_sinks):
        ev = mod.check(CheckContext(), support=support)
        assert ev.verdict == "refuted" and ev.figures["support_mismatches"] > 0, support.__name__
