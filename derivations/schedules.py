"""Infinite-depth diagonal products for schedules with closed forms (:ref:`X7, H4 <math-x7>`).

For Cesàro kernels the diagonal of the rollout at row ``i`` is ``prod_t (1 - lambda_t c)`` with
``c = 1 - 1/i`` the off-diagonal mass.  Two schedules have closed forms:

* summable ``lambda_t = 1/(t+1)^2``:
  ``prod_{t>=1} (1 - c/(t+1)^2) = sin(pi sqrt(c)) / (pi sqrt(c) (1 - c))`` (no collapse);
* harmonic ``lambda_t = a/(t+1)``:
  ``prod_{t=1}^{T} (1 - a/(t+1)) = Gamma(T+2-a) / (Gamma(2-a) Gamma(T+2)) ~ T^(-a)/Gamma(2-a)``
  (collapse at a polynomial rate).

Criterion: for ``0 <= lambda_t c <= q < 1``,
``sum_t lambda_t c <= -ln prod_t (1 - lambda_t c) <= sum_t lambda_t c / (1 - q)``, so the product
is positive if and only if ``sum_t lambda_t < oo`` (for ``c > 0``).

Method: the finite product is evaluated by sympy as a ratio of Gamma functions; the limit
``N -> oo`` of ``Gamma(N+1-r) Gamma(N+1+r) / Gamma(N+1)^2`` is 1, and Euler's reflection formula
(via ``gammasimp``) turns ``1/(Gamma(2-r) Gamma(2+r))`` into the sine form with ``r = sqrt(c)``.

Paper: herasimchyk2026 (H4) and posbias (X7).

>>> from posbias.derivations.schedules import sine_product_closed_form
>>> sine_product_closed_form(sympy.Rational(1, 4))
8/(3*pi)
"""

from __future__ import annotations

import sympy

from posbias.derivations.core import Derivation, Step, derivation, prove_equal

__all__ = [
    "harmonic_product_closed_form",
    "harmonic_product_derivation",
    "product_criterion_derivation",
    "sine_product_closed_form",
    "summable_product_derivation",
]

c = sympy.Symbol("c", positive=True)
r = sympy.Symbol("r", positive=True)
a = sympy.Symbol("a", positive=True)
n = sympy.Symbol("n", integer=True, positive=True)
tt = sympy.Symbol("t", integer=True, positive=True)
N = sympy.Symbol("N", integer=True, positive=True)
T = sympy.Symbol("T", integer=True, positive=True)
Tr = sympy.Symbol("T", positive=True)
q = sympy.Symbol("q_max", positive=True)
u = sympy.Symbol("u", positive=True)


def sine_product_closed_form(cc: sympy.Expr = c) -> sympy.Expr:
    """``sin(pi sqrt(c)) / (pi sqrt(c) (1 - c))`` for ``0 < c < 1``."""
    return sympy.sin(sympy.pi * sympy.sqrt(cc)) / (sympy.pi * sympy.sqrt(cc) * (1 - cc))


def harmonic_product_closed_form(aa: sympy.Expr = a, TT: sympy.Expr = T) -> sympy.Expr:
    """``Gamma(T+2-a) / (Gamma(2-a) Gamma(T+2))`` for ``0 < a < 2``."""
    return sympy.gamma(TT + 2 - aa) / (sympy.gamma(2 - aa) * sympy.gamma(TT + 2))


def _drop_piecewise(expr, cond_symbol_value):
    """Keep the branch of a Piecewise valid for the stated domain (0 < r < 1 or 0 < a < 1)."""
    def pick(*args):
        for e, cond in args:
            if cond is sympy.true or cond.subs(*cond_symbol_value) is sympy.true:
                return e
        return sympy.Piecewise(*args)
    return expr.replace(sympy.Piecewise, pick)


