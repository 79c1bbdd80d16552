"""duerinckx2026 with chowdhury2026: one mode of the retrieval profile is a Poisson mixture over
depth of the H-layer densities ``ρ_H``: ``e^{-c} φ'(s) ψ_c(Y(s)) = Σ_{H >= 1} e^{-c} c^H/H!
ρ_H^ALiBi(s)``, ``ρ_H^ALiBi = φ' ρ_H(φ)`` (posbias:alibi-warp), the atom ``e^{-c}`` on the final
token making up the mass.

Setting: the kinetic profile (public code) against chowdhury2026's depth-H densities.  The check:
sympy proves the identity term by term for symbolic ``H``, sums it to the Bessel form, and finds
the mass ``1 - e^{-c}`` (derivation ``kinetic-poisson``); mpmath sums the Poisson series of the
lambdified ``ρ_H^ALiBi`` to its tail and compares it with the Bessel form at 15 points (with
precision escalation); float64 shows the kinetic dynamics are the infinitely deep residual
rollout: the ALiBi rollout with ``T`` layers of residual weight ``c/T`` approaches
``exp(c(A - I))`` at rate ``O(1/T)`` (``L = 512``, ``T = 16 .. 1024``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy

from posbias.derivations import alibi
from posbias.numerics.alibi import alibi_layer, alibi_rollout
from posbias.numerics.kinetic import (
    KineticHead,
    KineticModel,
    kinetic_rollout,
    kinetic_value_precise,
)
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import lambdify_mpmath, latex_of_derivation
from posbias.proofs_checks.claims.duerinckx2026._shared import FIXED, paper_setting, symbolic_open
from posbias.proofs_checks.precision import agree
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "DEPTHS", "POINTS", "RULE", "check", "decide", "residual_gaps"]

#: (lambda, c) x s: slopes and rates of the public figures' range, positions from 10^-3 to 1
POINTS = tuple((Fraction(lam), Fraction(c), Fraction(s)) for lam, c in (("1", "1/2"), ("1", "12/5"),
                                                                        ("5", "3"))
               for s in ("1/1000", "1/10", "1/2", "9/10", "1"))
#: the depths T of the residual rollouts (constant residual weight c/T)
DEPTHS = (16, 64, 256, 1024)


def decide(f: Mapping, t: Mapping) -> str:
    """inconclusive: a symbolic identity did not close; refuted: the Poisson sum and the Bessel
    form disagree beyond the tolerance without shrinking with the precision, or the residual
    rollouts do not approach the kinetic dynamics (order < ``order_refute``); verified: the two
    agree to ``dps - guard_digits`` digits and the residual order is >= ``order_min``;
    inconclusive otherwise."""
    if f["symbolic_open"] > 0:
        return "inconclusive"
    agreed = f["digits"] >= f["dps"] - t["guard_digits"]
    if (not agreed and not f["precision_ran_out"]) or f["residual_order"] < t["order_refute"]:
        return "refuted"
    if agreed and f["residual_order"] >= t["order_min"]:
        return "verified"
    return "inconclusive"


RULE = Rule(
    text="digits = the fewest significant digits on which the mpmath Poisson sum "
    "sum_H e^(-c) c^H/H! rho_H^ALiBi(s) (to its tail) and e^(-c) phi'(s) psi_c(Y(s)) (Bessel form) "
    "agree at 15 points (lambda, c, s), recomputed at twice the precision up to max_dps when "
    "short; residual_order = log_4 of the ratio of the largest gaps between the ALiBi rollout "
    "with T layers of residual weight c/T and exp(c (A - I)) at T = 256 and 1024 (L = 512), the "
    "smallest over (lambda, c) = (1, 1/2), (1, 12/5), (4, 1). verified: digits >= dps - "
    "guard_digits, residual_order >= order_min and every sympy identity of kinetic-poisson "
    "closes; refuted: the sums disagree and the gap did not shrink with the precision, or "
    "residual_order < order_refute; inconclusive otherwise.",
    decide=decide,
    thresholds={
        "guard_digits": Threshold(10, "digits two routes may lose to rounding", scale="int",
                                  sensitive=2, domain=(0, None)),
        "order_min": Threshold(0.8, "least order of the residual limit (O(1/T))", scale="linear",
                               step=0.05, sensitive=0.1),
        "order_refute": Threshold(0.3, "order below which the residual rollouts do not approach "
                                  "the kinetic dynamics", scale="linear", step=0.05, sensitive=0.1),
    },
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("Poisson sum = Bessel form to 26 of 30 digits; residual gap O(1/T)",
                {"digits": 26.2, "dps": 30, "precision_ran_out": False, "residual_order": 1.0,
                 "symbolic_open": 0}, "verified", "realistic"),
        Example("a binomial(H, c) weight in place of Poisson(c): off in the second digit",
                {"digits": 1.3, "dps": 240, "precision_ran_out": False, "residual_order": 1.0,
                 "symbolic_open": 0}, "refuted", "false"),
        Example("weights c^H/(H-1)! (the depth shifted by one): the sums disagree",
                {"digits": 0.2, "dps": 240, "precision_ran_out": False, "residual_order": 1.0,
                 "symbolic_open": 0}, "refuted", "false"),
        Example("residual weight 1/T in place of c/T: the rollouts settle elsewhere",
                {"digits": 26.2, "dps": 30, "precision_ran_out": False, "residual_order": 0.02,
                 "symbolic_open": 0}, "refuted", "false"),
        Example("precision ran out while the gap shrank",
                {"digits": 200.0, "dps": 240, "precision_ran_out": True, "residual_order": 1.0,
                 "symbolic_open": 0}, "inconclusive"),
        Example("numbers agree, a symbolic identity did not close",
                {"digits": 26.2, "dps": 30, "precision_ran_out": False, "residual_order": 1.0,
                 "symbolic_open": 1}, "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("digits", "dps", "residual_order", "symbolic_open"),
    no_paper_figures="neither paper states this identity: it is posbias's link between them",
)

CARD = Card(
    paper=paper_setting(
        "the retrieval profile of the public code, read as a mixture over depth of "
        "chowdhury2026's densities rho_H (C3) in the ALiBi-warped variable (X6)",
        model="kinetic retrieval profile, one mode", pe="ALiBi, slope lambda (continuum)",
        H="every depth H >= 1 (Poisson weights)"),
    test=Setting("sympy for symbolic H; mpmath Poisson sums at 15 points; float64 residual "
                 "rollouts at L = 512, T = 16 .. 1024",
                 model="kinetic retrieval profile, one mode", pe="ALiBi, slope lambda (continuum)",
                 H=("every depth H >= 1 (Poisson weights)", "T = 16 .. 1024 residual layers")),
    proof=ProofStatus("all", note="term by term for symbolic H, summed by sympy; the residual "
                      "limit T -> oo (Binomial(T, c/T) -> Poisson(c)) is checked numerically"),
)


def residual_gaps(lam: Any, c: Any, L: int = 512,
                  depths: Sequence[int] = DEPTHS) -> list[float]:
    """Largest gap, relative to the largest entry, between the ALiBi rollout with ``T`` layers of
    residual weight ``c/T`` and the kinetic dynamics ``exp(c (A - I))`` (float64)."""
    target = kinetic_rollout(L, lam, c)
    layer = alibi_layer([float(lam) / L])
    return [float(np.max(np.abs(alibi_rollout(L, [layer] * T, [float(c) / T] * T) - target))
                  / np.max(target)) for T in depths]


def _poisson_sum(density: Any, lam: Any, c: Any, s: Any, dps: int) -> Any:
    """``Σ_H e^{-c} c^H/H! ρ_H^ALiBi(s)`` in mpmath until the terms, past their peak, fall below
    ``10^-(dps+5)`` of the sum (``density(H, s, lam)`` lambdified from the derivation)."""
    with mpmath.workdps(dps + 10):
        lam, c, s = (mpmath.mpf(x.numerator) / x.denominator for x in (lam, c, s))
        weight, total, H = mpmath.exp(-c), mpmath.mpf(0), 0
        eps = mpmath.mpf(10) ** (-(dps + 5))
        y = mpmath.log(mpmath.expm1(lam) / mpmath.expm1(lam * s))
        while True:
            H += 1
            weight *= c / H
            term = weight * density(H, s, lam)  # at s = 1: ln(1/phi) = 0, only H = 1 remains
            total += term
            if c * (y + 1) + 2 < H and term <= eps * total:
                return total


@claim(
    "duerinckx2026:poisson-depth-mixture",
    statement="One mode of the retrieval profile is a Poisson mixture over depth of "
    "chowdhury2026's H-layer densities: e^(-c) phi'(s) psi_c(Y(s)) = sum_(H>=1) e^(-c) c^H/H! "
    "rho_H^ALiBi(s), with the atom e^(-c) on the final token; the kinetic dynamics are the "
    "residual rollout with T layers of weight c/T as T -> oo.",
    latex=latex_of_derivation("kinetic-poisson"),
    expected="verified",
    assumptions=("c > 0", "ALiBi slope lambda/L, L -> oo", "rho_H^ALiBi = phi' rho_H(phi)"),
    section="retrieval profile; chowdhury2026 C3; posbias X6",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """sympy derivation, mpmath Poisson sums against the Bessel form, float64 residual limit."""
    open_, ds = symbolic_open("kinetic-poisson")
    H = sympy.Symbol("H", integer=True, positive=True)
    density = lambdify_mpmath((H, alibi.y, alibi.lam), alibi.alibi_density(H, alibi.lam, alibi.y))
    models = {(lam, c): KineticModel([KineticHead(lam, c=c)]) for lam, c, _ in POINTS}

    def mixture(dps):
        return [_poisson_sum(density, lam, c, s, dps) for lam, c, s in POINTS]

    def bessel(dps):
        with mpmath.workdps(dps):
            return [mpmath.exp(-mpmath.mpf(c.numerator) / c.denominator)
                    * kinetic_value_precise(s, models[(lam, c)], dps) for lam, c, s in POINTS]

    ag = agree(mixture, bessel, ctx.dps, ctx.max_dps)
    gaps = {f"lambda={lam}, c={c}": residual_gaps(lam, c)
            for lam, c in ((1, Fraction(1, 2)), (1, Fraction(12, 5)), (4, Fraction(1)))}
    orders = {k: math.log(g[-2] / g[-1]) / math.log(DEPTHS[-1] / DEPTHS[-2]) for k, g in gaps.items()}
    disc = mpmath.mpf(ag.discrepancy)
    digits = float(ag.dps) if disc == 0 else min(float(ag.dps), float(-mpmath.log10(disc)))
    figures = {"digits": round(digits, 2), "dps": ag.dps,
               "precision_ran_out": ag.state == "inconclusive",
               "residual_order": round(min(orders.values()), 4), "symbolic_open": open_}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict,
        method="sympy: term H = term H-1 of the series (symbolic H), sum over H, mass; mpmath: "
        "Poisson sum of the lambdified rho_H^ALiBi vs the Bessel form; float64: ALiBi rollouts "
        "with T layers of weight c/T vs exp(c (A - I))",
        discrepancy=f"{ag.discrepancy} (Poisson sum vs Bessel form); residual gap "
                    f"{min(g[-1] for g in gaps.values()):.2g}..{max(g[-1] for g in gaps.values()):.2g} "
                    f"at T = {DEPTHS[-1]}",
        precision=f"dps={ag.dps}",
        tolerance=ag.tolerance(),
        parameters={"points": [[str(v) for v in p] for p in POINTS], "depths": list(DEPTHS),
                    "L": 512},
        details={"precision_history": [list(h) for h in ag.history],
                 "residual_gaps": {k: [float(f"{x:.4g}") for x in v] for k, v in gaps.items()},
                 "residual_orders": {k: round(v, 4) for k, v in orders.items()},
                 "symbolic": {d.name: d.proof_status for d in ds}},
        figures=figures,
    )
