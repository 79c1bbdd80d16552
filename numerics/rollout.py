r"""One kernel protocol and one last-row driver per path.

A *kernel* is one layer's attention pattern ``A`` (``L x L``, row-stochastic).  A profile only
ever needs the row update ``v ↦ v A`` (:ref:`math-conventions`: propagate the last row, never multiply
``L x L`` matrices), so a kernel supplies that update on each path it supports:

* ``propagate_exact(v)``: ``v`` a list of Fractions, exactly;
* ``propagate_precise(v, dps)``: ``v`` a list of mpf, inside ``mpmath.workdps(dps)``;
* ``propagate_fast(v)``: ``v`` a float64 array.

and the one driver per path rolls out the residual-aware layers
``R(t) = (1 - λ_t) I + λ_t A(t)`` from the last layer to the first:

.. math::  v \leftarrow (1 - \lambda_t) v + \lambda_t \, v A(t), \qquad v_0 = e_L .

Kernels here (each in ``O(L)`` per layer except the dense one):

=================  =========================================================================  ==============
spec               ``A[i, j]`` (1-indexed, ``j <= i`` unless stated)                          paths
=================  =========================================================================  ==============
``cesaro``         ``1/i`` (uniform causal attention)                                         all three
``window:W``       ``1/min(i, W)`` for ``i - W < j <= i`` (wu2025 W2)                         all three
``prefix:K``       rows ``i <= K`` uniform on ``1..K``, later rows causal (W3)                all three
``decay:M``        ``e^{-M(i-j)} / Σ_k e^{-M(i-k)}`` (ALiBi slope M, W4)                      precise, fast
``alibi:M``        the same single-head ALiBi kernel (herasimchyk2026 H2c)                    precise, fast
``sink:A``         ``A δ_{j1} + (1 - A)/i``: a sink of weight ``A`` on token 1 (barbero2025)  all three
``streaming:S,W``  uniform on ``[1, S] ∪ [i - W + 1, i]``: S sinks, a window of W (xiao2024)  all three
a matrix           any row-stochastic ``A`` (:class:`DenseKernel`)                            as its entries
=================  =========================================================================  ==============

``decay:M`` and ``alibi:M`` name the same kernel (wu2025 calls it a decay mask, herasimchyk2026
an ALiBi bias); it has irrational entries for ``M > 0``, hence no exact path (a rational ratio
``r = e^{-M}`` is :func:`~posbias.numerics.kernels.decay_kernel_exact` as a dense kernel).

:func:`kernel_profile_blocks` is the log-safe fast route of one kernel for every layer: block
exponents for ``cesaro`` and ``sink:A``, natural logs for ``streaming:S,W``, and the plain
float64 driver for the others.

The Cesàro kernel with a schedule also has dedicated routes (:mod:`posbias.numerics.cesaro`:
scaled integers, block exponents) that are faster and log-safe; the driver here is the general
route, checked against them in the tests.  The fast driver is plain float64: entries below
about ``1e-308`` underflow to 0 (the Cesàro routes keep them).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, NoReturn, Protocol, TypeAlias, cast

import mpmath
import numpy as np

from posbias.errors import InvalidArgument
from posbias.numerics._arith import row_times
from posbias.numerics.alibi import alibi_layer, alibi_propagate, alibi_propagate_precise
from posbias.numerics.cesaro import cesaro_profile_blocks
from posbias.numerics.kernels import (
    validate_kernel,
    validate_kernel_exact,
    validate_kernel_precise,
)
from posbias.numerics.schedules import ScheduleLike, as_schedule
from posbias.numerics.sinks import GenericKernel, SinkKernel, StreamingKernel
from posbias.validation import (
    MAX_DENSE_LENGTH,
    MAX_LENGTH,
    check_dps,
    check_integer,
    check_real,
)

__all__ = [
    "KERNEL_SPECS",
    "CesaroKernel",
    "DecayKernel",
    "DenseKernel",
    "Kernel",
    "KernelsLike",
    "PrefixKernel",
    "WindowKernel",
    "kernel_profile",
    "kernel_profile_blocks",
    "kernel_profile_exact",
    "kernel_profile_precise",
    "parse_kernel",
]

_LN2 = math.log(2.0)

#: the text forms of :func:`parse_kernel`
KERNEL_SPECS = ("cesaro", "window:W", "prefix:K", "decay:M", "alibi:M",
                "sink:ALPHA", "streaming:S,W")



class Kernel(Protocol):
    """What a layer's attention pattern supplies to the drivers (see the module doc)."""

    spec: str

    def propagate_exact(self, v: list) -> list: ...

    def propagate_precise(self, v: list, dps: int) -> list: ...

    def propagate_fast(self, v: np.ndarray) -> np.ndarray: ...


