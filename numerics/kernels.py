"""General causal attention kernels and their residual-aware rollouts.

An attention kernel ``A`` is an ``L x L`` row-stochastic matrix; it is *causal* when it is
lower-triangular (``A[i,j] = 0`` for ``j > i``: token ``i`` reads only tokens ``j <= i``).
A residual-aware layer is ``R(t) = (1 - λ_t) I + λ_t A(t)`` with ``λ_t ∈ [0, 1]`` and the rollout
of ``T`` layers is

    P(T) = R(T) R(T-1) ... R(1),

whose last row ``p = e_L^T P(T)`` is the influence profile (:ref:`math-conventions`;
herasimchyk2026, section 3).  The last row is propagated as a row vector, which meets ``R(T)``
first: ``v <- v R(T)``, then ``v <- v R(T-1)``, ..., ``v <- v R(1)``.  For commuting kernels
(all Cesàro) the order does not matter; for general ones it does.

Positions are 1-indexed in the mathematics and in error messages, 0-indexed in Python lists.

Three paths (:ref:`claims-paths`):

- exact: ``*_exact`` functions take and return ``fractions.Fraction`` (ints accepted; floats
  rejected with :class:`~posbias.errors.InvalidArgument`);
- precise: ``*_precise`` functions work in mpmath at a caller-given ``dps`` (inside
  ``mpmath.workdps``; floats rejected there too, pass ``mpf``, ``Fraction``, ``int`` or ``str``);
- fast: plain names work in numpy float64, ``O(T L^2)`` time and ``O(L^2)`` memory for dense
  kernels.  Profile entries below about ``1e-308`` underflow to 0 on this path; use the exact or
  precise path for such tails.

Kernels given by the user are validated at the boundary: square, non-negative, lower-triangular
(unless ``causal=False``) and row-stochastic (exactly on the exact path; within
``ulps * i * 2**-52`` for row ``i`` on the fast path; within ``4 * L`` units of the working
precision on the precise path).
"""

from __future__ import annotations

import math
import numbers
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from posbias.errors import InvalidArgument
from posbias.numbers import mp_text
from posbias.numerics._arith import row_times
from posbias.numerics.schedules import as_schedule
from posbias.validation import MAX_DENSE_LENGTH, check_dps, check_integer

__all__ = [
    "decay_kernel",
    "decay_kernel_exact",
    "decay_kernel_precise",
    "diagonal_product_exact",
    "min_entry_on_mask",
    "monotonicity_margin",
    "prefix_kernel",
    "prefix_kernel_exact",
    "prefix_mask",
    "random_causal_kernel_exact",
    "random_masked_kernel_exact",
    "random_monotone_kernel_exact",
    "residual_layer_exact",
    "rollout_last_row",
    "rollout_last_row_exact",
    "rollout_last_row_precise",
    "rollout_matrices_exact",
    "rollout_matrix_exact",
    "sliding_window_kernel",
    "sliding_window_kernel_exact",
    "stochastically_monotone",
    "uniform_causal_kernel",
    "uniform_causal_kernel_exact",
    "validate_kernel",
    "validate_kernel_exact",
    "validate_kernel_precise",
]

# --------------------------------------------------------------------------------------------
# scalars


