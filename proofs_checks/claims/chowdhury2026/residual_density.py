"""chowdhury2026:residual-density (C5): with residuals the influence density is the atom
``(1-α)^H`` at x = 1 plus the binomial mixture
``Σ_k C(H,k) α^k (1-α)^(H-k) (ln 1/x)^(k-1)/(k-1)!``.

The abstract ("residual connections create an isolated O(1) anchor at the final token") and
docs/explanation/mathematics.rst C5: the Cesàro model with residuals, constant α, in the continuum.

The check compares the exact last rows of ``N^H`` (Fractions; α 1/4, 1/2, 3/4, H 3, 6,
L = 64..512) with the stated atom and continuous part: the closed form of the last entry,
Bernoulli's bound on its distance to the atom, the interior error against the mixture (sympy,
lambdified to mpmath) and its rate over L, and the continuous part's mass (mpmath.quad) against
``1 - (1-α)^H``.
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
    ANALYTIC_DEPTH,
    ANALYTIC_RULES_FIXED,
    MODEL,
    NOT_READ,
    MpFunction,
    continuous_part,
    error_growth,
    error_rate,
    fraction_mpf,
    interior_errors,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """C5: an identity failure, the atom off Bernoulli's bound, no O(1/L) rate or a mass off by
    more than mass_wrong_digits refutes; the mass to mass_digits verifies; between, inconclusive
    (raise dps)."""
    exact_ok = (f["identity_failures"] == 0 and f["atom_low"] >= 0
                and f["atom_gap"] <= t["bernoulli"])
    if not exact_ok or f["growth"] > t["growth_max"] or f["mass_digits"] < t["mass_wrong_digits"]:
        return "refuted"
    return "verified" if f["mass_digits"] >= t["mass_digits"] else "inconclusive"


RULE = Rule(
    text="For every α in {1/4, 1/2, 3/4}, H in {3, 6}, L in {64, 128, 256, 512} (exact N^H last "
    "rows): identity_failures counts p(L) != (1-α+α/L)^H; atom_low and atom_gap: the smallest and "
    "largest (p(L) - a)·L/(Hα) with a the stated atom (1-α)^H (Bernoulli: both in [0, 1] when "
    "the atom is right); growth: "
    "the largest L·err(L) ratio per doubling of the interior error against the stated "
    "continuous part over the last two doublings; mass_digits: the digits to which the "
    "continuous part's mass (mpmath.quad) equals 1 - a. verified: no failure, atom_low >= 0, "
    "atom_gap <= bernoulli, growth <= growth_max, mass_digits >= mass_digits (dps - 10); refuted: a "
    "failure, atom_low < 0 or atom_gap > 1, growth > growth_max or mass_digits < mass_wrong_digits "
    "(a wrong density or atom); inconclusive: the mass agrees to more than mass_wrong_digits "
    "but fewer than dps - 10 digits (raise dps).",
    decide=decide,
    thresholds={
        "growth_max": Threshold(1.1, "largest L·err(L) ratio per doubling read as O(1/L)",
                                sensitive=1.05),
        "bernoulli": Threshold(1, "Bernoulli's bound (1-α+α/L)^H - (1-α)^H <= Hα/L",
                               scale="fixed"),
        "mass_digits": Threshold(20, "digits of agreement of the continuous mass with "
                                 "1 - (1-α)^H (dps - 10)", scale="int", sensitive=2,
                                 domain=(1, None)),
        "mass_wrong_digits": Threshold(3, "below this many digits the mass is wrong, not short "
                                       "of precision", scale="int", sensitive=1, domain=(1, None)),
    },
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("the mixture and the atom (1-α)^H at dps 30", {
            "identity_failures": 0, "atom_low": 0.00099, "atom_gap": 0.565,
            "growth": 0.996, "mass_digits": 27.5}, "verified", "realistic"),
        Example("false: the atom (1-α)^(H+1) (p(L) stays α(1-α)^H above it; mass off)", {
            "identity_failures": 0, "atom_low": 0.0037, "atom_gap": 72.6,
            "growth": 0.996, "mass_digits": 1.0}, "refuted", "false"),
        Example("false: the density shifted to c(0.9x) (interior error O(1), mass off)", {
            "identity_failures": 0, "atom_low": 0.00099, "atom_gap": 0.565,
            "growth": 4.06, "mass_digits": 1.0}, "refuted", "false"),
        Example("the right density with a quadrature short of precision (12 digits)", {
            "identity_failures": 0, "atom_low": 0.00099, "atom_gap": 0.565,
            "growth": 0.996, "mass_digits": 12}, "inconclusive", "realistic"),
    ),
    fixed=ANALYTIC_RULES_FIXED,
    deciding=("growth", "atom_gap", "mass_digits"),
    no_paper_figures="the paper states the density as a formula and reports no figure of it",
)


CARD = Card(
    paper=Setting("abstract ('residual connections create an isolated O(1) anchor at the "
                  "final token'); docs/explanation/mathematics.rst C5 (the mixture density)", architecture=MODEL,
                  residual="on", mask="causal", pe="none", alpha="constant", L="continuum (L → ∞)",
                  H=ANALYTIC_DEPTH, note=NOT_READ),
    test=Setting("exact N^H last rows (Fractions) vs the sympy mixture density (mpmath at dps); "
                 "its mass by mpmath.quad in the continuum", architecture=MODEL, residual="on",
                 mask="causal", pe="none", alpha="constant", L=(64, 128, 256, 512), H=(3, 6),
                 grid="α 1/4, 1/2, 3/4"),
    proof=ProofStatus("range", "H = 1..12", note="the mixture's Mellin moments (hence its mass) "
                      "are proven exactly for H = 1..12 (derivation residual-mixture); the check "
                      "itself is numeric at H = 3, 6"),
)


@claim(
    "chowdhury2026:residual-density",
    statement="With residuals the influence density is the atom (1-α)^H at x = 1 plus the "
    "binomial mixture Σ_k C(H,k) α^k (1-α)^(H-k) (ln 1/x)^(k-1)/(k-1)!.",
    latex=r"\rho(x)=(1-\alpha)^H\delta(1-x)+\sum_{k=1}^{H}\binom{H}{k}\alpha^k(1-\alpha)^{H-k}"
    r"\frac{(\ln 1/x)^{k-1}}{(k-1)!}",
    expected="verified",
    section="2 (C5)",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, density: Callable[[int, Fraction], MpFunction] | None = None,
          atom: Callable[[Fraction, int], Fraction] | None = None) -> Evidence:
    """C5: the exact last rows of ``N^H`` against the stated atom and continuous part.

    ``density(H, alpha)`` replaces the continuous part under test (an mpmath callable of x;
    default: the sympy mixture) and ``atom(alpha, H)`` the stated atom (a Fraction; default
    ``(1-α)^H``)."""
    density = density or continuous_part
    atom = atom or (lambda a, h: (1 - a) ** h)
    alphas = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))
    depths = (3, 6)
    lengths = (64, 128, 256, 512)
    slopes, growth, masses, digits = {}, {}, {}, {}
    failures, gaps = [], []
    with mpmath.workdps(ctx.dps):
        for alpha in alphas:
            for H in depths:
                c = density(H, alpha)
                a = atom(alpha, H)
                errs = []
                for L in lengths:
                    p = cesaro.cesaro_profile_exact(L, [alpha] * H)
                    # the last token carries the discrete atom exactly: (1 - α + α/L)^H
                    if p[-1] != (1 - alpha + alpha / L) ** H:
                        failures.append(f"α={alpha}, H={H}, L={L}: p(L) = {p[-1]}")
                    gaps.append(((p[-1] - a) * L / (H * alpha), f"α={alpha}, H={H}, L={L}"))
                    errs.append(interior_errors(p, c)[0])
                key = f"alpha={alpha},H={H}"
                slopes[key] = error_rate(lengths, errs)
                growth[key] = error_growth(lengths, errs)
                gap = abs(mpmath.quad(c, [0, 1]) - (1 - fraction_mpf(a)))
                masses[key] = nstr_or_zero(gap, 3)
                digits[key] = ctx.dps if gap == 0 else min(ctx.dps, float(-mpmath.log10(gap)))
    lo, hi = min(gaps), max(gaps)
    figures = {"identity_failures": len(failures), "atom_low": float(f"{float(lo[0]):.6g}"),
               "atom_gap": float(f"{float(hi[0]):.6g}"),
               "growth": round(max(growth.values()), 4),
               "mass_digits": round(min(digits.values()), 1)}
    over = {"mass_digits": ctx.dps - 10}
    verdict = RULE.apply(figures, **over).verdict
    common: dict[str, Any] = dict(
        method="exact N^H last rows (Fractions) vs the mixture density (mpmath); its mass by "
        "mpmath.quad", precision=f"exact, dps={ctx.dps}",
        discrepancy="rate exponent over the three largest L farthest from -1: "
        f"{max(slopes.values(), key=lambda s: abs(s + 1)):.3f}; mass of the continuous part vs "
        f"1 - atom: max {max(masses.values(), key=mpmath.mpf)}",
        tolerance=f"L·err(L) ratio per doubling <= 1.1; mass to {ctx.dps - 10} digits; "
        "0 <= (p(L) - atom)·L/(Hα) <= 1",
        cases=len(alphas) * len(depths) * len(lengths),
        worst_margin=f"largest L·err ratio per doubling = {figures['growth']:.3f}",
        parameters={"alphas": [str(a) for a in alphas], "depths": list(depths),
                    "lengths": list(lengths)},
        details={"rate_exponents": {k: round(v, 4) for k, v in slopes.items()},
                 "growth": {k: round(v, 4) for k, v in growth.items()},
                 "mass_discrepancy": masses},
        figures=figures, thresholds=over, rule=RULE.text)
    if verdict == "refuted":
        why = (failures[0] if failures else
               f"{hi[1]}: (p(L) - atom)·L/(Hα) = {float(hi[0]):.4g} > 1" if hi[0] > 1 else
               f"{lo[1]}: p(L) below the atom" if lo[0] < 0 else
               f"interior error not O(1/L): ratios {figures['growth']:.3g}" if figures["growth"] > 1.1
               else f"mass of the continuous part differs from 1 - atom: {masses}")
        return Evidence("refuted", counterexample=why, **common)
    return Evidence(verdict, **common)
