"""Helpers shared by wu2025's attention-only rollout claims (W1-W3): the seeded case generator
of a claim, the lower bound ε of generated kernels on their mask, and the exact margin floor of
their rules."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath

from posbias.numerics.kernels import min_entry_on_mask
from posbias.proofs_checks.cards import Threshold
from posbias.proofs_checks.claims._common import case_rng
from posbias.proofs_checks.registry import CheckContext

__all__ = ["FIXED_DATE", "PAPER", "claim_rng", "epsilon", "margin_floor", "mpf"]

PAPER = "wu2025"

#: the date of the commit that fixed wu2025's rules, before the results they decide
FIXED_DATE = "2026-12-01"


def claim_rng(ctx: CheckContext, slug: str) -> random.Random:
    """The seeded generator of the cases of claim ``wu2025:<slug>``."""
    return case_rng(ctx, PAPER, slug)


def mpf(x: Fraction) -> mpmath.mpf:
    """An exact rational as an mpmath number at the working precision."""
    return mpmath.mpmathify(x)


def epsilon(kernels: list, mask: list) -> Fraction:
    """ε of a stack of kernels: the smallest entry on ``mask`` of any of them (each distinct
    kernel object read once)."""
    seen = {}
    for A in kernels:
        if id(A) not in seen:
            seen[id(A)] = min_entry_on_mask(A, mask)
    return min(seen.values())


def margin_floor() -> dict:
    """The threshold of an exact margin: it must be >= 0, with no tolerance."""
    return {"margin_floor": Threshold(0, "an exact margin must be >= 0 (exact arithmetic: no "
                                      "tolerance)", scale="fixed")}
