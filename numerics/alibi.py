"""ALiBi multi-head kernels with diagonal content logits, propagated in O(L) per head.

One head with slope ``m >= 0`` and diagonal content logit ``d`` (herasimchyk2026, section H2c/H2d;
:ref:`X4/X5 <math-x4>`) reads, in row ``i`` (1-indexed positions ``1..L``), the logits ``-m (i - j)`` for
``j < i`` and ``d`` for ``j = i``; a softmax at temperature ``tau`` gives

.. math::

    A[i, j] = e^{-m (i-j)/\\tau} / Z_i \\ (j < i), \\qquad A[i, i] = e^{d/\\tau} / Z_i, \\qquad
    Z_i = e^{d/\\tau} + \\sum_{k=1}^{i-1} e^{-m k/\\tau}.

A constant content score ``b`` added to every logit of a row cancels in the softmax (the builders
below accept ``base=`` to show it; the propagation never needs it).  A multi-head layer is the
weighted average ``A = \\sum_h w_h A_h`` (weights normalised to sum 1), a residual-aware layer is
``R(t) = (1 - lambda_t) I + lambda_t A(t)`` and the influence profile is the last row of
``P(T) = R(T) ... R(1)``, propagated as a row vector ``e_L R(T) R(T-1) ... R(1)`` (the layer
applied last to the activations is applied first to the row).

**O(L) propagation (:ref:`X5 <math-x5>`).**  For ``u = v A`` with one head, write ``x_i = v_i / Z_i`` and
``q = e^{-m/tau}``; then ``u_j = v_j e^{d/tau} / Z_j + S_j`` with
``S_j = \\sum_{i > j} q^{i-j} x_i``, which obeys ``S_j = q (x_{j+1} + S_{j+1})``, ``S_L = 0``.
The precise path runs this recurrence literally in mpmath.  The fast path evaluates the same
reverse geometric scan ``C_j = \\sum_{i >= j} q^{i-j} x_i`` blockwise: inside blocks of ``B``
positions it multiplies by the ``B x B`` upper-triangular Toeplitz matrix of the powers ``q^k``
(a batched matrix product, vectorised over heads), and the block carries obey the same scan with
ratio ``q^B``, solved recursively.  Every term is a product of non-negative numbers, so nothing
cancels: the relative error is a few units of 2^-53 per entry, and tails far below 1e-60 keep
their relative accuracy (only values below the float64 normal range, about 1e-300, are lost).
The partition ``Z_i`` is evaluated in closed form,
``Z_i = e^{d/tau} + q (1 - q^{i-1}) / (1 - q)`` with ``expm1`` (no cancellation for small ``m``),
scaled by ``e^{-max(d, 0)/tau}`` so that large content logits (measured q.k of 100 and more)
neither overflow nor flush.

**Compiled route.**  With numba installed (the ``fast`` or ``test`` extra) causal layers run the
plain recurrence ``C_j = x_j + q C_{j+1}`` as one compiled reverse pass over the positions, all
heads side by side (:mod:`posbias.numerics._compiled`).  The normalisers ``e^{s}/Z_i`` depend only
on the slopes, the diagonal logits and ``L``; they are cached across layers, and only up to the
position where every head's partition sum is flat (``m (i-1) > 38``; about ``10^4`` positions
for BLOOM's slopes whatever ``L``), a single vector beyond.  A term carried over ``k`` positions
is multiplied by ``q`` ``k`` times, so ``q`` enters as its float64 rounding plus the remainder,
inside one fused multiply-add: the relative error of tails ``10^5`` positions away stays near
``10^-14`` instead of ``k 2^-53``.  ``POSBIAS_NUMBA=0`` forces the numpy route, ``=1`` the compiled
one; by default small rollouts in a fresh process stay on numpy
(:func:`posbias.numerics._compiled.use_compiled`).

**Sliding windows.**  With a window of ``w`` positions (row ``i`` reads ``j = i-w+1..i``) the
partition stops growing at ``Z_w`` and ``S_j = \\sum_{k=1}^{w-1} q^k x_{j+k}``.  The fast path
cuts the positions into blocks of ``w-1``: each window is a suffix of one block plus a prefix of
the next (van Herk / Gil-Werman), a within-block reverse scan plus a within-block weighted
cumulative sum, again without any subtraction, ``O(H L)`` for every ``w``.

Paths (:ref:`claims-paths`): fast (:func:`alibi_propagate`, :func:`alibi_rollout`; float64,
``O(T H L)`` time, ``O(L)`` memory per head chunk), precise (:func:`alibi_propagate_precise`,
:func:`alibi_rollout_precise`; mpmath at a caller-given ``dps``, for small ``L``), and dense
references (:func:`alibi_kernel_dense`, :func:`alibi_kernel_dense_precise`,
:func:`alibi_rollout_dense`, :func:`alibi_rollout_dense_precise`; full ``L x L`` matrices built
from the softmax definition, ``O(T L^2)``, for tests and benchmarks).

**ALiBi slope rules.**  ``power-of-two``: ``m_h = 2^{-8h/H}``, ``h = 1..H`` (the ALiBi formula,
exact for ``H`` a power of two).  ``bloom``: with ``n = 2^{floor(log2 H)}`` the first ``n`` slopes
are ``2^{-8h/n}`` (``h = 1..n``) and the remaining ``H - n`` are ``2^{-8h/(2n)}`` for the odd
``h = 1, 3, 5, ...`` (every other slope of the next power of two, so that they interleave in
value with the first ``n``); the two lists are concatenated in this order, as BLOOM builds its
ALiBi tensor.  For ``H`` a power of two both rules coincide.  For BLOOM-176B (``H = 112``):
64 slopes ``2^{-h/8}`` then 48 slopes ``2^{-h/16}``, ``h = 1, 3, ..., 95``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import mpmath
import numpy as np
from numpy.typing import ArrayLike
from threadpoolctl import threadpool_limits

from posbias.errors import InvalidArgument
from posbias.numerics import _compiled
from posbias.numerics.schedules import ScheduleLike, as_schedule
from posbias.validation import MAX_HEADS, MAX_LENGTH, check_dps, check_integer

__all__ = [
    "SLOPE_RULES",
    "AlibiLayer",
    "alibi_diagonal_defect",
    "alibi_kernel_dense",
    "alibi_kernel_dense_precise",
    "alibi_layer",
    "alibi_propagate",
    "alibi_propagate_precise",
    "alibi_rollout",
    "alibi_rollout_dense",
    "alibi_rollout_dense_precise",
    "alibi_rollout_precise",
    "alibi_slopes",
]

SLOPE_RULES = ("power-of-two", "bloom")

# Block size of the fast reverse scan (measured on 2 cores: 16 fastest for L = 2^11..2^17).
_BLOCK = 16
# -expm1(-x) rounds to exactly 1 in float64 once x > 38 (e^-38 < 2^-54); beyond that Z_i is flat.
_FLAT = 38.0
# Partition sums are cached across layers only while H L stays below this many doubles (128 MB).
_CACHE_LIMIT = 1 << 24
#: arrays shared across the layers of one rollout, keyed by what they depend on
_Cache = dict[tuple, Any]


# --------------------------------------------------------------------------------------------
# slopes




def alibi_slopes(num_heads: int, rule: str = "bloom") -> np.ndarray:
    """ALiBi slopes of ``num_heads`` heads by a named rule (float64 array, head order).

    ``power-of-two``: ``m_h = 2^{-8h/H}``; ``bloom``: ``2^{-8h/n}`` for ``h = 1..n``,
    ``n = 2^{floor(log2 H)}``, then ``2^{-8h/(2n)}`` for ``h = 1, 3, ..., 2(H-n)-1``.

    Parameters
    ----------
    num_heads: integer ``H >= 1``.
    rule: ``"power-of-two"`` or ``"bloom"`` (see the module docstring).

    >>> alibi_slopes(8, "power-of-two").tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> s = alibi_slopes(112, "bloom")
    >>> bool(s[0] == 2 ** (-1 / 8)) and bool(s[63] == 2.0 ** -8) and bool(s[64] == 2 ** (-1 / 16))
    True
    >>> bool((alibi_slopes(32, "bloom") == alibi_slopes(32, "power-of-two")).all())
    True

    Method: ``2 ** (exponent)`` with the exponent a dyadic rational (exact in float64) for
    power-of-two head counts.  Paper: herasimchyk2026 (ALiBi models BLOOM, MPT), :ref:`math-pitfalls`.
    """
    H = check_integer("num_heads", num_heads, 1, MAX_HEADS)
    if rule == "power-of-two":
        return np.array([2.0 ** (-8.0 * h / H) for h in range(1, H + 1)])
    if rule == "bloom":
        n = 1 << (H.bit_length() - 1)
        first = [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]
        extra = [2.0 ** (-8.0 * h / (2 * n)) for h in range(1, 2 * (H - n), 2)]
        return np.array(first + extra)
    raise InvalidArgument("rule", rule, "one of " + ", ".join(SLOPE_RULES))


# --------------------------------------------------------------------------------------------
# layers


def _as_heads(name: str, value: ArrayLike, H: int, *, nonneg: bool = False,
              positive_sum: bool = False) -> np.ndarray:
    arr = np.asarray(value, dtype=object)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size not in (1, H):
        raise InvalidArgument(name, value, f"a number or a list of 1 or {H} numbers")
    out = np.empty(arr.size)
    for k, x in enumerate(arr):
        if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
            raise InvalidArgument(name, value, "real numbers")
        out[k] = float(x)
    if not np.isfinite(out).all():
        raise InvalidArgument(name, value, "finite numbers")
    if nonneg and (out < 0).any():
        raise InvalidArgument(name, value, "numbers >= 0")
    if positive_sum and not out.sum() > 0:
        raise InvalidArgument(name, value, "non-negative weights with a positive sum")
    return np.broadcast_to(out, (H,)).copy()


@dataclass(frozen=True)
class AlibiLayer:
    """One multi-head ALiBi attention layer (logit units, before the softmax temperature).

    ``slopes[h] >= 0``, ``diagonal[h]`` (the diagonal content logit relative to the off-diagonal
    ones), ``weights[h] >= 0`` (normalised by their sum when used), ``temperature > 0``,
    ``window``: None (causal mask) or ``w >= 1`` (sliding window: row ``i`` reads
    ``j = i-w+1..i``).  Build it with :func:`alibi_layer`, which validates and broadcasts.
    """

    slopes: np.ndarray
    diagonal: np.ndarray
    weights: np.ndarray
    temperature: float = 1.0
    window: int | None = None

    @property
    def num_heads(self) -> int:
        return int(self.slopes.size)

    def effective(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(m, d, w)``: slopes and diagonal logits divided by the temperature, weights summing
        to 1 (float64 arrays)."""
        w = self.weights / self.weights.sum()
        return self.slopes / self.temperature, self.diagonal / self.temperature, w


