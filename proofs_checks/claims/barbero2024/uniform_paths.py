"""barbero2024:uniform-paths: with equal uniform causal attention at every layer and the
normalisation of Proposition B.8 (β_1 = β_2 = 1, β_3^(1/L) = 4, σ_ψ = 1) the over-squashing
path sum is ((C + I)/2)^L[n, i], the residual Cesàro rollout with λ = 1/2, i.e. the Hausdorff
matrix of the moments ((1 + 1/(k+1))/2)^L; tokens earlier in the sequence have more paths
(Section 5: "the paths instead grow very quickly for tokens coming sooner in the sequence").

Three exact routes (Fractions) on a grid of lengths and depths: the enumerated path sum of the
uniform layers (C + I)/2, the residual Cesàro rollout at λ = 1/2 (posbias's propagation) and the
Hausdorff entry formula with the moments above; plus, on every profile, that the path sum does
not increase from token 1 to token n - 1.  The symbolic route: derivations hausdorff-algebra
(products multiply moments, every size) and uniform-path-sum.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from posbias.numerics.cesaro import cesaro_profile_exact
from posbias.numerics.closed_forms import hausdorff_row_from_moments
from posbias.numerics.oversquashing import path_sum_exact
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import derivation_by_name, latex_of_derivation
from posbias.proofs_checks.claims.barbero2024._shared import FIXED, READ
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "uniform_moments"]

#: (tokens n, depth L): paths are enumerated for n <= 8, L <= 4
PATH_GRID = tuple((n, L) for n in (1, 2, 3, 5, 8) for L in (1, 2, 3, 4))
#: the propagation and the Hausdorff formula also at longer contexts and depths
ROLLOUT_GRID = tuple((n, L) for n in (13, 32, 64) for L in (1, 4, 12, 24))


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: a route mismatch or a token with more paths than an earlier one; inconclusive:
    the symbolic route did not close; verified otherwise."""
    if f["route_mismatches"] > t["allowed"] or f["monotone_failures"] > t["allowed"]:
        return "refuted"
    return "verified" if f["symbolic_proven"] else "inconclusive"


