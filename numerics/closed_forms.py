"""Closed forms of the Cesàro rollout: independent routes to the same numbers.

Each function here computes rollout entries by a formula that does not propagate rows, so it can
check :mod:`posbias.numerics.cesaro` (and vice versa).  All are exact (Fractions / integers)
except the Bernstein integral, which is evaluated with mpmath quadrature on purpose (a genuinely
different route).  Indices ``n, k`` are 0-indexed (``P[n, k]`` is the 1-indexed entry
``P[n+1, k+1]``); profiles are lists with entry ``j-1`` holding ``p(j)``.

- Hausdorff form (:ref:`X1 <math-x1>`): ``M`` is the Hausdorff matrix of the moments ``1/(n+1)``, so the
  rollout is the Hausdorff matrix of ``μ_n = Π_t (1 - λ_t + λ_t/(n+1))``:
  ``P[n, k] = C(n, k) Σ_{j=0}^{n-k} (-1)^j C(n-k, j) μ_{k+j}``; eigenvalues and diagonal ``μ_n``.
- Symmetric-polynomial form (X3), ``λ ≡ 1``: ``(M^H)[L, j] = (1/L) h_{H-1}(1/j, ..., 1/L)``.
- Bernstein form (X2): ``P[n, k] = C(n, k) ∫_0^1 x^k (1-x)^{n-k} dχ(x)``, ``χ`` the law of
  ``U_1 ⋯ U_K``, ``K`` Poisson-binomial(λ_1..λ_T), ``U_i`` i.i.d. uniform.
- The full rollout matrix by explicit dense products (small ``L``).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import mpmath

from posbias.errors import InvalidArgument
from posbias.numerics._arith import as_rational, binomial
from posbias.numerics.schedules import ScheduleLike, as_schedule
from posbias.validation import MAX_LENGTH, check_dps, check_integer

__all__ = [
    "bernstein_entry_precise",
    "bernstein_profile_precise",
    "cesaro_matrix_exact",
    "cesaro_rollout_matrix_exact",
    "complete_homogeneous_exact",
    "hausdorff_entry_exact",
    "hausdorff_matrix_exact",
    "hausdorff_moments",
    "hausdorff_profile_exact",
    "hausdorff_row_exact",
    "hausdorff_row_from_moments",
    "poisson_binomial_exact",
    "poisson_binomial_precise",
    "symmetric_polynomial_profile_exact",
]




def hausdorff_moments(count: int, schedule: ScheduleLike) -> list[Fraction]:
    """``μ_n = Π_t (1 - λ_t + λ_t / (n+1))`` for ``n = 0..count-1``, exactly (:ref:`X1 <math-x1>`).

    They are the moments ``E[X^n]`` of ``χ`` (X2), the eigenvalues of the rollout and its
    diagonal ``P[i, i] = μ_{i-1}``.

    >>> hausdorff_moments(3, [1, 1])
    [Fraction(1, 1), Fraction(1, 4), Fraction(1, 9)]
    """
    count = check_integer("count", count, 1, MAX_LENGTH)
    lams = as_schedule(schedule).exact()
    out = []
    for n in range(count):
        num, den = 1, 1
        for lam in lams:
            a, b = lam.numerator, lam.denominator
            num *= (b - a) * (n + 1) + a
            den *= b * (n + 1)
        out.append(Fraction(num, den))
    return out


def _entry_from_moments(n: int, k: int, mu: list) -> Fraction:
    m = n - k
    total = Fraction(0)
    for j in range(m + 1):
        term = binomial(m, j) * mu[k + j]
        total += -term if j % 2 else term
    return binomial(n, k) * total


def hausdorff_entry_exact(n: int, k: int, schedule: ScheduleLike) -> Fraction:
    """``P[n, k] = C(n, k) Σ_{j=0}^{n-k} (-1)^j C(n-k, j) μ_{k+j}`` (0-indexed; 0 for ``k > n``).

    Exact only: the alternating sum cancels catastrophically in floating point.
    Paper: :ref:`X1 <math-x1>` (beyond the papers; M as a Hausdorff matrix).

    >>> hausdorff_entry_exact(2, 0, [1, 1])
    Fraction(11, 18)
    """
    n = check_integer("n", n, 0, MAX_LENGTH - 1)
    k = check_integer("k", k, 0, MAX_LENGTH - 1)
    if k > n:
        return Fraction(0)
    return _entry_from_moments(n, k, hausdorff_moments(n + 1, schedule))


def hausdorff_row_exact(n: int, schedule: ScheduleLike) -> list[Fraction]:
    """Row ``n`` (0-indexed) of the rollout from the Hausdorff formula: ``P[n, 0..n]``.

    >>> hausdorff_row_exact(2, [Fraction(1, 2)])
    [Fraction(1, 6), Fraction(1, 6), Fraction(2, 3)]
    """
    n = check_integer("n", n, 0, MAX_LENGTH - 1)
    mu = hausdorff_moments(n + 1, schedule)
    return [_entry_from_moments(n, k, mu) for k in range(n + 1)]


def hausdorff_row_from_moments(n: int, moments: list[Fraction]) -> list[Fraction]:
    """Row ``n`` (0-indexed) of the Hausdorff matrix of any exact moments ``μ_0..μ_n``:
    ``P[n, k] = C(n, k) Σ_j (-1)^j C(n-k, j) μ_{k+j}`` (exact only).

    >>> hausdorff_row_from_moments(1, [Fraction(1), Fraction(0)])   # the point mass at 0: J_1
    [Fraction(1, 1), Fraction(0, 1)]
    """
    n = check_integer("n", n, 0, MAX_LENGTH - 1)
    mu = [as_rational(m, "moments") for m in moments]
    if len(mu) < n + 1:
        raise InvalidArgument("moments", f"{len(mu)} values", f"at least n + 1 = {n + 1}")
    return [_entry_from_moments(n, k, mu) for k in range(n + 1)]


def hausdorff_profile_exact(length: int, schedule: ScheduleLike) -> list[Fraction]:
    """The influence profile (last row, ``n = L-1``) from the Hausdorff formula; ``O(L^2)``.

    >>> hausdorff_profile_exact(3, [1, 1])
    [Fraction(11, 18), Fraction(5, 18), Fraction(1, 9)]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    return hausdorff_row_exact(L - 1, schedule)


