"""Comparing influence profiles: Wasserstein-1 on positions, Spearman, stochastic dominance.

Profiles are probability vectors ``p(1..L)`` on positions (:ref:`math-conventions`).  These are the
measures herasimchyk2026 and chowdhury2026 use to compare predicted and measured profiles
(Spearman correlation, Wasserstein distance) and the order in which herasimchyk2026 states its
drift results (first-order stochastic dominance, H2).

Exact inputs (ints/Fractions in every entry of both profiles) give exact results; anything else
is compared in float64.  Floats are never mixed into an exact result.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from posbias.errors import InvalidArgument

__all__ = ["Dominance", "spearman", "stochastically_dominates", "wasserstein1"]


def _all_exact(v: Sequence) -> bool:
    return all(isinstance(x, (Fraction, numbers.Integral)) and not isinstance(x, bool) for x in v)


def _as_list(p: Any, parameter: str) -> list:
    if isinstance(p, np.ndarray):
        if p.ndim != 1:
            raise InvalidArgument(parameter, f"an array of shape {p.shape}", "a vector (1-D)")
        return p.tolist()
    if isinstance(p, (str, bytes)) or not hasattr(p, "__iter__"):
        raise InvalidArgument(parameter, p, "a sequence of numbers")
    out = list(p)
    for k, x in enumerate(out):
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise InvalidArgument(f"{parameter}[{k + 1}]", x, "a real number")
    return out


def _unit_roundoff(*vs: Any) -> float:
    """Machine epsilon of the least precise floating array among the inputs (float64 default),
    so that profiles stored in float32 are checked at float32 precision."""
    eps = float(np.finfo(np.float64).eps)
    for v in vs:
        if isinstance(v, np.ndarray) and np.issubdtype(v.dtype, np.floating):
            eps = max(eps, float(np.finfo(v.dtype).eps))
    return eps


def _pair(p: Any, q: Any) -> tuple[list, list, bool]:
    a, b = _as_list(p, "p"), _as_list(q, "q")
    if len(a) == 0:
        raise InvalidArgument("p", a, "a non-empty profile")
    if len(a) != len(b):
        raise InvalidArgument("q", f"a profile of length {len(b)}", f"the length of p: {len(a)}")
    exact = _all_exact(a) and _all_exact(b)
    if exact:
        a = [Fraction(x) for x in a]
        b = [Fraction(x) for x in b]
    else:
        a = [float(x) for x in a]
        b = [float(x) for x in b]
        for name, v in (("p", a), ("q", b)):
            for k, x in enumerate(v):
                if x != x or abs(x) == float("inf"):
                    raise InvalidArgument(f"{name}[{k + 1}]", x, "a finite number")
    return a, b, exact


def _probability(v: list, name: str, exact: bool, eps: float) -> None:
    for k, x in enumerate(v):
        if x < 0:
            raise InvalidArgument(f"{name}[{k + 1}]", str(x) if exact else repr(x), "a probability >= 0")
    s = sum(v, Fraction(0)) if exact else float(np.sum(v))
    tol = 0 if exact else 8 * len(v) * eps
    if abs(s - 1) > tol:
        shown = str(s) if exact else f"{s:.17g}"
        allowed = "exactly 1" if exact else f"1 within {8 * len(v)} units of roundoff ({eps:.3g})"
        raise InvalidArgument(f"sum of {name}", shown, f"{allowed} (a probability vector on positions)")


def wasserstein1(p: Any, q: Any) -> Fraction | float:
    """Normalized Wasserstein-1 distance between two profiles on positions ``1..L``::

        W1(p, q) = Σ_{k=1}^{L-1} |F_p(k) - F_q(k)| / (L - 1),   F_p(k) = Σ_{j<=k} p(j),

    i.e. the earth mover's distance with positions rescaled to ``[0, 1]`` (``L = 1`` gives 0).
    Both profiles must be probability vectors (exactly for exact inputs; otherwise their sums
    must be 1 within ``8 L`` units of roundoff of the least precise input: float64, or float32
    for float32 arrays).  Returns a :class:`Fraction` when both are exact, else a float.

    >>> wasserstein1([1, 0, 0], [0, 0, 1])
    Fraction(1, 1)
    >>> wasserstein1([Fraction(1, 2), Fraction(1, 2)], [1, 0])
    Fraction(1, 2)
    >>> wasserstein1([0.5, 0.5], [0.25, 0.75])
    0.25

    Method: cumulative sums; herasimchyk2026 and chowdhury2026 report this distance between
    predicted and measured profiles.
    """
    a, b, exact = _pair(p, q)
    eps = _unit_roundoff(p, q)
    _probability(a, "p", exact, eps)
    _probability(b, "q", exact, eps)
    L = len(a)
    if L == 1:
        return Fraction(0) if exact else 0.0
    if exact:
        fa = fb = Fraction(0)
        total = Fraction(0)
        for k in range(L - 1):
            fa += a[k]
            fb += b[k]
            total += abs(fa - fb)
        return total / (L - 1)
    d = np.cumsum(np.asarray(a)[:-1]) - np.cumsum(np.asarray(b)[:-1])
    return float(np.sum(np.abs(d)) / (L - 1))


def _average_ranks(v: list) -> np.ndarray:
    """1-based ranks, ties sharing their average rank (``scipy.stats.rankdata``)."""
    from scipy.stats import rankdata  # imported here: scipy.stats costs 0.6 s of CLI start-up

    return rankdata(np.asarray(v, dtype=np.float64), method="average")


def spearman(p: Any, q: Any) -> float:
    """Spearman rank correlation of two equally long vectors (average ranks for ties), float.

        ρ_s = corr(rank(p), rank(q))   (Pearson correlation of the ranks)

    Parameters: ``p``, ``q`` real vectors of the same length ``>= 2``, neither constant
    (the correlation is undefined for a constant vector: :class:`InvalidArgument`).

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40])
    1.0
    >>> spearman([1, 2, 3], [3, 2, 1])
    -1.0
    >>> round(spearman([1, 2, 2, 3], [1, 3, 2, 4]), 12)
    0.948683298051

    Method: ranks of exact inputs are their exact order (ties preserved); float inputs are
    ranked by ``scipy.stats.rankdata``, and the ranks are correlated; herasimchyk2026 and chowdhury2026 report
    this correlation between predicted and measured profiles.
    """
    a, b = _as_list(p, "p"), _as_list(q, "q")
    if len(a) != len(b):
        raise InvalidArgument("q", f"a vector of length {len(b)}", f"the length of p: {len(a)}")
    if len(a) < 2:
        raise InvalidArgument("p", f"a vector of length {len(a)}", "a vector of length >= 2")
    ranks = []
    for name, v in (("p", a), ("q", b)):
        if _all_exact(v):
            # rank exactly: map each distinct exact value to its dense position
            distinct = sorted({Fraction(x) for x in v})
            pos = {x: k for k, x in enumerate(distinct)}
            r = _average_ranks([pos[Fraction(x)] for x in v])
        else:
            f = [float(x) for x in v]
            if any(x != x or abs(x) == float("inf") for x in f):
                raise InvalidArgument(name, v, "finite numbers")
            r = _average_ranks(f)
        if np.all(r == r[0]):
            raise InvalidArgument(
                name, "a constant vector", "a vector that is not constant (Spearman is undefined)"
            )
        ranks.append(r)
    # the Pearson correlation of the ranks, from centred ranks (scipy.stats.pearsonr loses the
    # last ulp of a perfect correlation: -0.9999999999999998 for reversed ranks)
    ra, rb = ranks[0] - ranks[0].mean(), ranks[1] - ranks[1].mean()
    rho = float(np.dot(ra, rb) / np.sqrt(np.dot(ra, ra) * np.dot(rb, rb)))
    return max(-1.0, min(1.0, rho))


@dataclass(frozen=True)
class Dominance:
    """Outcome of :func:`stochastically_dominates`.

    ``dominates`` is the verdict; ``worst_margin = min_k (F_q(k) - F_p(k))`` over
    ``k = 1..L-1`` (``k = 1`` when ``L = 1``), negative exactly when dominance fails;
    ``position`` the 1-indexed ``k`` where it is attained; ``exact`` whether the margin is a
    Fraction.
    """

    dominates: bool
    worst_margin: Any
    position: int
    exact: bool

    def __bool__(self) -> bool:
        return self.dominates


def stochastically_dominates(p: Any, q: Any, *, tol: float = 0.0) -> Dominance:
    """First-order stochastic dominance of ``p`` over ``q`` on positions.

    ``p`` dominates ``q`` (puts more mass on later positions) iff
    ``F_p(k) <= F_q(k)`` for all ``k`` (``F`` the CDFs); herasimchyk2026 (H2) states primacy
    and recency drift in this order.  Both must be probability vectors.  Exact when both are
    exact; in float64 a margin ``>= -tol`` counts as dominance.

    >>> stochastically_dominates([0, 0, 1], [1, 0, 0])
    Dominance(dominates=True, worst_margin=Fraction(1, 1), position=1, exact=True)
    >>> r = stochastically_dominates([Fraction(1, 2), 0, Fraction(1, 2)], [0, 1, 0])
    >>> r.dominates, r.worst_margin, r.position
    (False, Fraction(-1, 2), 1)
    """
    a, b, exact = _pair(p, q)
    eps = _unit_roundoff(p, q)
    _probability(a, "p", exact, eps)
    _probability(b, "q", exact, eps)
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not tol >= 0:
        raise InvalidArgument("tol", tol, "a tolerance >= 0")
    L = len(a)
    if exact:
        fa = fb = Fraction(0)
        worst, pos = None, 1
        for k in range(max(L - 1, 1)):
            fa += a[k]
            fb += b[k]
            m = fb - fa
            if L == 1:
                m = Fraction(0)
            if worst is None or m < worst:
                worst, pos = m, k + 1
        return Dominance(worst >= 0, worst, pos, True)
    if L == 1:
        return Dominance(True, 0.0, 1, False)
    d = np.cumsum(np.asarray(b)[:-1]) - np.cumsum(np.asarray(a)[:-1])
    k = int(np.argmin(d))
    worst = float(d[k])
    return Dominance(worst >= -float(tol), worst, k + 1, False)
