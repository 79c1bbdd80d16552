r"""The kinetic retrieval profile of causal self-attention (duerinckx2026) on two paths.

duerinckx2026 models causal self-attention with ALiBi weights as a non-exchangeable particle
system; its retrieval profile (how strongly the final token correlates with the token at the
relative position ``s`` of the prompt, after time ``t``) is, as the public code of the paper
computes it,

.. math::

    S_t(s) = \sum_h \mathrm{w}_h \sum_{n=1}^{N} \omega_n \, \varphi'_{\lambda_h}(s)\,
             \psi_{a_n t}\bigl(Y_{\lambda_h}(s)\bigr), \qquad
    \psi_c(y) = \sum_{k \ge 0} \frac{c^{k+1} y^k}{k!\,(k+1)!}
              = \sqrt{c/y}\; I_1\bigl(2\sqrt{c y}\bigr),

with the ALiBi warp ``φ_λ(s) = (e^{λs} - 1)/(e^λ - 1)`` (:ref:`X6 <math-x6>`), its Jacobian
``φ'_λ(s) = λ e^{λs}/(e^λ - 1)`` and ``Y_λ(s) = ln(1/φ_λ(s)) = ln((e^λ - 1)/(e^{λs} - 1))``
(``λ = 0``: ``φ = s``, ``Y = ln(1/s)``); per head the Fourier modes of the circle carry the
rates ``a_n = n² I_n(β)`` and the weights ``ω_n = exp(-π² n²/(2 M²))``, ``n = 1..N``.

A *model* (:class:`KineticModel`) is one or more heads (:class:`KineticHead`), each with its
slope ``λ >= 0``, its weight (signed: the public double-well example has negative ones) and
either one mode of rate ``c`` or the paper's mode sum (``β``, ``M``, ``N``), and a time ``t``.
Text form (``posbias profile --model``)::

    kinetic:lambda=L,c=C                       one head, one mode, c = rate x time
    kinetic:lambda=L,beta=B,t=T[,M=M][,modes=N]  one head, the paper's mode sum (M = 8, N = 20
                                               by default, the values of the public code)

Paths (:ref:`claims-paths`):

* precise: mpmath at a caller-given ``dps`` (inside ``mpmath.workdps``): ``psi`` by its series
  (:func:`psi_series_precise`) or by the Bessel closed form (:func:`psi_bessel_precise`), the
  profile (:func:`kinetic_profile_precise`), the right-end slope and the threshold ``t_crit``;
* fast: float64, log-safe (:func:`kinetic_log_profile`): ``ln psi`` from the exponentially scaled
  Bessel function ``I_1(z) e^{-z}`` (scipy's ``ive``) and ``ln Y`` from ``log1p``/``expm1``, so
  nothing overflows for any ``c y`` a float64 exponent can hold; ``L = 10^6`` positions in about
  a second per head and mode;
* exact: the values are transcendental (``e^λ``, ``I_1``), so there is no exact profile; the
  Taylor coefficients of ``psi_c`` are exact for a rational ``c`` (:func:`psi_coefficients_exact`).

The discrete counterpart (:func:`kinetic_rollout`): the last row of ``exp(τ (A - I))`` for the
causal ALiBi kernel ``A`` with slope ``λ/L`` (propagated in ``O(L)`` per power, :ref:`X5
<math-x5>`), ``e^{-τ} Σ_H τ^H/H! e_L A^H``: a Poisson(τ) number of attention layers.  As
``L -> oo``, ``L e^τ p(j) -> φ'(s) ψ_τ(Y(s))`` at ``s = j/L < 1`` (claim
``duerinckx2026:retrieval-profile``); the last token keeps the atom ``e^{-τ}``.

Positions: a profile of length ``L`` is evaluated at ``s_j = j/L``, ``j = 1..L`` (1-indexed; the
final token is ``s = 1``, where ``Y = 0`` and ``psi_c(0) = c``).  The values are those of the
continuum profile, not normalized to sum 1 (the paper's ``S_t`` is a correlation, not a law).

Paper: duerinckx2026 (arXiv 2605.09213); the formulas as its public code computes them.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from posbias.errors import InvalidArgument
from posbias.numerics._arith import as_rational
from posbias.numerics.alibi import alibi_layer, alibi_propagate
from posbias.numerics.schedules import parse_number
from posbias.validation import MAX_LENGTH, check_dps, check_integer, check_real

__all__ = [
    "KINETIC_SPEC",
    "KineticHead",
    "KineticModel",
    "alibi_warp_log",
    "alibi_warp_precise",
    "kinetic_log_profile",
    "kinetic_log_values",
    "kinetic_modes",
    "kinetic_modes_precise",
    "kinetic_profile",
    "kinetic_profile_precise",
    "kinetic_right_slope_precise",
    "kinetic_rollout",
    "kinetic_rollout_precise",
    "kinetic_t_crit",
    "kinetic_t_crit_precise",
    "kinetic_value_precise",
    "kinetic_values",
    "log_psi",
    "parse_kinetic",
    "psi_bessel_precise",
    "psi_coefficients_exact",
    "psi_series_precise",
]

#: the text forms of :func:`parse_kinetic`
KINETIC_SPEC = "kinetic:lambda=L,c=C | kinetic:lambda=L,beta=B,t=T[,M=M][,modes=N]"

#: most Fourier modes of one head (the public code uses 20)
MAX_MODES = 10_000


def _positive(name: str, value: Any, *, zero: bool = False) -> Fraction:
    v = parse_number(value, name) if isinstance(value, str) else as_rational(value, name)
    if v < 0 or (v == 0 and not zero):
        raise InvalidArgument(name, value, "a number >= 0" if zero else "a number > 0")
    return v


@dataclass(frozen=True)
class KineticHead:
    """One head of the kinetic profile: ALiBi slope ``lam >= 0`` (in units of the context:
    ``m = lam/L``), a signed ``weight`` and its modes: one mode of rate ``c`` (``beta`` None), or
    the paper's mode sum ``a_n = n² I_n(beta)``, ``omega_n = exp(-π² n²/(2 M²))``,
    ``n = 1..modes``.  Numbers are exact (int, Fraction, Decimal or decimal text).

    >>> KineticHead(lam="1", c="1/2").c
    Fraction(1, 2)
    >>> KineticHead(lam=-1, c=1)
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: lambda = -1 is invalid: expected a number >= 0
    """

    lam: Fraction
    weight: Fraction = Fraction(1)
    c: Fraction | None = None
    beta: Fraction | None = None
    M: Fraction = Fraction(8)
    modes: int = 20

    def __init__(self, lam: Any, *, weight: Any = 1, c: Any = None, beta: Any = None,
                 M: Any = 8, modes: int = 20) -> None:
        object.__setattr__(self, "lam", _positive("lambda", lam, zero=True))
        w = parse_number(weight, "weight") if isinstance(weight, str) else as_rational(weight, "weight")
        if w == 0:
            raise InvalidArgument("weight", weight, "a nonzero number")
        object.__setattr__(self, "weight", w)
        if (c is None) == (beta is None):
            raise InvalidArgument("modes", f"c={c}, beta={beta}",
                                  "exactly one of c (one mode) and beta (the mode sum)")
        object.__setattr__(self, "c", None if c is None else _positive("c", c))
        object.__setattr__(self, "beta", None if beta is None else _positive("beta", beta))
        object.__setattr__(self, "M", _positive("M", M))
        object.__setattr__(self, "modes", check_integer("modes", modes, 1, MAX_MODES))


@dataclass(frozen=True)
class KineticModel:
    """A kinetic profile: heads (:class:`KineticHead`) at time ``t > 0`` (a one-mode head's
    rate ``c`` already includes the time: it enters as ``c t`` with ``t = 1`` by default)."""

    heads: tuple
    t: Fraction = Fraction(1)
    spec: str = ""

    def __init__(self, heads: Sequence[KineticHead], t: Any = 1, spec: str = "") -> None:
        hs = tuple(heads)
        if not hs or not all(isinstance(h, KineticHead) for h in hs):
            raise InvalidArgument("heads", heads, "a non-empty sequence of KineticHead")
        object.__setattr__(self, "heads", hs)
        object.__setattr__(self, "t", _positive("t", t))
        object.__setattr__(self, "spec", spec or _spec_of(hs, self.t))

    @property
    def signed(self) -> bool:
        """True when a head has a negative weight (the profile may then be 0 or negative)."""
        return any(h.weight < 0 for h in self.heads)


def _spec_of(heads: tuple, t: Fraction) -> str:
    if len(heads) > 1:
        return f"kinetic mixture of {len(heads)} heads, t={t}"
    h = heads[0]
    if h.c is not None:
        return f"kinetic:lambda={h.lam},c={h.c * t}"
    return f"kinetic:lambda={h.lam},beta={h.beta},t={t},M={h.M},modes={h.modes}"


_KEY = re.compile(r"(lambda|c|beta|t|M|modes)=([^,=]{1,60})")


def parse_kinetic(spec: str) -> KineticModel:
    """A one-head kinetic model from its text form (:data:`KINETIC_SPEC`); never evaluated.

    >>> m = parse_kinetic("kinetic:lambda=1,beta=1,t=1.5")
    >>> m.heads[0].M, m.heads[0].modes, m.t
    (Fraction(8, 1), 20, Fraction(3, 2))
    >>> parse_kinetic("kinetic:lambda=1")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: model = kinetic:lambda=1 is invalid: expected kinetic:lambda=L,c=C | kinetic:lambda=L,beta=B,t=T[,M=M][,modes=N] (lambda >= 0; c, beta, t, M > 0; modes an integer in 1..10000)
    """
    allowed = (KINETIC_SPEC + " (lambda >= 0; c, beta, t, M > 0; modes an integer in "
               f"1..{MAX_MODES})")
    if not isinstance(spec, str) or not spec.strip().startswith("kinetic:") or len(spec) > 400:
        raise InvalidArgument("model", spec, allowed)
    fields: dict[str, str] = {}
    for part in spec.strip()[len("kinetic:"):].split(","):
        m = _KEY.fullmatch(part.strip())
        if m is None or m.group(1) in fields:
            raise InvalidArgument("model", spec, allowed)
        fields[m.group(1)] = m.group(2).strip()
    one = set(fields) == {"lambda", "c"}
    paper = {"lambda", "beta", "t"} <= set(fields) <= {"lambda", "beta", "t", "M", "modes"}
    if not (one or paper):
        raise InvalidArgument("model", spec, allowed)
    try:
        if one:
            return KineticModel([KineticHead(fields["lambda"], c=fields["c"])], spec=spec.strip())
        modes = fields.get("modes", "20")
        if not re.fullmatch(r"[0-9]{1,6}", modes):
            raise InvalidArgument("modes", modes, "an integer")
        head = KineticHead(fields["lambda"], beta=fields["beta"], M=fields.get("M", "8"),
                           modes=int(modes))
        return KineticModel([head], t=fields["t"], spec=spec.strip())
    except InvalidArgument:
        raise InvalidArgument("model", spec, allowed) from None


# ----------------------------------------------------------------------------- exact
def psi_coefficients_exact(c: Any, terms: int) -> list[Fraction]:
    """The Taylor coefficients ``c^{k+1}/(k! (k+1)!)`` of ``psi_c(y)`` in ``y``, ``k = 0..terms-1``,
    exactly (``c`` rational).

    >>> [str(x) for x in psi_coefficients_exact(Fraction(1, 2), 3)]
    ['1/2', '1/8', '1/96']
    """
    c = as_rational(c, "c")
    terms = check_integer("terms", terms, 1, 100_000)
    out, term = [], c
    for k in range(terms):
        out.append(term)
        term = term * c / ((k + 1) * (k + 2))
    return out


# ----------------------------------------------------------------------------- precise
def _mpf(x: Any, name: str) -> Any:
    """An exact input (int, Fraction, decimal text) or an mpf as an mpf at the working
    precision; binary floats are refused (they are not the number the caller wrote)."""
    if isinstance(x, mpmath.mpf):
        return +x
    if isinstance(x, str):
        x = parse_number(x, name)
    q = as_rational(x, name)
    return mpmath.mpf(q.numerator) / q.denominator


def _psi_arguments(c: Any, y: Any) -> tuple[Any, Any]:
    """``(c, y)`` as mpf at the working precision, both ``>= 0``."""
    cc, yy = _mpf(c, "c"), _mpf(y, "y")
    if cc < 0 or yy < 0:
        raise InvalidArgument("c, y", (c, y), "numbers >= 0")
    return cc, yy


def psi_series_precise(c: Any, y: Any, dps: int) -> Any:
    """``psi_c(y) = Σ_k c^{k+1} y^k / (k! (k+1)!)`` summed in mpmath at ``dps`` digits (10 guard
    digits; the terms decrease once ``k² > c y``, and the sum stops when a term falls below
    ``10^-(dps+10)`` of the total).

    >>> mpmath.nstr(psi_series_precise(1, 1, 20), 15)
    '1.59063685463733'
    """
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        cc, yy = _psi_arguments(c, y)
        term = total = cc
        eps = mpmath.mpf(10) ** (-(dps + 10))
        k = 0
        while term != 0 and (k * k <= cc * yy or term > eps * total):
            term *= cc * yy / ((k + 1) * (k + 2))
            total += term
            k += 1
    with mpmath.workdps(dps):
        return +total


def psi_bessel_precise(c: Any, y: Any, dps: int) -> Any:
    """``psi_c(y) = sqrt(c/y) I_1(2 sqrt(c y))`` with mpmath's ``besseli`` at ``dps`` digits
    (``psi_c(0) = c``).

    >>> mpmath.nstr(psi_bessel_precise(1, 1, 20), 15)
    '1.59063685463733'
    """
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        cc, yy = _psi_arguments(c, y)
        value = cc if yy == 0 else mpmath.sqrt(cc / yy) * mpmath.besseli(1, 2 * mpmath.sqrt(cc * yy))
    with mpmath.workdps(dps):
        return +value


def alibi_warp_precise(s: Any, lam: Any, dps: int) -> tuple[Any, Any]:
    """``(Y_λ(s), φ'_λ(s))`` in mpmath: ``Y = ln((e^λ - 1)/(e^{λs} - 1))`` and the Jacobian
    ``λ e^{λs}/(e^λ - 1)`` of the warp (``λ = 0``: ``ln(1/s)`` and 1), ``0 < s <= 1``.

    >>> Y, w = alibi_warp_precise(1, 2, 20)
    >>> Y, mpmath.nstr(w, 12)
    (mpf('0.0'), '2.3130352855')
    """
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        ss, ll = _mpf(s, "s"), _mpf(lam, "lambda")
        if not 0 < ss <= 1 or ll < 0:
            raise InvalidArgument("s, lambda", (s, lam), "0 < s <= 1 and lambda >= 0")
        if ll == 0:
            Y, w = -mpmath.log(ss), mpmath.mpf(1)
        else:
            Y = mpmath.log(mpmath.expm1(ll) / mpmath.expm1(ll * ss))
            w = ll * mpmath.exp(ll * ss) / mpmath.expm1(ll)
    with mpmath.workdps(dps):
        return +Y, +w


def kinetic_modes_precise(head: KineticHead, dps: int) -> list[tuple[Any, Any]]:
    """``[(omega_n, a_n)]`` of one head in mpmath at ``dps`` digits: ``[(1, c)]`` for one mode,
    else ``a_n = n² I_n(beta)``, ``omega_n = exp(-π² n²/(2 M²))``, ``n = 1..modes``."""
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        if head.c is not None:
            out = [(mpmath.mpf(1), _mpf(head.c, "c"))]
        else:
            beta, M = _mpf(head.beta, "beta"), _mpf(head.M, "M")
            out = [(mpmath.exp(-(mpmath.pi * n / M) ** 2 / 2), n * n * mpmath.besseli(n, beta))
                   for n in range(1, head.modes + 1)]
    with mpmath.workdps(dps):
        return [(+w, +a) for w, a in out]


def kinetic_value_precise(s: Any, model: KineticModel, dps: int, *, psi: str = "bessel") -> Any:
    """``S_t(s)`` of ``model`` at one position ``0 < s <= 1`` in mpmath at ``dps`` digits
    (``psi``: ``"bessel"`` or ``"series"``, the route of ``psi_c``).

    >>> m = parse_kinetic("kinetic:lambda=1,c=1")
    >>> mpmath.nstr(kinetic_value_precise(1, m, 20), 12)   # phi'(1) psi_1(0) = e/(e - 1)
    '1.58197670687'
    """
    dps = check_dps("dps", dps)
    route = {"bessel": psi_bessel_precise, "series": psi_series_precise}.get(psi)
    if route is None:
        raise InvalidArgument("psi", psi, "bessel or series")
    work = dps + 10
    with mpmath.workdps(work):
        t = _mpf(model.t, "t")
        total = mpmath.mpf(0)
        for h in model.heads:
            Y, w = alibi_warp_precise(s, h.lam, work)
            inner = mpmath.fsum(om * route(a * t, Y, work) for om, a in kinetic_modes_precise(h, work))
            total += _mpf(h.weight, "weight") * w * inner
    with mpmath.workdps(dps):
        return +total


def kinetic_profile_precise(length: int, model: KineticModel, dps: int,
                            *, psi: str = "bessel") -> list[Any]:
    """``S_t(j/L)``, ``j = 1..L``, in mpmath at ``dps`` digits (see :func:`kinetic_value_precise`).

    >>> [mpmath.nstr(v, 6) for v in kinetic_profile_precise(2, parse_kinetic("kinetic:lambda=0,c=1"), 20)]
    ['1.38901', '1.0']
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    return [kinetic_value_precise(Fraction(j, L), model, dps, psi=psi) for j in range(1, L + 1)]


def _slope_terms(model: KineticModel, dps: int) -> tuple[Any, Any]:
    """``(A, B)`` with ``dS_t/ds(1) = A t - B t²``: ``A = Σ_h w_h φ'_h(1) λ_h Σ_n ω_n a_n``,
    ``B = Σ_h w_h φ'_h(1)² Σ_n ω_n a_n² / 2`` (``psi_c(0) = c``, ``psi_c'(0) = c²/2``,
    ``Y'(1) = -φ'(1)``, ``φ''= λ φ'``)."""
    A = B = mpmath.mpf(0)
    for h in model.heads:
        modes = kinetic_modes_precise(h, dps)
        _, w1 = alibi_warp_precise(1, h.lam, dps)
        wt, lam = _mpf(h.weight, "weight"), _mpf(h.lam, "lambda")
        A += wt * w1 * lam * mpmath.fsum(om * a for om, a in modes)
        B += wt * w1 * w1 * mpmath.fsum(om * a * a for om, a in modes) / 2
    return A, B


def kinetic_right_slope_precise(model: KineticModel, dps: int) -> Any:
    """``dS_t/ds`` at the final token ``s = 1`` in closed form, mpmath at ``dps`` digits: for one
    head ``φ'(1) Σ_n ω_n (λ a_n t - φ'(1) (a_n t)²/2)``, ``φ'(1) = λ e^λ/(e^λ - 1)`` (1 at λ = 0).

    >>> mpmath.nstr(kinetic_right_slope_precise(parse_kinetic("kinetic:lambda=0,c=1"), 20), 6)
    '-0.5'
    """
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        A, B = _slope_terms(model, dps + 10)
        t = _mpf(model.t, "t")
        value = A * t - B * t * t
    with mpmath.workdps(dps):
        return +value


def kinetic_t_crit_precise(model: KineticModel, dps: int) -> Any:
    """The time at which the slope of ``S_t`` at ``s = 1`` changes sign, ``t_crit = A/B``
    (:func:`_slope_terms`); for one head ``2 (1 - e^{-λ}) Σ ω_n a_n / Σ ω_n a_n²``.  The model's
    own ``t`` is not used.  ``None`` when the slope never changes sign (``A/B <= 0``, e.g.
    ``λ = 0``: then ``t_crit = 0``).

    >>> mpmath.nstr(kinetic_t_crit_precise(parse_kinetic("kinetic:lambda=1,c=1"), 20), 15)
    '1.26424111765712'
    """
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        A, B = _slope_terms(model, dps + 10)
        if B == 0 or A / B <= 0:
            return None
        value = A / B
    with mpmath.workdps(dps):
        return +value


# ----------------------------------------------------------------------------- fast
def kinetic_modes(head: KineticHead) -> tuple[np.ndarray, np.ndarray]:
    """``(omega, a)`` of one head as float64 arrays (see :func:`kinetic_modes_precise`)."""
    from scipy.special import iv  # imported here: scipy.special costs CLI start-up time

    if head.c is not None:
        return np.ones(1), np.array([float(head.c)])
    n = np.arange(1, head.modes + 1, dtype=float)
    omega = np.exp(-0.5 * (math.pi * n / float(head.M)) ** 2)
    assert head.beta is not None  # a head has one mode (c) or the mode sum (beta)
    return omega, n * n * iv(n, float(head.beta))


def _log_expm1(x: np.ndarray) -> np.ndarray:
    """``ln(e^x - 1)`` for ``x > 0`` without overflow or cancellation."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    big = x > 1.0
    out[big] = x[big] + np.log1p(-np.exp(-x[big]))
    out[~big] = np.log(np.expm1(x[~big]))
    return out


def alibi_warp_log(s: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """``(Y_λ(s), ln φ'_λ(s))`` in float64 for an array of ``0 < s <= 1`` (log-safe for every
    ``λ`` a float64 holds).

    >>> Y, lw = alibi_warp_log(np.array([0.5, 1.0]), 0.0)
    >>> Y.round(6).tolist(), lw.tolist()
    ([0.693147, 0.0], [0.0, 0.0])
    """
    s = np.asarray(s, dtype=float)
    if lam == 0:
        return 0.0 - np.log(s), np.zeros_like(s)
    le = _log_expm1(np.array([lam]))[0]
    Y = np.maximum(le - _log_expm1(lam * s), 0.0)
    return Y, math.log(lam) + lam * s - le


def log_psi(c: float, y: np.ndarray) -> np.ndarray:
    """``ln psi_c(y)`` in float64 for ``c > 0`` and an array ``y >= 0``:
    ``ln psi = (ln c - ln y)/2 + ln ive(1, z) + z``, ``z = 2 sqrt(c y)``, and
    ``ln c + log1p(c y/2)`` where ``z < 1e-8`` (the series' first two terms).

    >>> float(np.exp(log_psi(1.0, np.array([1.0]))[0]))   # doctest: +ELLIPSIS
    1.590636854637...
    """
    from scipy.special import ive  # scipy.special is kept off the import of numerics (start-up)

    y = np.asarray(y, dtype=float)
    z = 2.0 * np.sqrt(c * y)
    small = z < 1e-8
    out = np.empty_like(y)
    out[small] = math.log(c) + np.log1p(c * y[small] / 2.0)
    zb, yb = z[~small], y[~small]
    with np.errstate(divide="ignore"):
        out[~small] = 0.5 * (math.log(c) - np.log(yb)) + np.log(ive(1, zb)) + zb
    return out


def _head_log(s: np.ndarray, head: KineticHead, t: float) -> np.ndarray:
    """``ln`` of one head's profile (weight 1): the modes added in log space, one at a time
    (``O(L)`` memory whatever the number of modes), those below float64 resolution skipped
    (:func:`_resolved_modes`)."""
    Y, lw = alibi_warp_log(s, float(head.lam))
    modes = _resolved_modes(*kinetic_modes(head))
    series = _mode_series(modes, t, float(Y.max()))
    if series is not None:  # one Horner pass for all modes: positive terms, no cancellation
        acc = np.full_like(s, series[-1])
        for coef in series[-2::-1]:
            acc = acc * Y + coef
        return lw + np.log(acc)
    acc = np.full_like(s, -np.inf)
    for om, ak in modes:
        acc = np.logaddexp(acc, math.log(om) + log_psi(ak * t, Y))
    return lw + acc


def _mode_series(modes: list[tuple[float, float]], t: float, ymax: float) -> list[float] | None:
    """Coefficients ``b_k = Σ_n ω_n (a_n t)^{k+1}/(k! (k+1)!)`` of ``Σ_n ω_n psi_{a_n t}(y)`` as
    one power series in ``y``, enough of them (``K``) that the bound
    ``b_0 (c y)^K/(K! (K+1)!)`` of the first omitted term (``c`` the largest rate, ``y <= ymax``)
    is below ``2^-60 b_0`` with ratio ``c y/((K+1)(K+2)) <= 1/2`` onward; None when the terms
    would leave the float64 range (``2 sqrt(c ymax) > 600``): the modes are then added one by
    one in log space from ``ive``."""
    c = max(ak for _, ak in modes) * t
    if 2.0 * math.sqrt(c * ymax) > 600.0:
        return None
    cy = c * ymax
    K, log_ratio = 0, 0.0  # log of (c y)^K/(K! (K+1)!)
    while log_ratio > -60 * math.log(2.0) or cy > 0.5 * (K + 1) * (K + 2):
        K += 1
        log_ratio += (math.log(cy) if cy > 0 else -math.inf) - math.log(K * (K + 1))
        if K > 2000:  # pragma: no cover - excluded by the range test above
            return None
    out = []
    for k in range(K + 1):
        logs = [math.log(om) + (k + 1) * math.log(ak * t) - math.lgamma(k + 1) - math.lgamma(k + 2)
                for om, ak in modes]
        top = max(logs)
        out.append(math.exp(top) * math.fsum(math.exp(v - top) for v in logs))
    return out


def _resolved_modes(omega: np.ndarray, a: np.ndarray) -> list[tuple[float, float]]:
    """The modes whose term can reach 2^-60 of another's anywhere: ``psi_c(y)/c`` increases with
    ``c``, so ``ω_n psi_{a_n t}(y) <= (ω_n a_n)/(ω_m a_m) ω_m psi_{a_m t}(y)`` for every ``y``
    when ``a_n <= a_m``; a mode with ``ω_n a_n < 2^-60 ω_m a_m`` for such an ``m`` changes no
    float64 sum (the skipped terms add at most ``N 2^-60`` relative).  Modes with a zero weight
    or rate (underflow) add nothing."""
    keep = []
    for n in range(len(a)):
        if not (omega[n] > 0 and a[n] > 0):
            continue
        dominated = any(a[m] >= a[n] and omega[n] * a[n] < 2.0**-60 * omega[m] * a[m]
                        for m in range(len(a)))
        if not dominated:
            keep.append((float(omega[n]), float(a[n])))
    return keep


def _positions(length: int) -> np.ndarray:
    L = check_integer("length", length, 1, MAX_LENGTH)
    return np.arange(1, L + 1, dtype=float) / L


def kinetic_log_profile(length: int, model: KineticModel) -> np.ndarray:
    """``ln S_t(j/L)``, ``j = 1..L``, in float64 (log-safe: modes and heads are added in log
    space).  Every head's weight must be positive (a signed mixture has no logarithm:
    :func:`kinetic_profile`).

    >>> lp = kinetic_log_profile(10**6, parse_kinetic("kinetic:lambda=1,beta=1,t=1.5"))
    >>> lp.shape, bool(np.isfinite(lp).all())
    ((1000000,), True)
    """
    return kinetic_log_values(_positions(length), model)


def _check_fast(model: KineticModel) -> None:
    """Refuse, naming the model, parameters that float64 cannot carry on the fast path: beyond
    its range (they would overflow) or nonzero below its smallest normal number (they would
    become 0 or lose their digits); the precise path takes them."""
    values = [("t", model.t)]
    for h in model.heads:
        values += [("lambda", h.lam), ("weight", h.weight), ("M", h.M)]
        values += [(k, v) for k, v in (("c", h.c), ("beta", h.beta)) if v is not None]
    for name, v in values:
        if v != 0 and not sys.float_info.min <= abs(v) <= sys.float_info.max:
            raise InvalidArgument("model", model.spec, f"{name} = 0 or between 2.2e-308 and "
                                  "1.8e308 on the fast path (float64); use the precise path")


def kinetic_log_values(s: Any, model: KineticModel) -> np.ndarray:
    """``ln S_t(s)`` at an array of positions ``0 < s <= 1`` (float64, log-safe; every head's
    weight positive), the route of :func:`kinetic_log_profile`.

    >>> kinetic_log_values([0.5, 1.0], parse_kinetic("kinetic:lambda=0,c=1")).round(6).tolist()
    [0.328588, 0.0]
    """
    if model.signed:
        raise InvalidArgument("model", model.spec, "heads with positive weights (a signed "
                              "mixture has no logarithm: use kinetic_values)")
    _check_fast(model)
    s = _checked_positions(s)
    t = float(model.t)
    acc = np.full_like(s, -np.inf)
    for h in model.heads:
        acc = np.logaddexp(acc, math.log(float(h.weight)) + _head_log(s, h, t))
    return acc


def kinetic_values(s: Any, model: KineticModel) -> np.ndarray:
    """``S_t(s)`` at an array of positions ``0 < s <= 1`` (float64; signed head weights
    allowed), the route of :func:`kinetic_profile`.

    >>> kinetic_values([0.5, 1.0], parse_kinetic("kinetic:lambda=0,c=1")).round(6).tolist()
    [1.389006, 1.0]
    """
    _check_fast(model)
    s = _checked_positions(s)
    t = float(model.t)
    with np.errstate(over="ignore"):
        return sum((float(h.weight) * np.exp(_head_log(s, h, t)) for h in model.heads),
                   np.zeros_like(s))


def _checked_positions(s: Any) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(s, dtype=float))
    if arr.ndim != 1 or not (np.isfinite(arr).all() and (arr > 0).all() and (arr <= 1).all()):
        raise InvalidArgument("s", f"an array of shape {arr.shape}", "positions in (0, 1]")
    return arr


def kinetic_profile(length: int, model: KineticModel) -> np.ndarray:
    """``S_t(j/L)``, ``j = 1..L``, in float64 (heads with signed weights allowed; each head is
    computed in log space and exponentiated once; a value beyond the float64 range is inf).

    >>> kinetic_profile(2, parse_kinetic("kinetic:lambda=0,c=1")).round(6).tolist()
    [1.389006, 1.0]
    """
    return kinetic_values(_positions(length), model)


def kinetic_t_crit(model: KineticModel) -> float | None:
    """:func:`kinetic_t_crit_precise` in float64 (None when the slope never changes sign).

    >>> round(kinetic_t_crit(parse_kinetic("kinetic:lambda=1,beta=1,t=1")), 6)
    2.457489
    """
    A = B = 0.0
    for h in model.heads:
        omega, a = kinetic_modes(h)
        lam = float(h.lam)
        w1 = lam / -math.expm1(-lam) if lam > 0 else 1.0
        A += float(h.weight) * w1 * lam * float(np.sum(omega * a))
        B += float(h.weight) * w1 * w1 * float(np.sum(omega * a * a)) / 2
    return A / B if B != 0 and A / B > 0 else None


# ----------------------------------------------------------------------------- discrete
def _as_float(x: Any, name: str) -> Any:
    """A fast-path number: floats as they are, exact numbers and decimal text converted."""
    if isinstance(x, str):
        return float(parse_number(x, name))
    if isinstance(x, Fraction):
        return float(x)
    return x


def _poisson_terms(tau: float) -> int:
    """Powers of ``A`` kept: the Poisson(τ) tail beyond them is below 2^-60 of the total."""
    return int(tau + 12 * math.sqrt(tau) + 40)


def kinetic_rollout(length: int, lam: Any, tau: Any) -> np.ndarray:
    """The last row of ``exp(τ (A - I))`` in float64, ``A`` the causal single-head ALiBi kernel
    with slope ``λ/L`` (the diagonal logit 0, as :func:`~posbias.numerics.alibi.alibi_layer`):
    ``e^{-τ} Σ_{H >= 0} τ^H/H! e_L A^H``, each power propagated in ``O(L)``.  A probability
    vector: the atom ``e^{-τ}`` stays on the final token.

    >>> p = kinetic_rollout(4, 0, 1)
    >>> round(float(p.sum()), 12), round(float(p[-1]), 6)
    (1.0, 0.472367)
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    lam_f = check_real("lambda", _as_float(lam, "lambda"), 0)
    tau_f = check_real("tau", _as_float(tau, "tau"), 0, 700)
    layer = alibi_layer([lam_f / L])
    v = np.zeros(L)
    v[-1] = 1.0
    weight = math.exp(-tau_f)
    out = weight * v
    for H in range(1, _poisson_terms(tau_f) + 1):
        v = alibi_propagate(v, layer)
        weight *= tau_f / H
        out = out + weight * v
    return out


def kinetic_rollout_precise(length: int, lam: Any, tau: Any, dps: int) -> list[Any]:
    """:func:`kinetic_rollout` in mpmath at ``dps`` digits (the ALiBi slope taken exactly as
    ``λ/L``; the Poisson series summed until its tail is below ``10^-(dps+5)``).

    >>> [mpmath.nstr(x, 6) for x in kinetic_rollout_precise(2, 0, 1, 20)]
    ['0.393469', '0.606531']
    """
    L = check_integer("length", length, 1, MAX_LENGTH)
    dps = check_dps("dps", dps)
    lam_q = _positive("lambda", lam, zero=True)
    tau_q = _positive("tau", tau, zero=True)
    with mpmath.workdps(dps + 10):
        tau_m = _mpf(tau_q, "tau")
        v = [mpmath.mpf(0)] * L
        v[-1] = mpmath.mpf(1)
        weight = mpmath.exp(-tau_m)
        out = [weight * x for x in v]
        eps = mpmath.mpf(10) ** (-(dps + 5))
        H = 0
        while tau_m > H or weight > eps:
            H += 1
            v = _alibi_power_precise(v, lam_q, L, dps + 10)
            weight *= tau_m / H
            out = [o + weight * x for o, x in zip(out, v)]
    with mpmath.workdps(dps):
        return [+x for x in out]


def _alibi_power_precise(v: list, lam: Fraction, L: int, dps: int) -> list:
    """``v A`` for the single-head ALiBi kernel with slope exactly ``lam/L`` (diagonal logit 0),
    by the O(L) recurrence of :ref:`X5 <math-x5>` in mpmath: ``Z_i = Σ_{k=0}^{i-1} q^k``,
    ``u_j = v_j/Z_j + S_j``, ``S_j = q (v_{j+1}/Z_{j+1} + S_{j+1})``, ``q = e^{-lam/L}``."""
    with mpmath.workdps(dps):
        q = mpmath.exp(-_mpf(lam, "lambda") / L)
        Z, z = [], mpmath.mpf(0)
        for _ in range(L):
            z = z * q + 1
            Z.append(z)
        x = [a / b for a, b in zip(v, Z)]
        u = [mpmath.mpf(0)] * L
        S = mpmath.mpf(0)
        for j in range(L - 1, -1, -1):
            u[j] = x[j] + S
            S = q * (x[j] + S)
        return u
