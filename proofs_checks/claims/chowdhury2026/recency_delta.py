"""chowdhury2026:recency-delta (C5): the last token keeps an atom ``(1-α)^H`` of influence that
does not vanish as L grows (O(1) in L; it decays geometrically in H).

The abstract ("residual connections create an isolated O(1) anchor at the final token (the
Recency Delta)") and docs/explanation/mathematics.rst C5: the Cesàro model with residuals, constant α.

The check computes the exact last entry ``p(L)`` of ``N^H`` (Fractions) for α 1/10, 1/2, 9/10
at H 1, 4, 12 and for the residual α of the paper's architectures at its depth H = 24, at
L = 2, 16, 128, 1024, against the closed form ``(1-α+α/L)^H``, the stated atom (never above
``p(L)``, approached monotonically) and Bernoulli's bound ``p(L) - (1-α)^H <= Hα/L``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from posbias.numerics import cesaro
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import nstr_or_zero
from posbias.proofs_checks.claims.chowdhury2026._analytic import (
    ANALYTIC_DEPTH,
    ANALYTIC_RULES_FIXED,
    MODEL,
    NOT_READ,
    RESIDUAL_ALPHAS,
    fraction_mpf,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RECENCY_DEPTHS", "RECENCY_GRID", "RECENCY_LENGTHS", "RULE", "check", "decide"]

#: the context lengths of the grid
RECENCY_LENGTHS = (2, 16, 128, 1024)
#: (α, H) of the grid: α 1/10, 1/2, 9/10 at H 1, 4, 12 and the residual α at the paper's H = 24
RECENCY_GRID = tuple((a, h) for a in (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10))
                     for h in (1, 4, 12)) + tuple((a, ANALYTIC_DEPTH) for a in RESIDUAL_ALPHAS)
RECENCY_DEPTHS = (1, 4, 12, ANALYTIC_DEPTH)


def decide(f: Mapping, t: Mapping) -> str:
    """C5 atom: verified when every identity holds, p(L) never falls below the atom nor rises
    with L, and (p(L) - atom)·L/(Hα) stays within Bernoulli's bound; refuted otherwise."""
    ok = (f["identity_failures"] == 0 and f["below_atom"] == 0 and f["not_monotone"] == 0
          and f["bernoulli_max"] <= t["bernoulli"])
    return "verified" if ok else "refuted"


RULE = Rule(
    text="For every α in {1/10, 1/2, 9/10} at H in {1, 4, 12} and the paper's residual α "
    "(7/100, 1/10, 13/100) at its depth H = 24, L in {2, 16, 128, 1024} (exact last entries of "
    "N^H): "
    "identity_failures counts p(L) != (1-α+α/L)^H, below_atom counts p(L) < a with a the "
    "stated atom (1-α)^H, not_monotone counts p(L) increasing in L, bernoulli_max = max "
    "(p(L) - a)·L/(Hα) (the distance to the atom is at most Hα/L: it vanishes as L grows). "
    "verified: no failure and bernoulli_max <= 1; refuted: any failure (the case is printed).",
    decide=decide,
    thresholds={"bernoulli": Threshold(1, "Bernoulli's bound: p(L) - (1-α)^H <= Hα/L",
                                       scale="fixed")},
    outcomes=("verified", "refuted"),
    examples=(
        Example("the atom (1-α)^H: p(L) = (1-α+α/L)^H exactly", {
            "identity_failures": 0, "below_atom": 0, "not_monotone": 0, "bernoulli_max": 1.0},
            "verified", "realistic"),
        Example("false: the atom (1-α)^(H+1) (p(L) stays α(1-α)^H above it)", {
            "identity_failures": 0, "below_atom": 0, "not_monotone": 0, "bernoulli_max": 922.6},
            "refuted", "false"),
        Example("false: the atom (1-α)^(H-1) (above p(L) at large L)", {
            "identity_failures": 0, "below_atom": 34, "not_monotone": 0, "bernoulli_max": 0.43},
            "refuted", "false"),
    ),
    fixed=ANALYTIC_RULES_FIXED,
    deciding=("identity_failures", "below_atom", "bernoulli_max"),
    no_paper_figures="the paper states the atom as a formula ('O(1)') and reports no value of it",
)


