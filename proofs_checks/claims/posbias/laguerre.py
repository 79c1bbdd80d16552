"""posbias:laguerre: the continuous part of the residual mixture of chowdhury2026's result C5
equals ``alpha (1-alpha)^(H-1) L_{H-1}^{(1)}(-alpha t/(1-alpha))``, ``t = ln(1/x)``.

posbias' own result (docs/explanation/mathematics.rst, 'What careful checking of chowdhury2026 shows'): the
Laguerre form of C5's continuous part, for a constant residual mixture ``0 < alpha < 1`` and any
depth ``H``.

The check closes the identity symbolically (sympy: the ratio of the summands of the binomial sum
and of the Laguerre form is 1 for symbolic ``H``; the exact expansions for H = 1..12, 1..30 with
``--thorough``) and numerically (mpmath: the binomial sum against mpmath's own ``laguerre`` at
random ``(alpha, t)``, escalating the precision on disagreement).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import sympy

from posbias.derivations import residual as res
from posbias.proofs_checks.cards import Card, ProofStatus, Setting
from posbias.proofs_checks.claims._common import (
    combine_routes,
    derivation_by_name,
    lambdify_mpmath,
    latex_of_derivation,
    sample_points,
    with_identities,
)
from posbias.proofs_checks.claims.posbias._shared import (
    AGREE_TEXT,
    agree_examples,
    agreement_rule,
    decide_agreement,
    with_agreement,
)
from posbias.proofs_checks.precision import agree
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """The binomial sum against mpmath's Laguerre polynomial, and the symbolic identities
    (:func:`decide_agreement`)."""
    return decide_agreement(f, t)


RULE = agreement_rule(
    "Symbolic: the ratio of the summands of the binomial sum and of the Laguerre form "
    "alpha (1-alpha)^(H-1) L_{H-1}^{(1)}(-alpha t/(1-alpha)) simplifies to 1 for symbolic H, and "
    "the exact expansions for H = 1..12 close (symbolic_open counts those that do not); "
    "numeric: the mpmath binomial sum against mpmath.laguerre at random (alpha, t), H = 1..12 "
    "(1..30 thorough). " + AGREE_TEXT + "verified otherwise.",
    agree_examples("the order-0 Laguerre polynomial L_{H-1}^{(0)} in place of L_{H-1}^{(1)}",
                   0.5),
    decide)

CARD = Card(
    paper=Setting("posbias, the Laguerre form of chowdhury2026 C5's continuous part "
                  "(docs/explanation/mathematics.rst, 'What careful checking of chowdhury2026 shows')",
                  kernel="Cesàro (continuum)", alpha="constant in (0, 1)",
                  H="any positive integer"),
    test=Setting("sympy termwise identity for symbolic H, exact expansions and mpmath at "
                 "random points", kernel="Cesàro (continuum)", alpha="constant in (0, 1)",
                 H=("any positive integer", "1..12 exact")),
    proof=ProofStatus("all", note="termwise for symbolic H; H = 1..12 expanded exactly and "
                      "compared in mpmath as independent checks"))


@claim(
    "posbias:laguerre",
    statement="The continuous part of the residual mixture equals "
    "alpha (1-alpha)^(H-1) L_{H-1}^{(1)}(-alpha t/(1-alpha)) with t = ln(1/x).",
    latex=latex_of_derivation("laguerre"),
    expected="verified",
    assumptions=("0 < alpha < 1 constant", "H a positive integer"),
    section="C5",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, closed: Callable[..., Any] | None = None) -> Evidence:
    """Binomial sum = alpha (1-alpha)^(H-1) L_{H-1}^{(1)}(-alpha t/(1-alpha)): symbolic H
    (termwise) and exact H = 1..12 (1..30 when thorough); numerically, the binomial sum vs
    mpmath's own ``laguerre`` at random alpha, t.  ``closed(H, alpha, t)`` (a sympy expression)
    replaces the Laguerre form (tests pass false versions)."""
    d = derivation_by_name("laguerre")
    if closed is not None:
        idents = [res.laguerre_identity_symbolic(closed)]
        idents += [res.laguerre_identity_explicit(h, closed) for h in range(1, 13)]
        d = with_identities(d, idents)
    elif ctx.thorough:
        d = with_identities(d, (res.laguerre_identity_symbolic(),
                                 *res.laguerre_explicit_range(30)))
    depths = list(range(1, 31 if ctx.thorough else 13))
    pts = sample_points(ctx, 2 * len(depths), "laguerre")
    sums = {h: lambdify_mpmath((res.alpha, res.t), res.mixture_sum(h)) for h in depths}
    if closed is not None:
        lag = {h: lambdify_mpmath((res.alpha, res.t), closed(sympy.Integer(h), res.alpha, res.t))
               for h in depths}
    else:
        lag = {h: (lambda a, tt, n=h - 1: a * (1 - a) ** n * mpmath.laguerre(n, 1, -a * tt / (1 - a)))
               for h in depths}

    def args(i):
        return mpmath.mpf(pts[2 * i]), mpmath.mpf(pts[2 * i + 1]) * 10

    ag = agree(lambda dps: [sums[h](*args(i)) for i, h in enumerate(depths)],
               lambda dps: [lag[h](*args(i)) for i, h in enumerate(depths)],
               ctx.dps, ctx.max_dps)
    ev = combine_routes(
        [d], ag,
        "sympy: ratio of summands = 1 for symbolic H and exact expansion for explicit H; "
        "mpmath: binomial sum vs mpmath.laguerre",
        {"depths": depths, "points": pts},
    )
    return with_agreement(ev, [ag], len(d.unproven()), RULE)
