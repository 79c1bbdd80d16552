"""Influence profiles of the residual-aware Cesàro rollout, on the exact, precise and fast paths.

The Cesàro matrix is uniform causal attention, ``M[i, j] = 1/i`` for ``j <= i`` (positions
``1..L``).  With a schedule ``λ_1..λ_T`` the rollout is ``P = R(T) ⋯ R(1)``,
``R(t) = (1 - λ_t) I + λ_t M``, and the influence profile is its last row ``p(j) = P[L, j]``
(chowdhury2026 section 2 for constant λ; herasimchyk2026 section 3 for schedules).

Only the last row is propagated: ``u ← (1 - λ) u + λ u M`` with ``(u M)_j = Σ_{i >= j} u_i / i``,
a suffix sum, so one layer costs ``O(L)`` operations and a profile ``O(T L)``.

Paths (:ref:`claims-paths`): :func:`cesaro_profile_exact` (Fractions, via scaled integers over a common
denominator), :func:`cesaro_profile_precise` (mpmath at a given ``dps``), :func:`cesaro_profile`
and :func:`cesaro_log_profile` (float64 with block exponents, so that tails far below the float64
range are not flushed to zero).  The diagonal ``P[i, i] = Π_t (1 - λ_t + λ_t / i)`` (:ref:`H4 <math-h4>`,
X1) is :func:`cesaro_diagonal_exact`.  Positions are 1-indexed in formulas; returned lists and
arrays are 0-indexed (entry ``j-1`` holds ``p(j)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from itertools import accumulate
from typing import Any

import mpmath
import numpy as np

from posbias.numerics._arith import HAVE_GMPY2, coprime_fraction, lcm_upto, mpz
from posbias.validation import MAX_LENGTH, check_dps, check_integer

if HAVE_GMPY2:
    import gmpy2
from posbias.numerics import _compiled
from posbias.numerics.schedules import ScheduleLike, as_schedule

__all__ = [
    "cesaro_diagonal_exact",
    "cesaro_diagonal_precise",
    "cesaro_log_profile",
    "cesaro_profile",
    "cesaro_profile_blocks",
    "cesaro_profile_exact",
    "cesaro_profile_numerators",
    "cesaro_profile_precise",
    "cesaro_profile_scaled",
    "reduce_scaled_profile",
]


# ----------------------------------------------------------------------------- validation




def _exact_lambdas(schedule: ScheduleLike, parameter: str = "schedule") -> tuple[Fraction, ...]:
    """The schedule as exact Fractions in [0, 1] (:func:`~posbias.numerics.schedules.as_schedule`);
    floats and mpf are rejected."""
    return as_schedule(schedule, parameter).exact()


def _precise_lambdas(schedule: ScheduleLike, dps: int, parameter: str = "schedule") -> list[Any]:
    """The schedule as mpf values at ``dps`` digits."""
    return as_schedule(schedule, parameter).precise(dps)


def _float_lambdas(schedule: ScheduleLike, parameter: str = "schedule") -> np.ndarray:
    """The schedule as a float64 array."""
    return as_schedule(schedule, parameter).floats()


# ----------------------------------------------------------------------------- exact path
def cesaro_profile_scaled(length: int, schedule: ScheduleLike) -> tuple[list, object]:
    """The exact profile as integer numerators over one common denominator.

    Returns ``(N, D)`` with ``p(j) = N[j-1] / D`` exactly (not reduced).  With
    ``Λ = lcm(1..L)`` and ``λ_t = a_t / b_t`` in lowest terms, one layer maps
    ``N_j ← (b_t - a_t) Λ N_j + a_t Σ_{i >= j} N_i Λ / i`` and ``D ← b_t Λ D``: integers only,
    ``O(L)`` big-integer operations per layer.  Integers are gmpy2 ``mpz`` when available.

    >>> N, D = cesaro_profile_scaled(3, [1])
    >>> [int(n) for n in N], int(D)
    ([2, 2, 2], 6)
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    lams = _exact_lambdas(schedule)
    N = [mpz(0)] * L
    N[-1] = mpz(1)
    D = mpz(1)
    if not any(lams):
        return N, D
    big = lcm_upto(L)
    q = [big // i for i in range(1, L + 1)]
    idx = [mpz(i) for i in range(1, L + 1)]
    for lam in lams:
        if lam == 0:
            continue
        a, b = mpz(lam.numerator), mpz(lam.denominator)
        w = [n * qi for n, qi in zip(N, q)]  # N_i * (Λ/i): the one big product per entry
        s = list(accumulate(reversed(w)))
        s.reverse()
        if a == b:
            N = s
        else:
            # (b - a) Λ N_j = (b - a) j w_j: a small multiplier instead of Λ
            c = b - a
            if a == 1:
                N = [(c * j) * wj + sj for j, wj, sj in zip(idx, w, s)]
            else:
                N = [(c * j) * wj + a * sj for j, wj, sj in zip(idx, w, s)]
        D = D * b * big
    return N, D


def cesaro_profile_numerators(length: int, schedule: ScheduleLike, *,
                              progress: Callable[[int], object] | None = None) -> tuple[list, object]:
    r"""The exact profile as integer numerators over the smallest known common denominator.

    Returns ``(N, D)`` with ``p(j) = N[j-1] / D`` exactly (not reduced), where
    ``D = Π b_t · L · Λ^(T-1)``, ``Λ = lcm(1..L)``, ``λ_t = a_t / b_t`` in lowest terms and ``T``
    the number of nonzero ``λ_t``.

    Why ``D`` works from the first layer on: ``P_t = Σ_k w_k M^k`` with Poisson-binomial
    weights ``w_k`` (denominators dividing ``Π b_t``), and the last row of ``M^k`` is
    ``h_{k-1}(1/j, ..., 1/L) / L`` (:ref:`X3 <math-x3>`), whose denominator divides ``L Λ^(k-1)``.  So for
    every ``t <= T`` both ``D p_t(j)`` and ``D p_{t-1}(i) / i`` are integers.  The row is
    carried as the integers ``U_j = D p_t(j)``, starting from ``U = D e_L``, and one layer is

        ``S_j = Σ_{i >= j} U_i / i``,   ``U_j ← ((b - a) U_j + a S_j) / b``,

    where every division is exact: linear-time divisions of big integers by small ones, where
    the common-denominator form :func:`cesaro_profile_scaled` multiplies every entry by the big
    ``Λ / i`` in every layer.  The integers have the final size from the start, which costs
    less than the products.

    Two certificates are checked on every call, because an exact division by a number that
    does not divide would silently give a wrong integer: the numerators sum to ``D``, and the
    same rollout done independently modulo a 31-bit prime ``q`` agrees with every
    ``N_j mod q``.  A failure raises :class:`ArithmeticError` (a bug, never expected).
    ``progress``, if given, is called with the number of layers done after every nonzero layer
    (e.g. a progress bar's ``update``; layers with ``λ = 0`` cost nothing and are counted with
    the first one).

    >>> N, D = cesaro_profile_numerators(3, [1, 1])
    >>> [int(n) for n in N], int(D)
    ([11, 5, 2], 18)
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    every = _exact_lambdas(schedule)
    lams = [lam for lam in every if lam != 0]
    if progress is not None and len(every) > len(lams):
        progress(len(every) - len(lams))
    if not lams:
        return [mpz(0)] * (L - 1) + [mpz(1)], mpz(1)
    D = mpz(L) * lcm_upto(L) ** (len(lams) - 1)
    for lam in lams:
        D *= lam.denominator
    N = _divided_rollout(L, lams, D, progress)
    _certify(L, lams, N, D)
    return N, D


def _divided_rollout(L: int, lams: list, D: int,
                     progress: Callable[[int], object] | None = None) -> list:
    """The layers of :func:`cesaro_profile_numerators` at the fixed scale ``D``.

    One pass per layer from ``j = L`` down to 1: ``acc += U_j / j`` is ``S_j``, and ``U_j``
    (no longer needed by the positions before it) is replaced in place by
    ``((b - a) U_j + a S_j) / b``.  With gmpy2 the entries are mutable ``xmpz`` and the
    divisions are ``divexact``, so a layer allocates one quotient per entry and nothing else.
    Returns immutable integers.
    """
    if not HAVE_GMPY2:  # pragma: no cover
        U = [0] * L
        U[-1] = int(D)
        for lam in lams:
            a, b = lam.numerator, lam.denominator
            acc = 0
            for j in range(L - 1, -1, -1):
                acc += U[j] // (j + 1)
                U[j] = ((b - a) * U[j] + a * acc) // b
            if progress is not None:
                progress(1)
        return U
    divexact = gmpy2.divexact
    U = [gmpy2.xmpz(0) for _ in range(L)]
    U[-1] += D
    for lam in lams:
        a, b = int(lam.numerator), int(lam.denominator)
        c = b - a
        acc = gmpy2.xmpz(0)
        if a == b:  # λ = 1: U ← S
            for j in range(L - 1, -1, -1):
                u = U[j]
                acc += divexact(u, j + 1)
                u -= u
                u += acc
        elif b == 2:  # λ = 1/2: (U + S) / 2 is a shift
            for j in range(L - 1, -1, -1):
                u = U[j]
                acc += divexact(u, j + 1)
                u += acc
                u >>= 1
        else:
            for j in range(L - 1, -1, -1):
                u = U[j]
                acc += divexact(u, j + 1)
                if c != 1:
                    u *= c
                if a == 1:
                    u += acc
                else:
                    u += a * acc
                U[j] = gmpy2.xmpz(divexact(u, b))
        if progress is not None:
            progress(1)
    return [mpz(u) for u in U]


#: a prime below 2^31 (products of two residues fit in int64); none of 1..L may share it
_CERT_PRIMES = (2147483647, 2147483629, 2147483587)


def _certify(L: int, lams: list, N: list, D: int) -> None:
    """Check ``Σ N_j = D`` and ``N_j ≡ p(j) D (mod q)`` with ``p`` rolled out modulo a prime
    ``q`` (int64 residues, no floats); raise :class:`ArithmeticError` on a mismatch."""
    if sum(N, mpz(0)) != D:
        raise ArithmeticError("Cesàro profile numerators: they do not sum to D")
    q = next((q for q in _CERT_PRIMES
              if q > L and all(lam.denominator % q for lam in lams)), None)
    if q is None:  # pragma: no cover - a λ denominator divisible by three 31-bit primes
        return
    inv = np.array([pow(i, -1, q) for i in range(1, L + 1)], dtype=np.int64)
    u = np.zeros(L, dtype=np.int64)
    u[-1] = 1
    for lam in lams:
        a, b = lam.numerator % q, lam.denominator % q
        lam_q = a * pow(b, -1, q) % q
        keep = (1 - lam_q) % q
        w = u * inv % q
        s = np.cumsum(w[::-1]) % q  # L < q < 2^31: the partial sums stay below 2^62
        s = s[::-1]
        u = (keep * u % q + lam_q * s % q) % q
    d = int(D % q)
    got = np.array([int(n % q) for n in N], dtype=np.int64)
    if not np.array_equal(got, u * d % q):
        bad = int(np.argmax(got != u * d % q)) + 1
        raise ArithmeticError(f"Cesàro profile numerators: position {bad} fails the check "
                              f"modulo {q}")


def cesaro_profile_exact(length: int, schedule: ScheduleLike) -> list[Fraction]:
    """Exact influence profile ``p(j) = P(T)[L, j]``, ``j = 1..L``, of the Cesàro rollout.

    ``P(T) = Π_t ((1 - λ_t) I + λ_t M)`` with ``M[i, j] = 1/i`` (``j <= i``).

    Parameters
    ----------
    length : int
        ``L >= 1``, the number of positions.
    schedule : Schedule or sequence of rationals
        a :class:`~posbias.numerics.schedules.Schedule` with rational values, or a sequence of
        exact rationals ``λ_t ∈ [0, 1]`` (int, Fraction, Decimal).  Floats, numpy floats and
        mpmath numbers are rejected with :class:`~posbias.errors.InvalidArgument`.

    Returns
    -------
    list of Fraction
        ``L`` reduced Fractions summing to 1 (entry ``j-1`` is ``p(j)``).

    Notes
    -----
    Method: the numerators over ``D = Π b_t L Λ^(T-1)`` from the rollout at that fixed denominator,
    :func:`cesaro_profile_numerators` (``O(T L)`` linear-time big-integer
    operations, certified by the sum and a modular rollout), then reduction: the known factor
    ``(Λ / ℓ_j)^(T-1)``, ``ℓ_j = lcm(j..L)``, is divided out exactly and the rest of the gcd is
    found with small gcds against ``Λ Π b_t``.  The common-denominator form
    :func:`cesaro_profile_scaled` (multiplications, a denominator growing with the layers) is
    an independent route to the same numbers, and the tests compare the two.
    Paper: chowdhury2026 section 2 (``N^H``), herasimchyk2026 section 3 (schedules).

    >>> cesaro_profile_exact(3, [Fraction(1, 2)])
    [Fraction(1, 6), Fraction(1, 6), Fraction(2, 3)]
    >>> cesaro_profile_exact(3, [1, 1])
    [Fraction(11, 18), Fraction(5, 18), Fraction(1, 9)]
    >>> cesaro_profile_exact(2, [0.5])
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: schedule = list:0.5 is invalid: expected exact rationals on the exact path (int, Fraction, Decimal or text such as '1/3'; binary floats are not the rationals they print as)
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    lams = [lam for lam in _exact_lambdas(schedule) if lam != 0]
    if not lams:
        return [Fraction(0)] * (L - 1) + [Fraction(1)]
    N, D = cesaro_profile_numerators(L, lams)
    return _reduce_profile(L, lams, N, D)


def _coprime_part(x: int, den: int, shared: int) -> Fraction:
    """``x / den`` in lowest terms, given ``shared = gcd(R, den)`` for an ``R`` that every prime
    of ``den`` divides (so ``gcd(x, shared)`` holds every common prime, to a power that may
    fall short)."""
    if HAVE_GMPY2:
        # a prime still shared after dividing by g divides g, so later rounds need only small
        # remainders modulo g
        g = gmpy2.gcd(x % shared, shared)
        while g != 1:
            x = gmpy2.divexact(x, g)
            den = gmpy2.divexact(den, g)
            g = gmpy2.gcd(gmpy2.gcd(x % g, g), den)
        return coprime_fraction(x, den)
    return Fraction(int(x), int(den))  # pragma: no cover


def reduce_scaled_profile(length: int, schedule: ScheduleLike, N: list, D: int) -> list[Fraction]:
    """The reduced Fractions ``N[j-1] / D`` for ``(N, D)`` from :func:`cesaro_profile_scaled`
    or :func:`cesaro_profile_numerators` of the same ``length`` and ``schedule``, much faster than
    one big gcd per entry (see :func:`_reduce_profile`).

    >>> N, D = cesaro_profile_scaled(3, [1, 1])
    >>> reduce_scaled_profile(3, [1, 1], N, D)
    [Fraction(11, 18), Fraction(5, 18), Fraction(1, 9)]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    nonzero = [lam for lam in _exact_lambdas(schedule) if lam != 0]
    if not nonzero:
        return [Fraction(int(n)) for n in N]
    return _reduce_profile(L, nonzero, N, D)


def _reduce_profile(L: int, lams: list, N: list, D: Any) -> list[Fraction]:  # D: int or mpz
    """Reduce ``N[j-1] / D`` to lowest terms using the known shape of the denominators.

    ``P = Σ_k w_k M^k`` (Poisson-binomial weights ``w_k``, denominators dividing ``Π b_t``), and
    the last row of ``M^k`` is ``(1/L) h_{k-1}(1/j, ..., 1/L)`` (:ref:`X3 <math-x3>`), whose denominator
    divides ``L ℓ_j^{k-1}``, ``ℓ_j = lcm(j..L)``.  ``D`` is ``F · Π b_t L Λ^(T-1)`` for an integer
    ``F`` (1 for :func:`cesaro_profile_numerators`, ``Λ / L`` for :func:`cesaro_profile_scaled`),
    so ``N_j`` carries the known factor ``F (Λ/ℓ_j)^(T-1)``, removed by exact division; the
    remaining gcd involves only primes of ``Λ Π b_t`` and is found by repeated small gcds with
    that number.
    """
    T = len(lams)
    big = lcm_upto(L)
    prod_b = mpz(1)
    for lam in lams:
        prod_b *= lam.denominator
    base = prod_b * L * big ** (T - 1)
    F, rem = divmod(mpz(D), base)
    if rem or F < 1:
        raise ValueError("D is not a multiple of the profile's known denominator")
    radical = big * prod_b  # every prime of every denominator divides this
    ell = [mpz(0)] * L
    cur = mpz(1)
    for j in range(L, 0, -1):
        cur = _lcm(cur, j)
        ell[j - 1] = cur
    out = []
    cache: dict[tuple, Any] = {}
    for j in range(1, L + 1):
        lj = ell[j - 1]
        known = cache.get(lj)
        if known is None:  # ℓ_j changes only where j is a prime power: few distinct values
            den = prod_b * L * lj ** (T - 1)
            known = (F * (big // lj) ** (T - 1), den, _gcd(radical, den))
            cache.clear()
            cache[lj] = known
        f, den, shared = known
        x = N[j - 1] if f == 1 else _divexact(N[j - 1], f)
        out.append(_coprime_part(x, den, shared))
    return out


def _gcd(x, y):
    if HAVE_GMPY2:
        return gmpy2.gcd(x, y)
    return math.gcd(int(x), int(y))  # pragma: no cover


def _lcm(x, j):
    if HAVE_GMPY2:
        return gmpy2.lcm(x, j)
    return x * j // math.gcd(x, j)  # pragma: no cover


def _divexact(x, f):
    if HAVE_GMPY2:
        return gmpy2.divexact(x, f)
    q, r = divmod(x, f)  # pragma: no cover
    assert r == 0  # pragma: no cover
    return q  # pragma: no cover


def cesaro_diagonal_exact(length: int, schedule: ScheduleLike) -> list[Fraction]:
    """Exact diagonal ``P[i, i] = Π_t (1 - λ_t + λ_t / i)``, ``i = 1..L`` (:ref:`H4, X1 <math-h4>`).

    Each factor is positive for ``λ_t ∈ [0, 1]``, so the diagonal is strictly positive at every
    finite depth.

    >>> cesaro_diagonal_exact(3, [1, Fraction(1, 2)])
    [Fraction(1, 1), Fraction(3, 8), Fraction(2, 9)]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    lams = _exact_lambdas(schedule)
    out = []
    for i in range(1, L + 1):
        num, den = 1, 1
        for lam in lams:
            a, b = lam.numerator, lam.denominator
            # 1 - a/b + a/(b i) = ((b - a) i + a) / (b i)
            num *= (b - a) * i + a
            den *= b * i
        out.append(Fraction(num, den))
    return out


# ----------------------------------------------------------------------------- precise path
def cesaro_profile_precise(length: int, schedule: ScheduleLike, dps: int, *, guard: int = 10,
                           progress: Callable[[int], object] | None = None) -> list[Any]:
    """Influence profile with mpmath at ``dps`` significant digits.

    The propagation (suffix sums of positive terms) runs at ``dps + guard`` digits and the
    results are rounded to ``dps`` digits; every operation adds and multiplies positive numbers,
    so the relative error stays near ``T log2(L)`` units of the working precision.

    ``schedule`` may hold irrational values (a :class:`Schedule` of power decay with non-integer
    ``β``) or any real numbers in [0, 1] (floats are taken at their exact binary value).
    ``progress``, if given, is called with 1 after every layer (e.g. a progress bar's
    ``update``).

    >>> import mpmath
    >>> p = cesaro_profile_precise(3, [1, 1], 25)
    >>> mpmath.nstr(p[0], 20)
    '0.61111111111111111111'
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    dps = check_dps("dps", dps)
    work = dps + int(guard)
    with mpmath.workdps(work):
        lams = _precise_lambdas(schedule, work)
        one = mpmath.mpf(1)
        u = [mpmath.mpf(0)] * L
        u[-1] = one
        inv = [one / i for i in range(1, L + 1)]
        for lam in lams:
            if lam != 0:
                w = [x * r for x, r in zip(u, inv)]
                s = list(accumulate(reversed(w)))
                s.reverse()
                c = one - lam
                u = [c * x + lam * y for x, y in zip(u, s)]
            if progress is not None:
                progress(1)
    with mpmath.workdps(dps):
        return [+x for x in u]


def cesaro_diagonal_precise(length: int, schedule: ScheduleLike, dps: int) -> list[Any]:
    """The diagonal ``P[i, i] = Π_t (1 - λ_t + λ_t / i)`` with mpmath at ``dps`` digits.

    >>> [float(x) for x in cesaro_diagonal_precise(2, [1, 1], 20)]
    [1.0, 0.25]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        lams = _precise_lambdas(schedule, dps + 10)
        out = []
        for i in range(1, L + 1):
            x = mpmath.mpf(1)
            for lam in lams:
                x *= 1 - lam + lam / i
            out.append(x)
    with mpmath.workdps(dps):
        return [+x for x in out]


# ----------------------------------------------------------------------------- fast path
_LN2 = math.log(2.0)
_FLOOR = 2.0**-960  # smallest mantissa kept relative to its block maximum (subnormals below 2^-1022)


_NONE = -(2**40)  # exponent standing for "no mass" in (mantissa, exponent) pairs


def _add_scaled(x1, e1, x2, e2):
    """``x1 2^e1 + x2 2^e2`` as ``(x, e)`` with ``e = max(e1, e2)``: exact scaling, one rounding."""
    e = np.maximum(e1, e2)
    return np.ldexp(x1, e1 - e) + np.ldexp(x2, e2 - e), e


def _carry(x, e):
    """Exclusive suffix sums ``Σ_{b' > b} x_b' 2^{e_b'}`` as (mantissa, exponent) arrays.

    Two levels, so that nothing passes through logarithms: sequential sums down the rows of a
    ``(R, S)`` arrangement (vectorized over the ``S`` columns), then over the column totals."""
    nb = x.shape[0]
    e = np.where(x > 0, e, _NONE)
    R = max(1, math.isqrt(nb))
    S = -(-nb // R)
    xs = np.zeros(R * S)
    es = np.full(R * S, _NONE, dtype=np.int64)
    xs[:nb], es[:nb] = x, e
    xs = xs.reshape(S, R).T.copy()  # row r, column s: block s*R + r
    es = es.reshape(S, R).T.copy()
    acc_x, acc_e = np.zeros(S), np.full(S, _NONE, dtype=np.int64)
    for r in range(R - 1, -1, -1):  # inclusive suffix sums inside each column
        acc_x, acc_e = _add_scaled(acc_x, acc_e, xs[r], es[r])
        xs[r], es[r] = acc_x, acc_e
    # exclusive carries between columns, in plain Python floats
    cx, ce = np.zeros(S), np.full(S, _NONE, dtype=np.int64)
    run_x, run_e = 0.0, _NONE
    tot_x, tot_e = xs[0].tolist(), es[0].tolist()
    for col in range(S - 1, -1, -1):
        cx[col], ce[col] = run_x, run_e
        tx, te = tot_x[col], tot_e[col]
        m = max(run_e, te)
        run_x = math.ldexp(run_x, run_e - m) + math.ldexp(tx, te - m)
        run_e = m
    incl_x, incl_e = _add_scaled(xs, es, cx[None, :], ce[None, :])
    incl_x = incl_x.T.reshape(-1)[:nb]
    incl_e = incl_e.T.reshape(-1)[:nb]
    out_x, out_e = np.zeros(nb), np.full(nb, _NONE, dtype=np.int64)
    out_x[:-1], out_e[:-1] = incl_x[1:], incl_e[1:]
    return out_x, out_e


def _blocked_rollout(L: int, lams: np.ndarray, B: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Propagate the last row with float64 mantissas and one binary exponent per block of ``B``
    consecutive positions: value ``= a * 2**k``.  Returns ``(a, k)`` (per position) or ``None``
    when some block's dynamic range leaves the float64 mantissa range (then the caller retries
    with smaller blocks; ``B = 1`` never fails).

    Layout ``(B, nb)``: column ``b`` is the block of positions ``b*B+1 .. b*B+B``, so that the
    within-block suffix sums are ``B`` vectorized row additions."""
    nb = -(-L // B)
    n = nb * B
    last_rows = L - (nb - 1) * B  # real positions in the last block
    flat = np.zeros(n)
    flat[L - 1] = 1.0
    a = np.array(flat.reshape(nb, B).T, order="C", copy=True)
    flat[:L] = 1.0 / np.arange(1, L + 1, dtype=np.float64)
    flat[L:] = 0.0
    inv = np.array(flat.reshape(nb, B).T, order="C", copy=True)
    del flat
    k = np.zeros(nb, dtype=np.int64)
    c = np.empty_like(a)
    with np.errstate(divide="ignore", under="ignore", invalid="ignore", over="ignore"):
        for lam_t in lams:
            lam = float(lam_t)
            if lam == 0.0:
                continue
            np.multiply(a, inv, out=c)
            for r in range(B - 2, -1, -1):  # suffix sums inside each block
                np.add(c[r], c[r + 1], out=c[r])
            # carry into each block: Σ over later blocks of their totals c[0] * 2**k
            xc, ec = _carry(c[0], k)
            e_top = np.maximum(k, ec)
            x0 = np.ldexp(c[0], k - e_top) + np.ldexp(xc, ec - e_top)
            ks = e_top + np.frexp(x0)[1].astype(np.int64)  # largest suffix sum < 2**ks
            c *= np.ldexp(1.0, k - ks)
            c += np.ldexp(xc, ec - ks)
            if lam == 1.0:
                a, c = c, a
                k = ks
            else:
                kn = np.maximum(k, ks)
                a *= (1.0 - lam) * np.ldexp(1.0, k - kn)
                c *= lam * np.ldexp(1.0, ks - kn)
                a += c
                k = kn
            # renormalize each block so that its largest mantissa lies in [1/2, 1)
            mx = a.max(axis=0)
            _, e = np.frexp(mx)
            e = np.where(mx > 0, e, 0).astype(np.int64)
            a *= np.ldexp(1.0, -e)
            k = k + e
            if B > 1:
                low = a[:last_rows, -1].min()
                if nb > 1:
                    low = min(low, a[:, :-1].min())
                if not low >= _FLOOR:
                    return None
    return a.T.reshape(-1)[:L].copy(), np.repeat(k, B)[:L]


def _compiled_rollout(L: int, lams: np.ndarray, B: int,
                      compiled: bool = True) -> tuple[np.ndarray, np.ndarray] | None:
    """The same propagation as :func:`_blocked_rollout` in one compiled reverse pass per layer
    (:func:`posbias.numerics._compiled.cesaro_layer_blocked`); positions in place, block ``b``
    holding positions ``b*B+1 .. b*B+B``.  ``None`` when a block's range leaves 2^960."""
    nb = -(-L // B)
    a = np.zeros(L)
    a[-1] = 0.5
    k = np.zeros(nb, dtype=np.int64)
    k[-1] = 1
    inv = 1.0 / np.arange(1, L + 1, dtype=np.float64)
    for lam_t in lams:
        lam = float(lam_t)
        if lam == 0.0:
            continue
        if not _compiled.cesaro_layer_blocked(a, k, inv, lam, B, L, compiled=compiled):
            return None
    return a, np.repeat(k, B)[:L]


def cesaro_profile_blocks(length: int, schedule: ScheduleLike) -> tuple[np.ndarray, np.ndarray]:
    """The fast-path profile as float64 mantissas and binary exponents: ``p(j) = a_j 2^(k_j)``
    (0-indexed arrays), so that tails far below float64's range keep their value; the form
    behind :func:`cesaro_profile` and :func:`cesaro_log_profile`.

    >>> a, k = cesaro_profile_blocks(3, [1.0])
    >>> [float(x) * 2.0 ** int(e) for x, e in zip(a, k)] == cesaro_profile(3, [1.0]).tolist()
    True
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    lams = _float_lambdas(schedule)

    compiled = _compiled.use_compiled(L * len(lams), "cesaro")
    rollout = _compiled_rollout if compiled else _blocked_rollout
    for B in (64, 8, 1):
        if B > L:
            continue
        out = rollout(L, lams, B)
        if out is not None:
            return out
    out = rollout(L, lams, 1)
    if out is None:  # one position per block is always in range
        raise AssertionError(f"the {'compiled' if compiled else 'blocked'} rollout with "
                             "single-position blocks failed")
    return out


def cesaro_log_profile(length: int, schedule: ScheduleLike) -> np.ndarray:
    """Natural logarithms ``ln p(j)``, ``j = 1..L``, of the Cesàro influence profile (float64).

    Nothing underflows: the attention-only profile at ``L = 10^6``, ``T = 100`` has
    ``p(L) = L^(-100) = 10^(-600)``, and its log ``-1381.55...`` is returned accurately
    (below: ``L = 10^4``, ``p(L) = 10^(-400)``).
    Exact zeros (possible only when every ``λ_t = 0``) give ``-inf``.

    Method: the last-row propagation in float64 mantissas with one binary exponent per block of
    positions (blocks shrink to single positions if a block's range would exceed 2^960); the
    suffix sums are local cumulative sums plus a carry combined in log2 space.  Relative error
    of ``p(j)``: a few units of ``T · 2^-52`` in typical cases.  Time ``O(T L)``, memory ``O(L)``
    (three float64 arrays of ``L``).  With numba installed each layer is one compiled reverse pass
    (:func:`posbias.numerics._compiled.cesaro_layer_blocked`), otherwise vectorized numpy.

    >>> lp = cesaro_log_profile(10**4, [1] * 100)
    >>> round(float(lp[-1]) / math.log(10), 9)
    -400.0
    """
    a, k = cesaro_profile_blocks(length, schedule)
    with np.errstate(divide="ignore"):
        return np.log(a) + k * _LN2


def cesaro_profile(length: int, schedule: ScheduleLike) -> np.ndarray:
    """Influence profile ``p(j) = P(T)[L, j]`` in float64 (the fast path).

    Same propagation as :func:`cesaro_log_profile`; values below the float64 range come out as
    correctly rounded subnormals, and as 0 only below the smallest subnormal ``2^-1074`` (use
    :func:`cesaro_log_profile` to keep them).

    ``schedule``: a :class:`Schedule` or real numbers in [0, 1].

    >>> cesaro_profile(3, [1, 1]).round(12).tolist()
    [0.611111111111, 0.277777777778, 0.111111111111]
    """
    a, k = cesaro_profile_blocks(length, schedule)
    return np.ldexp(a, k)