CARD = Card(
    paper=Setting("abstract ('residual connections create an isolated O(1) anchor at the final "
                  "token (the Recency Delta)'); docs/explanation/mathematics.rst C5", architecture=MODEL, residual="on",
                  mask="causal", pe="none", alpha="constant", L="continuum (L → ∞)",
                  H=ANALYTIC_DEPTH, note=NOT_READ),
    test=Setting("exact last entries of N^H (Fractions) at finite L against the closed form "
                 "(1-α+α/L)^H and the stated limit, with Bernoulli's bound on the distance",
                 architecture=MODEL, residual="on", mask="causal", pe="none", alpha="constant",
                 L=RECENCY_LENGTHS, H=RECENCY_DEPTHS,
                 grid="α 1/10, 1/2, 9/10 × H 1, 4, 12 and α 7/100, 1/10, 13/100 × H 24"),
    proof=ProofStatus("range", "the grid: α in {1/10, 1/2, 9/10} × H in {1, 4, 12} and α in "
                      "{7/100, 1/10, 13/100} × H = 24, L in {2, 16, 128, 1024}",
                      note="an exact identity on the grid; no "
                      "symbolic proof of p(L) = (1-α+α/L)^H for all L, H is in the code"),
)


@claim(
    "chowdhury2026:recency-delta",
    statement="The last token keeps an atom (1-α)^H of influence that does not vanish as L grows "
    "(O(1) in L; it decays geometrically in H).",
    latex=r"p(L)=\Bigl(1-\alpha+\frac{\alpha}{L}\Bigr)^{H}\xrightarrow[L\to\infty]{}(1-\alpha)^H",
    expected="verified",
    section="2 (C5)",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext,
          atom: Callable[[Fraction, int], Fraction] | None = None) -> Evidence:
    """C5 atom: the exact last entry ``p(L)`` of ``N^H`` against ``(1-α+α/L)^H`` and the stated
    limit; ``atom(alpha, H)`` replaces the stated atom (a Fraction; default ``(1-α)^H``)."""
    atom = atom or (lambda a, h: (1 - a) ** h)
    cases = 0
    bad: dict[str, list[str]] = {"identity_failures": [], "below_atom": [], "not_monotone": []}
    worst: Fraction | None = None
    worst_case = None
    atoms: dict[str, float] = {}
    for alpha, H in RECENCY_GRID:
        a = atom(alpha, H)
        prev = None
        for L in RECENCY_LENGTHS:
            pL = cesaro.cesaro_profile_exact(L, [alpha] * H)[-1]
            case = f"α={alpha}, H={H}, L={L}: p(L) = {nstr_or_zero(fraction_mpf(pL), 6)}"
            if pL != (1 - alpha + alpha / L) ** H:
                bad["identity_failures"].append(case)
            if pL < a:
                bad["below_atom"].append(case + f" < atom {nstr_or_zero(fraction_mpf(a), 6)}")
            if prev is not None and pL > prev:
                bad["not_monotone"].append(case)
            gap = (pL - a) * L / (H * alpha)
            if worst is None or gap > worst:
                worst, worst_case = gap, case
            prev = pL
            cases += 1
        if H == ANALYTIC_DEPTH and alpha in RESIDUAL_ALPHAS:
            atoms[str(alpha)] = float(f"{float(a):.4g}")
    assert worst is not None  # the grid is not empty
    figures: dict[str, Any] = {k: len(v) for k, v in bad.items()}
    figures["bernoulli_max"] = float(f"{float(worst):.6g}")
    figures["atom_at_H24"] = atoms
    verdict = RULE.apply(figures).verdict
    common: dict[str, Any] = dict(
        method="exact last entry of the rollout (Fractions) vs the closed form and its limit",
        precision="exact", tolerance="exact; 0 <= p(L) - atom <= Hα/L", cases=cases,
        worst_margin=f"max (p(L) - atom)·L/(Hα) = {figures['bernoulli_max']:.6g}",
        parameters={"grid": [f"α={a}, H={h}" for a, h in RECENCY_GRID],
                    "lengths": list(RECENCY_LENGTHS)},
        details={"atom_at_paper_depth": atoms}, figures=figures, rule=RULE.text)
    if verdict == "refuted":
        first = next((v[0] for v in bad.values() if v), None) or (
            f"{worst_case}: (p(L) - atom)·L/(Hα) = {float(worst):.4g} > 1 (p(L) does not approach "
            "the stated atom)")
        return Evidence("refuted", counterexample=first, **common)
    return Evidence("verified", discrepancy="0 (exact identity p(L) = (1-α+α/L)^H)", **common)