@derivation("summable-product")
def summable_product_derivation() -> Derivation:
    """prod_{t>=1} (1 - c/(t+1)^2) in closed form via Gamma functions and reflection."""
    finite = sympy.product((n - r) * (n + r) / n**2, (n, 2, N))
    finite_g = sympy.gammasimp(finite.rewrite(sympy.gamma))
    finite_g = _drop_piecewise(finite_g, (r, sympy.Rational(1, 2)))
    Nr = sympy.Symbol("N", positive=True)
    tail = sympy.gamma(Nr + 1 - r) * sympy.gamma(Nr + 1 + r) / sympy.gamma(Nr + 1) ** 2
    idents = [
        prove_equal("finite product = Gamma ratio",
                    finite_g, tail.subs(Nr, N) / (sympy.gamma(2 - r) * sympy.gamma(2 + r))),
        prove_equal("Gamma(N+1-r) Gamma(N+1+r)/Gamma(N+1)^2 -> 1",
                    sympy.limit(tail, Nr, sympy.oo), 1, simplify=lambda e: e),
        prove_equal("reflection: 1/(Gamma(2-r) Gamma(2+r)) = sin(pi r)/(pi r (1 - r^2))",
                    1 / (sympy.gamma(2 - r) * sympy.gamma(2 + r)),
                    sine_product_closed_form(r**2)),
    ]
    prod_expr = sympy.Product(1 - c / (tt + 1) ** 2, (tt, 1, sympy.oo))
    expr = sympy.Eq(prod_expr, sine_product_closed_form())
    # the limit c -> 1 (diagonal of row i -> oo) is 1/2
    idents.append(prove_equal("c -> 1: the product tends to 1/2",
                              sympy.limit(sine_product_closed_form(), c, 1, "-"),
                              sympy.Rational(1, 2)))
    return Derivation(
        name="summable-product",
        title="Diagonal limit for the summable schedule 1/(t+1)^2",
        description="prod_{t>=1} (1 - c/(t+1)^2) = sin(pi sqrt c)/(pi sqrt c (1-c)) > 0: a "
        "summable schedule keeps the diagonal positive (no collapse).",
        expression=expr,
        assumptions=("0 < c < 1 (c = 1 - 1/i for Cesàro row i)", "r = sqrt(c)"),
        steps=(
            Step("write c = r^2 and factor each term", sympy.Eq(
                sympy.Product(1 - r**2 / n**2, (n, 2, N)),
                sympy.Product((n - r) * (n + r) / n**2, (n, 2, N)))),
            Step("finite product as a Gamma ratio", sympy.Eq(
                sympy.Product(1 - r**2 / n**2, (n, 2, N)), finite_g)),
            Step("N -> oo", sympy.Eq(sympy.Limit(tail, Nr, sympy.oo), 1)),
            Step("Euler reflection", sympy.Eq(1 / (sympy.gamma(2 - r) * sympy.gamma(2 + r)),
                                              sine_product_closed_form(r**2))),
        ),
        identities=tuple(idents),
        paper="posbias",
        section="X7",
    )


