"""herasimchyk2026:constant-residual-collapse (H4): a constant mixing coefficient λ ∈ (0, 1] does
not prevent collapse onto the first token (first column bounded below); it only slows it: for the
Cesàro kernel ``1 - P(T)[L,1] = (L-1)(1-λ/2)^T (1 + o(1))``, below the product bound
``(1-λ/L)^T``.

Setting: causal kernels with a first column bounded below, one constant λ in every layer
(docs/explanation/mathematics.rst H4); the test takes the Cesàro kernel (uniform causal attention), one member
of the class.

The check: on a grid of L and λ, at every depth t <= T, the exact Fraction rollout tail
``1 - P(t)[L,1]`` (route 1) against the exact Hausdorff alternating sum (route 2), below the
product bound and strictly decreasing; the leading term of the rate against the tail at depth
200/λ + 200 in mpmath (60 digits).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import mpmath

from posbias.numerics.kernels import uniform_causal_kernel_exact
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import show_value
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "hausdorff_tail"]

_COUNTS = ("rollout/Hausdorff mismatches", "bound failures", "non-decreasing steps")
_LEAD = "max |ratio - 1| of the leading term at depth 200/λ+200"


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when the three failure counts are 0 and the leading term agrees within lead_tol;
    else refuted."""
    ok = all(f[n] == 0 for n in _COUNTS) and f[_LEAD] < t["lead_tol"]
    return "verified" if ok else "refuted"


