"""barbero2025:sink-dead-zone: a sink on the first token deepens the middle of the profile.  With
H layers of weight λ and a sink of weight α the continuous part of the final token's influence is

    ρ_sink(x) = Σ_{k=1}^{H} C(H,k) (λ(1-α))^k (1-λ)^(H-k) t^(k-1)/(k-1)!,   t = ln(1/x),

chowdhury2026's mixture density (α = 0) with its k-th term scaled by (1-α)^k: below it at every
x, and by exactly (1-α)^H in the attention-only factorial term.  In the discrete model every token
j >= 2 loses influence to token 1 (p_sink(j) <= p(j): the sink turns each uniform factor into 0
with probability α, and the Bernstein kernels of j >= 2 vanish at 0).

Routes: sympy (derivation sink-moments, the coefficient identity for symbolic H and k) with the
density at x = 1/2 evaluated in mpmath at chowdhury2026's residual weights and depth 24 (the dead
zone as posbias computes it for that paper) for sink weights 1/10, 1/2, 4/5; the discrete
L·p_sink(L/2) at L = 2048 on the fast path (block exponents); exact Fractions for the domination
p_sink(j) <= p(j) on a grid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy

from posbias.derivations.hausdorff import sink_continuum_density
from posbias.numerics.rollout import kernel_profile_exact
from posbias.numerics.sinks import SinkKernel
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import derivation_by_name, lambdify_mpmath
from posbias.proofs_checks.claims.barbero2025._shared import (
    DEPTH,
    FIXED,
    READ,
    RESIDUAL_WEIGHTS,
    SINK_WEIGHTS,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "sink_density_at"]

LENGTH = 2048
DOMINATION_GRID = tuple((lam, h, L) for lam in (Fraction(1, 2), Fraction(1)) for h in (1, 2, 4, 8)
                        for L in (8, 32))


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: a token j >= 2 gains from the sink, a sink density above the sink-free one, or a
    density formula the rollout does not follow; inconclusive: symbolic route open."""
    if (f["domination_failures"] > t["allowed"] or f["ratio_max"] > 1
            or f["route_gap"] > t["route_tolerance"]):
        return "refuted"
    return "verified" if f["symbolic_proven"] else "inconclusive"


