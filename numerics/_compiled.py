"""Compiled inner loops of the fast (float64) paths, with numba when it is installed.

Two loops dominate the fast paths of posbias and are sequential by nature (a linear recurrence
along the positions), so numpy can only emulate them with blocked matrix products:

- :func:`alibi_causal_scan`: one causal ALiBi layer applied to a row vector, the reverse
  geometric scan ``s <- x_j + q s`` of :ref:`X5 <math-x5>`, for all heads at once (the heads are the
  inner, contiguous axis, so that the independent recurrences of different heads overlap);
- :func:`cesaro_layer_blocked`: one Cesàro layer ``u <- (1 - λ) u + λ S``,
  ``S_j = Σ_{i >= j} u_i / i``, on mantissas with one binary exponent per block of positions.

Each loop exists twice: compiled by numba (``@njit``, cached on disk) and as the plain Python
function it is compiled from (``compiled=False``; the ALiBi loop then takes an exactly rounded
``fma``), which the tests run against the compiled one.
The callers in :mod:`posbias.numerics.alibi` and :mod:`posbias.numerics.cesaro` keep their own
pure-numpy routes for machines without numba; :func:`use_compiled` says which route runs.
Set the environment variable ``POSBIAS_NUMBA=0`` to force the numpy routes, ``POSBIAS_NUMBA=1``
to force the compiled ones; by default (:func:`use_compiled`) small computations stay on numpy
rather than wait for numba's start-up.

Arithmetic: only products and sums of non-negative numbers, as on the numpy routes, so the
relative error of every entry stays a few units of ``2^-53`` per layer; the summation order of
the head average differs from the numpy route (allowed by ``fastmath`` reassociation), which
changes results only in the last bits.
"""

from __future__ import annotations

import math
import os
import types
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["AUTO_WORK", "HAVE_NUMBA", "alibi_causal_scan", "cesaro_layer_blocked", "numba_enabled", "use_compiled"]

try:  # numba is optional (the `fast` and `test` extras); import cost ~0.3 s, paid on first use
    import importlib.util

    HAVE_NUMBA = importlib.util.find_spec("numba") is not None
except (ImportError, ValueError):  # pragma: no cover
    HAVE_NUMBA = False

_KERNELS: dict[str, Callable[..., Any]] = {}