RULE = Rule(
    text="verified when, for every L and λ of the grid and every depth t <= T, the exact rollout tail "
    "1 - P(t)[L,1] equals the exact Hausdorff sum, lies below (1-λ/L)^t and strictly decreases in t (the "
    "three failure counts 0), and the leading term (L-1)(1-λ/2)^t matches the tail within lead_tol "
    "(relative) at depth 200/λ+200 (mpmath, 60 digits); refuted otherwise (failure counts printed)",
    decide=decide,
    thresholds={"lead_tol": Threshold(1e-6, "relative agreement of the leading term with the tail at depth "
                                      "200/λ+200", scale="log", sensitive=100.0)},
    examples=(
        Example("the Cesàro grid: exact agreement, the bound holds, leading term to 4e-17",
                {"rollout/Hausdorff mismatches": 0, "bound failures": 0, "non-decreasing steps": 0, _LEAD: 3.7e-17},
                "verified", "realistic"),
        Example("the bound with the wrong product (1-λ/2)^T: below the tail (L-1)(1-λ/2)^T for L >= 3",
                {"rollout/Hausdorff mismatches": 0, "bound failures": 450, "non-decreasing steps": 0, _LEAD: 3.7e-17},
                "refuted", "false"),
        Example("the wrong rate (L-1)(1-λ/L)^T: the leading term misses the tail by orders of magnitude",
                {"rollout/Hausdorff mismatches": 0, "bound failures": 0, "non-decreasing steps": 0, _LEAD: 1.0},
                "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=(*_COUNTS, _LEAD),
    no_paper_figures="the paper states that a constant λ only slows the collapse; the Cesàro rate is "
    "posbias' exact refinement, with no figure of the paper to feed",
)

CARD = Card(
    paper=Setting("docs/explanation/mathematics.rst H4 (a constant λ > 0 does not prevent collapse, it only slows it)",
                  kernel="causal, first column bounded below", residual="on: constant λ",
                  mask="causal", L="any", layers="any", grid="λ ∈ (0, 1]", unconfirmed=("kernel",),
                  note="theorem/proposition number not confirmed here"),
    test=Setting("exact Fraction rollouts of the Cesàro kernel and the exact Hausdorff sum; the leading "
                 "term in mpmath", kernel="Cesàro (uniform causal), one member of the class",
                 residual="on: constant λ", mask="causal", grid="λ ∈ {1, 3/4, 1/2, 1/4, 1/10}",
                 L=(2, 3, 5, 8), layers="1..30"),
    proof=ProofStatus("numeric", note="exact checks on a grid of L, λ and depths; the rate's leading "
                      "term is checked numerically at one large depth"),
)


def hausdorff_tail(L: int, lam: Fraction, T: int) -> Fraction:
    """1 - (N^T)[L,1] for N = (1-λ)I + λM from the Hausdorff moments μ_j = (1-λ+λ/(j+1))^T:
    1 - P[n,0] = Σ_{j=1}^{n} (-1)^(j+1) C(n,j) μ_j with n = L-1 (an independent exact route)."""
    n = L - 1
    return sum(
        ((-1) ** (j + 1) * math.comb(n, j) * (1 - lam + lam / (j + 1)) ** T for j in range(1, n + 1)),
        Fraction(0),
    )


def _tails(L: int, lam: Fraction, T: int, b_ratio: Callable[[int, Fraction], Fraction]) -> dict:
    """The exact rollout tails ``1 - P(t)[L,1]``, t = 1..T, of the Cesàro kernel with constant
    ``lam``, each against the Hausdorff sum, the product bound ``b_ratio(L, lam)^t`` and the tail
    one layer earlier.  Returns the failure counts, the smallest bound margin and the last tail."""
    M = uniform_causal_kernel_exact(L)
    v = [Fraction(0)] * L
    v[-1] = Fraction(1)
    prev = Fraction(1)
    out: dict[str, Any] = {"cases": 0, "mismatches": 0, "bound failures": 0, "not decreasing": 0, "worst bound": None}
    for t in range(1, T + 1):
        # one more constant layer: v <- v N (all layers equal, so the order is immaterial)
        u = [sum((v[i] * M[i][j] for i in range(j, L)), Fraction(0)) for j in range(L)]
        v = [(1 - lam) * x + lam * y for x, y in zip(v, u)]
        tail = 1 - v[0]
        out["cases"] += 1
        if tail != hausdorff_tail(L, lam, t):
            out["mismatches"] += 1
        margin = b_ratio(L, lam) ** t - tail
        out["worst bound"] = margin if out["worst bound"] is None else min(out["worst bound"], margin)
        if margin < 0:
            out["bound failures"] += 1
        if L >= 2 and not tail < prev:
            out["not decreasing"] += 1
        prev = tail
    out["tail"] = tail
    return out


def _leading_term_error(L: int, lam: Fraction, l_ratio: Callable[[int, Fraction], Fraction]) -> mpmath.mpf:
    """``|tail / ((L-1) l_ratio(L, lam)^N) - 1|`` at the depth ``N = 200/λ + 200`` where the leading
    Hausdorff term dominates (μ_1 > μ_j for j >= 2); mpmath at 60 digits."""
    with mpmath.workdps(60):
        big = int(200 / float(lam)) + 200
        lm = mpmath.mpmathify(lam)
        exact_tail = mpmath.fsum(
            (-1) ** (j + 1) * math.comb(L - 1, j) * (1 - lm + lm / (j + 1)) ** big
            for j in range(1, L)
        )
        ratio = exact_tail / ((L - 1) * mpmath.mpmathify(l_ratio(L, lam)) ** big)
        return abs(ratio - 1)


@claim(
    "herasimchyk2026:constant-residual-collapse",
    statement="A constant mixing coefficient λ ∈ (0,1] does not prevent collapse onto the first "
    "token (first column bounded below); it only slows it: for the Cesàro kernel "
    "1 - P(T)[L,1] = (L-1)(1-λ/2)^T (1 + o(1)), below the product bound (1-λ/L)^T.",
    latex=r"1 - \big(((1-\lambda)I + \lambda M)^T\big)_{L1} = \sum_{j=1}^{L-1} (-1)^{j+1}\binom{L-1}{j}"
    r"\Big(1-\lambda+\frac{\lambda}{j+1}\Big)^{T} \sim (L-1)\Big(1-\frac{\lambda}{2}\Big)^{T} "
    r"\le \Big(1-\frac{\lambda}{L}\Big)^{T}",
    expected="verified",
    section="H4",
    assumptions=("Cesàro kernel M (uniform causal attention) in every layer", "constant λ ∈ (0, 1]"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *,
          bound_ratio: Callable[[int, Fraction], Fraction] | None = None,
          lead_ratio: Callable[[int, Fraction], Fraction] | None = None) -> Evidence:
    """``bound_ratio(L, lam)``: the ratio of the claimed product bound (default ``1 - λ/L``);
    ``lead_ratio(L, lam)``: the ratio of the claimed leading term (default ``1 - λ/2``); power
    tests pass wrong ones."""
    b_ratio = bound_ratio or (lambda L, lam: 1 - lam / L)
    l_ratio = lead_ratio or (lambda L, lam: 1 - lam / 2)
    lams = [Fraction(1), Fraction(3, 4), Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]
    Ls = [2, 3, 5, 8] + ([12, 16] if ctx.thorough else [])
    T = 60 if ctx.thorough else 30
    mismatches = bound_fail = not_decreasing = 0
    asymptotic_err = mpmath.mpf(0)
    worst_bound = None
    rates = {}
    cases = 0
    for L in Ls:
        for lam in lams:
            s = _tails(L, lam, T, b_ratio)
            cases += s["cases"]
            mismatches += s["mismatches"]
            bound_fail += s["bound failures"]
            not_decreasing += s["not decreasing"]
            worst_bound = s["worst bound"] if worst_bound is None else min(worst_bound, s["worst bound"])
            tail = s["tail"]
            lead = (L - 1) * l_ratio(L, lam) ** T
            asymptotic_err = max(asymptotic_err, _leading_term_error(L, lam, l_ratio))
            rates[f"L={L}, λ={lam}"] = (
                f"(1-P[L,1])/((L-1)(1-λ/2)^T) = {show_value(tail / lead)}, "
                f"bound/(1-P[L,1]) = {show_value(b_ratio(L, lam) ** T / tail)} at T={T}"
            )
    figures = {"rollout/Hausdorff mismatches": mismatches, "bound failures": bound_fail,
               "non-decreasing steps": not_decreasing, _LEAD: float(mpmath.nstr(asymptotic_err, 3))}
    verdict = RULE.decide(figures, RULE.values())
    ok = verdict == "verified"
    return Evidence(
        verdict, figures=figures, setting=({"L": tuple(Ls), "layers": f"1..{T}"} if ctx.thorough else {}),
        method="exact Fraction rollout of the last row vs the exact Hausdorff alternating sum; "
        "product bound and strict decrease at every depth; leading term (L-1)(1-λ/2)^T at depth "
        "200/λ+200 in mpmath (dps 60)",
        discrepancy="0 (exact)" if mismatches == 0 else f"{mismatches} rollout/Hausdorff mismatches",
        precision="exact",
        tolerance="0 (exact equality)",
        counterexample=None if ok else f"{bound_fail} bound failures, {not_decreasing} non-decreasing steps",
        cases=cases,
        worst_margin=f"(1-λ/L)^T - (1 - P[L,1]) >= {show_value(worst_bound)}",
        parameters={"L": Ls, "λ": [str(x) for x in lams], "T": f"1..{T}"},
        details={
            "rule": "verified when, for every L and λ of the grid and every depth t <= T, the exact "
            "rollout tail 1 - P(t)[L,1] equals the exact Hausdorff sum, lies below (1-λ/L)^t and "
            "strictly decreases in t, and the leading term (L-1)(1-λ/2)^t matches the tail to 6 "
            "digits at depth 200/λ+200; refuted otherwise (failure counts printed)",
            "max |ratio - 1| of the leading term at depth 200/λ+200": mpmath.nstr(asymptotic_err, 3),
            "rate": "1 - P(T)[L,1] ~ (L-1)(1-λ/2)^T: geometric for every constant λ > 0, "
            "with ratio 1-λ/2 (attention-only: 1/2); the product bound's ratio 1-λ/L is much looser",
            **rates,
        },
    )