RULE = Rule(
    text=("At chowdhury2026's residual weights λ = 7/100, 1/10, 13/100 and depth H = 24, sink "
          "weights α = 1/10, 1/2, 4/5: ratio_max = max ρ_sink(1/2)/ρ(1/2) (the stated density, "
          "mpmath); route_gap = max |L·p_sink(L/2) / ρ_sink(1/2) - 1| at L = 2048 (fast path); "
          "domination_failures counts tokens j >= 2 with p_sink(j) > p(j) (exact, λ in {1/2, 1}, "
          "H in {1, 2, 4, 8}, L in {8, 32}, α in {1/10, 1/2, 4/5, 1}); symbolic_proven: "
          "derivation sink-moments closed. refuted: a domination failure, ratio_max > 1, or "
          "route_gap > route_tolerance = 0.01 (the formula is not the rollout's); inconclusive: "
          "none but the symbolic route open; verified otherwise."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons", scale="fixed"),
                "route_tolerance": Threshold(0.01, "largest relative gap between the discrete "
                                             "L·p(L/2) at L = 2048 and the continuum density "
                                             "(measured 1e-3)", sensitive=5.0)},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("each term scaled by (1-α)^k: ρ(1/2) falls from 0.35..0.55 to 0.032..0.071 at "
                "α = 4/5", {"domination_failures": 0, "ratio_max": 0.86, "route_gap": 1.3e-3,
                            "symbolic_proven": True}, "verified"),
        Example("false: a sink fills the middle (ρ_sink = (1+α)ρ: attention to the sink read as "
                "extra mixing)", {"domination_failures": 0, "ratio_max": 1.8, "route_gap": 0.949,
                                  "symbolic_proven": True}, "refuted", "false"),
        Example("false: every term scaled by (1-α)^H (the wrong exponent): the rollout does not "
                "follow it", {"domination_failures": 0, "ratio_max": 0.0798, "route_gap": 7.8e15,
                              "symbolic_proven": True}, "refuted", "false"),
        Example("the numbers agree but an identity is open", {"domination_failures": 0,
                "ratio_max": 0.86, "route_gap": 1.3e-3, "symbolic_proven": False}, "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("domination_failures", "ratio_max", "route_gap"),
    no_paper_figures="posbias's formula in the paper's setting; the paper reports no density",
)

CARD = Card(
    paper=Setting("barbero2025 (attention sinks), with chowdhury2026's dead zone ρ(1/2) at its "
                  "residual weights and depth 24 (abstract, C6) as posbias computes it; " + READ,
                  architecture="residual attention layers", residual="on", mask="causal",
                  kernel="sink of weight α on token 1 over uniform causal attention",
                  alpha="7/100, 1/10, 13/100", L="continuum (L → ∞)", H=DEPTH,
                  unconfirmed=("kernel", "alpha")),
    test=Setting("sympy density at x = 1/2 (mpmath), discrete L·p(L/2) at L = 2048 (fast path), "
                 "exact domination on a grid", architecture="residual attention layers",
                 residual="on", mask="causal", kernel="sink of weight α on token 1 over uniform "
                 "causal attention", alpha="7/100, 1/10, 13/100", L=("continuum (L → ∞)", 2048),
                 H=DEPTH),
    proof=ProofStatus("all", note="derivation sink-moments: the density's k-th coefficient is "
                      "C(H,k)(λ(1-α))^k(1-λ)^(H-k) for symbolic H, k, so ρ_sink <= ρ termwise; the "
                      "values at H = 24 are numeric"),
)


def sink_density_at(H: int, alpha: Fraction, lam: Fraction) -> Callable[[Any], Any]:
    """The stated sink density ρ_sink(x) at depth ``H`` as an mpmath callable of x (sympy's
    expression, lambdified)."""
    a, w, t = sympy.symbols("alpha lambda t", positive=True)
    f = lambdify_mpmath((a, w, t), sink_continuum_density(H, a, w, t))
    return lambda x: f(mpmath.mpmathify(alpha), mpmath.mpmathify(lam), mpmath.log(1 / mpmath.mpmathify(x)))


def _discrete_at_half(alpha: Fraction, lam: Fraction) -> float:
    a, k = SinkKernel(alpha).log_blocks(LENGTH, [float(lam)] * DEPTH)
    return LENGTH * float(np.ldexp(a[LENGTH // 2 - 1], k[LENGTH // 2 - 1]))


def _domination(first: list) -> int:
    failures = 0
    for lam, h, L in DOMINATION_GRID:
        base = kernel_profile_exact(L, SinkKernel(0), [lam] * h)
        for alpha in (*SINK_WEIGHTS, Fraction(1)):
            p = kernel_profile_exact(L, SinkKernel(alpha), [lam] * h)
            bad = [j + 1 for j in range(1, L) if p[j] > base[j]]
            failures += len(bad)
            if bad and not first:
                first.append(f"λ={lam}, H={h}, L={L}, α={alpha}: p({bad[0]}) grows with the sink")
    return failures


@claim(
    "barbero2025:sink-dead-zone",
    statement="A sink of weight α on the first token scales the k-th term of the middle's density "
    "by (1-α)^k, so ρ_sink(x) <= ρ(x) at every x and every token after the first loses influence: "
    "the sink deepens chowdhury2026's dead zone (ρ(1/2) at λ = 7/100..13/100, H = 24 falls from "
    "0.35..0.55 to 0.03..0.07 at α = 4/5).",
    latex=r"\rho_{\mathrm{sink}}(x) = \sum_{k=1}^{H}\binom{H}{k}\bigl(\lambda(1-\alpha)\bigr)^{k}"
    r"(1-\lambda)^{H-k}\,\frac{t^{k-1}}{(k-1)!} \le \rho(x),\quad t = \ln\frac1x",
    expected="verified",
    section="sink layer (posbias's model); chowdhury2026 C6",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, density: Callable[[int, Fraction, Fraction], Callable] | None = None
          ) -> Evidence:
    """The middle with a sink; ``density(H, alpha, lam)`` replaces the stated density (an mpmath
    callable of x; false versions for the tests)."""
    density = density or sink_density_at
    first: list[str] = []
    rows: dict[str, dict[str, str]] = {}
    ratio_max, gap = mpmath.mpf(0), mpmath.mpf(0)
    with mpmath.workdps(ctx.dps):
        for lam in RESIDUAL_WEIGHTS:
            base = density(DEPTH, Fraction(0), lam)(mpmath.mpf(1) / 2)
            row = {"α = 0 (chowdhury2026)": mpmath.nstr(base, 4)}
            for alpha in SINK_WEIGHTS:
                value = density(DEPTH, alpha, lam)(mpmath.mpf(1) / 2)
                disc = mpmath.mpf(_discrete_at_half(alpha, lam))
                ratio_max = max(ratio_max, value / base)
                gap = max(gap, abs(disc / value - 1))
                row[f"α = {alpha}"] = f"{mpmath.nstr(value, 4)} (L·p(L/2) = {mpmath.nstr(disc, 4)})"
            rows[f"λ = {lam}"] = row
    figures: dict[str, Any] = {"domination_failures": _domination(first),
                               "ratio_max": float(mpmath.nstr(ratio_max, 6)),
                               "route_gap": float(mpmath.nstr(gap, 4)),
                               "symbolic_proven": derivation_by_name("sink-moments").proven}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, method=f"sympy density at x = 1/2 (mpmath, dps={ctx.dps}) vs the fast-path L·p(L/2) "
        f"at L = {LENGTH}; exact domination p_sink(j) <= p(j)",
        discrepancy=f"{float(gap):.2g} (continuum vs L = {LENGTH})" if verdict == "verified" else None,
        precision=f"dps={ctx.dps}; float64 block exponents; exact", tolerance="route gap <= 0.01",
        cases=len(RESIDUAL_WEIGHTS) * len(SINK_WEIGHTS) + len(DOMINATION_GRID) * 4,
        counterexample=(first[0] if first else f"ratio_max {float(ratio_max):.3g}, route gap "
                        f"{float(gap):.3g}") if verdict == "refuted" else None,
        parameters={"λ": [str(x) for x in RESIDUAL_WEIGHTS], "α": [str(x) for x in SINK_WEIGHTS],
                    "H": DEPTH, "L": LENGTH},
        details={"ρ(1/2) by λ and α": rows,
                 "chowdhury2026's dead-zone level": "its rule calls the middle a dead zone below "
                 "ρ(1/2) = 0.01 (100 times below uniform): even a 4/5 sink leaves ρ(1/2) at "
                 "0.032..0.071, so the sink deepens the middle without making it dead in that sense"},
        figures=figures)
