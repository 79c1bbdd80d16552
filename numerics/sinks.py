r"""Attention sinks: a sink on token 1 over Cesàro (barbero2025) and StreamingLLM's masks with
``S`` sink tokens plus a window of ``W`` recent tokens (xiao2024), with their closed forms.

Two kernels (positions 1-indexed in formulas, 0-indexed in arrays):

* ``sink:ALPHA`` (:class:`SinkKernel`), ``A = α J₁ + (1 - α) C``: every row puts weight ``α``
  on token 1 (``J₁ = 1 e_1^T``) and spreads ``1 - α`` uniformly over its causal past
  (``C`` the Cesàro matrix).  ``J₁``, ``C`` and ``I`` are Hausdorff matrices (of the moments
  ``δ_{k0}``, ``1/(k+1)`` and ``1``), and Hausdorff matrices form an algebra in which products
  multiply moments, so ``T`` residual layers ``(1 - λ_t) I + λ_t A`` give the Hausdorff matrix of

  .. math::  \mu_k = \prod_t \Bigl[(1-\lambda_t) + \lambda_t\Bigl(\alpha\,\delta_{k0}
             + \frac{1-\alpha}{k+1}\Bigr)\Bigr].

  Equivalently (the mixture form) the profile is ``s · p_C + (1 - s) e_1`` with
  ``s = Π_t (1 - λ_t α)`` and ``p_C`` the Cesàro profile of the effective schedule
  ``λ_t (1 - α) / (1 - λ_t α)``: the route of the fast path (:meth:`SinkKernel.log_blocks`).
* ``streaming:S,W`` (:class:`StreamingKernel`): row ``i`` is uniform on
  ``U_i = [1, min(S, i)] ∪ [max(1, i - W + 1), i]``, ``|U_i| = min(i, S + W)``.  After ``T``
  layers with ``λ_t > 0`` the influence of token ``i`` is supported exactly on
  ``[1, min(S, i)] ∪ [max(1, i - (W - 1) T), i]`` (:func:`streaming_support`); away from the
  start it has the closed form :func:`streaming_profile_closed_exact`.

Both kernels propagate the last row in ``O(L)`` per layer on the exact, precise and fast paths
(the protocol of :mod:`posbias.numerics.rollout`) and have a log-safe fast route for long
contexts: :meth:`SinkKernel.log_blocks` (block exponents, through the Cesàro route) and
:meth:`StreamingKernel.log_profile` (natural logs, sums by ``logaddexp``, no subtraction, exact
zeros kept as ``-inf``), both ``O(T L)`` time and ``O(L)`` memory.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from posbias.errors import InvalidArgument
from posbias.numerics._arith import as_rational
from posbias.numerics.cesaro import cesaro_profile_blocks, cesaro_profile_exact
from posbias.numerics.closed_forms import hausdorff_row_from_moments
from posbias.numerics.schedules import ScheduleLike, as_schedule, parse_number
from posbias.validation import MAX_LENGTH, check_dps, check_integer

__all__ = [
    "GenericKernel",
    "SinkKernel",
    "StreamingKernel",
    "sink_moments_exact",
    "sink_profile_hausdorff_exact",
    "sink_profile_mixture_exact",
    "streaming_profile_closed_exact",
    "streaming_sink_mass_exact",
    "streaming_support",
]

_LN2 = math.log(2.0)


def _unit(value: Any, parameter: str) -> Fraction:
    """A weight in [0, 1] as an exact Fraction (a binary float enters as the binary number it is)."""
    if isinstance(value, float) and math.isfinite(value):
        value = Fraction(value)
    elif isinstance(value, str):
        value = parse_number(value, parameter)
    q = as_rational(value, parameter)
    if not 0 <= q <= 1:
        raise InvalidArgument(parameter, str(q), "a number in [0, 1]")
    return q


def _exact_lams(schedule: ScheduleLike) -> tuple[Fraction, ...]:
    return as_schedule(schedule).exact()


class GenericKernel:
    """A kernel whose exact and precise paths are one update written once for any arithmetic:
    subclasses define ``_apply(v, zero, number)`` (``zero`` the arithmetic's 0, ``number`` the
    conversion of an exact Fraction into it) and get ``propagate_exact`` (Fractions) and
    ``propagate_precise`` (mpmath inside ``workdps(dps)``)."""

    def _apply(self, v: list, zero: Any, number: Callable[[Fraction], Any]) -> list:
        raise NotImplementedError

    def propagate_exact(self, v: list) -> list:
        return self._apply(list(v), Fraction(0), Fraction)

    def propagate_precise(self, v: list, dps: int) -> list:
        dps = check_dps("dps", dps)
        with mpmath.workdps(dps):
            return self._apply([+x for x in v], mpmath.mpf(0), mpmath.mpmathify)


# ----------------------------------------------------------------------------- sink kernel
class SinkKernel(GenericKernel):
    """``A = α J₁ + (1 - α) C`` (barbero2025): a sink of weight ``α`` on token 1 over uniform
    causal attention; ``α = 0`` is the Cesàro kernel, ``α = 1`` sends every row to token 1.

    >>> [str(x) for x in SinkKernel(Fraction(1, 2)).propagate_exact([Fraction(0), Fraction(1)])]
    ['3/4', '1/4']
    """

    def __init__(self, alpha: Any, text: str | None = None) -> None:
        self.alpha = _unit(alpha, "alpha")
        self.spec = f"sink:{text.strip() if text is not None else self.alpha}"

    def _apply(self, v: list, zero: Any, number: Callable[[Fraction], Any]) -> list:
        alpha = number(self.alpha)
        out = [zero] * len(v)
        acc = zero
        for i in range(len(v) - 1, -1, -1):  # suffix sums of v_i / i (the Cesàro part)
            if v[i]:
                acc += v[i] / (i + 1)
            out[i] = (1 - alpha) * acc
        out[0] += alpha * sum(v, zero)
        return out

    def propagate_fast(self, v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64)
        a = float(self.alpha)
        out = (1.0 - a) * np.cumsum((v / np.arange(1, v.size + 1))[::-1])[::-1]
        out[0] += a * float(np.sum(v))
        return out

    def log_blocks(self, length: int, schedule: ScheduleLike) -> tuple[np.ndarray, np.ndarray]:
        """The fast-path profile as float64 mantissas and binary exponents, ``p(j) = a_j 2^(k_j)``,
        by the mixture form: ``s`` times the Cesàro profile of the effective schedule
        ``λ_t (1 - α) / (1 - λ_t α)`` (the log-safe block route of
        :func:`~posbias.numerics.cesaro.cesaro_profile_blocks`), plus ``1 - s`` on token 1,
        ``s = Π_t (1 - λ_t α)`` carried as its logarithm.  ``O(T L)`` time, ``O(L)`` memory.

        >>> a, k = SinkKernel(0.5).log_blocks(2, [1.0])
        >>> (np.ldexp(a, k)).tolist()
        [0.75, 0.25]
        """
        L = check_integer("length", length, 1, MAX_LENGTH)
        lams = as_schedule(schedule).floats()
        alpha = float(self.alpha)
        a_t = lams * alpha
        if np.any(a_t >= 1.0):  # a layer with λ = α = 1 sends every row to token 1
            a = np.zeros(L)
            k = np.zeros(L, dtype=np.int64)
            a[0], k[0] = 0.5, 1
            return a, k
        eff = lams * (1.0 - alpha) / (1.0 - a_t)
        ca, ck = cesaro_profile_blocks(L, eff)
        log_s = math.fsum(math.log1p(-x) for x in a_t.tolist())
        e_s = math.floor(log_s / _LN2) + 1
        m_s = math.exp(log_s - e_s * _LN2)  # s = m_s 2^e_s, m_s in [1/2, 1)
        a = ca * m_s
        k = ck + e_s
        first = -math.expm1(log_s) + math.ldexp(float(ca[0]) * m_s, int(ck[0]) + e_s)
        m1, e1 = math.frexp(first)
        a[0], k[0] = m1, e1
        return a, k


def sink_moments_exact(count: int, alpha: Any, schedule: ScheduleLike) -> list[Fraction]:
    """The Hausdorff moments ``μ_k = Π_t [(1-λ_t) + λ_t (α δ_{k0} + (1-α)/(k+1))]``,
    ``k = 0..count-1``, of the sink rollout, exactly.

    >>> sink_moments_exact(3, Fraction(1, 2), [1])
    [Fraction(1, 1), Fraction(1, 4), Fraction(1, 6)]
    """
    count = check_integer("count", count, 1, MAX_LENGTH)
    a = _unit(alpha, "alpha")
    lams = _exact_lams(schedule)
    out = []
    for k in range(count):
        mu = Fraction(1)
        for lam in lams:
            mu *= (1 - lam) + lam * ((a if k == 0 else 0) + (1 - a) / (k + 1))
        out.append(mu)
    return out


def sink_profile_hausdorff_exact(length: int, alpha: Any, schedule: ScheduleLike) -> list[Fraction]:
    """The sink rollout's influence profile from the Hausdorff entry formula with the moments of
    :func:`sink_moments_exact` (``O(L^2)``, exact only: the alternating sum cancels).

    >>> [str(x) for x in sink_profile_hausdorff_exact(2, Fraction(1, 2), [1])]
    ['3/4', '1/4']
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    return hausdorff_row_from_moments(L - 1, sink_moments_exact(L, alpha, schedule))