@derivation("harmonic-product")
def harmonic_product_derivation() -> Derivation:
    """prod_{t=1}^T (1 - a/(t+1)) as a Gamma ratio and its T^(-a) rate."""
    finite = sympy.product((n - a) / n, (n, 2, T + 1))
    finite_g = sympy.gammasimp(finite.rewrite(sympy.gamma))
    finite_g = _drop_piecewise(finite_g, (a, sympy.Rational(1, 2)))
    idents = [
        prove_equal("finite product = Gamma(T+2-a)/(Gamma(2-a) Gamma(T+2))",
                    finite_g, harmonic_product_closed_form()),
        prove_equal("T^a * product -> 1/Gamma(2-a)",
                    sympy.limit(harmonic_product_closed_form(a, Tr) * Tr**a, Tr, sympy.oo),
                    1 / sympy.gamma(2 - a)),
    ]
    idents.append(prove_equal("a = 1: the product is 1/(T+1) -> 0 (collapse)",
                              harmonic_product_closed_form(sympy.Integer(1)), 1 / (T + 1)))
    idents.append(prove_equal("T^(-a)/Gamma(2-a) -> 0 for a > 0 (collapse)",
                              sympy.limit(Tr ** (-a) / sympy.gamma(2 - a), Tr, sympy.oo), 0,
                              simplify=lambda e: e))
    expr = sympy.Eq(sympy.Product(1 - a / (tt + 1), (tt, 1, T)), harmonic_product_closed_form())
    rate = sympy.Eq(sympy.Limit(Tr**a * harmonic_product_closed_form(a, Tr), Tr, sympy.oo),
                    1 / sympy.gamma(2 - a))
    return Derivation(
        name="harmonic-product",
        title="Diagonal for the harmonic schedule a/(t+1)",
        description="prod_{t=1}^T (1 - a/(t+1)) = Gamma(T+2-a)/(Gamma(2-a) Gamma(T+2)) ~ "
        "T^(-a)/Gamma(2-a): a non-summable schedule collapses at a polynomial rate.",
        expression=expr,
        equations=(rate,),
        assumptions=("0 < a < 2", "T a positive integer"),
        steps=(Step("terms (n - a)/n with n = t + 1", sympy.Eq(
            sympy.Product(1 - a / (tt + 1), (tt, 1, T)), sympy.Product((n - a) / n, (n, 2, T + 1)))),
            Step("rising factorials as Gamma functions", sympy.Eq(
                sympy.Product((n - a) / n, (n, 2, T + 1)), finite_g)),
            Step("Gamma ratio asymptotics", rate)),
        identities=tuple(idents),
        paper="posbias",
        section="X7",
    )


@derivation("product-criterion")
def product_criterion_derivation() -> Derivation:
    """prod (1 - lambda_t c) > 0 iff sum lambda_t < oo, from two logarithm inequalities."""
    f = -u - sympy.log(1 - u)              # >= 0 on [0, 1): log(1-u) <= -u
    g = sympy.log(1 - u) + u / (1 - u)     # >= 0 on [0, 1): log(1-u) >= -u/(1-u)
    idents = [
        prove_equal("f(u) = -u - ln(1-u) vanishes at 0", f.subs(u, 0), 0),
        prove_equal("f'(u) = u/(1-u) >= 0", sympy.diff(f, u), u / (1 - u)),
        prove_equal("g(u) = ln(1-u) + u/(1-u) vanishes at 0", g.subs(u, 0), 0),
        prove_equal("g'(u) = u/(1-u)^2 >= 0", sympy.diff(g, u), u / (1 - u) ** 2),
    ]
    lam = sympy.Function("lambda")
    S = sympy.Sum(lam(tt) * c, (tt, 1, sympy.oo))
    logp = sympy.log(sympy.Product(1 - lam(tt) * c, (tt, 1, sympy.oo)))
    lower = sympy.LessThan(S, -logp)
    upper = sympy.LessThan(-logp, S / (1 - q))
    return Derivation(
        name="product-criterion",
        title="Positivity criterion for the infinite diagonal product",
        description="For 0 <= lambda_t c <= q_max < 1: sum lambda_t c <= -ln prod (1 - lambda_t c) "
        "<= sum lambda_t c/(1-q_max), so the product is positive iff sum lambda_t < oo.",
        expression=lower,
        equations=(upper,),
        assumptions=("0 < c <= 1", "0 <= lambda_t c <= q_max < 1 for all t"),
        steps=(
            Step("upper bound ln(1-u) <= -u (f(0) = 0, f' >= 0)",
                 sympy.Eq(sympy.Derivative(f, u), u / (1 - u))),
            Step("lower bound ln(1-u) >= -u/(1-u) >= -u/(1-q_max) (g(0) = 0, g' >= 0)",
                 sympy.Eq(sympy.Derivative(g, u), u / (1 - u) ** 2)),
            Step("sum over t with u = lambda_t c (lower bound)", lower),
            Step("sum over t with u = lambda_t c (upper bound)", upper),
        ),
        identities=tuple(idents),
        paper="herasimchyk2026",
        section="H4, X7",
    )
