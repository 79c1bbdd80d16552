"""chowdhury2026:dead-zone (C6): between the two ends the influence is O(1/(H-1)!) (the
factorial dead zone).

The abstract ("between these extremes lies a factorial dead zone of order O(1/(H-1)!)", the
extremes being the primacy tail and the residual recency delta) and docs/explanation/mathematics.rst C6: the
Cesàro model with residuals at the paper's depth H = 24, in the residual regime the statement
is made in (α < 1; the paper states no α: the best constant α of the Step-0 fits, 7/100..13/100).

The check evaluates the mixture density at x = 1/2 (the sympy derivation, mpmath) for the
residual α, α = 1/2 and α = 1 (attention only, where the factorial form is exact), scaled by
(H-1)!, against the lower bound ``Hα(1-α)^(H-1)``; a second route, the float64 discrete
``L·p(L/2)`` at L = 2048, must fall on the same side of every threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import mpmath

from posbias.numerics import cesaro
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import nstr_or_zero
from posbias.proofs_checks.claims.chowdhury2026._analytic import (
    ALPHA_NOTE,
    ANALYTIC_DEPTH,
    ANALYTIC_LENGTH,
    ANALYTIC_RULES_FIXED,
    MODEL,
    NOT_READ,
    RESIDUAL_ALPHAS,
    MpFunction,
    alpha_names,
    continuous_part,
    fraction_mpf,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """C6: the two routes on different sides of a threshold: inconclusive; not factorial even at
    α = 1: refuted; factorial at the paper's α: verified; else qualified when ρ(1/2) is still a
    dead zone (exponential in H), refuted when it is not."""
    if not f["routes_agree"]:
        return "inconclusive"
    if f["scaled_attn"] > t["o_constant"]:
        return "refuted"  # not factorial even at α = 1, where the paper's formula is exact
    if f["scaled"] <= t["o_constant"]:
        return "verified"
    return "qualified" if f["rho_half"] <= t["dead_level"] else "refuted"


RULE = Rule(
    text="At the paper's depth H = 24, in the residual regime the statement is made in (it lies "
    "'between' the primacy tail and the recency delta, which needs α < 1; α = 7/100, 1/10, "
    "13/100, the best constant α of the Step-0 fits): rho_half = the largest ρ(1/2) over these α "
    "(the mixture density, mpmath), scaled = rho_half·(H-1)!; scaled_attn = "
    "ρ_H(1/2)·(H-1)! at α = 1; routes_agree: the discrete L·p(L/2) at L = 2048 lies on the same "
    "side of every threshold as the continuum value. inconclusive: the routes disagree; refuted: "
    "scaled_attn > o_constant (not factorial even at α = 1); verified: scaled <= "
    "o_constant (a factorial dead zone at the paper's α); qualified: not factorial but rho_half "
    "<= dead_level (an exponential dead zone, ρ(1/2) >= Hα(1-α)^(H-1)); refuted: rho_half > "
    "dead_level (no dead zone in the middle at the paper's α).",
    decide=decide,
    thresholds={
        "o_constant": Threshold(10.0, "the constant O(1/(H-1)!) allows: ρ(1/2)·(H-1)! <= C"),
        "dead_level": Threshold(0.01, "largest ρ(1/2) (the uniform density is 1) that is still a "
                                "dead zone: the middle 100 times below uniform"),
    },
    outcomes=("verified", "qualified", "refuted", "inconclusive"),
    examples=(
        Example("the statement read at α = 1 (attention only, no recency delta): H = 24, "
                "ρ(1/2) = (ln 2)^23/23! = 8.44e-27", {
                    "routes_agree": True, "scaled_attn": 2.18e-4, "scaled": 2.18e-4,
                    "rho_half": 8.44e-27}, "verified", "realistic"),
        Example("false at α = 1/2 (H = 24): ρ(1/2) = 1.16e-4 is 3e18 times 1/23!, yet a dead "
                "zone exponential in H", {
                    "routes_agree": True, "scaled_attn": 2.18e-4, "scaled": 3.0e18,
                    "rho_half": 1.16e-4}, "qualified", "false"),
        Example("the paper's residual α = 7/100..13/100 at H = 24: ρ(1/2) = 0.35..0.55, 1.4e22 "
                "times 1/23!", {"routes_agree": True, "scaled_attn": 2.18e-4,
                                "scaled": 1.41e22, "rho_half": 0.546}, "refuted", "realistic"),
        Example("false: a density whose value at 1/2 is (ln 2)^(H-1)/(H/2)! at α = 1 (not "
                "factorial in H-1)", {
                    "routes_agree": True, "scaled_attn": 1.18e10, "scaled": 1.18e10,
                    "rho_half": 4.56e-13}, "refuted", "false"),
        Example("the discrete route on the other side of a threshold", {
            "routes_agree": False, "scaled_attn": 2.18e-4, "scaled": 2.18e-4,
            "rho_half": 8.44e-27}, "inconclusive", "realistic"),
    ),
    fixed=ANALYTIC_RULES_FIXED,
    deciding=("rho_half", "scaled", "scaled_attn"),
    no_paper_figures="the paper states the order O(1/(H-1)!) and reports neither ρ(1/2) nor α",
)


CARD = Card(
    paper=Setting("abstract ('between these extremes lies a factorial dead zone of order "
                  "O(1/(H-1)!)', the extremes being the primacy tail and the residual recency "
                  "delta); docs/explanation/mathematics.rst C6", architecture=MODEL, residual="on", mask="causal",
                  pe="none", alpha=alpha_names(RESIDUAL_ALPHAS), L="continuum (L → ∞)",
                  H=ANALYTIC_DEPTH, unconfirmed=("alpha",), note=NOT_READ + "; " + ALPHA_NOTE),
    test=Setting("the mixture density at x = 1/2 (sympy, mpmath at dps) for the residual α, "
                 "α = 1/2 and α = 1; discrete L·p(L/2) at L = 2048 (float64) as a second route",
                 architecture=MODEL, residual=("on", "off"), mask="causal", pe="none",
                 alpha=(*alpha_names(RESIDUAL_ALPHAS), "1/2", "1"), L="continuum (L → ∞)",
                 H=ANALYTIC_DEPTH),
    proof=ProofStatus("numeric", note="the lower bound ρ(1/2) >= Hα(1-α)^(H-1) holds for every H "
                      "and α (the k = 1 term of a sum of non-negative terms, derivation "
                      "minimum-dead-zone); the values at H = 24 are numeric"),
)


def _discrete_at_half(L, H, alpha):
    """The discrete route: ``L·p(L/2)`` of the float64 Cesàro rollout."""
    return L * float(cesaro.cesaro_profile(L, [float(alpha)] * H)[L // 2 - 1])


def _alpha_at_level(H: int, level: float, dps: int) -> float:
    """The residual weight α at which the mixture density ρ(1/2) at depth ``H`` falls to
    ``level`` (ρ(1/2) decreases in α on the bracket used), by bisection on exact rationals
    (1e-3 in α): the setting value at which the dead-zone verdict would turn."""
    lo, hi = Fraction(13, 100), Fraction(1)
    with mpmath.workdps(dps):
        for _ in range(10):
            mid = (lo + hi) / 2
            if continuous_part(H, mid)(mpmath.mpf(1) / 2) > level:
                lo = mid
            else:
                hi = mid
    return round(float((lo + hi) / 2), 3)


def _alpha_note(figures: Mapping) -> str:
    a = figures.get("alpha_at_dead_level")
    if a is None:
        return ""
    return (f"; the paper states no α (the residual α above are the Step-0 fits measured here): "
            f"ρ(1/2) falls below the dead-zone level only for α >= {a:g}, where the verdict "
            "would be qualified (an exponential, not factorial, dead zone)")


@claim(
    "chowdhury2026:dead-zone",
    statement="Between the two ends the influence is O(1/(H-1)!) (the factorial dead zone).",
    latex=r"\rho\bigl(\tfrac12\bigr)=O\!\Bigl(\frac{1}{(H-1)!}\Bigr)",
    expected="refuted",
    section="2 (C6)",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, density: Callable[[int, Fraction], MpFunction] | None = None,
          profile: Callable[[int, int, Fraction], Any] | None = None) -> Evidence:
    """C6 at the paper's depth: ρ(1/2) against 1/(H-1)! in the residual regime the paper states
    it in, at α = 1/2 and at α = 1.

    ``density(H, alpha)`` replaces the continuous part under test (an mpmath callable of x;
    default: the sympy mixture) and ``profile(L, H, alpha)`` the discrete route's ``L·p(L/2)``
    (default: the float64 Cesàro rollout at ``L = 2048``)."""
    density = density or continuous_part
    profile = profile or _discrete_at_half
    H, L = ANALYTIC_DEPTH, ANALYTIC_LENGTH
    t = RULE.values()
    rows: dict[str, dict[str, Any]] = {}
    values: dict = {}
    with mpmath.workdps(ctx.dps):
        fact = mpmath.factorial(H - 1)
        agree_all = True
        for alpha in (*RESIDUAL_ALPHAS, Fraction(1, 2), Fraction(1)):
            cont = density(H, alpha)(mpmath.mpf(1) / 2)
            disc = mpmath.mpf(profile(L, H, alpha))
            lower = H * fraction_mpf(alpha) * (1 - fraction_mpf(alpha)) ** (H - 1)
            # the two routes must put ρ(1/2) on the same side of each threshold
            for level in (t["o_constant"] / fact, t["dead_level"]):
                agree_all &= (cont <= level) == (disc <= level)
            values[alpha] = cont
            rows[f"alpha={alpha}"] = {
                "rho(1/2)": nstr_or_zero(cont, 4), f"L*p(L/2) at L={L}": nstr_or_zero(disc, 4),
                "rho(1/2)*(H-1)!": nstr_or_zero(cont * fact, 4),
                "H*alpha*(1-alpha)^(H-1)": nstr_or_zero(lower, 4),
                "lower bound holds": bool(cont >= lower)}
        rho_half = max(values[a] for a in RESIDUAL_ALPHAS)
        figures = {"rho_half": float(mpmath.nstr(rho_half, 6)),
                   "scaled": float(mpmath.nstr(rho_half * fact, 6)),
                   "scaled_attn": float(mpmath.nstr(values[Fraction(1)] * fact, 6)),
                   "routes_agree": bool(agree_all),
                   "rho_half_by_alpha": {str(a): float(mpmath.nstr(values[a], 4)) for a in values},
                   "inverse_factorial": float(mpmath.nstr(1 / fact, 4))}
        if density is continuous_part:  # the paper states no α: where would the verdict turn?
            figures["alpha_at_dead_level"] = _alpha_at_level(H, t["dead_level"], ctx.dps)
    verdict = RULE.apply(figures).verdict
    ex = rows["alpha=1/2"]
    common: dict[str, Any] = dict(
        method=f"mixture density at x = 1/2 (sympy, mpmath) vs discrete L·p(L/2) at L = {L} "
        "(float64), H = 24", precision=f"dps={ctx.dps}; float64 discrete route",
        tolerance="both routes on the same side of C/(H-1)! and of the dead-zone level",
        cases=len(rows), parameters={"H": H, "alphas": [str(a) for a in values], "L": L},
        details={"table": rows}, figures=figures, rule=RULE.text)
    at_one = (f"the factorial form holds only at α = 1 (no recency delta), where ρ_24(1/2) = "
              f"(ln 2)^23/23! = {rows['alpha=1']['rho(1/2)']}")
    if verdict == "refuted" and figures["scaled_attn"] > t["o_constant"]:
        return Evidence("refuted", counterexample=f"at α = 1, H = 24: ρ(1/2)·23! = "
                        f"{figures['scaled_attn']:.3g} > {t['o_constant']:g}", **common)
    if verdict == "refuted":
        return Evidence("refuted", counterexample=(
            "in the residual regime the dead zone needs (α = 7/100..13/100, H = 24) ρ(1/2) = "
            + ", ".join(rows[f"alpha={a}"]["rho(1/2)"] for a in RESIDUAL_ALPHAS)
            + f", i.e. {figures['scaled']:.2g} times 1/23! = {figures['inverse_factorial']:.3g} "
            f"and {figures['rho_half']:.2g} of the uniform density 1: no dead zone in the "
            "middle; "
            + at_one + f"; for α < 1, ρ(1/2) >= Hα(1-α)^(H-1), exponential in H (α = 1/2: "
            f"{ex['rho(1/2)']})" + _alpha_note(figures)), **common)
    if verdict == "qualified":
        return Evidence("qualified", correction=(
            f"exponential, not factorial: ρ(1/2) = {figures['rho_half']:.3g} at the residual α "
            f"(>= Hα(1-α)^(H-1)); " + at_one), **common)
    if verdict == "inconclusive":
        return Evidence("inconclusive", discrepancy="the discrete L·p(L/2) and the continuum "
                        "ρ(1/2) lie on different sides of a threshold: raise L", **common)
    return Evidence("verified", **common)