def hausdorff_matrix_exact(length: int, schedule: ScheduleLike) -> list[list[Fraction]]:
    """The whole ``L x L`` rollout from the Hausdorff formula (zeros above the diagonal).

    >>> hausdorff_matrix_exact(2, [1])
    [[Fraction(1, 1), Fraction(0, 1)], [Fraction(1, 2), Fraction(1, 2)]]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    mu = hausdorff_moments(L, schedule)
    return [
        [_entry_from_moments(n, k, mu) if k <= n else Fraction(0) for k in range(L)]
        for n in range(L)
    ]


def complete_homogeneous_exact(degree: int, values: Iterable[int | Fraction]) -> Fraction:
    """``h_d(x_1, ..., x_m) = Σ_{i_1 <= ... <= i_d} x_{i_1} ⋯ x_{i_d}``, exactly.

    Computed by the recurrence ``h_d(x_1..x_m) = h_d(x_2..x_m) + x_1 h_{d-1}(x_1..x_m)``
    (``O(d m)`` operations, no expansion).  ``h_0 = 1``.

    >>> complete_homogeneous_exact(2, [Fraction(1, 2), Fraction(1, 3)])
    Fraction(19, 36)
    """
    d = check_integer("degree", degree, 0, MAX_LENGTH - 1)
    xs = [as_rational(x, "values") for x in values]
    h = [Fraction(1)] + [Fraction(0)] * d  # h over the empty set
    for x in reversed(xs):
        for e in range(1, d + 1):
            h[e] = h[e] + x * h[e - 1]
    return h[d]


def symmetric_polynomial_profile_exact(length: int, depth: int) -> list[Fraction]:
    """Attention-only profile ``(M^H)[L, j] = (1/L) h_{H-1}(1/j, 1/(j+1), ..., 1/L)`` (:ref:`X3 <math-x3>`).

    All ``j`` at once: sweeping ``j`` from ``L`` down to 1, the vector ``(h_0..h_{H-1})`` of the
    variables ``1/j..1/L`` is updated by ``h_e ← h_e + h_{e-1} / j`` (increasing ``e``): ``O(H L)``.
    ``H = 0`` gives the identity's last row ``e_L``.

    >>> symmetric_polynomial_profile_exact(3, 2)
    [Fraction(11, 18), Fraction(5, 18), Fraction(1, 9)]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    H = check_integer("depth", depth, 0, MAX_LENGTH - 1)
    if H == 0:
        return [Fraction(0)] * (L - 1) + [Fraction(1)]
    d = H - 1
    h = [Fraction(1)] + [Fraction(0)] * d
    out = [Fraction(0)] * L
    for j in range(L, 0, -1):
        x = Fraction(1, j)
        for e in range(1, d + 1):
            h[e] = h[e] + x * h[e - 1]
        out[j - 1] = h[d] / L
    return out


