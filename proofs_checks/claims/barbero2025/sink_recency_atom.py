"""barbero2025:sink-recency-atom: a sink on the first token does not change the recency delta of
chowdhury2026.  With H sink layers of weight α the last token keeps

    p(L) = ((1-λ) + λ(1-α)/L)^H  ->  (1-λ)^H  (L -> oo),

the same atom as without a sink (chowdhury2026's (1-α)^H, its α being λ here): in the continuum
law (0 with probability 1 - (1-λα)^H, else a Cesàro law at λ_eff = λ(1-α)/(1-λα)) the atom is
(1-λα)^H (1-λ_eff)^H = (1-λ)^H.  A sink only takes from the middle and the end at finite L
(by at most Hλα/L).

Exact Fractions: p(L) by propagating the sink kernel (L <= 16) and by the mixture form
(L = 128, 512) against the closed form, on chowdhury2026's grid (its residual weights 7/100, 1/10,
13/100 at its depth 24; λ = 1/10, 1/2, 9/10 at H = 1, 4, 12) with sink weights 0, 1/10, 1/2, 4/5;
the stated atom must lie below p(L) and within Bernoulli's Hλ(1-α)/L of it; the continuum atom
exactly; sympy (sink-moments: (1-λα)(1-λ_eff) = 1-λ for all α).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from posbias.numerics.rollout import kernel_profile_exact
from posbias.numerics.sinks import SinkKernel, sink_profile_mixture_exact
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import derivation_by_name
from posbias.proofs_checks.claims.barbero2025._shared import (
    DEPTH,
    FIXED,
    READ,
    RESIDUAL_WEIGHTS,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

LENGTHS = (2, 16, 128, 512)
ALPHAS = (Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(4, 5))
GRID = tuple((lam, DEPTH) for lam in RESIDUAL_WEIGHTS) + tuple(
    (lam, h) for lam in (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)) for h in (1, 4, 12))
PROPAGATE_MAX = 16


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: p(L) off its closed form, below the stated atom, further than Bernoulli's bound
    from it, or a continuum atom other than the stated one; inconclusive: symbolic route open."""
    bad = f["identity_failures"] + f["below_atom"] + f["continuum_failures"]
    if bad > t["allowed"] or f["bernoulli_max"] > t["bernoulli"]:
        return "refuted"
    return "verified" if f["symbolic_proven"] else "inconclusive"


