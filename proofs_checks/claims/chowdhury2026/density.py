"""chowdhury2026:density (C3): without residuals the final token's influence density is
``ρ_H(x) = ln(1/x)^(H-1)/(H-1)!``: it integrates to 1, has Mellin moments ``(1+s)^(-H)``, and
``ln(1/x)`` is Gamma(H, 1) distributed.

The abstract ("the exact closed-form influence density in the continuous limit") and
docs/explanation/mathematics.rst C3: the attention-only Cesàro model as L → ∞, every depth H >= 1.

Two routes: symbolic (the sympy derivation ``density``: normalization, Mellin moments and the
Gamma law for symbolic H, in ``t = ln 1/x``), and numeric (``quad(x^s ρ_H)`` against
``(1+s)^(-H)`` and ``quad(ρ_H, 0..e^-t)`` against mpmath's regularized upper incomplete gamma
``Q(H, t)`` at seeded points for H = 1..8, the precision doubled while the routes disagree).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mpmath

from posbias.derivations import density as dens
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
    """C3: the two-route decision of the continuum claims (:func:`routes_decide`): the digits
    reached with no open identity verify; short of them, a gap still shrinking is inconclusive,
    one that stopped refutes."""
    return routes_decide(f, t)


RULE = routes_rule(
    "mpmath.quad of the Mellin moments and of the tail mass", "false: rho_(H+1) offered as "
    "rho_H, a density shifted in depth (0.1 digits at dps 40)", 0.1, decide)


CARD = Card(
    paper=Setting("abstract ('the exact closed-form influence density in the continuous "
                  "limit'); docs/explanation/mathematics.rst C3 (without residuals)", architecture=MODEL,
                  residual="off", mask="causal", pe="none", L="continuum (L → ∞)",
                  H="every H >= 1", note=NOT_READ),
    test=Setting("sympy for symbolic H (t = ln 1/x); mpmath.quad of the moments and tail mass "
                 "at seeded points for H = 1..8", architecture=MODEL, residual="off",
                 mask="causal", pe="none", L="continuum (L → ∞)", H="every H >= 1"),
    proof=ProofStatus("all", note="normalization, Mellin moments (s > 0; s > -1 by analytic "
                      "continuation) and the Gamma(H, 1) law for symbolic H; the median is "
                      "numeric"),
)


@claim(
    "chowdhury2026:density",
    statement="Without residuals the final-token density is rho_H(x) = ln(1/x)^(H-1)/(H-1)!: it "
    "integrates to 1, has Mellin moments (1+s)^(-H), and ln(1/x) is Gamma(H,1) distributed.",
    latex=latex_of_derivation("density"),
    expected="verified",
    assumptions=("H a positive integer", "0 < x <= 1"),
    section="C3",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, density: Callable[[int, Any], Any] | None = None) -> Evidence:
    """Normalization, Mellin moments, Gamma law: symbolic, and numerically
    ``quad(x^s rho_H)`` vs ``(1+s)^(-H)`` and ``quad(rho_H, 0..e^-t)`` vs mpmath's regularized
    upper incomplete gamma ``Q(H, t)`` for H = 1..8."""
    d = derivation_by_name("density")
    density = density or dens.rho_symbolic
    if density is not dens.rho_symbolic:
        norm, _ = dens.normalization_identity(density)
        mell, _ = dens.mellin_identity(density)
        d = with_identities(d, (norm, mell))
    depths = range(1, 9)
    pts = sample_points(ctx, 2 * len(depths), "density")
    f = {h: lambdify_mpmath((dens.x,), density(h, dens.x)) for h in depths}

    def closed(dps):
        out = []
        for i, h in enumerate(depths):
            s_ = mpmath.mpf(pts[2 * i]) * 3
            t0 = mpmath.mpf(pts[2 * i + 1]) * 4
            out.append((1 + s_) ** (-h))
            out.append(mpmath.gammainc(h, t0, mpmath.inf, regularized=True))
        return out

    def integrated(dps):
        out = []
        for i, h in enumerate(depths):
            s_ = mpmath.mpf(pts[2 * i]) * 3
            t0 = mpmath.mpf(pts[2 * i + 1]) * 4
            out.append(mpmath.quad(lambda xx, s_=s_, h=h: xx**s_ * f[h](xx), [0, 1]))
            out.append(mpmath.quad(f[h], [0, mpmath.exp(-t0)]))
        return out

    ag = agree(closed, integrated, ctx.dps, ctx.max_dps)
    return route_evidence(
        RULE, [d], ag,
        "sympy (t = ln(1/x), symbolic H) and mpmath.quad of the density vs (1+s)^(-H) and the "
        "regularized incomplete gamma function",
        {"depths": list(depths), "points": pts},
        details={"median_x": d.data.get("median_x")},
    )