def _exact_scalar(x: Any, parameter: str) -> Fraction:
    """An exact rational from an int or Fraction; floats and other types are rejected."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool):
        raise InvalidArgument(parameter, x, "an exact rational (int or Fraction), not a bool")
    if isinstance(x, numbers.Integral):
        return Fraction(int(x))
    if isinstance(x, numbers.Rational):
        return Fraction(int(x.numerator), int(x.denominator))
    if isinstance(x, float):
        raise InvalidArgument(
            parameter, x, "an exact rational (int or Fraction such as Fraction(1, 3)); "
            "floats are not exact"
        )
    raise InvalidArgument(parameter, x, "an exact rational (int or Fraction)")


def _precise_scalar(x: Any, parameter: str) -> mpmath.mpf:
    """An mpf (at the current working precision) from mpf, int, Fraction or a decimal string."""
    if isinstance(x, bool):
        raise InvalidArgument(parameter, x, "a number (mpf, int, Fraction or decimal string)")
    if isinstance(x, float):
        raise InvalidArgument(
            parameter, x, "an mpf, int, Fraction or decimal string (floats would carry only "
            "16 digits into a precise computation)"
        )
    if isinstance(x, mpmath.mpf):
        return +x
    if isinstance(x, numbers.Integral):
        return mpmath.mpf(int(x))
    if isinstance(x, (Fraction, numbers.Rational)):
        # one correctly rounded conversion (mpf(n) / d would round twice for a long n)
        return mpmath.mpmathify(Fraction(int(x.numerator), int(x.denominator)))
    if isinstance(x, str):
        try:
            return mpmath.mpf(x)
        except (ValueError, TypeError):
            pass
    raise InvalidArgument(parameter, x, "a number (mpf, int, Fraction or decimal string)")






# --------------------------------------------------------------------------------------------
# validation


def _rows(A: Any, parameter: str) -> list:
    if isinstance(A, np.ndarray):
        if A.ndim != 2:
            raise InvalidArgument(parameter, f"an array of shape {A.shape}", "a square matrix")
        return [list(r) for r in A.tolist()] if A.dtype != object else [list(r) for r in A]
    if not isinstance(A, (list, tuple)) or len(A) == 0:
        raise InvalidArgument(parameter, A, "a non-empty square matrix (a list of rows)")
    rows = []
    for i, row in enumerate(A):
        if not isinstance(row, (list, tuple)):
            raise InvalidArgument(f"{parameter} row {i + 1}", row, "a list of numbers")
        rows.append(list(row))
    n = len(rows)
    for i, row in enumerate(rows):
        if len(row) != n:
            raise InvalidArgument(
                f"{parameter} row {i + 1}", f"{len(row)} entries", f"{n} entries (a square matrix)"
            )
    return rows


def validate_kernel_exact(A: Any, parameter: str = "kernel", *, causal: bool = True) -> list:
    """Validate an exact kernel and return it as a list of rows of :class:`Fraction`.

    Requires: a non-empty square matrix of ints/Fractions, entries ``>= 0``, zero above the
    diagonal when ``causal`` (default), and every row summing to exactly 1.

    >>> validate_kernel_exact([[1, 0], [Fraction(1, 2), Fraction(1, 2)]])
    [[Fraction(1, 1), Fraction(0, 1)], [Fraction(1, 2), Fraction(1, 2)]]
    >>> validate_kernel_exact([[1, 0], [Fraction(1, 2), Fraction(1, 3)]])
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: sum of row 2 of kernel = 5/6 is invalid: expected exactly 1 (a row-stochastic kernel)
    """
    rows = _rows(A, parameter)
    out = []
    for i, row in enumerate(rows):
        conv = []
        for j, x in enumerate(row):
            v = _exact_scalar(x, f"{parameter}[{i + 1},{j + 1}]")
            if v < 0:
                raise InvalidArgument(f"{parameter}[{i + 1},{j + 1}]", str(v), "an entry >= 0")
            if causal and j > i and v != 0:
                raise InvalidArgument(
                    f"{parameter}[{i + 1},{j + 1}]", str(v),
                    "0 above the diagonal (a causal kernel is lower-triangular)",
                )
            conv.append(v)
        s = sum(conv, Fraction(0))
        if s != 1:
            raise InvalidArgument(
                f"sum of row {i + 1} of {parameter}", str(s), "exactly 1 (a row-stochastic kernel)"
            )
        out.append(conv)
    return out


def validate_kernel_precise(A: Any, dps: int, parameter: str = "kernel", *,
                            causal: bool = True) -> list[list[Any]]:
    """Validate a kernel for the precise path and return it as rows of ``mpf`` at ``dps``.

    Entries may be ``mpf``, ints, Fractions or decimal strings (floats are rejected).  Row sums
    must equal 1 within ``4 L`` units of ``mpmath.eps`` at ``dps`` digits.

    >>> rows = validate_kernel_precise([[1, 0], ["0.25", "0.75"]], dps=30)
    >>> [str(x) for x in rows[1]]
    ['0.25', '0.75']
    """
    dps = check_dps("dps", dps)
    rows = _rows(A, parameter)
    n = len(rows)
    out = []
    with mpmath.workdps(dps):
        tol = 4 * n * mpmath.eps
        for i, row in enumerate(rows):
            conv = []
            for j, x in enumerate(row):
                v = _precise_scalar(x, f"{parameter}[{i + 1},{j + 1}]")
                if v < 0:
                    raise InvalidArgument(
                        f"{parameter}[{i + 1},{j + 1}]", mp_text(v, 15), "an entry >= 0"
                    )
                if causal and j > i and v != 0:
                    raise InvalidArgument(
                        f"{parameter}[{i + 1},{j + 1}]", mp_text(v, 15),
                        "0 above the diagonal (a causal kernel is lower-triangular)",
                    )
                conv.append(v)
            s = mpmath.fsum(conv)
            if abs(s - 1) > tol:
                raise InvalidArgument(
                    f"sum of row {i + 1} of {parameter}", mp_text(s, 15),
                    f"1 within {4 * n} units of the working precision (dps={dps})",
                )
            out.append(conv)
    return out


def validate_kernel(A: Any, parameter: str = "kernel", *, causal: bool = True,
                    ulps: int = 8) -> np.ndarray:
    """Validate a float64 kernel and return it as a new ``(L, L)`` float64 array.

    Row ``i`` (1-indexed) must sum to 1 within ``ulps * i * 2**-52`` (the rounding of a sum of
    ``i`` terms); entries must be finite and ``>= 0``, and zero above the diagonal when causal.

    >>> validate_kernel([[1.0, 0.0], [0.25, 0.75]]).tolist()
    [[1.0, 0.0], [0.25, 0.75]]
    >>> validate_kernel([[1.0, 0.0], [0.25, 0.5]])
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: sum of row 2 of kernel = 0.75 is invalid: expected 1 within 16 ulps (a row-stochastic kernel)
    """
    if isinstance(ulps, bool) or not isinstance(ulps, numbers.Integral) or ulps < 0:
        raise InvalidArgument("ulps", ulps, "an integer >= 0")
    try:
        arr = np.array(A, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgument(parameter, A, "a square matrix of real numbers") from None
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise InvalidArgument(parameter, f"an array of shape {arr.shape}", "a non-empty square matrix")
    n = arr.shape[0]
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InvalidArgument(f"{parameter}[{i + 1},{j + 1}]", repr(float(arr[i, j])), "a finite entry")
    if (arr < 0).any():
        i, j = np.argwhere(arr < 0)[0]
        raise InvalidArgument(f"{parameter}[{i + 1},{j + 1}]", repr(float(arr[i, j])), "an entry >= 0")
    if causal:
        upper = np.triu(arr, k=1)
        if upper.any():
            i, j = np.argwhere(upper != 0)[0]
            raise InvalidArgument(
                f"{parameter}[{i + 1},{j + 1}]", repr(float(arr[i, j])),
                "0 above the diagonal (a causal kernel is lower-triangular)",
            )
    sums = arr.sum(axis=1)
    tol = ulps * np.arange(1, n + 1) * np.finfo(np.float64).eps
    off = np.abs(sums - 1.0) > tol
    if off.any():
        i = int(np.argmax(off))
        raise InvalidArgument(
            f"sum of row {i + 1} of {parameter}", f"{sums[i]:.17g}",
            f"1 within {ulps * (i + 1)} ulps (a row-stochastic kernel)",
        )
    return arr


# --------------------------------------------------------------------------------------------
# constructors


def uniform_causal_kernel_exact(L: int) -> list:
    """The Cesàro matrix ``M[i,j] = 1/i`` for ``j <= i`` (uniform causal attention), exactly.

    chowdhury2026 (C1): at initialization causal attention is uniform.

    >>> uniform_causal_kernel_exact(3)[2]
    [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    return [[Fraction(1, i) if j <= i else Fraction(0) for j in range(1, L + 1)] for i in range(1, L + 1)]


def uniform_causal_kernel(L: int) -> np.ndarray:
    """The Cesàro matrix in float64 (see :func:`uniform_causal_kernel_exact`).

    >>> uniform_causal_kernel(2).tolist()
    [[1.0, 0.0], [0.5, 0.5]]
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    i = np.arange(1, L + 1, dtype=np.float64)
    return np.tril(np.ones((L, L))) / i[:, None]




def sliding_window_kernel_exact(L: int, w: int) -> list:
    """Uniform attention over the last ``w`` positions including self, exactly.

    Row ``i`` (1-indexed) is uniform on ``{max(1, i-w+1), ..., i}`` (wu2025, sliding-window
    mask; ``w >= L`` gives the Cesàro matrix, ``w = 1`` the identity).

    >>> [str(x) for x in sliding_window_kernel_exact(4, 2)[3]]
    ['0', '0', '1/2', '1/2']
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    w = check_integer("w", w, 1)
    out = []
    for i in range(1, L + 1):
        lo = max(1, i - w + 1)
        n = i - lo + 1
        out.append([Fraction(1, n) if lo <= j <= i else Fraction(0) for j in range(1, L + 1)])
    return out


def sliding_window_kernel(L: int, w: int) -> np.ndarray:
    """Float64 form of :func:`sliding_window_kernel_exact`.

    >>> sliding_window_kernel(3, 2).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    w = check_integer("w", w, 1)
    idx = np.arange(L)
    mask = (idx[None, :] <= idx[:, None]) & (idx[None, :] > idx[:, None] - w)
    return mask / mask.sum(axis=1, keepdims=True)


def prefix_mask(L: int, K: int) -> list:
    """The prefix (prefix-LM) attention mask of wu2025 as rows of booleans.

    The first ``K`` tokens attend to each other bidirectionally (rows ``i <= K`` see
    ``{1..K}``); later tokens attend causally (row ``i > K`` sees ``{1..i}``).  The mask is
    lower-triangular only when ``K <= 1``; ``K = 1`` is the causal mask.  Every prefix token is
    attended to by every token (a *center node* in wu2025's graph language).

    >>> [[int(b) for b in r] for r in prefix_mask(3, 2)]
    [[1, 1, 0], [1, 1, 0], [1, 1, 1]]
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    if isinstance(K, bool) or not isinstance(K, numbers.Integral) or not 1 <= K <= L:
        raise InvalidArgument("K", K, f"an integer number of prefix tokens in 1..L (L = {L})")
    return [[(j <= K) if i <= K else (j <= i) for j in range(1, L + 1)] for i in range(1, L + 1)]


def prefix_kernel_exact(L: int, K: int) -> list:
    """Uniform attention under wu2025's prefix mask (see :func:`prefix_mask`), exactly.

    Rows ``i <= K`` are uniform on ``{1..K}``; rows ``i > K`` uniform on ``{1..i}``.  Not
    causal for ``K >= 2``: validate or roll out with ``causal=False``.

    >>> [str(x) for x in prefix_kernel_exact(3, 2)[0]]
    ['1/2', '1/2', '0']
    """
    mask = prefix_mask(L, K)
    return [[Fraction(1, sum(r)) if b else Fraction(0) for b in r] for r in mask]


def prefix_kernel(L: int, K: int) -> np.ndarray:
    """Float64 form of :func:`prefix_kernel_exact`.

    >>> prefix_kernel(3, 2)[2].tolist() == [1/3, 1/3, 1/3]
    True
    """
    m = np.array(prefix_mask(L, K), dtype=np.float64)
    return m / m.sum(axis=1, keepdims=True)


def decay_kernel_exact(L: int, r: Any) -> list:
    """Single-head ALiBi (decay-mask) kernel with rational ratio ``r = e^{-m}``, exactly.

    ``A[i,j] = r^(i-j) / Σ_{k<=i} r^(i-k)`` for ``j <= i``; ``r ∈ (0, 1]`` (``r = 1``: Cesàro).
    Used for small-L cross-checks of the ALiBi propagation (:ref:`X5 <math-x5>`) and wu2025 W4.

    >>> [str(x) for x in decay_kernel_exact(2, Fraction(1, 2))[1]]
    ['1/3', '2/3']
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    r = _exact_scalar(r, "r")
    if not 0 < r <= 1:
        raise InvalidArgument("r", str(r), "a ratio e^(-m) in (0, 1]")
    out = []
    for i in range(L):
        w = [r ** (i - j) if j <= i else Fraction(0) for j in range(L)]
        z = sum(w, Fraction(0))
        out.append([x / z for x in w])
    return out


def decay_kernel_precise(L: int, m: Any, dps: int) -> list:
    """Single-head ALiBi kernel ``A[i,j] ∝ e^{-m(i-j)}`` (``j <= i``) as ``mpf`` rows at ``dps``.

    >>> A = decay_kernel_precise(2, 0, dps=20)
    >>> [str(x) for x in A[1]]
    ['0.5', '0.5']
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps):
        mm = _precise_scalar(m, "m")
        if mm < 0:
            raise InvalidArgument("m", mp_text(mm, 15), "a slope m >= 0")
        q = mpmath.exp(-mm)
        out = []
        for i in range(L):
            w = [q ** (i - j) if j <= i else mpmath.mpf(0) for j in range(L)]
            z = mpmath.fsum(w)
            out.append([x / z for x in w])
    return out


def decay_kernel(L: int, m: float) -> np.ndarray:
    """Float64 single-head ALiBi kernel ``A[i,j] ∝ e^{-m(i-j)}`` for ``j <= i``, ``m >= 0``.

    Rows are normalized with the largest weight (``j = i``) equal to 1 before dividing, so
    nothing overflows; far entries underflow to 0 when ``m (i-j) > 745``.

    >>> decay_kernel(2, 0.0).tolist()
    [[1.0, 0.0], [0.5, 0.5]]
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    if isinstance(m, bool) or not isinstance(m, numbers.Real) or not math.isfinite(m) or m < 0:
        raise InvalidArgument("m", m, "a finite slope m >= 0")
    d = np.arange(L)[:, None] - np.arange(L)[None, :]
    w = np.where(d >= 0, np.exp(-float(m) * np.maximum(d, 0)), 0.0)
    return w / w.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------------------------
# layers and schedules


def _is_single_kernel(kernels: Any) -> bool:
    if isinstance(kernels, np.ndarray):
        if kernels.ndim == 2:
            return True
        if kernels.ndim == 3:
            return False
        raise InvalidArgument(
            "kernels", f"an array of shape {kernels.shape}", "a kernel (L x L) or T kernels (T x L x L)"
        )
    if not isinstance(kernels, (list, tuple)) or len(kernels) == 0:
        raise InvalidArgument(
            "kernels", kernels, "a kernel (list of rows) or a non-empty sequence of kernels"
        )
    first = kernels[0]
    if isinstance(first, np.ndarray):
        return first.ndim == 1
    if isinstance(first, (list, tuple)):
        return len(first) == 0 or not isinstance(first[0], (list, tuple, np.ndarray))
    raise InvalidArgument("kernels", kernels, "a kernel (list of rows) or a non-empty sequence of kernels")


def _schedule_list(schedule: Any, path: str = "exact", dps: int | None = None) -> list:
    """The λ_t of any schedule form (:func:`~posbias.numerics.schedules.as_schedule`) on the
    given path."""
    sched = as_schedule(schedule)
    if path == "exact":
        return list(sched.exact())
    if path == "precise":
        return sched.precise(check_dps("dps", dps))
    return sched.floats().tolist()


def _layers(kernels: Any, T: int, validate: Callable[[Any, str], Any]) -> list:
    """Per-layer validated kernels (length T; a single kernel is validated once and shared)."""
    if _is_single_kernel(kernels):
        A = validate(kernels, "kernel")
        return [A] * T if T else [A]
    seq = list(kernels)
    if len(seq) != T:
        raise InvalidArgument(
            "kernels", f"{len(seq)} kernels", f"one kernel per layer: {T} (the schedule's length)"
        )
    cache: dict = {}
    out = []
    for t, K in enumerate(seq):
        key = id(K)
        if key not in cache:
            cache[key] = validate(K, f"kernels[{t + 1}]")
        out.append(cache[key])
    n = len(out[0])
    for t, K in enumerate(out):
        if len(K) != n:
            raise InvalidArgument(
                f"kernels[{t + 1}]", f"{len(K)} x {len(K)}", f"the size of kernels[1]: {n} x {n}"
            )
    return out


def _schedule_exact(schedule: Any) -> list:
    return _schedule_list(schedule, "exact")


def residual_layer_exact(A: Any, lam: Any, *, causal: bool = True) -> list:
    """The residual-aware layer ``R = (1 - λ) I + λ A`` exactly (herasimchyk2026, section 3).

    >>> [str(x) for x in residual_layer_exact([[1, 0], [Fraction(1, 2), Fraction(1, 2)]], Fraction(1, 2))[1]]
    ['1/4', '3/4']
    """
    A = validate_kernel_exact(A, "kernel", causal=causal)
    lam = _schedule_exact([lam])[0]
    n = len(A)
    return [[(1 - lam) * (i == j) + lam * A[i][j] for j in range(n)] for i in range(n)]


def rollout_last_row_exact(kernels: Any, schedule: Sequence, *, causal: bool = True) -> list:
    """Exact influence profile ``e_L^T R(T) ... R(1)`` with ``R(t) = (1-λ_t) I + λ_t A(t)``.

    Parameters
    ----------
    kernels:
        one kernel for every layer, or a sequence of ``T`` kernels ``A(1), ..., A(T)``
        (entries int/Fraction; validated: causal unless ``causal=False``, row-stochastic).
    schedule:
        ``λ_1, ..., λ_T`` (int/Fraction in ``[0, 1]``) or a rational
        :class:`~posbias.numerics.schedules.Schedule`; ``T = 0`` gives ``e_L`` (pass a single
        kernel then: it fixes ``L``).

    Method: row-vector propagation, ``O(T L^2)`` Fraction operations.

    >>> M = uniform_causal_kernel_exact(3)
    >>> [str(x) for x in rollout_last_row_exact(M, [1, 1])]
    ['11/18', '5/18', '1/9']
    """
    lams = _schedule_exact(schedule)
    layers = _layers(kernels, len(lams), lambda A, p: validate_kernel_exact(A, p, causal=causal))
    n = len(layers[0])
    v = [Fraction(0)] * n
    v[-1] = Fraction(1)
    for t in range(len(lams) - 1, -1, -1):
        A, lam = layers[t], lams[t]
        if lam == 0:
            continue
        u = row_times(v, A, Fraction(0))
        v = u if lam == 1 else [(1 - lam) * x + lam * y for x, y in zip(v, u)]
    return v


def rollout_matrices_exact(kernels: Any, schedule: Sequence, *, causal: bool = True) -> list:
    """All partial rollouts ``[P(0), P(1), ..., P(T)]``, ``P(t) = R(t) P(t-1)``, ``P(0) = I``,
    exactly (small ``L``: ``O(T L^3)``).

    >>> M = uniform_causal_kernel_exact(2)
    >>> [[[str(x) for x in r] for r in P] for P in rollout_matrices_exact(M, [1])]
    [[['1', '0'], ['0', '1']], [['1', '0'], ['1/2', '1/2']]]
    """
    lams = _schedule_exact(schedule)
    layers = _layers(kernels, len(lams), lambda A, p: validate_kernel_exact(A, p, causal=causal))
    n = len(layers[0])
    P = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    out = [P]
    for t in range(len(lams)):
        A, lam = layers[t], lams[t]
        R = [[(1 - lam) * (i == j) + lam * A[i][j] for j in range(n)] for i in range(n)]
        P = [
            [sum((R[i][k] * P[k][j] for k in range(n) if R[i][k] and P[k][j]), Fraction(0)) for j in range(n)]
            for i in range(n)
        ]
        out.append(P)
    return out


def rollout_matrix_exact(kernels: Any, schedule: Sequence, *, causal: bool = True) -> list:
    """The full rollout ``P(T) = R(T) R(T-1) ... R(1)`` exactly (small ``L``: ``O(T L^3)``).

    >>> M = uniform_causal_kernel_exact(2)
    >>> [[str(x) for x in r] for r in rollout_matrix_exact(M, [1, Fraction(1, 2)])]
    [['1', '0'], ['5/8', '3/8']]
    """
    return rollout_matrices_exact(kernels, schedule, causal=causal)[-1]


def rollout_last_row_precise(kernels: Any, schedule: Sequence, dps: int, *, causal: bool = True) -> list:
    """The influence profile in mpmath at ``dps`` digits (a list of ``mpf``).

    Kernel entries may be ``mpf``, int, Fraction or decimal strings (no floats); λ_t any schedule
    form of :func:`~posbias.numerics.schedules.as_schedule` (binary floats enter as the exact
    binary numbers they are).
    Each of the ``T L^2`` products and sums rounds once at the working precision, so about
    ``dps - log10(T L)`` digits are correct.

    >>> M = uniform_causal_kernel_exact(3)
    >>> [mpmath.nstr(x, 12) for x in rollout_last_row_precise(M, [1, 1], dps=30)]
    ['0.611111111111', '0.277777777778', '0.111111111111']
    """
    dps = check_dps("dps", dps)
    lams = _schedule_list(schedule, "precise", dps)
    with mpmath.workdps(dps):
        layers = _layers(kernels, len(lams), lambda A, p: validate_kernel_precise(A, dps, p, causal=causal))
        n = len(layers[0])
        v = [mpmath.mpf(0)] * n
        v[-1] = mpmath.mpf(1)
        for t in range(len(lams) - 1, -1, -1):
            A, lam = layers[t], lams[t]
            u = row_times(v, A, mpmath.mpf(0))
            v = [(1 - lam) * x + lam * y for x, y in zip(v, u)]
    return v


def rollout_last_row(kernels: Any, schedule: Sequence, *, causal: bool = True) -> np.ndarray:
    """The influence profile in float64 (``O(T L^2)`` time, ``O(L^2)`` memory per kernel).

    ``kernels`` is one ``(L, L)`` kernel or ``T`` kernels (a ``(T, L, L)`` array or a sequence);
    ``schedule`` holds ``λ_1..λ_T`` as reals in ``[0, 1]``.

    >>> rollout_last_row(uniform_causal_kernel(3), [1.0, 1.0]).round(12).tolist()
    [0.611111111111, 0.277777777778, 0.111111111111]
    """
    lams = _schedule_list(schedule, "fast")
    layers = _layers(kernels, len(lams), lambda A, p: validate_kernel(A, p, causal=causal))
    n = layers[0].shape[0]
    v = np.zeros(n)
    v[-1] = 1.0
    for t in range(len(lams) - 1, -1, -1):
        lam = lams[t]
        if lam == 0.0:
            continue
        v = (1.0 - lam) * v + lam * (v @ layers[t])
    return v


def diagonal_product_exact(kernels: Any, schedule: Sequence) -> list:
    """The diagonal of the rollout by its product formula, exactly (herasimchyk2026, H4):

        P(T)[i,i] = Π_{t=1}^{T} (1 - λ_t (1 - A(t)[i,i])).

    Valid for causal (lower-triangular) kernels, whose products have the product of the
    diagonals as diagonal.  ``P(T)[i,i] > 0`` unless some layer has ``λ_t = 1`` and
    ``A(t)[i,i] = 0``.

    >>> M = uniform_causal_kernel_exact(3)
    >>> [str(x) for x in diagonal_product_exact(M, [1, Fraction(1, 2)])]
    ['1', '3/8', '2/9']
    """
    lams = _schedule_exact(schedule)
    layers = _layers(kernels, len(lams), lambda A, p: validate_kernel_exact(A, p, causal=True))
    n = len(layers[0])
    d = [Fraction(1)] * n
    for A, lam in zip(layers, lams):
        for i in range(n):
            d[i] *= 1 - lam * (1 - A[i][i])
    return d


# --------------------------------------------------------------------------------------------
# stochastic monotonicity


def _is_exact_matrix(A: Any) -> bool:
    if isinstance(A, np.ndarray) and A.dtype != object:
        return False
    try:
        return all(
            isinstance(x, (Fraction, numbers.Integral)) and not isinstance(x, bool)
            for row in A for x in row
        )
    except TypeError:
        return False


def monotonicity_margin(A: Any, *, causal: bool = True) -> tuple[float | Fraction, int, int]:
    """The worst margin of stochastic monotonicity and where it is attained.

    With row CDFs ``F_i(k) = Σ_{j<=k} A[i,j]``, ``A`` is stochastically monotone when
    ``F_i(k) >= F_{i+1}(k)`` for all ``i, k`` (herasimchyk2026, H2).  Returns
    ``(margin, i, k)`` with ``margin = min_{i,k} (F_i(k) - F_{i+1}(k))`` (1-indexed ``i, k``),
    or ``(0, 1, 1)`` when ``L = 1``.  Exact (Fractions) when the entries are exact, float64
    otherwise.

    >>> monotonicity_margin([[1, 0], [0, 1]])
    (Fraction(0, 1), 1, 2)
    """
    if _is_exact_matrix(A):
        rows = validate_kernel_exact(A, "kernel", causal=causal)
        n = len(rows)
        cdf = []
        for r in rows:
            acc, c = Fraction(0), []
            for x in r:
                acc += x
                c.append(acc)
            cdf.append(c)
        best = (Fraction(0), 1, 1)
        first = True
        for i in range(n - 1):
            for k in range(n):
                m = cdf[i][k] - cdf[i + 1][k]
                if first or m < best[0]:
                    best, first = (m, i + 1, k + 1), False
        return best
    arr = validate_kernel(A, "kernel", causal=causal)
    n = arr.shape[0]
    if n == 1:
        return (0.0, 1, 1)
    F = np.cumsum(arr, axis=1)
    D = F[:-1] - F[1:]
    row, col = np.unravel_index(int(np.argmin(D)), D.shape)
    return (float(D[row, col]), int(row) + 1, int(col) + 1)


def stochastically_monotone(A: Any, *, causal: bool = True, tol: float | None = None) -> bool:
    """Whether the row CDFs of ``A`` are ordered, ``F_i(k) >= F_{i'}(k)`` for ``i < i'``.

    Exact for int/Fraction entries; for float64 kernels a violation must exceed
    ``tol`` (default ``4 L 2**-52``, the rounding of the cumulative sums) to count.
    The Cesàro, sliding-window and ALiBi (``m >= 0``) kernels are monotone.

    >>> stochastically_monotone(uniform_causal_kernel_exact(4))
    True
    >>> stochastically_monotone([[1, 0, 0], [0, 1, 0], [1, 0, 0]])
    False
    """
    margin, _, _ = monotonicity_margin(A, causal=causal)
    if isinstance(margin, Fraction):
        return margin >= 0
    n = np.shape(A)[0]
    t = 4 * n * float(np.finfo(np.float64).eps) if tol is None else float(tol)
    return margin >= -t


def min_entry_on_mask(A: Any, mask: Any = None) -> Fraction:
    """``min A[i,j]`` over the edges of a mask (default: the causal edges ``j <= i``), exactly.

    This is the ``ε`` of wu2025's collapse theorems (entries bounded below on the mask).

    >>> min_entry_on_mask(uniform_causal_kernel_exact(4))
    Fraction(1, 4)
    """
    causal = mask is None
    rows = validate_kernel_exact(A, "kernel", causal=causal)
    n = len(rows)
    if mask is None:
        mask = [[j <= i for j in range(n)] for i in range(n)]
    return min(rows[i][j] for i in range(n) for j in range(n) if mask[i][j])


# --------------------------------------------------------------------------------------------
# seeded generators (for property checks that must not need hypothesis)


def _check_rng(rng: Any) -> random.Random:
    if not isinstance(rng, random.Random):
        raise InvalidArgument("rng", rng, "a random.Random instance (seeded)")
    return rng


def random_masked_kernel_exact(mask: Any, rng: random.Random, *, max_weight: int = 9) -> list:
    """A random row-stochastic kernel supported exactly on a boolean mask, with rational entries.

    Each allowed entry gets an integer weight in ``1..max_weight``, rows are normalized; so every
    entry on the mask is at least ``1 / (max_weight * n_i)`` (``n_i`` the row's support size).

    >>> A = random_masked_kernel_exact([[True, False], [True, True]], random.Random(1))
    >>> sum(A[1]) == 1 and A[0] == [1, 0]
    True
    """
    rng = _check_rng(rng)
    if isinstance(max_weight, bool) or not isinstance(max_weight, numbers.Integral) or max_weight < 1:
        raise InvalidArgument("max_weight", max_weight, "an integer >= 1")
    out = []
    for i, r in enumerate(mask):
        w = [rng.randint(1, max_weight) if b else 0 for b in r]
        z = sum(w)
        if z == 0:
            raise InvalidArgument(f"mask row {i + 1}", r, "a row with at least one allowed entry")
        out.append([Fraction(x, z) for x in w])
    return out


def random_causal_kernel_exact(
    L: int, rng: random.Random, *, max_weight: int = 9, density: Fraction | None = None
) -> list:
    """A random causal kernel with rational entries.

    With ``density = None`` every causal entry is positive (as for softmax attention); with a
    ``density`` in ``(0, 1]`` each off-diagonal causal entry is kept with that probability and
    the diagonal entry may be zero too (only row 1 is forced to ``e_1``), covering kernels with
    zero diagonal entries.

    >>> A = random_causal_kernel_exact(3, random.Random(0))
    >>> all(sum(r) == 1 for r in A) and A[0][1] == 0
    True
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    rng = _check_rng(rng)
    if density is None:
        causal = [[j <= i for j in range(L)] for i in range(L)]
        return random_masked_kernel_exact(causal, rng, max_weight=max_weight)
    density = _exact_scalar(density, "density")
    if not 0 < density <= 1:
        raise InvalidArgument("density", str(density), "a probability in (0, 1]")
    mask = []
    for i in range(L):
        r = [j <= i and rng.random() < density for j in range(L)]
        if not any(r):
            r[rng.randint(0, i)] = True
        mask.append(r)
    return random_masked_kernel_exact(mask, rng, max_weight=max_weight)


def random_monotone_kernel_exact(
    L: int, rng: random.Random, *, denominator: int = 12, positive_diagonal: bool = True
) -> list:
    """A random stochastically monotone causal kernel with rational entries.

    Built from its row CDFs: row ``i`` takes ``i - 1`` sorted random grid values ``g_k`` in
    ``[0, 1]`` (in ``[0, 1)`` when ``positive_diagonal``) with denominator ``denominator`` and
    sets ``F_i(k) = min(g_k, F_{i-1}(k))``, ``F_i(i) = 1``; the minimum of two non-decreasing
    sequences is non-decreasing and ``F_i <= F_{i-1}`` holds by construction, so every kernel
    produced is causal, row-stochastic and monotone.

    >>> A = random_monotone_kernel_exact(5, random.Random(3))
    >>> stochastically_monotone(A) and all(A[i][i] > 0 for i in range(5))
    True
    """
    L = check_integer("L", L, 1, MAX_DENSE_LENGTH)
    rng = _check_rng(rng)
    if isinstance(denominator, bool) or not isinstance(denominator, numbers.Integral) or denominator < 1:
        raise InvalidArgument("denominator", denominator, "an integer >= 1")
    top = denominator - 1 if positive_diagonal else denominator
    cdfs = [[Fraction(1)]]
    for i in range(2, L + 1):
        prev = cdfs[-1]
        g = sorted(Fraction(rng.randint(0, top), denominator) for _ in range(i - 1))
        cdfs.append([min(g[k], prev[k]) for k in range(i - 1)] + [Fraction(1)])
    out = []
    for c in cdfs:
        row = [c[0]] + [c[k] - c[k - 1] for k in range(1, len(c))]
        out.append(row + [Fraction(0)] * (L - len(row)))
    return out
