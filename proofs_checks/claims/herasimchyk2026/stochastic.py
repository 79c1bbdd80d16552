"""herasimchyk2026:stochastic (H1): every residual-aware layer ``R(t) = (1-λ_t) I + λ_t A(t)`` and
every rollout ``P(T) = R(T)⋯R(1)`` of causal row-stochastic kernels is row-stochastic and
lower-triangular.

Setting: causal row-stochastic kernels ``A(t)`` and mixing coefficients ``λ_t ∈ [0, 1]``, any
length and depth (the residual-aware rollout of the paper, docs/explanation/mathematics.rst H1).

The check: seeded generated cases (positive, sparse, monotone and Cesàro kernel families, L up to
6, depth up to 5, λ on the grid {0, 1/4, ..., 1}) in exact Fractions.  Route 1: row sums, the
upper triangle and the signs of every layer and of the product, entry by entry.  Route 2: the
last row propagated as a row vector equals the last row of the full product.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from posbias.numerics.cases import random_family_layers_exact, random_schedule_exact
from posbias.numerics.kernels import rollout_last_row_exact, rollout_matrices_exact
from posbias.proofs_checks.cards import Example, Rule
from posbias.proofs_checks.claims._common import CaseSweep, show_value
from posbias.proofs_checks.claims.herasimchyk2026._shared import (
    Matrix,
    all_zero_verdict,
    as_arg,
    case_generator,
    decided,
    format_case,
    property_card,
    sweep_sizes,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "stochastic_margins"]

_FIGS = ("max |row sum - 1|", "max |entry above the diagonal|", "negative entries", "last-row mismatches")


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when every figure is 0 (exact), else refuted."""
    return all_zero_verdict(f, _FIGS)


