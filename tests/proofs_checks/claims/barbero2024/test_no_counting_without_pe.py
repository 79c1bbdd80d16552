"""barbero2024:no-counting-without-pe: same-ratio sequences get the same representations without
mask and positions; a causal mask or positional vectors break it (the false versions)."""

import random

from posbias.proofs_checks.claims.barbero2024 import no_counting_without_pe as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_with_contrasts_that_see_differences():
    ev = run_claim(get_claim("barbero2024:no-counting-without-pe"), CheckContext()).evidence
    assert ev.verdict == "verified" and ev.figures["invariance_failures"] == 0
    assert ev.figures["contrasts_distinguished"] > 0


def test_same_ratio_pairs_keep_the_ratios():
    for a, b in mod.same_ratio_pairs(random.Random(0), 20):
        k = len(b) // len(a)
        assert sorted(b) == sorted(a * k) and a[-1] == b[-1]


def test_causal_mask_or_positions_refuted():
    for kwargs in ({"mask": "causal"}, {"positions": True}):
        ev = mod.check(CheckContext(), **kwargs)
        assert ev.verdict == "refuted" and ev.figures["invariance_failures"] > 0, kwargs
