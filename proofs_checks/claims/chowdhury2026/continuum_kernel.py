"""chowdhury2026:continuum-kernel (C2): in the continuum limit the Cesàro matrix becomes the
Hardy operator ``(Kf)(x) = (1/x) ∫_0^x f``, and ``K^H`` has the kernel
``(1/x) ln(x/y)^(H-1)/(H-1)!`` on ``0 < y < x``.

The abstract ("we model multi-layer causal attention as iterated powers of the Cesàro matrix and
derive the exact closed-form ... in the continuous limit") and docs/explanation/mathematics.rst C2: the
attention-only Cesàro model as L → ∞, every depth H >= 1.

Two routes: symbolic (the sympy derivations ``hardy-kernel``, an induction on H with
``u = ln(z/y)``, and ``hardy-kernels-explicit``, direct integration for H = 1..6), and numeric
(the closed form against ``(1/x) quad(K_{H-1}(z, y), z = y..x)`` at seeded points for
H = 2..6, mpmath, the precision doubled while the routes disagree).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mpmath

from posbias.derivations import hardy
from posbias.proofs_checks.cards import Card, ProofStatus, Setting
from posbias.proofs_checks.claims._common import (
    derivation_by_name,
    lambdify_mpmath,
    latex_of_derivation,
    sample_points,
    with_identities,
)
from posbias.proofs_checks.claims.chowdhury2026._analytic import (
    MODEL,
    NOT_READ,
    route_evidence,
    routes_decide,
    routes_rule,
)
from posbias.proofs_checks.precision import agree
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """C2: the two-route decision of the continuum claims (:func:`routes_decide`): the digits
    reached with no open identity verify; short of them, a gap still shrinking is inconclusive,
    one that stopped refutes."""
    return routes_decide(f, t)


RULE = routes_rule(
    "mpmath.quad of the composition of kernels", "false: the power H of the logarithm instead "
    "of H-1 (0.3 digits at dps 40)", 0.3, decide)


CARD = Card(
    paper=Setting("abstract ('we model multi-layer causal attention as iterated powers of the "
                  "Cesàro matrix and derive the exact closed-form ... in the continuous "
                  "limit'); docs/explanation/mathematics.rst C2", architecture=MODEL, residual="off", mask="causal",
                  pe="none", L="continuum (L → ∞)", H="every H >= 1", note=NOT_READ),
    test=Setting("sympy induction for symbolic H and direct integration for H = 1..6; the closed "
                 "form vs mpmath.quad of the composition at seeded points for H = 2..6",
                 architecture=MODEL, residual="off", mask="causal", pe="none",
                 L="continuum (L → ∞)", H="every H >= 1"),
    proof=ProofStatus("range", "the kernel of K^H for every H (sympy induction: base case and "
                      "step close); the limit of the Cesàro matrix to the Hardy operator on the "
                      "monomial f(y) = y^2 only"),
)


@claim(
    "chowdhury2026:continuum-kernel",
    statement="In the continuum limit the Cesàro matrix becomes the Hardy operator "
    "(Kf)(x) = (1/x) int_0^x f, and K^H has kernel (1/x) ln(x/y)^(H-1)/(H-1)! on 0 < y < x.",
    latex=latex_of_derivation("hardy-kernel"),
    expected="verified",
    assumptions=("L -> oo with x = i/L", "H a positive integer"),
    section="C2",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext,
          kernel: Callable[[int, Any, Any], Any] | None = None) -> Evidence:
    """Kernel of K^H: symbolic induction + explicit H = 1..6; numerically, the closed form
    against ``(1/x) quad(K_{H-1}(z, y), z = y..x)`` at random points for H = 2..6.

    ``kernel(depth, x, y)`` replaces the closed form under test (default: the stated one).
    """
    kernel = kernel or hardy.hardy_kernel_symbolic
    d_ind = derivation_by_name("hardy-kernel")
    d_exp = derivation_by_name("hardy-kernels-explicit")
    if kernel is not hardy.hardy_kernel_symbolic:
        ident, _ = hardy.hardy_induction_step(kernel)
        d_ind = with_identities(d_ind, (ident,))
    depths = range(2, 9 if ctx.thorough else 7)
    xs = sample_points(ctx, 2 * len(depths), "kernel")
    funcs = {h: lambdify_mpmath((hardy.x, hardy.y), kernel(h, hardy.x, hardy.y)) for h in depths}
    prev = {h: lambdify_mpmath((hardy.x, hardy.y), kernel(h - 1, hardy.x, hardy.y)) for h in depths}

    def pairs():
        out = []
        for i, h in enumerate(depths):
            a, b = mpmath.mpf(xs[2 * i]), mpmath.mpf(xs[2 * i + 1])
            out.append((h, max(a, b), min(a, b)))
        return out

    def closed(dps):
        return [funcs[h](xx, yy) for h, xx, yy in pairs()]

    def integrated(dps):
        return [mpmath.quad(lambda zz, h=h, yy=yy: prev[h](zz, yy), [yy, xx]) / xx for h, xx, yy in pairs()]

    ag = agree(closed, integrated, ctx.dps, ctx.max_dps)
    return route_evidence(
        RULE, [d_ind, d_exp], ag,
        "sympy induction for symbolic H (u = ln(z/y)) and direct integration H = 1..6; "
        "closed form vs mpmath.quad of the composition",
        {"depths": list(depths), "points": xs},
    )
