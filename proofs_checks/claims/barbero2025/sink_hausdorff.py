"""barbero2025:sink-hausdorff: a layer with an attention sink on token 1,
(1-λ)I + λ[αJ₁ + (1-α)C] (J₁: every row on token 1; C: the Cesàro matrix), stays a Hausdorff
matrix, with moments (1-λ) + λ[α δ_k0 + (1-α)/(k+1)]; a stack of such layers is the Hausdorff
matrix of the product of the moments, for every depth: the closed-form profile with a sink.

Routes: sympy (derivations hausdorff-algebra, for every size and depth, and sink-moments: the
layer's moments, the mixture form s·(Cesàro at λ_eff) + (1-s)e_1); exact Fractions on a grid of
lengths, sink weights and schedules: the dense product of the layers (L <= 8), the propagation of
the sink:ALPHA kernel, the Hausdorff entry formula with the moments above and the mixture form.
This is posbias's structure of the paper's mechanism (the paper states no closed form).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from posbias.numerics.closed_forms import hausdorff_row_from_moments
from posbias.numerics.kernels import rollout_last_row_exact
from posbias.numerics.rollout import kernel_profile_exact
from posbias.numerics.sinks import SinkKernel, sink_moments_exact, sink_profile_mixture_exact
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import derivation_by_name
from posbias.proofs_checks.claims.barbero2025._shared import (
    DEPTH,
    FIXED,
    READ,
    RESIDUAL_WEIGHTS,
    sink_layer_exact,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

LENGTHS = (1, 2, 3, 5, 8, 13, 32)
ALPHAS = (Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(4, 5), Fraction(1))
SCHEDULES = (("λ = 1/2, T = 3", [Fraction(1, 2)] * 3), ("attention only, T = 4", [Fraction(1)] * 4),
             ("mixed 1/3, 1, 2/5, 0, 7/8", [Fraction(1, 3), Fraction(1), Fraction(2, 5), Fraction(0),
                                            Fraction(7, 8)]),
             ("chowdhury2026's λ = 7/100, T = 24", [RESIDUAL_WEIGHTS[0]] * DEPTH))
DENSE_MAX = 8


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: two routes differ; inconclusive: the symbolic route is open; verified otherwise."""
    if f["route_mismatches"] > t["allowed"]:
        return "refuted"
    return "verified" if f["symbolic_proven"] else "inconclusive"


