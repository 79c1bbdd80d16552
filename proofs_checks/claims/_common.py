"""Helpers shared by the claim modules (not a claim module: the leading underscore keeps it out
of the automatic registration)."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath

from posbias.proofs_checks.registry import CheckContext

__all__ = ["case_rng", "show_value"]


def case_rng(ctx: CheckContext, paper: str, slug: str) -> random.Random:
    """The seeded generator of one claim's cases: reproducible from ``ctx.seed`` and distinct
    per claim, so adding a claim never changes another claim's cases."""
    return random.Random(f"{ctx.seed}:{paper}:{slug}")


def show_value(x) -> str:
    """An exact value as ``p/q`` when short, else 6 correct significant digits.

    >>> show_value(Fraction(1, 3)), show_value(Fraction(10**30 + 1, 3 * 10**30))
    ('1/3', '0.333333')
    """
    if isinstance(x, Fraction):
        s = str(x)
        if len(s) <= 24:
            return s
        with mpmath.workdps(30):
            return mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, 6)
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 6)
    return str(x)