RULE = Rule(
    text="verified when every generated layer R(t) and rollout P(T) has row sums exactly 1, no entry above "
    "the diagonal, no negative entry, and its propagated last row equals the product's (exact Fractions: "
    "every figure must be 0); refuted by the first case that breaks one (printed)",
    decide=decide,
    examples=(
        Example("the generated cases of posbias' families: every figure 0",
                dict(zip(_FIGS, (0, 0, 0, 0))), "verified", "realistic"),
        Example("the residual weight forgotten on the attention term: R = (1-λ)I + A (row sums 2-λ)",
                dict(zip(_FIGS, (Fraction(3, 4), 0, 0, 0))), "refuted", "false"),
        Example("a bidirectional (non-causal) kernel: entries above the diagonal",
                dict(zip(_FIGS, (0, Fraction(1, 3), 0, 0))), "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=_FIGS,
    no_paper_figures="an exact property: the paper states it for all kernels and reports no figures",
)

CARD = property_card("docs/explanation/mathematics.rst H1 (the residual-aware rollout is a product of causal stochastic "
                     "matrices)", "causal row-stochastic (positive, sparse, monotone, Cesàro families)")


def stochastic_margins(matrices: Sequence[Matrix]) -> tuple:
    """``(max |row sum - 1|, max |entry above the diagonal|, min entry)`` over exact matrices;
    ``(0, 0, x >= 0)`` means all are row-stochastic and lower-triangular."""
    worst_sum = worst_upper = Fraction(0)
    min_entry = None
    for M in matrices:
        L = len(M)
        for i in range(L):
            worst_sum = max(worst_sum, abs(sum(M[i], Fraction(0)) - 1))
            for j in range(L):
                if j > i:
                    worst_upper = max(worst_upper, abs(M[i][j]))
                min_entry = M[i][j] if min_entry is None else min(min_entry, M[i][j])
    return worst_sum, worst_upper, min_entry


def _case_matrices(ks: list, lams: list, L: int, T: int,
                   layer: Callable[[Matrix, Fraction], Matrix] | None) -> tuple[list, list]:
    """The product ``P(T)`` and layers of one case, ``(products, matrices to check)``: built by
    the package's exact rollout (the default layer), or by an injected layer rule and its
    product."""
    if layer is None:
        Ps = rollout_matrices_exact(as_arg(ks, T), lams)
        mats = [Ps[-1]]
        for A, lam in zip(ks, lams):
            mats.append([[(1 - lam) * (i == j) + lam * A[i][j] for j in range(L)] for i in range(L)])
        return Ps, mats
    # an injected layer rule: its layers and their product
    Rs = [layer(A, lam) for A, lam in zip(ks[:T], lams)]
    P = [[Fraction(int(i == j)) for j in range(L)] for i in range(L)]
    for R in Rs:  # P(t) = R(t) P(t-1)
        P = [[sum((R[i][k] * P[k][j] for k in range(L)), Fraction(0)) for j in range(L)] for i in range(L)]
    return [P], [P, *Rs]


@claim(
    "herasimchyk2026:stochastic",
    statement="Every residual-aware layer R(t) = (1-λ_t)I + λ_t A(t) and every rollout "
    "P(T) = R(T)...R(1) of causal row-stochastic kernels is row-stochastic and lower-triangular.",
    latex=r"R(t) = (1-\lambda_t) I + \lambda_t A(t),\quad P(T) = R(T)\cdots R(1):\quad "
    r"P(T)\mathbf{1} = \mathbf{1},\ P(T)_{ij} \ge 0,\ P(T)_{ij} = 0 \ (j > i)",
    expected="verified",
    section="H1",
    assumptions=("A(t) causal (lower-triangular) and row-stochastic", "λ_t ∈ [0, 1]"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, layer: Callable[[Matrix, Fraction], Matrix] | None = None) -> Evidence:
    """``layer(A, lam) -> R``: how a residual layer is built (default ``(1-λ)I + λA``); a power
    test passes a false one (e.g. ``(1-λ)I + A``)."""
    rng = case_generator(ctx, "stochastic")
    n, maxL, maxT = sweep_sizes(ctx)
    kinds = ("positive", "sparse", "monotone", "cesaro")
    sweep = CaseSweep()
    last_row_mismatch = negative = 0
    for _ in range(n):
        sweep.case()
        L, T = rng.randint(1, maxL), rng.randint(0, maxT)
        ks = random_family_layers_exact(rng, L, T, rng.choice(kinds))
        lams = random_schedule_exact(rng, T)
        Ps, mats = _case_matrices(ks, lams, L, T, layer)
        ms, mu, me = stochastic_margins(mats)
        sweep.high("row sum", ms)  # max |row sum - 1|
        sweep.high("upper", mu)  # max |entry above the diagonal|
        sweep.low("entry", me)
        # second route: the propagated last row equals the last row of the full product
        if layer is None and rollout_last_row_exact(as_arg(ks, T), lams) != Ps[-1][-1]:
            last_row_mismatch += 1
        if me < 0:
            negative += 1
        if ms or mu or me < 0:
            sweep.fail(lambda ks=ks, T=T, lams=lams: format_case(ks[:T], lams))
    worst_sum, worst_upper, min_entry = sweep.most["row sum"], sweep.most["upper"], sweep.worst["entry"]
    ok = last_row_mismatch == 0
    if not ok:
        sweep.fail(f"{last_row_mismatch} propagated last rows differ from the product's")
    figures = dict(zip(_FIGS, (worst_sum, worst_upper, negative, last_row_mismatch)))
    ev = sweep.evidence(
        method="exact Fraction products of generated layers; row sums, upper triangle and signs "
        "checked entry by entry; propagated last row vs full product",
        rule="verified when every generated layer and rollout has row sums exactly 1, no entry "
        "above the diagonal, no negative entry, and its propagated last row equals the product's; "
        "refuted by the first case that breaks one of these (printed)",
        ok=ok,
        discrepancy="0 (exact)" if ok and sweep.clean else f"max |row sum - 1| = {show_value(worst_sum)}",
        tolerance="0 (exact equality)",
        worst_margin=f"max|row sum - 1| = {show_value(worst_sum)}, max|P_ij| (j>i) = {show_value(worst_upper)}, "
        f"min entry = {show_value(min_entry)}",
        parameters={"cases": n, "L": f"1..{maxL}", "T": f"0..{maxT}", "λ grid": "{0,1/4,...,1}",
                    "kernels": list(kinds)},
        details={"last_row_mismatches": last_row_mismatch},
    )
    return decided(ev, RULE, figures, ctx)
