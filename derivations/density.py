"""The final-token influence density without residuals and its primacy tail.

    rho_H(x) = (ln(1/x))^(H-1) / (H-1)!,   0 < x <= 1,

the kernel of ``K^H`` at ``x = 1``.  With ``t = ln(1/x)`` the law is Gamma(H, 1): the law of the
position ``U_1 ... U_H`` of a product of H independent uniforms.  Mellin moments
``int_0^1 x^s rho_H(x) dx = (1+s)^(-H)``, mean ``2^(-H)``.  The median has no closed form: it is
``exp(-m_H)`` with ``P(H, m_H) = 1/2`` (``P`` the regularized lower incomplete gamma function);
the mode of ``ln(1/x)`` is ``H - 1``; as a density in ``x``, ``rho_H`` is strictly decreasing for
``H >= 2`` and unbounded at ``0+`` (no interior mode; the supremum is at ``x -> 0+``), and
constant for ``H = 1``.

Method: sympy integration for symbolic H after ``t = ln(1/x)``; the median numerically with
mpmath (root of the regularized gamma equation) at a stated precision.

Paper: chowdhury2026 (:ref:`C3, C4 <math-c3>`).

>>> from posbias.derivations.density import rho
>>> rho(3)
log(1/x)**2/2
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import mpmath
import sympy

from posbias.derivations._checks import check_depth
from posbias.derivations.core import Derivation, Identity, Step, derivation, prove_equal
from posbias.numbers import mp_text
from posbias.validation import check_dps, check_integer

__all__ = [
    "density_derivation",
    "density_median",
    "gamma_median",
    "mellin_identity",
    "normalization_identity",
    "primacy_tail_derivation",
    "rho",
    "rho_symbolic",
]

x = sympy.Symbol("x", positive=True)
t = sympy.Symbol("t", positive=True)
s = sympy.Symbol("s", positive=True)
eps = sympy.Symbol("epsilon", positive=True)
delta = sympy.Symbol("delta", positive=True)
H = sympy.Symbol("H", integer=True, positive=True)
rho_H = sympy.Function("rho_H")


def rho_symbolic(depth: sympy.Expr = H, xx: sympy.Expr = x) -> sympy.Expr:
    """``(ln(1/x))^(H-1)/(H-1)!`` with ``depth`` the symbol ``H`` or an integer >= 1."""
    depth = check_depth("depth", depth)
    return sympy.log(1 / xx) ** (depth - 1) / sympy.factorial(depth - 1)


def rho(depth: int) -> sympy.Expr:
    """``rho_H(x)`` for an integer ``depth >= 1``.

    >>> rho(1)
    1
    """
    depth = check_integer("depth", depth, 1)
    return rho_symbolic(sympy.Integer(depth))


def _in_t(expr):
    """Rewrite an integrand in ``x`` as one in ``t = ln(1/x)``: ``x = e^-t``, ``dx = e^-t dt``
    (orientation absorbed: x in (0,1) <-> t in (0, oo))."""
    out = expr.subs(x, sympy.exp(-t)) * sympy.exp(-t)
    return sympy.powsimp(sympy.expand_log(out, force=True), force=True)


def normalization_identity(density: Callable[[sympy.Expr, sympy.Expr], sympy.Expr] = rho_symbolic,
                           ) -> tuple[Identity, sympy.Expr]:
    """``int_0^1 rho_H = 1`` for symbolic H; ``density(depth, x)`` is the candidate."""
    integrand = _in_t(density(H, x))
    value = sympy.integrate(integrand, (t, 0, sympy.oo), conds="none")
    return prove_equal("normalization int_0^1 rho_H(x) dx = 1 (symbolic H)", value, 1), integrand


def mellin_identity(density: Callable[[sympy.Expr, sympy.Expr], sympy.Expr] = rho_symbolic,
                    closed: Callable[[sympy.Expr], sympy.Expr] = lambda h: (1 + s) ** (-h),
                    ) -> tuple[Identity, sympy.Expr]:
    """``int_0^1 x^s rho_H(x) dx = (1+s)^(-H)`` for symbolic H and s > 0 (and by analytic
    continuation for s > -1)."""
    integrand = _in_t(x**s * density(H, x))
    value = sympy.integrate(integrand, (t, 0, sympy.oo), conds="none")
    return prove_equal("Mellin moments (1+s)^(-H) (symbolic H)", value, closed(H)), integrand


@functools.cache
def gamma_median(depth: int, dps: int = 30) -> str:
    """Median ``m_H`` of the Gamma(H, 1) law: the root of ``P(H, m) = 1/2`` (mpmath, ``dps``
    digits, returned as an mpf string with ``dps`` significant digits).

    >>> gamma_median(1, 20)   # ln 2
    '0.69314718055994530942'
    """
    depth = check_depth("depth", depth)
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        def f(m: Any) -> Any:  # mpmath numbers
            return mpmath.gammainc(depth, 0, m, regularized=True) - mpmath.mpf(1) / 2

        start = mpmath.mpf(depth) - mpmath.mpf(1) / 3 if depth > 1 else mpmath.log(2)
        root = mpmath.findroot(f, start)
        return mp_text(root, dps)


def density_median(depth: int, dps: int = 30) -> str:
    """Median of ``rho_H`` on ``(0, 1]``: ``exp(-m_H)`` (string with ``dps`` digits).

    >>> density_median(1, 15)
    '0.5'
    """
    dps = check_dps("dps", dps)
    with mpmath.workdps(dps + 10):
        return mp_text(mpmath.exp(-mpmath.mpf(gamma_median(depth, dps + 5))), dps)


@derivation("density")
def density_derivation() -> Derivation:
    """Normalization, Mellin moments, mean, Gamma law, median and mode of rho_H."""
    norm, integrand = normalization_identity()
    mell, _ = mellin_identity()
    mean = prove_equal("mean 2^(-H) (s = 1)", mell.lhs.subs(s, 1), 2 ** (-H))
    # Gamma(H,1) law of T = ln(1/X): density of T is rho_H(e^-t) e^-t
    gamma_pdf = t ** (H - 1) * sympy.exp(-t) / sympy.gamma(H)
    law = prove_equal("T = ln(1/X) has the Gamma(H,1) density", integrand, gamma_pdf)
    # product of H uniforms: E[(U_1...U_H)^s] = prod E[U^s] = (1+s)^(-H): same Mellin transform
    uu = sympy.Symbol("u", positive=True)
    one_uniform = sympy.integrate(uu**s, (uu, 0, 1))
    product = prove_equal("E[(U_1...U_H)^s] = (int_0^1 u^s du)^H = (1+s)^(-H)",
                          one_uniform**H, mell.rhs)
    # mode of t: derivative of the Gamma density vanishes at t = H - 1
    dlog = sympy.simplify(sympy.diff(sympy.expand_log(sympy.log(gamma_pdf), force=True), t))
    mode_t = sympy.solve(sympy.Eq(dlog, 0), t)
    mode = prove_equal("mode of ln(1/X) is H - 1 (d/dt log density = 0)",
                       mode_t[0] if len(mode_t) == 1 else sympy.nan, H - 1)
    # derivative in x: -ln(1/x)^(H-2) / ((H-2)! x) <= 0
    deriv = sympy.diff(rho_symbolic(), x)
    deriv_closed = -sympy.log(1 / x) ** (H - 2) / (sympy.factorial(H - 2) * x)
    mono = prove_equal("d rho_H/dx = -ln(1/x)^(H-2)/((H-2)! x) <= 0 (H >= 2)",
                       sympy.gammasimp(deriv), deriv_closed,
                       simplify=lambda e: sympy.simplify(sympy.gammasimp(sympy.expand_log(
                           sympy.combsimp(e), force=True))))
    medians = {h: density_median(h, 20) for h in range(1, 9)}
    gmedians = {h: gamma_median(h, 20) for h in range(1, 9)}
    Pm = sympy.Symbol("m_H", positive=True)
    median_eq = sympy.Eq(sympy.lowergamma(H, Pm) / sympy.gamma(H), sympy.Rational(1, 2))
    expr = sympy.Eq(rho_H(x), rho_symbolic())
    steps = (
        Step("final token x = 1 of the kernel K_H(1, y)", expr),
        Step("substitute x = e^{-t}, dx = e^{-t} dt",
             sympy.Eq(sympy.Integral(rho_symbolic(), (x, 0, 1)),
                      sympy.Integral(integrand, (t, 0, sympy.oo)))),
        Step("normalization", sympy.Eq(sympy.Integral(integrand, (t, 0, sympy.oo)), norm.lhs)),
        Step("Mellin moments", sympy.Eq(sympy.Integral(x**s * rho_symbolic(), (x, 0, 1)),
                                        mell.lhs)),
        Step("mean (s = 1)", sympy.Eq(sympy.Integral(x * rho_symbolic(), (x, 0, 1)), 2 ** (-H))),
        Step("one uniform: E[U^s]", sympy.Eq(sympy.Integral(uu**s, (uu, 0, 1)), one_uniform)),
        Step("derivative of the log of the Gamma density in t",
             sympy.Eq(sympy.Derivative(sympy.log(gamma_pdf), t), dlog)),
        Step("median m_H of T: regularized lower incomplete gamma equation", median_eq),
        Step("derivative of rho_H in x", sympy.Eq(sympy.Derivative(rho_H(x), x), deriv_closed)),
    )
    return Derivation(
        name="density",
        title="Final-token influence density without residuals",
        description="rho_H(x) = ln(1/x)^(H-1)/(H-1)! integrates to 1, has Mellin moments "
        "(1+s)^(-H) and mean 2^(-H); ln(1/x) is Gamma(H,1), the law of a product of H uniforms.",
        expression=expr,
        equations=(
            sympy.Eq(sympy.Integral(x**s * rho_H(x), (x, 0, 1)), (1 + s) ** (-H)),
            median_eq,
        ),
        assumptions=("0 < x <= 1", "H a positive integer (symbolic)",
                     "s > -1 for the Mellin moments (proven for s > 0, analytic continuation)"),
        steps=steps,
        identities=(norm, mell, mean, law, product, mode, mono),
        paper="chowdhury2026",
        section="C3",
        notes=(
            "median of rho_H: exp(-m_H) with P(H, m_H) = 1/2; no closed form (numeric values in "
            "data, mpmath findroot, 20 digits)",
            "mode of ln(1/x): H - 1; as a density in x, rho_H is strictly decreasing for H >= 2 "
            "and unbounded as x -> 0+, so it has no interior mode; for H = 1 it is constant",
        ),
        data={"median_x": medians, "median_t": gmedians},
    )


@derivation("primacy-tail")
def primacy_tail_derivation() -> Derivation:
    """Behaviour of rho_H as x -> 0+: divergence like a power of the logarithm, integrable."""
    idents = []
    steps = []
    # exact asymptotic form: rho_H(x) / ln(1/x)^(H-1) = 1/(H-1)! for all x
    idents.append(prove_equal("rho_H(x) / ln(1/x)^(H-1) = 1/(H-1)! (symbolic H)",
                              rho_symbolic() / sympy.log(1 / x) ** (H - 1),
                              1 / sympy.factorial(H - 1)))
    # divergence and sub-power growth for explicit H (limits in sympy)
    for h in range(1, 7):
        r = rho(h)
        lim = sympy.limit(r, x, 0, "+")
        idents.append(prove_equal(f"H = {h}: lim_(x->0+) rho_H = " + ("1" if h == 1 else "oo"),
                                  lim, sympy.Integer(1) if h == 1 else sympy.oo,
                                  simplify=lambda e: e))
        lim_pow = sympy.limit(x ** sympy.Rational(1, 10) * r, x, 0, "+")
        idents.append(prove_equal(f"H = {h}: x^(1/10) rho_H(x) -> 0 (slower than any power)",
                                  lim_pow, 0, simplify=lambda e: e))
    # mass of the tail: int_0^eps rho_H = Gamma(H, ln 1/eps)/Gamma(H) -> 0
    Teps = sympy.Symbol("T_epsilon", positive=True)  # ln(1/eps)
    tail_mass = sympy.integrate(t ** (H - 1) * sympy.exp(-t) / sympy.factorial(H - 1),
                                (t, Teps, sympy.oo), conds="none")
    idents.append(prove_equal("tail mass int_0^eps rho_H = Gamma(H, ln(1/eps))/Gamma(H)",
                              tail_mass, sympy.uppergamma(H, Teps) / sympy.gamma(H)))
    for h in range(1, 7):
        m = sympy.integrate(rho(h), (x, 0, eps))
        idents.append(prove_equal(f"H = {h}: tail mass -> 0 as eps -> 0+",
                                  sympy.limit(m, eps, 0, "+"), 0, simplify=lambda e: e))
    expr = sympy.Eq(sympy.Limit(rho_H(x) / sympy.log(1 / x) ** (H - 1), x, 0, "+"),
                    1 / sympy.factorial(H - 1))
    steps.append(Step("exact tail: rho_H is a power H-1 of ln(1/x)", expr))
    steps.append(Step("mass below eps", sympy.Eq(sympy.Integral(rho_H(x), (x, 0, eps)),
                                                 sympy.uppergamma(H, sympy.log(1 / eps))
                                                 / sympy.gamma(H))))
    return Derivation(
        name="primacy-tail",
        title="Primacy tail of the density",
        description="As x -> 0+, rho_H(x) = ln(1/x)^(H-1)/(H-1)! diverges for H >= 2 like a power "
        "H-1 of the logarithm (logarithmic only for H = 2), slower than any x^(-delta); integrable.",
        expression=expr,
        equations=(sympy.Eq(sympy.Integral(rho_H(x), (x, 0, eps)),
                            sympy.uppergamma(H, sympy.log(1 / eps)) / sympy.gamma(H)),),
        assumptions=("H a positive integer", "0 < epsilon < 1"),
        steps=tuple(steps),
        identities=tuple(idents),
        paper="chowdhury2026",
        section="C4",
        proven_for=("the tail form and the tail mass for every H, the limits (divergence at 0+, "
                    "slower than x^(-1/10), tail mass -> 0) for H = 1..6"),
        notes=("for H = 1 the density is constant (no divergence); for H = 2 the divergence is "
               "logarithmic; for H >= 3 it is (ln 1/x)^(H-1), polylogarithmic",),
    )