def alibi_layer(slopes: ArrayLike, diagonal: ArrayLike = 0.0, weights: ArrayLike | None = None,
                temperature: float = 1.0, window: int | None = None) -> AlibiLayer:
    """Validate and broadcast one layer's parameters into an :class:`AlibiLayer`.

    ``slopes``: a number or a list (one per head) of finite numbers ``>= 0``; ``diagonal``: a
    number or a list of 1 or ``H`` finite numbers (a single value reaches every head);
    ``weights``: None (uniform) or 1 or ``H`` non-negative numbers with a positive sum;
    ``temperature``: a finite number ``> 0``; ``window``: None (causal) or an integer ``>= 1``
    (sliding-window mask of ``w`` positions, the diagonal included).

    >>> lay = alibi_layer([0.5, 0.25], diagonal=1.0)
    >>> lay.num_heads, lay.diagonal.tolist(), lay.weights.tolist()
    (2, [1.0, 1.0], [1.0, 1.0])
    >>> alibi_layer([-1.0])
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: slopes = [-1.0] is invalid: expected numbers >= 0
    """
    s = np.asarray(slopes, dtype=object)
    H = 1 if s.ndim == 0 else int(s.size)
    if H < 1:
        raise InvalidArgument("slopes", slopes, "a non-empty list of numbers >= 0")
    m = _as_heads("slopes", slopes, H, nonneg=True)
    d = _as_heads("diagonal", diagonal, H)
    w = np.ones(H) if weights is None else _as_heads("weights", weights, H, nonneg=True, positive_sum=True)
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.integer, np.floating)):
        raise InvalidArgument("temperature", temperature, "a finite number > 0")
    if not (math.isfinite(float(temperature)) and float(temperature) > 0):
        raise InvalidArgument("temperature", temperature, "a finite number > 0")
    if window is not None and (isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1):
        raise InvalidArgument("window", window, "None (causal) or an integer >= 1")
    return AlibiLayer(m, d, w, float(temperature), None if window is None else int(window))