#: one kernel (a :class:`Kernel` or a spec text) for every layer, or one per layer
KernelsLike: TypeAlias = "Kernel | str | Sequence[Kernel | str]"


def _no_path(kernel: Kernel, path: str) -> NoReturn:
    raise InvalidArgument("kernel", kernel.spec, f"a kernel with a {path} path (this one has "
                          "irrational entries: use the precise or the fast path)")


class _SuffixWeighted(GenericKernel):
    """Kernels whose row ``i`` is uniform, with weight ``1/c_i``, on a contiguous range
    ``lo_i..hi_i``: ``(v A)_j = Σ_{i: lo_i <= j <= hi_i} v_i / c_i``, computed with one pass of
    prefix sums over ``w_i = v_i / c_i`` (a difference array), ``O(L)``."""

    def _ranges(self, L: int) -> tuple[list[int], list[int], list[int]]:  # 0-indexed inclusive
        raise NotImplementedError

    def _apply(self, v: list, zero: Any, number: Any) -> list:
        L = len(v)
        lo, hi, count = self._ranges(L)
        diff = [zero] * (L + 1)
        for i in range(L):
            if v[i]:
                w = v[i] / count[i]
                diff[lo[i]] += w
                diff[hi[i] + 1] -= w
        out, acc = [], zero
        for j in range(L):
            acc += diff[j]
            out.append(acc)
        return out

    def propagate_fast(self, v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64)
        L = v.size
        lo, hi, count = (np.asarray(a) for a in self._ranges(L))
        w = v / count
        diff = np.zeros(L + 1)
        np.add.at(diff, lo, w)
        np.add.at(diff, hi + 1, -w)
        return np.cumsum(diff[:L])


class CesaroKernel(_SuffixWeighted):
    """Uniform causal attention ``A[i, j] = 1/i`` (chowdhury2026 C1).

    >>> [str(x) for x in CesaroKernel().propagate_exact([Fraction(0), Fraction(1)])]
    ['1/2', '1/2']
    """

    spec = "cesaro"

    def _ranges(self, L):
        return [0] * L, list(range(L)), list(range(1, L + 1))


class WindowKernel(_SuffixWeighted):
    """Uniform attention over the last ``w`` positions including self (wu2025 W2)."""

    def __init__(self, w: int):
        self.w = check_integer("w", w, 1)
        self.spec = f"window:{self.w}"

    def _ranges(self, L):
        lo = [max(0, i - self.w + 1) for i in range(L)]
        return lo, list(range(L)), [i - lo[i] + 1 for i in range(L)]


class PrefixKernel(_SuffixWeighted):
    """Uniform attention under wu2025's prefix mask: rows ``i <= K`` on ``1..K``, later rows
    causal (W3; not lower-triangular for ``K >= 2``)."""

    def __init__(self, K: int):
        self.K = check_integer("K", K, 1)
        self.spec = f"prefix:{self.K}"

    def _ranges(self, L):
        if self.K > L:
            raise InvalidArgument("K", self.K, f"a number of prefix tokens in 1..L (L = {L})")
        hi = [self.K - 1 if i < self.K else i for i in range(L)]
        return [0] * L, hi, [h + 1 for h in hi]


class DecayKernel:
    """Single-head ALiBi / decay kernel with slope ``m >= 0``: ``A[i, j] ∝ e^{-m(i-j)}``
    (wu2025 W4, herasimchyk2026 H2c); propagated by the ``O(L)`` recurrence of :ref:`X5 <math-x5>`."""

    def __init__(self, m: float, name: str = "decay") -> None:
        self.m = check_real("m", m, 0)
        self.spec = f"{name}:{m}"
        self._layer = alibi_layer([self.m])

    def propagate_exact(self, v: list) -> list:
        if self.m == 0:
            return CesaroKernel().propagate_exact(v)
        _no_path(self, "exact")

    def propagate_precise(self, v: list, dps: int) -> list:
        return alibi_propagate_precise(v, self._layer, dps=dps)

    def propagate_fast(self, v: np.ndarray) -> np.ndarray:
        return alibi_propagate(np.asarray(v, dtype=np.float64), self._layer)


