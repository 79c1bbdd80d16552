"""The continuum Cesàro (Hardy) operator and the kernel of its H-th power.

Uniform causal attention ``M[i, j] = 1/i`` becomes, with ``x = i/L``, ``y = j/L`` and
``L -> oo``, the Hardy averaging operator

    (K f)(x) = (1/x) * integral_0^x f(y) dy,

and the kernel of ``K^H`` is

    K_H(x, y) = (1/x) * (ln(x/y))^(H-1) / (H-1)!,   0 < y < x.

Method: the composition ``K_{H+1}(x, y) = (1/x) * integral_y^x K_H(z, y) dz`` is evaluated for a
symbolic positive integer ``H`` after the substitution ``u = ln(z/y)`` (``dz/z = du``); the
explicit kernels for ``H = 1..6`` are obtained independently by direct integration in ``z``.

Paper: chowdhury2026 (:ref:`C2 <math-c2>`).

>>> from posbias.derivations.hardy import hardy_kernel
>>> hardy_kernel(3)
log(x/y)**2/(2*x)
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import sympy

from posbias.derivations._checks import check_depth
from posbias.derivations.core import Derivation, Identity, Step, derivation, prove_equal
from posbias.validation import check_integer

__all__ = [
    "H",
    "hardy_induction_step",
    "hardy_kernel",
    "hardy_kernel_by_integration",
    "hardy_kernel_derivation",
    "hardy_kernel_symbolic",
    "hardy_kernels_explicit_derivation",
    "x",
    "y",
    "z",
]

x, y, z, u, w = sympy.symbols("x y z u w", positive=True)
s = sympy.Symbol("s", positive=True)
H = sympy.Symbol("H", integer=True, positive=True)
L = sympy.Symbol("L", integer=True, positive=True)
K_H = sympy.Function("K_H")


def _check_depth(depth, parameter="depth", low=1):
    check_integer(parameter, depth, low)


def hardy_kernel_symbolic(depth: sympy.Expr = H, xx: sympy.Expr = x, yy: sympy.Expr = y) -> sympy.Expr:
    """The closed form ``(1/x) (ln(x/y))^(H-1)/(H-1)!`` as a SymPy expression.

    ``depth`` may be the symbol ``H`` (default) or an integer >= 1.

    >>> hardy_kernel_symbolic()
    log(x/y)**(H - 1)/(x*factorial(H - 1))
    """
    depth = check_depth("depth", depth)
    return sympy.log(xx / yy) ** (depth - 1) / sympy.factorial(depth - 1) / xx


def hardy_kernel(depth: int) -> sympy.Expr:
    """Kernel of ``K^depth`` for an integer ``depth >= 1``, in the variables ``x, y``.

    >>> hardy_kernel(1)
    1/x
    """
    _check_depth(depth)
    return hardy_kernel_symbolic(sympy.Integer(depth))


def hardy_induction_step(kernel: Callable[[sympy.Expr, sympy.Expr, sympy.Expr], sympy.Expr] = hardy_kernel_symbolic,
                         ) -> tuple[Identity, tuple[Step, ...]]:
    """Check the induction step ``(1/x) int_y^x K_H(z, y) dz = K_{H+1}(x, y)`` for symbolic H.

    ``kernel(depth, x, y)`` is the candidate closed form (default: the stated one); a wrong
    candidate gives a non-zero residual.

    Returns ``(identity, steps)``.

    >>> ident, _ = hardy_induction_step()
    >>> ident.proven
    True
    >>> wrong = lambda d, a, b: sympy.log(a / b) ** (d - 1) / sympy.factorial(d) / a
    >>> hardy_induction_step(wrong)[0].proven
    False
    """
    integrand = kernel(H, z, y)
    # substitution z = y e^u: dz = y e^u du, u runs from 0 to w = ln(x/y)
    sub = sympy.expand_log(integrand.subs(z, y * sympy.exp(u)) * y * sympy.exp(u), force=True)
    sub = sympy.simplify(sub)
    inner = sympy.integrate(sub, (u, 0, w))
    composed = sympy.simplify(inner / x).subs(w, sympy.log(x / y))
    target = kernel(H + 1, x, y)
    steps = (
        Step("composition of kernels: K_{H+1}(x,y) = (1/x) int_y^x K_H(z,y) dz",
             sympy.Eq(K_H(x, y).subs(K_H, sympy.Function("K_{H+1}")),
                      sympy.Integral(integrand, (z, y, x)) / x)),
        Step("substitute z = y e^u, dz/z = du, u from 0 to w = ln(x/y)",
             sympy.Eq(sympy.Integral(integrand, (z, y, x)), sympy.Integral(sub, (u, 0, w)))),
        Step("integrate the power of u", sympy.Eq(sympy.Integral(sub, (u, 0, w)), inner)),
        Step("back-substitute w = ln(x/y)", sympy.Eq(sympy.Function("K_{H+1}")(x, y), composed)),
    )
    ident = prove_equal("induction step K_H -> K_{H+1} (symbolic H)", composed, target)
    return ident, steps


@functools.cache
def hardy_kernel_by_integration(depth: int) -> sympy.Expr:
    """Kernel of ``K^depth`` by direct iterated integration in ``z`` (no substitution, no
    closed form used): ``K_1 = 1/x``, ``K_{h+1}(x,y) = (1/x) int_y^x K_h(z,y) dz``.

    >>> sympy.simplify(hardy_kernel_by_integration(2) - hardy_kernel(2))
    0
    """
    _check_depth(depth)
    k = 1 / x
    for _ in range(depth - 1):
        prev = sympy.expand(sympy.expand_log(k.subs(x, z), force=True))
        k = sympy.expand(sympy.integrate(prev, (z, y, x)) / x)
    return k


@derivation("hardy-kernel")
def hardy_kernel_derivation() -> Derivation:
    """Kernel of the H-th power of the Hardy operator, by induction for symbolic H."""
    f = sympy.Function("f")
    i, j = sympy.symbols("i j", integer=True, positive=True)
    # base case: K applied to f is the kernel 1/x on 0 < y < x
    base = prove_equal("base case H = 1: K_1 = 1/x", hardy_kernel_symbolic(sympy.Integer(1)), 1 / x)
    # continuum limit of a Cesàro row on monomials f(y) = y^s: (1/i) sum_{j<=i} (j/L)^s with
    # i = xL tends to x^s/(1+s) = (K f)(x); checked for s = 2 exactly
    ell = sympy.Symbol("ell", positive=True)
    riemann = sympy.summation((j / ell) ** 2, (j, 1, i)) / i
    limit = sympy.limit(riemann.subs(i, x * ell), ell, sympy.oo)
    hardy_on_mono = sympy.integrate(y**2, (y, 0, x)) / x
    limit_id = prove_equal("Cesàro row -> Hardy operator on f(y) = y^2", limit, hardy_on_mono)
    ident, steps = hardy_induction_step()
    mellin = prove_equal(
        "Mellin symbol: K maps y^s to x^s/(1+s)",
        sympy.integrate(y**s, (y, 0, x)) / x,
        x**s / (1 + s),
    )
    expr = sympy.Eq(K_H(x, y), hardy_kernel_symbolic())
    all_steps = (
        Step("Hardy operator: the L -> oo limit of the Cesàro matrix M[i,j] = 1/i",
             sympy.Eq(sympy.Function("K f")(x), sympy.Integral(f(y), (y, 0, x)) / x)),
        Step("Riemann sum of a Cesàro row on f(y) = y^2, with i = xL",
             sympy.Eq(sympy.Limit(riemann.subs(i, x * ell), ell, sympy.oo), limit)),
        Step("K acts on powers by the Mellin symbol 1/(1+s)",
             sympy.Eq(sympy.Integral(y**s, (y, 0, x)) / x, x**s / (1 + s))),
        *steps,
    )
    return Derivation(
        name="hardy-kernel",
        title="Kernel of the H-th power of the Hardy operator",
        description="The continuum Cesàro operator K f(x) = (1/x) int_0^x f has K^H with kernel "
        "(1/x) ln(x/y)^(H-1)/(H-1)!, proven by induction for symbolic H.",
        expression=expr,
        equations=(sympy.Eq(sympy.Function("K f")(x), sympy.Integral(f(y), (y, 0, x)) / x),),
        assumptions=("0 < y < x <= 1", "H a positive integer (symbolic)",
                     "continuum limit L -> oo with x = i/L, y = j/L"),
        steps=all_steps,
        identities=(base, limit_id, mellin, ident),
        paper="chowdhury2026",
        section="C2",
        # the kernel formula by induction for symbolic H; the Cesàro row's continuum limit is
        # an instance (one monomial), not the operator limit for every f
        proven_for="every H by induction, with the Cesàro-to-Hardy limit checked on f(y) = y^2",
    )


EXPLICIT_DEPTHS = (1, 2, 3, 4, 5, 6)


@derivation("hardy-kernels-explicit")
def hardy_kernels_explicit_derivation() -> Derivation:
    """Explicit kernels of K^H for H = 1..6 by direct iterated integration."""
    eqs = []
    idents = []
    steps = []
    for h in EXPLICIT_DEPTHS:
        direct = hardy_kernel_by_integration(h)
        closed = hardy_kernel(h)
        idents.append(prove_equal(f"H = {h}: direct integration = closed form", direct, closed))
        eqs.append(sympy.Eq(sympy.Function(f"K_{h}")(x, y), closed))
        steps.append(Step(f"H = {h}: iterated integral in z, expanded",
                          sympy.Eq(sympy.Function(f"K_{h}")(x, y), sympy.factor(direct))))
    return Derivation(
        name="hardy-kernels-explicit",
        title="Explicit kernels of K^H for H = 1..6",
        description="Kernels of the first six powers of the Hardy operator by direct "
        "integration, each equal to the closed form.",
        expression=eqs[0],
        equations=tuple(eqs[1:]),
        assumptions=("0 < y < x <= 1",),
        steps=tuple(steps),
        identities=tuple(idents),
        paper="chowdhury2026",
        section="C2",
        proven_for="H = 1..6",
    )