RULE = Rule(
    text=("Exact Fractions on (n, L) in {1, 2, 3, 5, 8} x {1..4} (all three routes: enumerated "
          "paths of (C+I)/2, the λ = 1/2 Cesàro rollout, the Hausdorff formula with moments "
          "((1 + 1/(k+1))/2)^L) and {13, 32, 64} x {1, 4, 12, 24} (the last two): "
          "route_mismatches counts profiles where two routes differ, monotone_failures counts "
          "profiles where p(j) < p(j+1) for some j < n - 1; symbolic_proven: the derivations "
          "hausdorff-algebra and uniform-path-sum closed. refuted: a mismatch or a monotonicity "
          "failure; inconclusive: no failure but a symbolic identity open; verified otherwise."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons: no failure is allowed", scale="fixed")},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("every route equal, the path sum non-increasing up to n - 1, symbolic route closed",
                {"route_mismatches": 0, "monotone_failures": 0, "symbolic_proven": True}, "verified"),
        Example("false: moments ((1 + 1/(k+2))/2)^L (the index shifted by one)",
                {"route_mismatches": 32, "monotone_failures": 0, "symbolic_proven": True},
                "refuted", "false"),
        Example("false: no residual, the rollout C^L in place of ((C+I)/2)^L",
                {"route_mismatches": 28, "monotone_failures": 0, "symbolic_proven": True},
                "refuted", "false"),
        Example("the routes agree but a symbolic identity is open",
                {"route_mismatches": 0, "monotone_failures": 0, "symbolic_proven": False},
                "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("route_mismatches", "monotone_failures", "symbolic_proven"),
    no_paper_figures="the paper states the bound and Proposition B.8 as formulas, with no values",
)

CARD = Card(
    paper=Setting("barbero2024 Theorem 5.1 with Proposition B.8's normalisation (β_1 = β_2 = 1, "
                  "β_3^(1/L) = 4, σ_ψ = 1, equal attention at every layer); the uniform causal "
                  "attention is posbias's choice of the equal layers (the paper allows any with "
                  "two non-zero entries per row); " + READ,
                  architecture="decoder-only transformer, attention independent of the input",
                  residual="on", mask="causal", kernel="uniform causal (Cesàro)", L="any",
                  H="any", unconfirmed=("kernel",)),
    test=Setting("exact Fractions: enumerated paths, the λ = 1/2 Cesàro rollout and the Hausdorff "
                 "formula; sympy for every L", architecture="decoder-only transformer, attention "
                 "independent of the input", residual="on", mask="causal",
                 kernel="uniform causal (Cesàro)", L="1..64", H="1..24"),
    proof=ProofStatus("all", note="the Hausdorff algebra (derivation hausdorff-algebra) gives "
                      "the moments for every L; the monotonicity in j is checked on the grid"),
)


def uniform_moments(count: int, depth: int) -> list[Fraction]:
    """The moments ((1 + 1/(k+1))/2)^L, k = 0..count-1, of ((C + I)/2)^L."""
    return [((1 + Fraction(1, k + 1)) / 2) ** depth for k in range(count)]


def _uniform_layer(n: int) -> list[list[Fraction]]:
    return [[(Fraction(1, r + 1) + (1 if r == c else 0)) / 2 if c <= r else Fraction(0)
             for c in range(n)] for r in range(n)]


def _compare(n: int, L: int, moments: Callable[[int, int], list], paths: bool) -> tuple[list, list]:
    routes = {"rollout λ = 1/2": cesaro_profile_exact(n, [Fraction(1, 2)] * L),
              "Hausdorff formula": hausdorff_row_from_moments(n - 1, moments(n, L))}
    if paths:
        layer = _uniform_layer(n)
        routes["enumerated paths"] = [path_sum_exact([layer] * L, n, i) for i in range(1, n + 1)]
    values = list(routes.values())
    bad = [name for name, v in routes.items() if v != values[0]]
    return values[0], bad


@claim(
    "barbero2024:uniform-paths",
    statement="With equal uniform causal attention at every layer (Proposition B.8's "
    "normalisation) the path sum is ((C + I)/2)^L[n, i], the residual Cesàro rollout with "
    "λ = 1/2 (the Hausdorff matrix of ((1 + 1/(k+1))/2)^L), and it does not increase from the "
    "first token to token n - 1: earlier tokens have more paths.",
    latex=latex_of_derivation("uniform-path-sum"),
    expected="verified",
    section="Theorem 5.1, Proposition B.8",
    assumptions=("uniform causal attention C at every layer", "β_1 = β_2 = 1, β_3^(1/L) = 4, σ_ψ = 1"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, moments: Callable[[int, int], list] | None = None) -> Evidence:
    """Three exact routes and the monotonicity of the path sum; ``moments(count, L)`` replaces
    the Hausdorff moments under test (false versions for the tests)."""
    moments = moments or uniform_moments
    mismatches = monotone = cases = 0
    first: str | None = None
    for (n, L), paths in [(c, True) for c in PATH_GRID] + [(c, False) for c in ROLLOUT_GRID]:
        p, bad = _compare(n, L, moments, paths)
        cases += 1
        if bad:
            mismatches += 1
            first = first or f"n={n}, L={L}: {', '.join(bad)} differ from the λ = 1/2 rollout"
        drops = [j + 1 for j in range(n - 2) if p[j] < p[j + 1]]
        if drops:
            monotone += 1
            first = first or f"n={n}, L={L}: p({drops[0]}) < p({drops[0] + 1})"
    derivs = [derivation_by_name(name) for name in ("hausdorff-algebra", "uniform-path-sum")]
    figures: dict[str, Any] = {"route_mismatches": mismatches, "monotone_failures": monotone,
                               "symbolic_proven": all(d.proven for d in derivs)}
    verdict = RULE.apply(figures).verdict
    p64 = cesaro_profile_exact(64, [Fraction(1, 2)] * 24)
    return Evidence(
        verdict,
        method="exact Fractions: enumerated paths of (C+I)/2 vs λ = 1/2 Cesàro propagation vs "
        "Hausdorff entry formula; sympy (hausdorff-algebra, uniform-path-sum)",
        discrepancy="0 (exact)" if verdict == "verified" else None, precision="exact",
        tolerance="exact equality", cases=cases,
        counterexample=first if verdict == "refuted" else None,
        parameters={"paths grid (n, L)": [list(c) for c in PATH_GRID],
                    "rollout grid (n, L)": [list(c) for c in ROLLOUT_GRID]},
        details={"symbolic": {d.name: d.proof_status for d in derivs},
                 "n = 64, L = 24": {"p(1)": f"{float(p64[0]):.6g}", "p(32)": f"{float(p64[31]):.4g}",
                                    "p(63)": f"{float(p64[62]):.4g}", "p(64)": f"{float(p64[63]):.4g}",
                                    "p(64) = ((1 + 1/64)/2)^24": f"{float(uniform_moments(64, 24)[63]):.4g}"}},
        figures=figures)