def _check_layers(layers: Iterable[AlibiLayer]) -> list[AlibiLayer]:
    layers = list(layers)
    for k, lay in enumerate(layers):
        if not isinstance(lay, AlibiLayer):
            raise InvalidArgument(f"layers[{k}]", lay, "an AlibiLayer (see alibi_layer)")
    return layers


def _check_lambdas(lambdas: ScheduleLike, T: int) -> np.ndarray:
    return as_schedule(lambdas, "lambdas", depth=T).floats()


# --------------------------------------------------------------------------------------------
# dense references


def alibi_kernel_dense(length: int, layer: AlibiLayer, *, base: float = 0.0) -> np.ndarray:
    """The ``L x L`` float64 kernel ``A = sum_h w_h softmax(logits_h / tau)`` built entrywise.

    Logits of head ``h`` in row ``i``: ``base - m_h (i-j)`` (``j < i``), ``base + d_h``
    (``j = i``), masked above the diagonal; a row-max-shifted softmax.  ``base`` (a constant
    content score, the same for every entry) is accepted to show that it cancels.

    >>> A = alibi_kernel_dense(3, alibi_layer([0.0]))
    >>> A.round(4).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.3333, 0.3333, 0.3333]]

    Method: the softmax definition, O(H L^2).  Reference for tests and benchmarks.
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    i = np.arange(L)[:, None]
    j = np.arange(L)[None, :]
    dist = (i - j).astype(float)
    causal = j <= i
    if layer.window is not None:
        causal &= j > i - layer.window
    m, d, w = layer.effective()
    b = float(base) / layer.temperature
    A = np.zeros((L, L))
    for h in range(layer.num_heads):
        logits = b - m[h] * dist
        np.fill_diagonal(logits, b + d[h])
        logits = np.where(causal, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        A += w[h] * (e / e.sum(axis=1, keepdims=True))
    return A


def alibi_kernel_dense_precise(length: int, layer: AlibiLayer, *, dps: int,
                               base: float | str = 0) -> list[list[Any]]:
    """:func:`alibi_kernel_dense` in mpmath at ``dps`` digits: a list of ``L`` rows of mpf.

    The layer's float64 parameters are taken as exact binary numbers.

    >>> A = alibi_kernel_dense_precise(2, alibi_layer([1.0], diagonal=1.0), dps=20)
    >>> mpmath.nstr(A[1][1], 15)
    '0.880797077977882'
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps):
        tau = mpmath.mpf(layer.temperature)
        wsum = mpmath.fsum(mpmath.mpf(x) for x in layer.weights)
        b = mpmath.mpf(base) / tau
        A = [[mpmath.mpf(0)] * L for _ in range(L)]
        for h in range(layer.num_heads):
            m = mpmath.mpf(layer.slopes[h]) / tau
            d = mpmath.mpf(layer.diagonal[h]) / tau
            w = mpmath.mpf(layer.weights[h]) / wsum
            for r in range(L):
                lo = 0 if layer.window is None else max(0, r - layer.window + 1)
                e = [mpmath.exp(b - m * (r - c)) for c in range(lo, r)] + [mpmath.exp(b + d)]
                z = mpmath.fsum(e)
                for c in range(lo, r + 1):
                    A[r][c] += w * e[c - lo] / z
        return A


