"""Shape statistics of an influence profile, one definition of each, with and without the final
token.

A profile ``p`` is a probability vector on positions ``1..L`` (``p[j-1]`` is ``p(j)``): the last
row of a rollout, or a measured influence profile.  The statistics the papers' shape claims rest
on:

* the **U factor** (chowdhury2026 C7, herasimchyk2026 H3): over ``BINS`` consecutive blocks of
  positions, the smaller of (first block / valley block) and (last block / valley block), where
  the valley block is the block with the smallest mean; a profile is a macroscopic U when the
  valley block is interior and the U factor reaches the rule's factor;
* the **valley depth** ``D`` (chowdhury2026 C11's dead zone): smallest block mean over the mean
  of the block means (1 for a flat profile);
* the **peak/valley ratio** ``R`` (chowdhury2026 C7): ``max(p(1), p(end)) / min_j p(j)``, with
  its two parts ``p(1)/min`` and ``p(end)/min`` and the position of the minimum;
* the **atoms**: ``p(1)/p(2)`` and ``p(end)/p(end-1)``, how far the two end tokens stand above
  their neighbours (a recency atom such as chowdhury2026's ``(1-α)^H`` makes the second large).

The final position's influence on itself carries the residual path (the recency atom), which in
a deep residual model can stand orders of magnitude above its neighbours.  A statistic that
reads ``p(L)`` can then be decided by that one token: a "U" whose right arm is the final token
alone says nothing about the middle of the context.  So every statistic is computed twice
(:func:`shape_with_and_without_final`): on the whole profile, and on ``p(1..L-1)``, the profile
without the final token's self-influence (not renormalised: every statistic here is a ratio, so
the scale does not matter).  :func:`final_token_decides` says whether a rule's verdict changes
between the two.

>>> s = shape_with_and_without_final([8, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 30],
...                                  bins=6)
>>> s["with"].u, s["without"].u
(True, False)
>>> s["with"].last_atom, s["without"].last_atom
(30.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from posbias.errors import InvalidArgument

__all__ = [
    "BINS",
    "U_FACTOR",
    "Shape",
    "block_means",
    "final_token_decides",
    "profile_shape",
    "shape_with_and_without_final",
]

#: blocks of the macroscopic profile (a context's shape without single-token spikes)
BINS = 16
#: a macroscopic U: both end blocks at least this many times the (interior) valley block
U_FACTOR = 2.0


def block_means(profile: ArrayLike, bins: int = BINS) -> np.ndarray:
    """Mean of ``profile`` over ``bins`` consecutive, nearly equal blocks of positions (numpy's
    ``array_split``: the first ``L mod bins`` blocks hold one position more).

    >>> block_means([4, 2, 1, 1, 2, 6], bins=3).tolist()
    [3.0, 1.0, 4.0]
    """
    p = np.asarray(profile, dtype=float)
    if p.ndim != 1 or p.size < bins:
        raise InvalidArgument("profile", f"{p.size} positions", f"at least {bins} positions")
    return np.array([blk.mean() for blk in np.array_split(p, bins)])


@dataclass(frozen=True)
class Shape:
    """The shape statistics of one profile (positions 1-indexed; ratios as floats).

    ``u`` is the macroscopic U test at :data:`U_FACTOR`: the valley block interior and both end
    blocks at least that factor above it; a rule with another factor reads ``u_factor`` and
    ``interior_valley``.
    """

    L: int
    argmin: int
    first_over_min: float
    last_over_min: float
    peak_valley: float
    valley_block: int
    interior_valley: bool
    first_block_over_valley: float
    last_block_over_valley: float
    u_factor: float
    valley_depth: float
    first_atom: float
    last_atom: float
    bins: int

    @property
    def u(self) -> bool:
        return self.interior_valley and self.u_factor >= U_FACTOR

    def as_dict(self) -> dict:
        return {**asdict(self), "u": self.u}


def _ratio(a: float, b: float) -> float:
    if b > 0:
        return a / b
    return math.inf if a > 0 else math.nan


def profile_shape(profile: ArrayLike, bins: int = BINS) -> Shape:
    """The shape statistics of ``profile`` (non-negative, at least ``bins`` positions and two).

    >>> s = profile_shape([4, 2, 1, 1, 2, 6], bins=3)
    >>> s.argmin, s.peak_valley, s.valley_block, s.u_factor, s.valley_depth, s.last_atom
    (3, 6.0, 2, 3.0, 0.375, 3.0)
    """
    p = np.asarray(profile, dtype=float)
    if p.ndim != 1 or p.size < max(2, bins):
        raise InvalidArgument("profile", f"{p.size} positions",
                              f"at least {max(2, bins)} positions")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise InvalidArgument("profile", "a value that is negative or not finite",
                              "finite non-negative influences")
    k = int(np.argmin(p))
    m = float(p[k])
    b = block_means(p, bins)
    v = int(np.argmin(b))
    first_b, last_b = _ratio(float(b[0]), float(b[v])), _ratio(float(b[-1]), float(b[v]))
    return Shape(
        L=int(p.size), argmin=k + 1,
        first_over_min=_ratio(float(p[0]), m), last_over_min=_ratio(float(p[-1]), m),
        peak_valley=_ratio(max(float(p[0]), float(p[-1])), m),
        valley_block=v + 1, interior_valley=bool(0 < v < bins - 1),
        first_block_over_valley=first_b, last_block_over_valley=last_b,
        u_factor=min(first_b, last_b), valley_depth=_ratio(float(b[v]), float(b.mean())),
        first_atom=_ratio(float(p[0]), float(p[1])), last_atom=_ratio(float(p[-1]), float(p[-2])),
        bins=bins)


def shape_with_and_without_final(profile: ArrayLike, bins: int = BINS) -> dict[str, Shape]:
    """``{"with": ..., "without": ...}``: :func:`profile_shape` of the whole profile and of the
    profile without the final position (its self-influence), ``p(1..L-1)``."""
    p = np.asarray(profile, dtype=float)
    return {"with": profile_shape(p, bins), "without": profile_shape(p[:-1], bins)}


def final_token_decides(decide: Callable[[Shape], Any], profile: ArrayLike,
                        bins: int = BINS) -> Mapping[str, Any]:
    """Apply ``decide`` (a function of a :class:`Shape`, e.g. a rule's verdict on one profile) to
    the profile with and without its final token; ``decided_by_final_token`` is True when the two
    differ, i.e. the final token's self-influence alone decides.

    >>> r = final_token_decides(lambda s: s.u, [8, 4, 2, 1, 1, 1, 1, 1, 30], bins=3)
    >>> r["with"], r["without"], r["decided_by_final_token"]
    (True, False, True)
    """
    s = shape_with_and_without_final(profile, bins)
    a, b = decide(s["with"]), decide(s["without"])
    return {"with": a, "without": b, "decided_by_final_token": a != b}
