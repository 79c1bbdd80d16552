r"""The influence profile under StreamingLLM's mask (xiao2024): ``S`` sink tokens plus a
window of the ``W`` most recent tokens, uniform attention on their union, ``T`` residual layers.

Away from the start each window row reads ``S + W`` tokens.  Per layer the last token's mass
stays (``1 - λ``), steps back by ``d = 0..W-1`` (``λ/(S+W)`` each) or jumps to a sink
(``λ S/(S+W)``), so the window part of the profile is the coefficient list of

.. math::  g(z)^T, \qquad g(z) = 1 - \lambda + \frac{\lambda}{S+W}\,\frac{1 - z^W}{1 - z},

a polynomial of degree ``(W-1) T``: the support's window part is ``[i - (W-1)T, i]``; the sinks
hold ``1 - g(1)^T = 1 - (1 - λS/(S+W))^T``.

Paper: xiao2024 (the StreamingLLM cache of ``S`` attention sinks and a rolling window).

>>> from posbias.derivations.streaming import window_polynomial
>>> sympy.expand(window_polynomial(1, 2, 1, 1))
z/3 + 1/3
"""

from __future__ import annotations

import sympy

from posbias.derivations.core import Derivation, Step, derivation, prove_equal
from posbias.validation import check_integer

__all__ = ["streaming_derivation", "window_polynomial"]

z = sympy.Symbol("z")
#: the sheet's notation: alpha the residual layers' weight of attention, H the depth
lam = sympy.Symbol("alpha", positive=True)
S, W = sympy.symbols("S W", integer=True, positive=True)
T = sympy.Symbol("H", integer=True, positive=True)


def window_polynomial(sinks: int, window: int, depth: int, weight: sympy.Expr = lam) -> sympy.Expr:
    """``g(z)^T`` for integer ``S``, ``W``, ``T`` (a polynomial in ``z``; ``weight`` is λ)."""
    s_ = check_integer("S", sinks, 0)
    w_ = check_integer("W", window, 1)
    t_ = check_integer("T", depth, 0)
    g = 1 - weight + weight * sympy.Add(*[z ** d for d in range(w_)]) / (s_ + w_)
    return g ** t_


@derivation("streaming-profile")
def streaming_derivation() -> Derivation:
    """Window generating function, support width and sink mass of the StreamingLLM rollout."""
    g = 1 - lam + lam / (S + W) * (1 - z ** W) / (1 - z)
    idents = [
        prove_equal("g(1) = 1 - λS/(S+W): the mass that stays in the window per layer "
                    "(limit z -> 1, symbolic S, W)", sympy.limit(g, z, 1), 1 - lam * S / (S + W)),
    ]
    for w_ in range(1, 7):
        idents.append(prove_equal(f"W = {w_}: (1 - z) Σ_(d<W) z^d = 1 - z^W", sympy.expand(
            (1 - z) * sympy.Add(*[z ** d for d in range(w_)])), 1 - z ** w_))
    for s_, w_, t_ in ((1, 2, 3), (4, 3, 2), (2, 5, 3)):
        poly = sympy.Poly(window_polynomial(s_, w_, t_), z)
        idents.append(prove_equal(f"S = {s_}, W = {w_}, T = {t_}: degree of g^T = (W-1)T",
                                  poly.degree(), (w_ - 1) * t_))
        idents.append(prove_equal(f"S = {s_}, W = {w_}, T = {t_}: window mass g(1)^T = "
                                  "(1 - λS/(S+W))^T", poly.eval(1), (1 - lam * sympy.Rational(s_, s_ + w_)) ** t_))
    expr = sympy.Eq(sympy.Function("G")(z), g ** T)
    steps = (
        Step("one layer, away from the start: stay, step back d < W, or jump to a sink", sympy.Eq(sympy.Function("G_1")(z), g)),
        Step("H layers: the window part is the coefficient list of G_1^H (degree (W-1)H)", expr),
        Step("the sinks hold the rest, and mix among themselves as a Cesàro rollout on S tokens",
             sympy.Eq(sympy.Symbol("m_sink"), 1 - (1 - lam * S / (S + W)) ** T)),
    )
    return Derivation(
        name="streaming-profile",
        title="The StreamingLLM rollout: a lazy walk with a sink",
        description="Under S sinks plus a window of W, the window profile of the last token is "
        "the coefficient list of G_1(z)^H, G_1(z) = 1 - alpha + alpha(1 - z^W)/((S+W)(1 - z)), of "
        "degree (W-1)H; the sinks hold 1 - (1 - alpha S/(S+W))^H.",
        expression=expr,
        equations=(sympy.Eq(sympy.Symbol("m_sink"), 1 - (1 - lam * S / (S + W)) ** T),),
        assumptions=("uniform attention on the mask", "the window part clear of the sinks: "
                     "L - (W-1)H > S", "S, W, H positive integers"),
        steps=steps,
        identities=tuple(idents),
        paper="xiao2024",
        section="3.2 (rolling KV cache with attention sinks)",
        proven_for="S, W symbolic for the mass per layer; the geometric sum for W = 1..6 and the "
        "degree and mass of G_1^H on three (S, W, H) (in general a product of H polynomials of "
        "degree W-1)",
    )