class DenseKernel:
    """Any row-stochastic kernel given by its entries (``O(L^2)`` per layer): exact entries
    (int, Fraction) allow every path, floats the fast one; validated once, on first use, on
    the path asked for."""

    spec = "dense"

    def __init__(self, A: Any, *, causal: bool = True) -> None:
        self._A = A
        self._causal = causal
        self._cache: dict = {}

    def _entries(self, path, dps=None):
        key = (path, dps)
        if key not in self._cache:
            if path == "exact":
                self._cache[key] = validate_kernel_exact(self._A, causal=self._causal)
            elif path == "precise":
                self._cache[key] = validate_kernel_precise(self._A, dps, causal=self._causal)
            else:
                self._cache[key] = validate_kernel(self._A, causal=self._causal)
        return self._cache[key]

    def propagate_exact(self, v: list) -> list:
        return row_times(v, self._entries("exact"), Fraction(0))

    def propagate_precise(self, v: list, dps: int) -> list:
        dps = check_dps("dps", dps)
        A = self._entries("precise", dps)
        with mpmath.workdps(dps):
            return row_times(v, A, mpmath.mpf(0))

    def propagate_fast(self, v: np.ndarray) -> np.ndarray:
        return np.asarray(v, dtype=np.float64) @ self._entries("fast")


#: float64's smallest normal and largest finite numbers, exactly
_FLOAT_MIN, _FLOAT_MAX = Decimal(sys.float_info.min), Decimal(sys.float_info.max)

_SPEC = re.compile(r"(cesaro)|(window|prefix):([0-9]{1,12})|(decay|alibi):([0-9.eE+-]{1,40})"
                   r"|sink:([0-9./eE+-]{1,40})|streaming:([0-9]{1,12}),([0-9]{1,12})")


def parse_kernel(spec: str) -> Kernel:
    """A kernel from its text form (``cesaro``, ``window:W``, ``prefix:K``, ``decay:M``,
    ``alibi:M``, ``sink:ALPHA``, ``streaming:S,W``); never evaluated as code.

    >>> parse_kernel("window:3").spec, parse_kernel("decay:0.5").m
    ('window:3', 0.5)
    >>> parse_kernel("window:x")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: kernel = window:x is invalid: expected one of cesaro, window:W, prefix:K, decay:M, alibi:M, sink:ALPHA, streaming:S,W (W, K integers >= 1; M a real number >= 0; ALPHA a number in [0, 1]; S an integer >= 0)
    """
    allowed = ("one of " + ", ".join(KERNEL_SPECS) + " (W, K integers >= 1; M a real number "
               ">= 0; ALPHA a number in [0, 1]; S an integer >= 0)")
    m = _SPEC.fullmatch(spec.strip()) if isinstance(spec, str) else None
    if m is None:
        raise InvalidArgument("kernel", spec, allowed)
    if m.group(1):
        return CesaroKernel()
    if m.group(6) is not None or m.group(7) is not None:
        try:
            if m.group(6) is not None:
                return SinkKernel(m.group(6), m.group(6))
            return StreamingKernel(int(m.group(7)), int(m.group(8)))
        except InvalidArgument:
            raise InvalidArgument("kernel", spec, allowed) from None
    if m.group(2):
        n = int(m.group(3))
        try:
            return WindowKernel(n) if m.group(2) == "window" else PrefixKernel(n)
        except InvalidArgument:
            raise InvalidArgument("kernel", spec, allowed) from None
    try:
        # a Decimal, not a Fraction: 1e999999999 is compared, never expanded
        exact = Decimal(m.group(5))
    except InvalidOperation:
        raise InvalidArgument("kernel", spec, allowed) from None
    if not exact.is_finite():
        raise InvalidArgument("kernel", spec, allowed)
    if exact != 0 and not _FLOAT_MIN <= abs(exact) <= _FLOAT_MAX:
        # never silently 0 (decay:1e-400 is not Cesàro) nor an infinity or a subnormal slope
        raise InvalidArgument("kernel", spec, "a slope M that a float64 carries: 0 or between "
                              "2.2e-308 and 1.8e308")
    try:
        return DecayKernel(float(exact), m.group(4))
    except InvalidArgument:
        raise InvalidArgument("kernel", spec, allowed) from None


def _layers(kernels: KernelsLike, T: int) -> list[Kernel]:
    if isinstance(kernels, str):
        kernels = parse_kernel(kernels)
    if all(callable(getattr(kernels, f, None)) for f in ("propagate_exact", "propagate_fast")):
        # a Kernel is a Protocol (not runtime-checkable): its methods are what identifies it
        return [cast(Kernel, kernels)] * T
    if isinstance(kernels, (bytes, np.ndarray)) or not isinstance(kernels, (list, tuple)):
        raise InvalidArgument("kernels", kernels, "a kernel (a Kernel or a spec such as "
                              "'window:4'), or one per layer")
    seq = list(kernels)
    if len(seq) != T:
        raise InvalidArgument("kernels", f"{len(seq)} kernels", f"one per layer: {T}")
    return [parse_kernel(k) if isinstance(k, str) else k for k in seq]


