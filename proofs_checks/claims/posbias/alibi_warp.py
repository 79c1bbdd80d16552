"""posbias:alibi-warp (X6): with slope ``lambda/L`` the continuum ALiBi kernel
``lambda e^(-lambda(x-y))/(1 - e^(-lambda x))`` becomes the uniform (Cesàro) kernel under the
warp ``u = (e^(lambda x) - 1)/(e^lambda - 1)``, which gives closed-form depth-H densities.

posbias' own result (docs/explanation/mathematics.rst X6, 'ALiBi is a warped Cesàro operator'), in the
limit ``L -> oo``, for any depth ``H``.

The check closes the identities symbolically (sympy: the ``L -> oo`` limit of the ALiBi row,
``k(x, y) = phi'(y)/phi(x)`` for the stated warp, the density in ``v = phi(y)`` for symbolic
``H`` and the compositions H = 2, 3); when the stated warp fails it tries other substitutions
and names the one that works (qualified).  Numerically, mpmath compares the closed-form density
(H = 2, 3) and its normalization with quadrature of the composed kernel at a random ``lambda``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import sympy

from posbias.derivations import alibi
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Setting
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
    agreement_example,
    agreement_rule,
    decide_agreement,
    with_agreement,
    x_source,
)
from posbias.proofs_checks.precision import agree
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """The closed-form density against quadrature, and the symbolic identities; qualified when
    only another warp than the stated one works (:func:`decide_agreement`)."""
    return decide_agreement(f, t)


RULE = agreement_rule(
    "Symbolic: the L -> oo limit of the ALiBi row, k(x, y) = phi'(y)/phi(x) for the stated warp "
    "u = (e^(lambda x) - 1)/(e^lambda - 1), the density in v = phi(y) for symbolic H and the "
    "direct compositions H = 2, 3 close (symbolic_open counts those that do not); numeric: the "
    "closed-form density (H = 2, 3) and its normalization against mpmath quadrature of the "
    "composed kernel. qualified: the stated warp fails but another substitution maps the "
    "kernel to the uniform one (correction true, it is named). " + AGREE_TEXT + "verified "
    "otherwise.",
    (*agree_examples("the density without the Jacobian phi'(y): rho_H(phi(y)) alone", 0.6),
     Example("the warp (1 - e^(-lambda x))/(1 - e^(-lambda)) stated: fails, the stated one "
             "works (named)", agreement_example(1e-29, correction=True), "qualified", "false")),
    decide,
    outcomes=("verified", "qualified", "refuted", "inconclusive"))

CARD = Card(
    paper=Setting(x_source(6, "ALiBi is a warped Cesàro operator"), kernel="ALiBi, slope lambda/L",
                  L="L -> oo (continuum)", H="any positive integer"),
    test=Setting("sympy identities (symbolic lambda, H) and mpmath quadrature at a random "
                 "lambda", kernel="ALiBi, slope lambda/L", L="L -> oo (continuum)",
                 H=("any positive integer", "2, 3 by direct composition")),
    proof=ProofStatus("all", note="the kernel identity and the density in v = phi(y) are "
                      "symbolic; H = 2, 3 by direct composition and quadrature as checks"))


@claim(
    "posbias:alibi-warp",
    statement="With slope lambda/L the continuum ALiBi kernel lambda e^(-lambda(x-y))/(1 - "
    "e^(-lambda x)) becomes the uniform kernel under u = (e^(lambda x) - 1)/(e^lambda - 1), giving "
    "closed-form depth-H densities.",
    latex=latex_of_derivation("alibi-warp"),
    expected="verified",
    assumptions=("ALiBi slope m = lambda/L", "L -> oo"),
    section="X6",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, phi: Callable[..., Any] | None = None,
          density: Callable[..., Any] | None = None) -> Evidence:
    """The stated warp ``u = (e^{lambda x} - 1)/(e^lambda - 1)`` (or ``phi``) must satisfy
    ``k(x, y) = phi'(y)/phi(x)``; if not, candidate warps are tried and the one that works is
    reported as the correction.  Numerically, the closed-form depth-H density (H = 2, 3, or
    ``density(H)``) is compared with the mpmath.quad composition of the continuum ALiBi kernel."""
    d = derivation_by_name("alibi-warp")
    stated = phi or alibi.warp
    ident = alibi.warp_identity(stated)
    correction = None
    details: dict[str, Any] = {"stated_warp": str(stated(alibi.x)), "stated_warp_residual": str(ident.residual)}
    if not ident.proven:
        candidates = {
            "(exp(lambda x) - 1)/(exp(lambda) - 1)": alibi.warp,
            "(1 - exp(-lambda x))/(1 - exp(-lambda))":
                lambda xx, ll=alibi.lam: (1 - sympy.exp(-ll * xx)) / (1 - sympy.exp(-ll)),
            "x": lambda xx, ll=alibi.lam: xx,
        }
        working = [name for name, c in candidates.items() if alibi.warp_identity(c).proven]
        details["working_warps"] = working
        correction = ("the stated substitution does not map the ALiBi kernel to the uniform "
                      "one; " + ("use u = " + working[0] if working else "no candidate worked"))
        d = with_identities(d, tuple(i for i in d.identities
                                      if not i.label.startswith("k(x,y) dy")))
    lam_value = mpmath.mpf(sample_points(ctx, 1, "alibi")[0]) * 5
    kern = lambdify_mpmath((alibi.x, alibi.y, alibi.lam), alibi.alibi_kernel())
    density = density or alibi.alibi_density
    dens = {h: lambdify_mpmath((alibi.y, alibi.lam), density(sympy.Integer(h)))
            for h in (2, 3)}
    ys = [mpmath.mpf(p) for p in sample_points(ctx, 3, "alibi-y")]

    def closed(dps):
        lv = mpmath.mpf(lam_value)
        return [dens[h](yy, lv) for h in (2, 3) for yy in ys] + [
            mpmath.quad(lambda yy: dens[3](yy, lv), [0, 1])]

    def composed(dps):
        lv = mpmath.mpf(lam_value)
        def k2(yy):
            return mpmath.quad(lambda zz: kern(1, zz, lv) * kern(zz, yy, lv), [yy, 1])
        out = [k2(yy) for yy in ys]
        # H = 3 by one more composition, applied to the (just compared) closed form for H = 2
        out += [mpmath.quad(lambda zz, yy=yy: dens[2](zz, lv) * kern(zz, yy, lv), [yy, 1]) for yy in ys]
        return [*out, mpmath.mpf(1)]

    ag = agree(closed, composed, ctx.dps, ctx.max_dps)
    ev = combine_routes(
        [d], ag,
        "sympy: L -> oo limit of the ALiBi row, warp identity, conjugated Hardy kernel; mpmath: "
        "closed-form density vs quad of the composed kernel (H = 2, 3) and normalization",
        {"lambda": mpmath.nstr(lam_value, 7), "y": [mpmath.nstr(v, 7) for v in ys]},
        details=details,
        correction=correction,
    )
    ev = with_agreement(ev, [ag], len(d.unproven()), RULE, correction=correction is not None)
    if ev.verdict != "qualified":
        ev.correction = None
    return ev