def cesaro_matrix_exact(length: int) -> list[list[Fraction]]:
    """The Cesàro matrix ``M[i, j] = 1/i`` for ``j <= i`` (1-indexed), as Fractions.

    >>> cesaro_matrix_exact(2)
    [[Fraction(1, 1), Fraction(0, 1)], [Fraction(1, 2), Fraction(1, 2)]]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    return [[Fraction(1, i + 1) if j <= i else Fraction(0) for j in range(L)] for i in range(L)]


def cesaro_rollout_matrix_exact(length: int, schedule: ScheduleLike) -> list[list[Fraction]]:
    """``P(T) = R(T) ⋯ R(1)``, ``R(t) = (1 - λ_t) I + λ_t M``, by explicit dense products.

    ``O(T L^3)`` Fraction operations: a slow, transparent route for small ``L``.

    >>> cesaro_rollout_matrix_exact(2, [Fraction(1, 2)])
    [[Fraction(1, 1), Fraction(0, 1)], [Fraction(1, 4), Fraction(3, 4)]]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    lams = as_schedule(schedule).exact()
    M = cesaro_matrix_exact(L)
    P = [[Fraction(int(i == j)) for j in range(L)] for i in range(L)]
    for lam in lams:
        R = [[(1 - lam) * (i == j) + lam * M[i][j] for j in range(L)] for i in range(L)]
        P = [[sum((R[i][m] * P[m][j] for m in range(L)), Fraction(0)) for j in range(L)]
             for i in range(L)]
    return P


def poisson_binomial_exact(schedule: ScheduleLike) -> list[Fraction]:
    """``w_m = P(K = m)``, ``K`` the number of successes of independent Bernoulli(λ_t) trials.

    >>> poisson_binomial_exact([Fraction(1, 2), 1])
    [Fraction(0, 1), Fraction(1, 2), Fraction(1, 2)]
    """
    lams = as_schedule(schedule).exact()
    w = [Fraction(1)]
    for lam in lams:
        new = [Fraction(0)] * (len(w) + 1)
        for m, x in enumerate(w):
            new[m] += (1 - lam) * x
            new[m + 1] += lam * x
        w = new
    return w


def poisson_binomial_precise(schedule: ScheduleLike, dps: int) -> list[Any]:
    """``P(K = m)`` with mpmath at ``dps`` digits (schedule values may be irrational).

    >>> [float(x) for x in poisson_binomial_precise([0.5, 0.5], 20)]
    [0.25, 0.5, 0.25]
    """
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps):
        lams = as_schedule(schedule).precise(dps)
        w = [mpmath.mpf(1)]
        for lam in lams:
            new = [mpmath.mpf(0)] * (len(w) + 1)
            for m, x in enumerate(w):
                new[m] += (1 - lam) * x
                new[m + 1] += lam * x
            w = new
    return w