RULE = Rule(
    text=("Exact Fractions on L in {1, 2, 3, 5, 8, 13, 32} x α in {0, 1/10, 1/2, 4/5, 1} x 4 "
          "schedules (λ = 1/2 x 3, attention only x 4, mixed, chowdhury2026's 7/100 x 24): "
          "route_mismatches counts profiles where the sink kernel's propagation, the Hausdorff "
          "formula with the stated moments, the mixture form or (L <= 8) the dense product of "
          "the layers differ; symbolic_proven: derivations hausdorff-algebra and sink-moments "
          "closed. refuted: a mismatch; inconclusive: none but a symbolic identity open; "
          "verified otherwise."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons: no mismatch", scale="fixed")},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("the moments (1-λ) + λ(αδ_k0 + (1-α)/(k+1)): every route equal",
                {"route_mismatches": 0, "symbolic_proven": True}, "verified"),
        Example("false: the sink forgotten, moments (1-λ) + λ(1-α)/(k+1) for every k (rows then "
                "lose mass)", {"route_mismatches": 112, "symbolic_proven": True}, "refuted", "false"),
        Example("false: the sink weight on every moment, (1-λ) + λ(α + (1-α)/(k+1))",
                {"route_mismatches": 96, "symbolic_proven": True}, "refuted", "false"),
        Example("the routes agree but an identity is open",
                {"route_mismatches": 0, "symbolic_proven": False}, "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("route_mismatches", "symbolic_proven"),
    no_paper_figures="a closed form of posbias in the paper's setting; the paper gives none",
)

CARD = Card(
    paper=Setting("barbero2025 (attention sinks on the first token; the sink modelled as the "
                  "layer (1-λ)I + λ(αJ₁ + (1-α)C)); " + READ, architecture="residual attention "
                  "layers", residual="on", mask="causal", kernel="sink of weight α on token 1 "
                  "over uniform causal attention", L="any", H="any", unconfirmed=("kernel",)),
    test=Setting("sympy for every size and depth; exact Fractions on the grid", architecture=
                 "residual attention layers", residual="on", mask="causal", kernel="sink of "
                 "weight α on token 1 over uniform causal attention", L="1..32", H="3..24"),
    proof=ProofStatus("all", note="derivations hausdorff-algebra (H(μ)H(ν) = H(μν), I, J₁, C "
                      "Hausdorff) and sink-moments; the grid checks the routes exactly"),
)


def _routes(L: int, alpha: Fraction, lams: list, moments: Callable) -> dict[str, list]:
    out = {"propagation": kernel_profile_exact(L, SinkKernel(alpha), lams),
           "Hausdorff formula": hausdorff_row_from_moments(L - 1, moments(L, alpha, lams)),
           "mixture form": sink_profile_mixture_exact(L, alpha, lams)}
    if L <= DENSE_MAX and lams:
        out["dense product"] = rollout_last_row_exact(
            [sink_layer_exact(L, alpha, Fraction(1))] * len(lams), lams)
    return out


@claim(
    "barbero2025:sink-hausdorff",
    statement="A layer with a sink of weight α on the first token over uniform causal attention, "
    "(1-λ)I + λ(αJ₁ + (1-α)C), is the Hausdorff matrix of the moments (1-λ) + λ(αδ_k0 + "
    "(1-α)/(k+1)), and T such layers the Hausdorff matrix of their product, for every T.",
    latex=r"(1-\lambda) I + \lambda\bigl(\alpha J_1 + (1-\alpha) C\bigr) = H(\mu),\quad "
    r"\mu_k = (1-\lambda) + \lambda\Bigl(\alpha\,\delta_{k0} + \frac{1-\alpha}{k+1}\Bigr);\quad "
    r"\prod_{t=1}^{T} H\bigl(\mu^{(t)}\bigr) = H\Bigl(\prod_{t=1}^{T} \mu^{(t)}\Bigr)",
    expected="verified",
    section="sink layer (posbias's model)",
    assumptions=("J₁ = 1 e_1^T, C[i,j] = 1/i for j <= i", "α, λ_t rational in [0, 1]"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, moments: Callable | None = None) -> Evidence:
    """The routes on the grid; ``moments(count, alpha, lams)`` replaces the stated moments
    (false versions for the tests)."""
    moments = moments or sink_moments_exact
    mismatches = cases = 0
    first: str | None = None
    for label, lams in SCHEDULES:
        for L in LENGTHS:
            for alpha in ALPHAS:
                routes = _routes(L, alpha, lams, moments)
                cases += 1
                ref = routes["propagation"]
                bad = [name for name, v in routes.items() if v != ref]
                if bad:
                    mismatches += 1
                    first = first or f"L={L}, α={alpha}, {label}: {', '.join(bad)} differ from the propagation"
    derivs = [derivation_by_name(n) for n in ("hausdorff-algebra", "sink-moments")]
    figures: dict[str, Any] = {"route_mismatches": mismatches,
                               "symbolic_proven": all(d.proven for d in derivs)}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, method="exact Fractions: sink:ALPHA propagation vs Hausdorff formula vs mixture "
        "form vs dense layer product; sympy (hausdorff-algebra, sink-moments)",
        discrepancy="0 (exact)" if verdict == "verified" else None, precision="exact",
        tolerance="exact equality", cases=cases,
        counterexample=first if verdict == "refuted" else None,
        parameters={"lengths": list(LENGTHS), "alphas": [str(a) for a in ALPHAS],
                    "schedules": [s for s, _ in SCHEDULES]},
        details={"symbolic": {d.name: d.proof_status for d in derivs},
                 "mixture form": "profile = s p_C + (1-s) e_1, s = Π_t(1-λ_t α), p_C the Cesàro "
                 "profile at λ_eff = λ(1-α)/(1-λα): a sink is a residual Cesàro rollout with a "
                 "smaller weight, scaled, plus an atom on token 1"},
        figures=figures)
