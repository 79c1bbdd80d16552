r"""The total variation (ℓ1 distance) of two softmax rows that does not vanish with length
(barbero2024, Proposition B.4) and the largest it can be.

For ``x = (1, 0, 1, 0, ...)`` and ``x* = (0, 1, 0, 1, ...)`` of even length ``n = 2m`` both
partition functions are ``m(e + 1)`` and every position differs by ``(e - 1)/(m(e + 1))``:

.. math::  \delta(y, y^*) = \sum_i |y_i - y^*_i| = \frac{2(e-1)}{e+1} = 2\tanh\tfrac12

at every even length, not only in the limit; at odd length ``2m + 1`` it is below that value
and tends to it like ``1/m^2``.  It is also the largest ℓ1 distance of two softmax rows whose
logits lie in an interval of width 1: the likelihood ratio ``y_i/y*_i`` lies in
``[c/e, c e]`` and a total variation with ratios in ``[a, b]`` is at most
``(b - 1)(1 - a)/(b - a)``, largest at ``c = 1``.

Paper: barbero2024 (Proposition B.4).

>>> from posbias.derivations.softmax import alternating_l1
>>> sympy.simplify(alternating_l1(2))
2*(-1 + E)/(1 + E)
"""

from __future__ import annotations

import sympy

from posbias.derivations.core import Derivation, Step, derivation, prove_equal
from posbias.validation import check_integer

__all__ = ["alternating_l1", "alternating_l1_odd", "softmax_tv_derivation"]

m = sympy.Symbol("m", integer=True, positive=True)
c = sympy.Symbol("r", positive=True)  # the ratio of the partition functions
e = sympy.E
LIMIT = 2 * (e - 1) / (e + 1)


def alternating_l1(length: int) -> sympy.Expr:
    """``Σ_i |softmax(x)_i - softmax(x*)_i|`` for the alternating sequences of an integer length,
    summed position by position (no closed form used).

    >>> alternating_l1(1), sympy.simplify(alternating_l1(3) - alternating_l1_odd(1))
    (0, 0)
    """
    n = check_integer("length", length, 1)
    x = [1 if i % 2 == 0 else 0 for i in range(n)]
    y = [1 - v for v in x]
    zx = sympy.Add(*[sympy.exp(v) for v in x])
    zy = sympy.Add(*[sympy.exp(v) for v in y])
    return sympy.Add(*[abs(sympy.exp(a) / zx - sympy.exp(b) / zy) for a, b in zip(x, y)])


def alternating_l1_odd(mm: sympy.Expr = m) -> sympy.Expr:
    """The odd-length value ``n = 2m + 1`` in closed form: ``m + 1`` ones in ``x``, ``m`` in
    ``x*``; both differences positive for ``m >= 1``."""
    zx = (mm + 1) * e + mm
    zy = mm * e + mm + 1
    return (mm + 1) * (e / zx - 1 / zy) + mm * (e / zy - 1 / zx)


@derivation("softmax-tv-limit")
def softmax_tv_derivation() -> Derivation:
    """Proposition B.4 of barbero2024 in closed form, and the bound it attains."""
    z_even = m * (e + 1)
    even = 2 * m * (e - 1) / z_even
    odd = alternating_l1_odd()
    g = (c * e - 1) * (1 - c / e) / (c * (e - 1 / e))
    idents = [
        prove_equal("even n = 2m: δ = 2m (e-1)/(m(e+1)) = 2(e-1)/(e+1) (symbolic m)", even, LIMIT),
        prove_equal("odd n = 2m+1: 2(e-1)/(e+1) - δ = 2e(e-1)/((e+1)((m+1)e + m)(me + m + 1)) "
                    "> 0 (symbolic m)", LIMIT - odd,
                    2 * e * (e - 1) / ((e + 1) * ((m + 1) * e + m) * (m * e + m + 1))),
        prove_equal("odd n: δ -> 2(e-1)/(e+1) as m -> oo", sympy.limit(odd, m, sympy.oo), LIMIT),
        prove_equal("bound: g(1) - g(c) = (c-1)²/(c(e - 1/e)) >= 0, g(c) = (ce-1)(1-c/e)/(c(e-1/e)) "
                    "the largest total variation for likelihood ratios in [c/e, ce]",
                    g.subs(c, 1) - g, (c - 1) ** 2 / (c * (e - 1 / e))),
        prove_equal("2 g(1) = 2(e-1)/(e+1)", 2 * g.subs(c, 1), LIMIT),
        prove_equal("2(e-1)/(e+1) = 2 tanh(1/2)", 2 * sympy.tanh(sympy.Rational(1, 2)), LIMIT,
                    simplify=lambda d: sympy.simplify(d.rewrite(sympy.exp))),
    ]
    for length in (2, 4, 6):
        idents.append(prove_equal(f"n = {length}: position-by-position sum = 2(e-1)/(e+1)",
                                  alternating_l1(length), LIMIT))
    expr = sympy.Eq(sympy.Symbol("delta"), LIMIT)
    steps = (
        Step("even n = 2m: both partition functions are m(e+1)", sympy.Eq(sympy.Symbol("Z"), z_even)),
        Step("each of the n positions differs by (e-1)/(m(e+1))", sympy.Eq(sympy.Symbol("delta"), even)),
        Step("odd n = 2m+1: the value, below the limit by O(1/m^2)", sympy.Eq(sympy.Symbol("delta_odd"), odd)),
        Step("no two softmax rows with logits in an interval of width 1 are further apart",
             sympy.Eq(sympy.Symbol("delta_max"), 2 * sympy.tanh(sympy.Rational(1, 2)))),
    )
    return Derivation(
        name="softmax-tv-limit",
        title="Softmax rows that stay apart at every length",
        description="Alternating logit sequences (1,0,1,0,...) and (0,1,0,1,...) have softmaxes "
        "at l1 distance 2(e-1)/(e+1) at every even length and in the limit of odd lengths; no "
        "two rows with logits in [0, 1] are further apart.",
        expression=expr,
        equations=(sympy.Eq(sympy.Symbol("delta_odd"), odd),),
        assumptions=("logits in {0, 1} (the alternating sequences)", "m a positive integer (symbolic)"),
        steps=steps,
        identities=tuple(idents),
        paper="barbero2024",
        section="Proposition B.4",
    )