def _bernstein(n, k, weights, dps):
    """``C(n,k) ∫ x^k (1-x)^(n-k) dχ(x)`` at working precision ``dps`` (weights given)."""
    with mpmath.workdps(dps):
        atom = weights[0] if k == n else mpmath.mpf(0)  # x = 1 carries mass P(K = 0)
        T = len(weights) - 1
        if T == 0:
            return atom
        # mixture of Gamma(m, 1) densities of t = ln(1/x), m = 1..T
        coeff = [weights[m] / mpmath.factorial(m - 1) for m in range(1, T + 1)]
        r = n - k

        def integrand(t):
            poly = mpmath.mpf(0)
            for c in reversed(coeff):  # Σ_m c_m t^(m-1), Horner
                poly = poly * t + c
            return mpmath.exp(-(k + 1) * t) * (-mpmath.expm1(-t)) ** r * poly

        # break points: near 0, around the Bernstein bump and the Gamma bulk, then the tail
        pts = {mpmath.mpf(0)}
        for p in (mpmath.log(mpmath.mpf(n + 1) / (k + 1)), mpmath.mpf(T), 1, 4, 16, 64):
            if p > 0:
                pts.add(mpmath.mpf(p))
        integral = mpmath.quad(integrand, [*sorted(pts), mpmath.inf])
        return binomial(n, k) * (atom + integral)


def bernstein_entry_precise(n: int, k: int, schedule: ScheduleLike, dps: int) -> mpmath.mpf:
    """``P[n, k] = C(n, k) ∫_0^1 x^k (1-x)^{n-k} dχ(x)`` by numerical integration (:ref:`X2 <math-x2>`).

    ``χ`` is the law of ``X = U_1 ⋯ U_K``, ``K ~`` Poisson-binomial(λ): an atom ``Π_t (1-λ_t)`` at
    ``x = 1`` and, in ``t = ln(1/x)``, the mixture ``Σ_{m>=1} P(K=m) t^{m-1} e^{-t}/(m-1)!`` of
    Gamma(m, 1) densities.  The integral over ``t ∈ [0, ∞)`` is done by mpmath tanh-sinh
    quadrature at ``dps + 10`` digits and rounded to ``dps``.  ``n, k`` are 0-indexed.

    This route never uses the moments ``μ_n``, so it checks the Hausdorff and propagation routes
    independently.  Paper: :ref:`X2 <math-x2>` (beyond the papers; for λ ≡ α it is chowdhury2026's C5).

    >>> x = bernstein_entry_precise(2, 0, [1, 1], 20)
    >>> mpmath.nstr(x, 15)
    '0.611111111111111'
    """
    n = check_integer("n", n, 0, MAX_LENGTH - 1)
    k = check_integer("k", k, 0, MAX_LENGTH - 1)
    dps = check_dps("dps", dps)
    if k > n:
        return mpmath.mpf(0)
    work = dps + 10
    w = poisson_binomial_precise(schedule, work)
    value = _bernstein(n, k, w, work)
    with mpmath.workdps(dps):
        return +value


def bernstein_profile_precise(length: int, schedule: ScheduleLike, dps: int) -> list:
    """The influence profile ``p(j) = P[L-1, j-1]`` from :func:`bernstein_entry_precise`.

    >>> [mpmath.nstr(x, 10) for x in bernstein_profile_precise(2, [Fraction(1, 2)], 20)]
    ['0.25', '0.75']
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    dps = check_dps("dps", dps)
    work = dps + 10
    w = poisson_binomial_precise(schedule, work)
    out = [_bernstein(L - 1, k, w, work) for k in range(L)]
    with mpmath.workdps(dps):
        return [+x for x in out]