def alibi_diagonal_defect(length: int, layer: AlibiLayer) -> float:
    """``delta = max_i (1 - A[i, i])`` of one layer (float64), from the closed form.

    ``1 - A_h[i,i] = G_i / (e^d + G_i)`` with ``G_i = sum_{k=1}^{i-1} q^k`` is increasing in
    ``i``, so the maximum of the head average is at ``i = L``:
    ``delta = sum_h w_h G_L / (e^{d_h} + G_L)``.  This is the ``delta_t`` of :ref:`H4 <math-h4>`.

    >>> round(alibi_diagonal_defect(4, alibi_layer([0.0])), 12)
    0.75
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    m, d, w = layer.effective()
    G = _partial_geometric(m, L - 1 if layer.window is None else min(L, layer.window) - 1)
    with np.errstate(over="ignore"):
        frac = np.where(d >= 0, G * np.exp(-np.maximum(d, 0)) / (1 + G * np.exp(-np.maximum(d, 0))),
                        G / (np.exp(np.minimum(d, 0)) + G))
    return float(np.dot(w, frac))


def _partial_geometric(m: np.ndarray, n: np.ndarray | int) -> np.ndarray:
    """``G = sum_{k=1}^{n} e^{-m k}`` elementwise (``n`` scalar or array broadcasting with m)."""
    m = np.asarray(m, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        g = np.exp(-m) * np.expm1(-m * n) / np.expm1(-m)
    return np.where(m == 0, n + 0 * m, np.where(n == 0, 0.0, g))


# --------------------------------------------------------------------------------------------
# fast path


def _toeplitz_powers(logq: np.ndarray, n: int, cache: _Cache | None) -> np.ndarray:
    """``W[h, i, j] = q_h^{i-j}`` for ``i >= j`` else 0 (``n x n`` per head), cached by ``(q, n)``."""
    key = ("W", logq.tobytes(), n)
    if cache is not None and key in cache:
        return cache[key]
    r = np.arange(n)
    diff = r[:, None] - r[None, :]
    with np.errstate(under="ignore"):
        powers = np.exp(logq[:, None] * r[None, :])  # q^k, k = 0..n-1
    W = powers[:, np.maximum(diff, 0)]
    W *= (diff >= 0)[None]
    if cache is not None:
        cache[key] = W
    return W


def _reverse_scan(y: np.ndarray, logq: np.ndarray, cache: _Cache | None = None) -> np.ndarray:
    """``C[h, ..., j] = sum_{i >= j} q_h^{i-j} y[h, ..., i]`` along the last axis, ``q_h = e^{logq_h}``.

    ``y`` has shape ``(H, n)`` or ``(H, M, n)`` (``M`` independent rows per head), ``logq <= 0``.
    Blocked: a batched product with the ``B x B`` Toeplitz matrices of ``q^k`` inside blocks, and
    the same scan (ratio ``q^B``) over the block carries, recursively.  All terms non-negative
    when ``y`` is.
    """
    if y.ndim == 2:
        return _reverse_scan(y[:, None, :], logq, cache)[:, 0, :]
    H, M, n = y.shape
    B = _BLOCK
    if n <= B:
        W = _toeplitz_powers(logq, n, cache)  # [h, i, j] = q^{i-j}
        return np.matmul(y[:, :, None, :], W[:, None, :, :])[:, :, 0, :]
    nb = -(-n // B)
    if nb * B != n:
        Y = np.zeros((H, M, nb * B))
        Y[:, :, :n] = y
    else:
        Y = np.ascontiguousarray(y)
    Y = Y.reshape(H, M, nb, B)
    WT = _toeplitz_powers(logq, B, cache)
    local = np.matmul(Y, WT[:, None, :, :])  # local[h, ., b, j] = sum_{i >= j in block} q^{i-j} Y[h, ., b, i]
    starts = _reverse_scan(np.ascontiguousarray(local[:, :, :, 0]), logq * B, cache)
    r = np.arange(B)
    with np.errstate(under="ignore"):
        dec = np.exp(logq[:, None] * (B - r)[None, :])  # q^{B - r}: from r to the next block start
    local[:, :, :-1, :] += dec[:, None, None, :] * starts[:, :, 1:, None]
    return local.reshape(H, M, nb * B)[:, :, :n]


def _window_sum(y: np.ndarray, logq: np.ndarray, b: int,
                cache: _Cache | None = None) -> np.ndarray:
    """``S[h, j] = sum_{k=1}^{b} q_h^k y[h, j+k]`` (zero beyond the end), ``b >= 1``, without
    subtraction: with blocks of ``b`` positions the window ``j+1..j+b`` is a suffix of one block
    (a within-block reverse scan) plus a prefix of the next (a within-block weighted cumulative
    sum), as in the van Herk / Gil-Werman sliding-window scheme."""
    H, L = y.shape
    nb = L // b + 2
    N = nb * b
    Y = np.zeros((H, N))
    Y[:, :L] = y
    Yb = Y.reshape(H, nb, b)
    R = _reverse_scan(Yb, logq, cache).reshape(H, N)  # suffix sums inside blocks
    with np.errstate(under="ignore"):
        pw = np.exp(logq[:, None] * np.arange(b + 1)[None, :])  # q^k, k = 0..b
    F = np.cumsum(Yb * pw[:, None, :b], axis=2).reshape(H, N)  # prefix sums inside blocks
    j = np.arange(L)
    nxt = ((j + 1) // b + 1) * b  # start of the block after the one holding j+1
    e = nxt - j  # in 1..b
    S = pw[:, 1:2] * R[:, j + 1]
    two = j + b >= nxt
    S[:, two] += pw[:, e[two]] * F[:, (j + b)[two]]
    return S


def _auto_chunk(L: int, chunk: int | None) -> int:
    """Heads per chunk: about 2^21 doubles (16 MB) per working array unless given."""
    if chunk is None:
        return max(1, (1 << 21) // max(L, 1))
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise InvalidArgument("chunk", chunk, "an integer >= 1 or None")
    return int(chunk)


def _partition_sums(mc: np.ndarray, L: int, kmax: int,
                    cache: _Cache | None = None) -> np.ndarray:
    """``G[h, i-1] = sum_{k=1}^{min(i-1, kmax)} q_h^k`` (``H x L`` float64, closed form with
    ``expm1``); flat (equal to its limit to the last bit) once ``m (i-1) > _FLAT`` or
    ``i - 1 >= kmax``, so only the first ``n`` columns are evaluated.  Cached by the slopes."""
    key = ("G", mc.tobytes(), L, kmax)
    G0 = cache.get(key) if cache is not None else None
    if G0 is None:
        mmin = float(mc.min())
        # m L <= _FLAT: no column is flat (and _FLAT / m may be beyond any integer)
        n = L if mmin * L <= _FLAT else min(L, int(_FLAT / mmin) + 2)
        n = min(n, kmax + 1)
        G0 = np.empty((mc.size, L))
        G0[:, :n] = _partial_geometric(mc[:, None], np.arange(n, dtype=float)[None, :])
        if n < L:
            G0[:, n:] = _partial_geometric(mc, kmax)[:, None]
        if cache is not None:
            cache[key] = G0
    return G0


def _diagonal_scaling(dc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(e^{d-s}, e^{-s})`` with ``s = max(d, 0)``: the diagonal weight and the off-diagonal
    scale of the normaliser ``e^{s}/Z``, so that large content logits neither overflow nor flush."""
    s = np.maximum(dc, 0.0)
    with np.errstate(over="ignore", under="ignore"):
        return np.exp(dc - s), np.exp(-s)