def _fma(a, b, c):
    """``a b + c`` with one rounding (exact rational arithmetic; the compiled loops use the
    hardware instruction through ``llvm.fma``)."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _numba_fma():
    """``llvm.fma.f64`` as a numba intrinsic: ``a b + c`` rounded once."""
    from llvmlite import ir  # the fast extra (with numba)
    from numba.core import types  # the fast extra
    from numba.extending import intrinsic  # the fast extra

    @intrinsic
    def fma(typingctx, a, b, c):
        sig = types.float64(types.float64, types.float64, types.float64)

        def codegen(context, builder, signature, args):
            d = ir.DoubleType()
            fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
            return builder.call(fn, args)

        return sig, codegen

    return fma


#: work (element steps: layers x heads x positions for the ALiBi scan, layers x positions for the
#: Cesàro layer) from which each compiled loop pays for numba's start-up in a fresh process
#: (about 1 s idle, 3 s on a loaded machine, even with the compiled code cached on disk),
#: measured on whole ``posbias profile`` processes (``tests/benchmarks/bench_crossover.py``, 2
#: cores under load): the ALiBi scan gains 2.6x per element over its numpy route and its process
#: is ahead from 3.8e7 steps; the Cesàro layer gains 2.1x and is ahead only from 2.3e8 (at
#: L = 10^6, T = 100 the numpy process is the faster one: 1.7 s against 2.7 s).  The choice depends on the work alone, never on what ran before
#: in the process, so that a computation gives the same bits in a serial run and in a worker
#: process.
AUTO_WORK: dict[str, int] = {"alibi": 1 << 25, "cesaro": 3 << 26}


def numba_enabled() -> bool:
    """Whether the compiled loops may run: numba is installed and ``POSBIAS_NUMBA`` is not ``0``."""
    return HAVE_NUMBA and os.environ.get("POSBIAS_NUMBA", "auto") != "0"


def use_compiled(work: int, loop: str = "alibi") -> bool:
    """Whether a computation of ``work`` element steps of ``loop`` (``"alibi"`` or ``"cesaro"``)
    runs the compiled loops.

    ``POSBIAS_NUMBA=0``: never; ``=1``: always (when numba is installed); unset or ``auto``: when
    numba is installed and ``work`` reaches ``AUTO_WORK[loop]`` (:data:`AUTO_WORK`: smaller
    computations do not wait for numba's start-up).
    """
    threshold = AUTO_WORK[loop]
    if not numba_enabled():
        return False
    if os.environ.get("POSBIAS_NUMBA", "auto") == "1":
        return True
    return work >= threshold


# ----------------------------------------------------------------------------- ALiBi
def _alibi_causal_scan(v, cT, cflat, q, qlo, wa, wbq, out):
    """``out[j] += Σ_h wa_h c_h[j] v_j + wbq_h C_h[j+1]``, ``C_h[j] = Σ_{i >= j} q_h^{i-j} c_h[i] v_i``.

    ``cT[j, h]`` is head ``h``'s scaled normaliser ``e^{s_h} / Z_h[j]`` at 0-indexed position
    ``j < n`` (``n = cT.shape[0]``) and ``cflat[h]`` its value at every ``j >= n`` (where the
    partition sum has reached its limit to the last bit); ``wa = w e^{d - s}``,
    ``wbq = w e^{-s} q`` (:ref:`X5 <math-x5>`, module alibi).  The recurrence ``C[j] = c[j] v_j + q C[j+1]``
    runs backwards with ``q = q_hi + q_lo`` split into its float64 rounding and the remainder,
    as ``C <- fma(q_hi, C, x + q_lo C)``: a term carried over ``k`` positions is multiplied by
    ``q`` ``k`` times, and a rounded ``q`` alone would put a systematic relative error up to
    ``k 2^-53`` on the tails (3e-12 at ``k = 131071``); with the remainder inside one rounding
    the step errors are those of correctly rounded products, which do not accumulate a bias; at ``j = 0`` only the diagonal and the carry enter (position 1 reads only
    itself).
    """
    L = v.size
    n, H = cT.shape
    s = np.zeros(H)
    for j in range(L - 1, 0, -1):
        vj = v[j]
        acc = 0.0
        if j >= n:
            for h in range(H):
                x = vj * cflat[h]
                acc += wa[h] * x + wbq[h] * s[h]
                s[h] = _fma(q[h], s[h], x + qlo[h] * s[h])
        else:
            for h in range(H):
                x = vj * cT[j, h]
                acc += wa[h] * x + wbq[h] * s[h]
                s[h] = _fma(q[h], s[h], x + qlo[h] * s[h])
        out[j] += acc
    c0 = cT[0] if n > 0 else cflat
    acc = 0.0
    for h in range(H):
        acc += wa[h] * v[0] * c0[h] + wbq[h] * s[h]
    out[0] += acc
    return out


# ----------------------------------------------------------------------------- Cesàro
_FLOOR = 2.0**-960  # smallest mantissa kept relative to its block maximum
_LOW, _HIGH = 2.0**-40, 2.0**40  # block maxima are rescaled only outside this range


def _cesaro_layer_blocked(a, k, inv, lam, B, L):
    """One Cesàro layer on ``value_j = a_j 2^{k_b}`` (``b = j // B``), in place.

    Returns ``False`` when a block's dynamic range exceeds ``2^960`` (the caller retries with
    smaller blocks), ``True`` otherwise.  One reverse pass: the running suffix sum
    ``S = s 2^{e_s}`` and the block are brought to the common exponent ``max(k_b, e_s)`` (exact
    power-of-two scalings; what falls below 2^-1074 there is below the rounding of the sum it
    enters), the block is updated, and rescaled to a largest mantissa in ``[1/2, 1)`` only when
    that mantissa has left ``[2^-40, 2^40]`` (so that its smallest entry, at least ``2^-960``
    times the largest, stays a normal float64).
    """
    nb = (L + B - 1) // B
    s = 0.0
    es = -(1 << 40)
    c1 = 1.0 - lam
    ok = True
    for b in range(nb - 1, -1, -1):
        lo = b * B
        hi = min(L, lo + B)
        kb = int(k[b])
        e0 = kb if kb > es else es
        fa = math.ldexp(1.0, kb - e0) if kb - e0 > -1100 else 0.0
        sr = math.ldexp(s, es - e0) if es - e0 > -1100 else 0.0
        mx = 0.0
        mn = math.inf
        for j in range(hi - 1, lo - 1, -1):
            x = a[j] * fa
            sr += x * inv[j]
            y = c1 * x + lam * sr
            a[j] = y
            mx = max(mx, y)
            mn = min(mn, y)
        k[b] = e0
        if B > 1 and not mn >= mx * _FLOOR:
            ok = False
        if mx > 0.0 and not (_LOW <= mx <= _HIGH):
            e = math.frexp(mx)[1]
            scale = math.ldexp(1.0, -e)
            for j in range(lo, hi):
                a[j] *= scale
            k[b] = e0 + e
        if sr > 0.0:
            m, e = math.frexp(sr)
            s = m
            es = e0 + e
    return ok


def _compiled(name):
    """The numba-compiled version of the loop ``name`` (compiled once, cached on disk)."""
    fn = _KERNELS.get(name)
    if fn is None:
        import numba  # the fast extra

        if name == "alibi":
            # the same code object, with the hardware fma in place of the exact one
            src = _alibi_causal_scan
            glob = dict(src.__globals__, _fma=_numba_fma())
            py = types.FunctionType(src.__code__, glob, src.__name__, src.__defaults__)
            fn = numba.njit(cache=True, fastmath={"reassoc", "contract"}, nogil=True)(py)
        else:
            fn = numba.njit(cache=True, nogil=True)(_cesaro_layer_blocked)
        _KERNELS[name] = fn
    return fn


def alibi_causal_scan(v, cT, cflat, q, qlo, wa, wbq, out, *, compiled=True):
    """Compiled :func:`_alibi_causal_scan` (or the Python loop with ``compiled=False``)."""
    fn = _compiled("alibi") if compiled else _alibi_causal_scan
    return fn(v, cT, cflat, q, qlo, wa, wbq, out)


def cesaro_layer_blocked(a, k, inv, lam, B, L, *, compiled=True):
    """Compiled :func:`_cesaro_layer_blocked` (or the Python loop with ``compiled=False``)."""
    fn = _compiled("cesaro") if compiled else _cesaro_layer_blocked
    return fn(a, k, inv, float(lam), int(B), int(L))