def _drive_steps(kernels: KernelsLike, lams: Sequence[Any]) -> list[tuple[Any, Kernel]]:
    """The ``(λ_t, A(t))`` with ``λ_t != 0``, last layer first (the order in which the row
    vector meets them)."""
    layers = _layers(kernels, len(lams))
    return [(lams[t], layers[t]) for t in range(len(lams) - 1, -1, -1) if lams[t] != 0]


def kernel_profile_exact(length: int, kernels: KernelsLike, schedule: ScheduleLike) -> list[Fraction]:
    """The influence profile ``e_L Π_t ((1-λ_t) I + λ_t A(t))`` exactly (Fractions).

    ``kernels``: one kernel (a :class:`Kernel` or a spec text) for every layer, or one per
    layer; ``schedule``: any form of :func:`~posbias.numerics.schedules.as_schedule`.

    >>> [str(x) for x in kernel_profile_exact(3, "cesaro", [1, 1])]
    ['11/18', '5/18', '1/9']
    """
    L = check_integer("length", length, 1, MAX_DENSE_LENGTH)
    steps = _drive_steps(kernels, as_schedule(schedule).exact())
    v: list[Fraction] = [Fraction(0)] * L
    v[-1] = Fraction(1)
    for lam, K in steps:
        u = K.propagate_exact(v)
        v = [(1 - lam) * a + lam * b for a, b in zip(v, u)]
    return v


def kernel_profile_precise(length: int, kernels: KernelsLike, schedule: ScheduleLike,
                           dps: int) -> list[Any]:
    """The influence profile in mpmath at ``dps`` digits (see :func:`kernel_profile_exact`).

    >>> [mpmath.nstr(x, 6) for x in kernel_profile_precise(3, "decay:0", [1, 1], dps=30)]
    ['0.611111', '0.277778', '0.111111']
    """
    dps = check_dps("dps", dps)
    L = check_integer("length", length, 1, MAX_DENSE_LENGTH)
    steps = _drive_steps(kernels, as_schedule(schedule).precise(dps))
    with mpmath.workdps(dps):
        v: list[Any] = [mpmath.mpf(0)] * L
        v[-1] = mpmath.mpf(1)
    for lam, K in steps:
        u = K.propagate_precise(v, dps)
        with mpmath.workdps(dps):
            v = [(1 - lam) * a + lam * b for a, b in zip(v, u)]
    return v


def kernel_profile(length: int, kernels: KernelsLike, schedule: ScheduleLike) -> np.ndarray:
    """The influence profile in float64 (see :func:`kernel_profile_exact`).

    >>> kernel_profile(3, "window:2", [1.0]).tolist()
    [0.0, 0.5, 0.5]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    steps = _drive_steps(kernels, as_schedule(schedule).floats().tolist())
    v = np.zeros(L)
    v[-1] = 1.0
    for lam, K in steps:
        v = (1.0 - lam) * v + lam * K.propagate_fast(v)
    return v


def kernel_profile_blocks(length: int, kernel: Kernel | str,
                          schedule: ScheduleLike) -> tuple[np.ndarray, np.ndarray]:
    """The fast-path profile of one kernel for every layer as float64 mantissas and binary
    exponents, ``p(j) = a_j 2^(k_j)``: log-safe for ``cesaro`` and ``sink:A`` (block exponents)
    and ``streaming:S,W`` (natural logs), so tails far below float64's range keep their value;
    other kernels run the plain float64 driver (:func:`kernel_profile`), whose entries below
    about ``1e-308`` underflow to 0.

    >>> a, k = kernel_profile_blocks(3, "streaming:1,1", [1.0])
    >>> np.ldexp(a, k).round(12).tolist()
    [0.5, 0.0, 0.5]
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    kernel = parse_kernel(kernel) if isinstance(kernel, str) else kernel
    if isinstance(kernel, CesaroKernel):
        return cesaro_profile_blocks(L, as_schedule(schedule))
    if isinstance(kernel, SinkKernel):
        return kernel.log_blocks(L, schedule)
    if isinstance(kernel, StreamingKernel):
        lp = kernel.log_profile(L, schedule)
        finite = np.isfinite(lp)
        k = np.zeros(L, dtype=np.int64)
        k[finite] = np.floor(lp[finite] / _LN2).astype(np.int64) + 1
        a = np.zeros(L)
        a[finite] = np.exp(lp[finite] - k[finite] * _LN2)
        return a, k
    a, e = np.frexp(kernel_profile(L, kernel, schedule))
    return a, e.astype(np.int64)