def _split_ratio(mc, cache=None):
    """``(q_hi, q_lo)``: ``q = e^{-m}`` as its float64 rounding and the remainder (mpmath at 40
    digits, then rounded), so that ``q_hi + q_lo`` carries ``q`` to about 2^-106 relative."""
    key = ("q", mc.tobytes())
    out = cache.get(key) if cache is not None else None
    if out is None:
        with np.errstate(under="ignore"):
            q = np.exp(-mc)
        with mpmath.workdps(40):
            qlo = np.array([float(mpmath.exp(-mpmath.mpf(float(x))) - mpmath.mpf(float(y)))
                            for x, y in zip(mc, q)])
        out = (q, qlo)
        if cache is not None:
            cache[key] = out
    return out


def _normalisers_T(mc: np.ndarray, dc: np.ndarray, L: int, heads: int,
                   cache: _Cache | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(cT, cflat)``: ``cT[i-1, h] = e^{s_h} / Z_h[i] = 1 / (e^{d-s} + e^{-s} G_h[i])`` for the
    positions ``i <= n`` before every head's partition sum is flat (positions by heads, the layout
    of the compiled scan), and ``cflat[h]``, the value at every later position.  Cached by
    ``(slopes, diagonal logits, L)``: the normalisers depend only on them, so layers sharing them
    (every layer of a content-free model) compute them once; for BLOOM's slopes ``n`` is about
    10^4 whatever ``L``, so the scan streams little memory."""
    key = ("cT", mc.tobytes(), dc.tobytes(), L)
    out = cache.get(key) if cache is not None else None
    if out is None:
        mmin = float(mc.min())
        # m L <= _FLAT: no column is flat (and _FLAT / m may be beyond any integer)
        n = L if mmin * L <= _FLAT else min(L, int(_FLAT / mmin) + 2)
        a, b = _diagonal_scaling(dc)
        G = _partial_geometric(mc[:, None], np.arange(n, dtype=float)[None, :])
        G *= b[:, None]
        G += a[:, None]
        cT = np.ascontiguousarray(np.reciprocal(G, out=G).T)
        del G
        cflat = 1.0 / (a + b * _partial_geometric(mc, L - 1))
        out = (cT, cflat)
        if cache is not None and heads * n <= _CACHE_LIMIT:  # at most 128 MB for all chunks
            cache[key] = out
    return out


def _layer_apply_compiled(v: np.ndarray, m: np.ndarray, d: np.ndarray, w: np.ndarray,
                          cache: _Cache | None = None, *, compiled: bool = True) -> np.ndarray:
    """``u = v A`` for a causal layer by the compiled reverse scan (:mod:`._compiled`): one pass
    over the positions per layer, all heads of a chunk side by side, normalisers cached."""
    L = v.size
    u = np.zeros(L)
    chunk = max(1, _CACHE_LIMIT // L)
    for lo in range(0, m.size, chunk):
        mc, dc, wc = m[lo:lo + chunk], d[lo:lo + chunk], w[lo:lo + chunk]
        cT, cflat = _normalisers_T(mc, dc, L, m.size, cache)
        q, qlo = _split_ratio(mc, cache)
        a, b = _diagonal_scaling(dc)
        _compiled.alibi_causal_scan(v, cT, cflat, q, qlo, wc * a, wc * b * q, u, compiled=compiled)
    return u


def _layer_apply_fast(v: np.ndarray, m: np.ndarray, d: np.ndarray, w: np.ndarray, chunk: int,
                      cache: _Cache | None = None, window: int | None = None,
                      compiled: bool = False) -> np.ndarray:
    """``u = v A`` for the head average ``A`` (effective slopes ``m``, logits ``d``, weights ``w``,
    causal or sliding-window mask); ``compiled``: causal layers by the compiled scan."""
    L = v.size
    if L == 1 or window == 1:
        return v * float(w.sum())
    if window is not None and window >= L:
        window = None  # the window covers every causal edge
    if window is None and compiled:
        return _layer_apply_compiled(v, m, d, w, cache)
    u = np.zeros(L)
    kmax = L - 1 if window is None else window - 1  # most keys before the diagonal
    order = np.argsort(m, kind="stable")  # chunks of similar slopes share their flat region
    for lo in range(0, m.size, chunk):
        sel = order[lo:lo + chunk]
        mc, dc, wc = m[sel], d[sel], w[sel]
        G0 = _partition_sums(mc, L, kmax, cache if m.size * L <= _CACHE_LIMIT else None)
        a, b = _diagonal_scaling(dc)
        # c = e^{s} / Z = 1 / (e^{d-s} + e^{-s} G);  diag weight g = e^{d} / Z = e^{d-s} c
        G = np.multiply(G0, b[:, None])
        G += a[:, None]
        c = np.reciprocal(G, out=G)
        diag = (wc * a) @ c  # sum_h w_h g_h[i]
        c[:, 0] = 0.0  # row 1 reads only itself; x_1 never enters S
        c *= v[None, :]
        u += v * diag
        with np.errstate(under="ignore"):
            if window is None:
                C = _reverse_scan(c, -mc, cache)
                u[:-1] += (wc * b * np.exp(-mc)) @ C[:, 1:]
            else:
                u += (wc * b) @ _window_sum(c, -mc, window - 1, cache)
    return u


def _check_vector(v: ArrayLike, L: int | None = None) -> np.ndarray:
    arr = np.asarray(v, dtype=float)
    if arr.ndim != 1 or arr.size < 1 or (L is not None and arr.size != L):
        raise InvalidArgument("v", v, "a one-dimensional vector" + (f" of length {L}" if L else ""))
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise InvalidArgument("v", v, "finite non-negative numbers")
    return arr


def alibi_propagate(v: ArrayLike, layer: AlibiLayer, *, chunk: int | None = None) -> np.ndarray:
    """``u = v A`` for the multi-head ALiBi kernel of ``layer`` in O(H L) time (fast path).

    ``v``: a non-negative float64 row vector of length ``L``.  ``chunk``: heads processed
    together (memory ``~ 8 chunk L`` doubles; default about ``2^21 / L`` heads).

    >>> v = np.array([0.0, 0.0, 1.0])
    >>> lay = alibi_layer([0.0])
    >>> alibi_propagate(v, lay).tolist() == (v @ alibi_kernel_dense(3, lay)).tolist()
    True

    Method: :ref:`X5 <math-x5>` with a blocked reverse geometric scan (module docstring).  Relative error a
    few float64 ulps per entry.  Paper: posbias (X5), herasimchyk2026 (ALiBi kernel).
    """
    v = _check_vector(v)
    if not isinstance(layer, AlibiLayer):
        raise InvalidArgument("layer", layer, "an AlibiLayer (see alibi_layer)")
    m, d, w = layer.effective()
    compiled = _compiled.use_compiled(m.size * v.size)
    return _layer_apply_fast(v, m, d, w, _auto_chunk(v.size, chunk), None, layer.window, compiled)


def alibi_rollout(length: int, layers: Sequence[AlibiLayer], lambdas: ScheduleLike, *,
                  chunk: int | None = None) -> np.ndarray:
    """Influence profile ``p = e_L R(T) ... R(1)`` of a residual-aware ALiBi rollout (fast path).

    ``R(t) = (1 - lambda_t) I + lambda_t A(t)``; ``layers[t-1]`` is layer ``t``; ``lambdas``:
    ``T`` numbers in [0, 1] (or one number for all layers).  Returns a float64 array of length
    ``L`` (0-indexed: ``p[j-1]`` is the influence of position ``j``).

    >>> p = alibi_rollout(4, [alibi_layer([0.0])] * 2, 1.0)
    >>> [round(x, 12) for x in p.tolist()]   # Cesaro: (1/4) h_1(1/j, ..., 1/4)
    [0.520833333333, 0.270833333333, 0.145833333333, 0.0625]

    Method: ``O(T H L)`` time, ``O(L)`` memory (:ref:`X5 <math-x5>`).  Paper: herasimchyk2026 (H2, H5).
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    layers = _check_layers(layers)
    lam = _check_lambdas(lambdas, len(layers))
    chunk = _auto_chunk(L, chunk)
    cache: _Cache = {}  # partition sums, normalisers and Toeplitz powers, shared by layers with equal slopes
    v = np.zeros(L)
    v[-1] = 1.0
    compiled = _compiled.use_compiled(L * sum(lay.num_heads for lay in layers))
    with _blas_one_thread():
        for t in range(len(layers) - 1, -1, -1):
            if lam[t] == 0.0:
                continue
            m, d, w = layers[t].effective()
            u = _layer_apply_fast(v, m, d, w, chunk, cache, layers[t].window, compiled)
            v = (1.0 - lam[t]) * v + lam[t] * u
    return v


