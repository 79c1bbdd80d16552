"""Agreement of two high-precision routes, with precision escalation.

Two mpmath routes are said to agree at working precision ``dps`` when their largest relative
discrepancy is below ``10**-(dps - guard)``: "agree to dps-guard of dps digits".
When they do not, both are recomputed at twice the precision, up to ``ctx.max_dps``; only then is
the answer "disagree" (if the discrepancy does not shrink) or "inconclusive" (if it shrinks but
precision ran out).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath

from posbias.numbers import mp_text

__all__ = ["Agreement", "agree", "max_rel_discrepancy"]


@dataclass(frozen=True)
class Agreement:
    """Outcome of :func:`agree`. ``state`` is ``"agree"``, ``"disagree"`` or ``"inconclusive"``."""

    state: str
    dps: int
    digits: int
    discrepancy: str
    history: tuple

    @property
    def ok(self) -> bool:
        return self.state == "agree"

    def tolerance(self) -> str:
        return f"{self.digits} of {self.dps} digits"


def max_rel_discrepancy(a: Any, b: Any) -> mpmath.mpf:
    """Largest ``|a_i - b_i| / max(|a_i|, |b_i|)`` (0 where both vanish)."""
    if not isinstance(a, (list, tuple)):
        a, b = [a], [b]
    if len(a) != len(b):
        raise ValueError(f"routes returned {len(a)} and {len(b)} values")
    worst = mpmath.mpf(0)
    for u, v in zip(a, b):
        x, y = mpmath.mpmathify(u), mpmath.mpmathify(v)
        scale = max(abs(x), abs(y))
        if scale == 0:
            continue
        worst = max(worst, abs(x - y) / scale)
    return worst


def agree(
    route_a: Callable[[int], object],
    route_b: Callable[[int], object],
    dps: int,
    max_dps: int,
    guard: int = 10,
) -> Agreement:
    """Compare ``route_a(dps)`` and ``route_b(dps)``; escalate the precision on disagreement.

    Each route is called inside ``mpmath.workdps(d)`` and returns an mpf or a sequence of them.

    >>> import mpmath
    >>> r = agree(lambda d: mpmath.pi, lambda d: 4 * mpmath.atan(1), 30, 60)
    >>> r.ok, r.dps, r.digits
    (True, 30, 20)
    """
    d = dps
    history = []
    while True:
        with mpmath.workdps(d):
            disc = max_rel_discrepancy(route_a(d), route_b(d))
            tol = mpmath.mpf(10) ** (-(d - guard))
            shown = mp_text(disc, 3, zero="0")
        history.append((d, shown))
        if disc <= tol:
            return Agreement("agree", d, d - guard, shown, tuple(history))
        if 2 * d > max_dps:
            # shrinking discrepancy at the last step: precision ran out, not a disagreement
            if len(history) >= 2:
                with mpmath.workdps(d):
                    prev = mpmath.mpf(history[-2][1])
                    if disc < prev / 10:
                        return Agreement("inconclusive", d, d - guard, shown, tuple(history))
            return Agreement("disagree", d, d - guard, shown, tuple(history))
        d *= 2