def sink_profile_mixture_exact(length: int, alpha: Any, schedule: ScheduleLike) -> list[Fraction]:
    """The sink profile by the mixture form ``s p_C + (1 - s) e_1``, ``s = Π_t (1 - λ_t α)``,
    ``p_C`` the Cesàro profile of the schedule ``λ_t (1-α)/(1-λ_t α)``, exactly.

    >>> [str(x) for x in sink_profile_mixture_exact(2, Fraction(1, 2), [1])]
    ['3/4', '1/4']
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    a = _unit(alpha, "alpha")
    lams = _exact_lams(schedule)
    if any(lam * a == 1 for lam in lams):
        return [Fraction(1)] + [Fraction(0)] * (L - 1)
    s = Fraction(1)
    for lam in lams:
        s *= 1 - lam * a
    eff = [lam * (1 - a) / (1 - lam * a) for lam in lams]
    p = [s * x for x in cesaro_profile_exact(L, eff)]
    p[0] += 1 - s
    return p


# ----------------------------------------------------------------------------- streaming
def _chunk_window_sums(w: list, W: int, zero: Any) -> list:
    """``Σ_{i=j}^{j+W-1} w_i`` for every ``j`` (entries beyond the end are 0) without any
    subtraction: the window is the rest of ``j``'s chunk of ``W`` positions plus the start of
    the next chunk, both cumulative sums of non-negative terms."""
    L = len(w)
    suffix = [zero] * L
    prefix = [zero] * L
    for start in range(0, L, W):
        end = min(L, start + W)
        acc = zero
        for i in range(start, end):
            acc = acc + w[i]
            prefix[i] = acc
        acc = zero
        for i in range(end - 1, start - 1, -1):
            acc = acc + w[i]
            suffix[i] = acc
    out = []
    for j in range(L):
        total = suffix[j]
        if j % W and (j // W + 1) * W < L:  # the next chunk exists: add its first j % W
            total = total + prefix[min(j + W - 1, L - 1)]
        out.append(total)
    return out


def _log_window_sums(lw: np.ndarray, W: int) -> np.ndarray:
    """:func:`_chunk_window_sums` in natural logs (``logaddexp`` scans; ``-inf`` is 0)."""
    L = lw.size
    n = -(-L // W)
    pad = np.full(n * W, -np.inf)
    pad[:L] = lw
    blocks = pad.reshape(n, W)
    prefix = np.logaddexp.accumulate(blocks, axis=1)
    suffix = np.logaddexp.accumulate(blocks[:, ::-1], axis=1)[:, ::-1]
    nxt = np.full((n, W), -np.inf)
    if W > 1 and n > 1:  # position r > 0 of chunk b adds the first r entries of chunk b + 1
        nxt[:-1, 1:] = prefix[1:, :-1]
    return np.logaddexp(suffix, nxt).reshape(-1)[:L]


class StreamingKernel(GenericKernel):
    """StreamingLLM's mask with uniform attention (xiao2024): row ``i`` reads the ``S`` sink
    tokens and the ``W`` most recent tokens (itself included), uniformly on their union,
    ``|U_i| = min(i, S + W)``.  ``S = 0`` is the sliding window ``window:W``.

    >>> [str(x) for x in StreamingKernel(1, 1).propagate_exact([0, 0, Fraction(1)])]
    ['1/2', '0', '1/2']
    """

    def __init__(self, S: int, W: int) -> None:
        self.S = check_integer("S", S, 0)
        self.W = check_integer("W", W, 1)
        self.spec = f"streaming:{self.S},{self.W}"

    def _apply(self, v: list, zero: Any, number: Callable[[Fraction], Any]) -> list:
        L = len(v)
        cap = self.S + self.W
        w = [v[i] / min(i + 1, cap) if v[i] else zero for i in range(L)]
        out = _chunk_window_sums(w, self.W, zero)
        acc = zero
        for j in range(L - 1, -1, -1):  # every row i >= j reads sink j <= S
            acc = acc + w[j]
            if j < self.S:
                out[j] = acc
        return out

    def propagate_fast(self, v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64)
        L = v.size
        w = v / np.minimum(np.arange(1, L + 1), self.S + self.W)
        n = -(-L // self.W)
        pad = np.zeros(n * self.W)
        pad[:L] = w
        blocks = pad.reshape(n, self.W)
        prefix = np.cumsum(blocks, axis=1)
        suffix = np.cumsum(blocks[:, ::-1], axis=1)[:, ::-1]
        nxt = np.zeros((n, self.W))
        if self.W > 1 and n > 1:
            nxt[:-1, 1:] = prefix[1:, :-1]
        out = (suffix + nxt).reshape(-1)[:L]
        if self.S:
            out[: self.S] = np.cumsum(w[::-1])[::-1][: self.S]
        return out

    def log_profile(self, length: int, schedule: ScheduleLike) -> np.ndarray:
        """Natural logs ``ln p(j)`` of the influence profile on the fast path, log-safe: every
        sum is a ``logaddexp`` scan of non-negative terms (no subtraction), so tails far below
        float64's range keep their value and exact zeros (outside the support) stay ``-inf``.
        ``O(T L)`` time, ``O(L)`` memory; relative error of ``p(j)`` a few units of
        ``T (W + |ln p(j)|) 2^-52``.

        >>> np.exp(StreamingKernel(1, 1).log_profile(3, [1.0])).round(12).tolist()
        [0.5, 0.0, 0.5]
        """
        L = check_integer("length", length, 1, MAX_LENGTH)
        lams = as_schedule(schedule).floats().tolist()
        log_count = np.log(np.minimum(np.arange(1, L + 1), self.S + self.W).astype(np.float64))
        lp = np.full(L, -np.inf)
        lp[-1] = 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            for lam in reversed(lams):
                if lam == 0.0:
                    continue
                lw = lp - log_count
                new = _log_window_sums(lw, self.W)
                if self.S:
                    new[: self.S] = np.logaddexp.accumulate(lw[::-1])[::-1][: self.S]
                lp = new if lam == 1.0 else np.logaddexp(math.log1p(-lam) + lp,
                                                          math.log(lam) + new)
        return lp


def _active_depth(schedule: ScheduleLike) -> int:
    lams = as_schedule(schedule)
    if lams.is_rational:
        return sum(1 for x in lams.exact() if x != 0)
    return int(np.count_nonzero(lams.floats()))


def streaming_support(position: int, S: int, W: int, depth: int) -> list[tuple[int, int]]:
    """The exact support of token ``position``'s influence after ``depth`` layers with
    ``λ_t > 0`` under the ``streaming:S,W`` mask (any weights positive on the mask): the
    1-indexed intervals of ``[1, min(S, i)] ∪ [max(1, i - (W - 1) T), i]`` (merged, ascending;
    ``{i}`` when ``T = 0``).

    Path argument: a path from ``i`` steps, at each layer, within ``W - 1`` positions back
    (the window, itself included) or to a sink; a sink ``s`` reads only ``[1, s]`` (all sinks);
    rows at most ``S + W - 1`` read their whole past, which is the same union.  Self-loops let a
    shorter path wait, so exactly ``T`` steps reach every point of the union and nothing else.

    >>> streaming_support(20, 2, 3, 4), streaming_support(5, 2, 3, 4)
    ([(1, 2), (12, 20)], [(1, 5)])
    """
    i = check_integer("position", position, 1)
    S = check_integer("S", S, 0)
    W = check_integer("W", W, 1)
    T = check_integer("depth", depth, 0)
    if T == 0:
        return [(i, i)]
    lo = max(1, i - (W - 1) * T)
    sinks = min(S, i)
    if sinks and lo <= sinks + 1:
        return [(1, i)]
    return ([(1, sinks)] if sinks else []) + [(lo, i)]


def streaming_sink_mass_exact(S: int, W: int, schedule: ScheduleLike) -> Fraction:
    """The mass on the ``S`` sinks away from the start: ``1 - Π_t (1 - λ_t S / (S + W))``.

    >>> streaming_sink_mass_exact(4, 1020, [1] * 2)
    Fraction(511, 65536)
    """
    S = check_integer("S", S, 0)
    W = check_integer("W", W, 1)
    keep = Fraction(1)
    for lam in _exact_lams(schedule):
        keep *= 1 - lam * Fraction(S, S + W)
    return 1 - keep


def _int_poly_mul(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def _cesaro_step(v: list[Fraction], lam: Fraction) -> list[Fraction]:
    """``v ((1-λ) I + λ C)`` on ``len(v)`` positions (suffix sums of ``v_i / i``)."""
    out, acc = [Fraction(0)] * len(v), Fraction(0)
    for i in range(len(v) - 1, -1, -1):
        acc += v[i] / (i + 1)
        out[i] = (1 - lam) * v[i] + lam * acc
    return out


def streaming_profile_closed_exact(length: int, S: int, W: int,
                                   schedule: ScheduleLike) -> list[Fraction]:
    """The ``streaming:S,W`` profile of the last token in closed form, exactly, where its window
    part stays clear of the sinks (``L - (W - 1) T > S``, ``T`` the layers with ``λ_t > 0``):

    * window part: ``p(L - d) = [z^d] Π_t g_t(z)``, ``g_t(z) = (1 - λ_t) +
      λ_t (1 + z + ⋯ + z^(W-1)) / (S + W)`` (a lazy walk back by 0..W-1 per layer);
    * sink part: the mass ``Π_{t' > t} g_{t'}(1) · λ_t S/(S + W)`` that jumps to the sinks at
      layer ``t`` lands uniformly on them and then mixes there as the residual Cesàro rollout of
      layers ``t-1..1`` on ``S`` positions: ``Σ_t (that mass) · cesaro_profile(S, [λ_1, ...,
      λ_(t-1), 1])`` (the uniform row is the Cesàro matrix's last row).

    >>> [str(x) for x in streaming_profile_closed_exact(4, 1, 2, [1])]
    ['1/3', '0', '1/3', '1/3']
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    S = check_integer("S", S, 0)
    W = check_integer("W", W, 1)
    lams = _exact_lams(schedule)
    T = sum(1 for x in lams if x)
    if L - (W - 1) * T <= S:
        raise InvalidArgument("length", L, f"a last position whose window part stays clear of "
                              f"the sinks: L - (W - 1) T > S = {S} (T = {T})")
    cap = S + W
    poly, den = [1], 1  # the window polynomial: integer coefficients over a common denominator
    keep = Fraction(1)  # Π_{t' > t} g_t'(1): the mass still in the window
    sinks = [Fraction(0)] * S
    uniform = [Fraction(1, S)] * S if S else []
    # the row meets layer T first: walk down the layers; the sinks' mass by Horner's rule,
    # acc <- acc R_S(t) + (mass jumping at t) u (the Cesàro layers on the sinks commute)
    for lam in reversed(lams):
        if lam == 0:
            continue
        if S:
            jump = keep * lam * Fraction(S, cap)
            sinks = [a + jump * b for a, b in zip(_cesaro_step(sinks, lam), uniform)]
        q, d = lam.numerator, lam.denominator * cap
        g = [(d - q * cap) + q] + [q] * (W - 1)  # d g(z) with integer coefficients
        poly, den = _int_poly_mul(poly, g), den * d
        keep *= 1 - lam * Fraction(S, cap)
    out = [Fraction(0)] * L
    out[:S] = sinks
    for k, c in enumerate(poly):
        out[L - 1 - k] += Fraction(c, den)
    return out