def _blas_one_thread():
    """One BLAS thread for the numpy route's batched ``16 x 16`` products (threadpoolctl): more
    threads gain nothing on such small products and, on a loaded machine, slowed this path
    several-fold.  The compiled route makes no BLAS calls."""
    if _compiled.numba_enabled():
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def alibi_rollout_dense(length: int, layers: Sequence[AlibiLayer], lambdas: ScheduleLike) -> np.ndarray:
    """The same profile by dense propagation ``v <- v R(t)`` with ``L x L`` kernels built from
    the softmax (float64, ``O(T H L^2)``): the reference approach, for tests and benchmarks.

    >>> lay = [alibi_layer([0.5, 0.1], diagonal=[1.0, -2.0])] * 3
    >>> bool(np.allclose(alibi_rollout_dense(9, lay, 0.5), alibi_rollout(9, lay, 0.5), rtol=1e-14))
    True
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    layers = _check_layers(layers)
    lam = _check_lambdas(lambdas, len(layers))
    v = np.zeros(L)
    v[-1] = 1.0
    for t in range(len(layers) - 1, -1, -1):
        A = alibi_kernel_dense(L, layers[t])
        v = (1.0 - lam[t]) * v + lam[t] * (v @ A)
    return v


# --------------------------------------------------------------------------------------------
# precise path


@overload
def alibi_propagate_precise(v: Sequence[Any], layer: AlibiLayer, *, dps: int,
                            count_ops: Literal[False] = False) -> list[Any]: ...


@overload
def alibi_propagate_precise(v: Sequence[Any], layer: AlibiLayer, *, dps: int,
                            count_ops: Literal[True]) -> tuple[list[Any], int]: ...


@overload
def alibi_propagate_precise(v: Sequence[Any], layer: AlibiLayer, *, dps: int, count_ops: bool = False,
                            ) -> list[Any] | tuple[list[Any], int]: ...


def alibi_propagate_precise(v: Sequence[Any], layer: AlibiLayer, *, dps: int, count_ops: bool = False,
                            ) -> list[Any] | tuple[list[Any], int]:
    """``u = v A`` in mpmath at ``dps`` digits by the literal X5 recurrence.

    ``Z_{i+1} = e^d + q (1 + (Z_i - e^d))`` forward, ``S_j = q (x_{j+1} + S_{j+1})`` backward,
    ``u_j = v_j e^d / Z_j + S_j``, per head, then the weighted average.  With a sliding window
    ``w`` the partition stops growing at ``i = w`` and ``S_j`` is the direct sum of its ``w - 1``
    terms (``O(H L w)``).  ``v``: a sequence of
    numbers (float, int, str or mpf).  With ``count_ops=True`` returns ``(u, ops)``, ``ops`` the
    number of mpf multiplications, divisions and additions done (linear in ``L``).

    >>> lay = alibi_layer([0.25], diagonal=0.5)
    >>> u = alibi_propagate_precise([0, 0, 1], lay, dps=30)
    >>> mpmath.nstr(mpmath.fsum(u), 25)
    '1.0'

    Method: :ref:`X5 <math-x5>`, O(H L) mpf operations.  Paper: posbias (X5).
    """
    if not isinstance(layer, AlibiLayer):
        raise InvalidArgument("layer", layer, "an AlibiLayer (see alibi_layer)")
    L = len(v)
    if L < 1:
        raise InvalidArgument("v", v, "a non-empty vector")
    ops = 0
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps):
        vv = [mpmath.mpf(x) for x in v]
        tau = mpmath.mpf(layer.temperature)
        wsum = mpmath.fsum(mpmath.mpf(x) for x in layer.weights)
        u = [mpmath.mpf(0)] * L
        for h in range(layer.num_heads):
            m = mpmath.mpf(layer.slopes[h]) / tau
            ed = mpmath.exp(mpmath.mpf(layer.diagonal[h]) / tau)
            w = mpmath.mpf(layer.weights[h]) / wsum
            q = mpmath.exp(-m)
            Z = [ed] * L
            G = mpmath.mpf(0)
            win = layer.window
            for i in range(1, L):
                if win is None or i < win:
                    G = q * (1 + G)
                    ops += 2
                Z[i] = ed + G
                ops += 1
            if win is None:
                S = mpmath.mpf(0)
                for j in range(L - 1, -1, -1):
                    u[j] += w * (vv[j] * ed / Z[j] + S)
                    ops += 5
                    if j > 0:
                        S = q * (vv[j] / Z[j] + S)
                        ops += 3
            else:  # sliding window: S_j = sum_{k=1}^{w-1} q^k v_{j+k} / Z_{j+k}, summed directly
                x = [vv[i] / Z[i] for i in range(L)]
                qk = [q ** k for k in range(win)]
                ops += L + win
                for j in range(L):
                    S = mpmath.fsum(qk[k] * x[j + k] for k in range(1, min(win, L - j)))
                    u[j] += w * (vv[j] * ed / Z[j] + S)
                    ops += 2 * min(win - 1, L - 1 - j) + 5
        u = [+x for x in u]
    return (u, ops) if count_ops else u


def alibi_rollout_precise(length: int, layers: Sequence[AlibiLayer], lambdas: ScheduleLike, *,
                          dps: int) -> list[Any]:
    """The influence profile in mpmath at ``dps`` digits (list of mpf), by the X5 recurrence.

    ``lambdas`` are taken as exact binary numbers (floats) or exact decimals (strings).

    >>> p = alibi_rollout_precise(4, [alibi_layer([0.0])] * 2, 1, dps=30)
    >>> mpmath.nstr(p[0], 20)   # Cesaro: (1/4)(1 + 1/2 + 1/3 + 1/4) = 25/48
    '0.52083333333333333333'
    """
    return _rollout_precise(length, layers, lambdas, dps,
                            lambda v, layer: alibi_propagate_precise(v, layer, dps=dps))


def _rollout_precise(length: int, layers: Sequence[AlibiLayer], lambdas: ScheduleLike, dps: int,
                     propagate: Callable[..., list[Any]]) -> list[Any]:
    """Last-row rollout in mpmath: ``v <- (1 - λ_t) v + λ_t propagate(v, layer_t)``, from the
    last layer to the first (the row vector meets ``R(T)`` first)."""
    L = check_integer("length", length, 1, MAX_LENGTH)
    layers = _check_layers(layers)
    T = len(layers)
    dps = check_dps("dps", dps)
    lams = as_schedule(lambdas, "lambdas", depth=T).precise(dps)
    with mpmath.workdps(dps):
        v = [mpmath.mpf(0)] * L
        v[-1] = mpmath.mpf(1)
        for t in range(T - 1, -1, -1):
            lt = lams[t]
            u = propagate(v, layers[t])
            v = [(1 - lt) * a + lt * b for a, b in zip(v, u)]
        return v


def alibi_rollout_dense_precise(length: int, layers: Sequence[AlibiLayer], lambdas: ScheduleLike, *,
                                dps: int) -> list[Any]:
    """Dense ``O(T H L^2)`` propagation with mpmath kernels from the softmax definition.

    >>> lay = [alibi_layer([0.3], diagonal=2.0)] * 2
    >>> a = alibi_rollout_dense_precise(5, lay, 0.5, dps=30)
    >>> b = alibi_rollout_precise(5, lay, 0.5, dps=30)
    >>> max(abs(x - y) for x, y in zip(a, b)) < mpmath.mpf(10) ** -25
    True
    """
    def dense_step(v, layer):
        L = len(v)
        A = alibi_kernel_dense_precise(L, layer, dps=dps)
        return [mpmath.fsum(v[r] * A[r][c] for r in range(c, L)) for c in range(L)]

    return _rollout_precise(length, layers, lambdas, dps, dense_step)