RULE = Rule(
    text=("On chowdhury2026's grid (λ = 7/100, 1/10, 13/100 at H = 24; λ = 1/10, 1/2, 9/10 at "
          "H = 1, 4, 12) x sink α in {0, 1/10, 1/2, 4/5} x L in {2, 16, 128, 512}, exact: "
          "identity_failures counts p(L) != ((1-λ) + λ(1-α)/L)^H; below_atom counts p(L) < a, a "
          "the stated atom (1-λ)^H; bernoulli_max = max (p(L) - a)·L/(Hλ(1-α)); "
          "continuum_failures counts (λ, α, H) whose continuum atom (1-λα)^H (1-λ_eff)^H differs "
          "from a; symbolic_proven: derivation sink-moments closed. refuted: any failure or "
          "bernoulli_max > 1; inconclusive: none but the symbolic route open; verified otherwise."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons", scale="fixed"),
                "bernoulli": Threshold(1, "Bernoulli: p(L) - (1-λ)^H <= Hλ(1-α)/L", scale="fixed")},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("the atom (1-λ)^H, the same with and without a sink",
                {"identity_failures": 0, "below_atom": 0, "continuum_failures": 0,
                 "bernoulli_max": 0.99, "symbolic_proven": True}, "verified"),
        Example("false: the sink scales the atom, (1-λ)^H (1-α)^H", {
            "identity_failures": 0, "below_atom": 0, "continuum_failures": 27,
            "bernoulli_max": 9.5e5, "symbolic_proven": True}, "refuted", "false"),
        Example("false: the atom of the sink-free weight, (1-λ(1-α))^H (the sink read as less "
                "attention)", {"identity_failures": 0, "below_atom": 81, "continuum_failures": 27,
                               "bernoulli_max": 0.99, "symbolic_proven": True}, "refuted", "false"),
        Example("the exact checks pass but the symbolic route is open",
                {"identity_failures": 0, "below_atom": 0, "continuum_failures": 0,
                 "bernoulli_max": 0.99, "symbolic_proven": False}, "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("identity_failures", "below_atom", "continuum_failures", "bernoulli_max"),
    no_paper_figures="posbias's formula in the paper's setting; the paper reports no atom",
)

CARD = Card(
    paper=Setting("barbero2025 (attention sinks), with chowdhury2026's recency delta (1-α)^H "
                  "(abstract, C5) as posbias computes it; " + READ, architecture="residual "
                  "attention layers", residual="on", mask="causal", kernel="sink of weight α on "
                  "token 1 over uniform causal attention", alpha="7/100, 1/10, 13/100",
                  L="continuum (L → ∞)", H=DEPTH, unconfirmed=("kernel", "alpha")),
    test=Setting("exact Fractions: the sink kernel's last entry (propagation, mixture form) and "
                 "the continuum atom; sympy", architecture="residual attention layers",
                 residual="on", mask="causal", kernel="sink of weight α on token 1 over uniform "
                 "causal attention", alpha=("7/100, 1/10, 13/100", "1/10, 1/2, 9/10"),
                 L=("continuum (L → ∞)", "2, 16, 128, 512"), H=(DEPTH, 1, 4, 12)),
    proof=ProofStatus("all", note="derivation sink-moments: (1-λα)(1-λ_eff) = 1-λ for all λ, α, "
                      "so the atom is (1-λ)^H for every H; the grid checks the finite L exactly"),
)


def _last(L: int, alpha: Fraction, lam: Fraction, H: int) -> Fraction:
    if L <= PROPAGATE_MAX:
        return kernel_profile_exact(L, SinkKernel(alpha), [lam] * H)[-1]
    return sink_profile_mixture_exact(L, alpha, [lam] * H)[-1]


def _default_atom(lam: Fraction, alpha: Fraction, H: int) -> Fraction:
    return (1 - lam) ** H


@claim(
    "barbero2025:sink-recency-atom",
    statement="A sink of weight α on the first token leaves the last token's recency atom "
    "(1-λ)^H unchanged: p(L) = ((1-λ) + λ(1-α)/L)^H tends to the same (1-λ)^H as without a sink "
    "(chowdhury2026's recency delta).",
    latex=r"p(L) = \Bigl(1 - \lambda + \frac{\lambda(1-\alpha)}{L}\Bigr)^{H} "
    r"\xrightarrow[L\to\infty]{} (1-\lambda)^{H} = (1-\lambda\alpha)^{H}(1-\lambda_{\mathrm{eff}})^{H}",
    expected="verified",
    section="sink layer (posbias's model); chowdhury2026 C5",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, atom: Callable[[Fraction, Fraction, int], Fraction] | None = None
          ) -> Evidence:
    """The atom on chowdhury2026's grid; ``atom(lam, alpha, H)`` replaces the stated atom (false
    versions for the tests)."""
    atom = atom or _default_atom
    counts = {"identity_failures": 0, "below_atom": 0, "continuum_failures": 0}
    worst, first, cases = Fraction(0), None, 0
    for lam, H in GRID:
        for alpha in ALPHAS:
            a = atom(lam, alpha, H)
            eff = lam * (1 - alpha) / (1 - lam * alpha)
            if (1 - lam * alpha) ** H * (1 - eff) ** H != a:
                counts["continuum_failures"] += 1
                first = first or f"λ={lam}, α={alpha}, H={H}: the continuum atom is {(1 - lam) ** H}"
            for L in LENGTHS:
                pL = _last(L, alpha, lam, H)
                cases += 1
                counts["identity_failures"] += int(pL != (1 - lam + lam * (1 - alpha) / L) ** H)
                if pL < a:
                    counts["below_atom"] += 1
                    first = first or f"λ={lam}, α={alpha}, H={H}, L={L}: p(L) below the stated atom"
                if alpha < 1:
                    worst = max(worst, (pL - a) * L / (H * lam * (1 - alpha)))
    figures: dict[str, Any] = {**counts, "bernoulli_max": float(f"{float(worst):.6g}"),
                               "symbolic_proven": derivation_by_name("sink-moments").proven}
    figures["atom_at_H24"] = {str(lam): float(f"{float((1 - lam) ** DEPTH):.4g}")
                              for lam in RESIDUAL_WEIGHTS}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, method="exact Fractions: the sink kernel's last entry (propagation for L <= 16, "
        "mixture form at 128 and 512) vs ((1-λ) + λ(1-α)/L)^H and the stated atom; continuum atom; sympy",
        discrepancy="0 (exact identity)" if verdict == "verified" else None, precision="exact",
        tolerance="exact; 0 <= p(L) - atom <= Hλ(1-α)/L", cases=cases,
        counterexample=first if verdict == "refuted" else None,
        worst_margin=f"max (p(L) - atom)·L/(Hλ(1-α)) = {float(worst):.6g}",
        parameters={"grid (λ, H)": [f"{lam}, {h}" for lam, h in GRID],
                    "alphas": [str(a) for a in ALPHAS], "lengths": list(LENGTHS)},
        details={"chowdhury2026": "its recency delta (1-α)^H at its residual α and H = 24 is "
                 + ", ".join(f"{v:.4g}" for v in figures["atom_at_H24"].values())
                 + "; with a sink of any weight the continuum atom is the same"},
        figures=figures)
