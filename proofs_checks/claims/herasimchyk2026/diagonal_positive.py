"""herasimchyk2026:diagonal-positive (H4): for causal kernels the rollout diagonal is
``P(T)[i,i] = Π_t (1 - λ_t (1 - A(t)[i,i]))``; it is strictly positive at every finite depth
unless some layer is attention-only (``λ_t = 1``) with ``A(t)[i,i] = 0``, which softmax attention
(positive entries) excludes.

Setting: causal row-stochastic kernels and ``λ_t ∈ [0, 1]`` (docs/explanation/mathematics.rst H4, the
diagonal product of the infinite-depth analysis).

The check: seeded generated cases (positive, sparse and monotone kernels) in exact Fractions.
Route 1: the diagonal of the full product.  Route 2: the product formula, entry by entry.  The
positivity of each entry is compared with the predicted condition.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction

from posbias.numerics.cases import random_family_layers_exact, random_schedule_exact
from posbias.numerics.kernels import rollout_matrices_exact
from posbias.proofs_checks.cards import Example, Rule
from posbias.proofs_checks.claims._common import CaseSweep, show_value
from posbias.proofs_checks.claims.herasimchyk2026._shared import (
    all_zero_verdict,
    as_arg,
    case_generator,
    decided,
    format_case,
    property_card,
    sweep_sizes,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "diagonal_mismatches"]

_FIGS = ("formula mismatches", "positivity mismatches")


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when both mismatch counts are 0 (exact), else refuted."""
    return all_zero_verdict(f, _FIGS)


RULE = Rule(
    text="verified when, in every generated case, the exact rollout diagonal equals the product formula "
    "Π_t (1 - λ_t (1 - A(t)[i,i])) and is positive exactly when no layer has λ_t = 1 and A(t)[i,i] = 0 "
    "(both mismatch counts 0); refuted by the first case with a mismatch (printed)",
    decide=decide,
    examples=(
        Example("the generated cases: the formula holds entry by entry", {"formula mismatches": 0,
                "positivity mismatches": 0}, "verified", "realistic"),
        Example("the wrong product Π_t (1 - λ_t A(t)[i,i]) (the residual and attention weights swapped)",
                {"formula mismatches": 290, "positivity mismatches": 0}, "refuted", "false"),
        Example("non-causal kernels: the diagonal of the product is not the product of the diagonals",
                {"formula mismatches": 40, "positivity mismatches": 2}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=(*_FIGS, "smallest predicted-positive diagonal entry"),
    no_paper_figures="an exact identity: the paper states it for all causal kernels and reports no figures",
)

CARD = property_card("docs/explanation/mathematics.rst H4: the diagonal product P(T)[i,i] = Π_t (1 - λ_t (1 - A(t)[i,i])) of "
                     "the infinite-depth analysis", "causal row-stochastic (positive, sparse, monotone)")


def diagonal_mismatches(ks: list, lams: list, *, causal: bool = True,
                        factor: Callable[[Fraction, Fraction], Fraction] | None = None) -> tuple:
    """Compare the rollout diagonal with ``Π_t (1 - λ_t (1 - A(t)[i,i]))`` and its positivity
    with the condition "no layer with λ_t = 1 and A(t)[i,i] = 0".

    Returns ``(formula mismatches, positivity mismatches, smallest predicted-positive diagonal
    entry, number of vanishing entries)``.  ``causal=False`` admits non-causal kernels, for
    which the product formula is not expected to hold; ``factor(lam, a_ii)`` replaces the
    formula's factor ``1 - λ (1 - a_ii)`` (for power tests: a wrong product).
    """
    T = len(lams)
    L = len(ks[0])
    P = rollout_matrices_exact(as_arg(ks, T), lams, causal=causal)[-1]
    fac = factor or (lambda lam, a: 1 - lam * (1 - a))
    formula = [math.prod((fac(lams[t], ks[t][i][i]) for t in range(T)), start=Fraction(1))
               for i in range(L)]
    fm = sum(1 for i in range(L) if formula[i] != P[i][i])
    pm = 0
    min_pos = None
    zero = 0
    for i in range(L):
        predicted = not any(lams[t] == 1 and ks[t][i][i] == 0 for t in range(T))
        if (P[i][i] > 0) != predicted:
            pm += 1
        if predicted:
            min_pos = P[i][i] if min_pos is None else min(min_pos, P[i][i])
        else:
            zero += 1
    return fm, pm, min_pos, zero


@claim(
    "herasimchyk2026:diagonal-positive",
    statement="For causal kernels the rollout diagonal is P(T)[i,i] = Π_t (1 - λ_t (1 - A(t)[i,i])); "
    "it is strictly positive at every finite depth unless some layer is attention-only (λ_t = 1) "
    "with A(t)[i,i] = 0, which softmax attention (positive entries) excludes.",
    latex=r"P(T)_{ii} = \prod_{t=1}^{T}\big(1 - \lambda_t (1 - A(t)_{ii})\big) > 0 "
    r"\iff \neg\exists\, t:\ \lambda_t = 1 \wedge A(t)_{ii} = 0",
    expected="verified",
    section="H4",
    assumptions=("A(t) causal and row-stochastic", "λ_t ∈ [0, 1]"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, factor: Callable[[Fraction, Fraction], Fraction] | None = None) -> Evidence:
    """``factor(lam, a_ii)``: the formula's factor (default ``1 - λ(1 - a_ii)``); a power test
    passes a wrong one."""
    rng = case_generator(ctx, "diagonal-positive")
    n, maxL, maxT = sweep_sizes(ctx)
    sweep = CaseSweep()
    formula_mismatch = 0
    positivity_mismatch = 0
    zero_cases = 0
    for _ in range(n):
        sweep.case()
        L, T = rng.randint(1, maxL), rng.randint(0, maxT)
        ks = random_family_layers_exact(rng, L, T, rng.choice(("positive", "sparse", "sparse", "monotone")))
        lams = random_schedule_exact(rng, T)
        fm, pm, mp, zc = diagonal_mismatches(ks[:T] if T else ks[:1], lams, factor=factor)
        formula_mismatch += fm
        positivity_mismatch += pm
        zero_cases += zc
        sweep.low("diagonal", mp)
        if fm or pm:
            sweep.fail(lambda ks=ks, T=T, lams=lams: format_case(ks[:T], lams))
    min_pos = sweep.worst.get("diagonal")
    figures = {"formula mismatches": formula_mismatch, "positivity mismatches": positivity_mismatch,
               "smallest predicted-positive diagonal entry": min_pos}
    ev = sweep.evidence(
        method="exact diagonal of the full Fraction product vs the product formula; positivity "
        "vs the predicted condition",
        rule="verified when, in every generated case, the rollout diagonal equals the product "
        "formula exactly and is positive exactly when no layer has λ_t = 1 and A(t)[i,i] = 0; "
        "refuted by the first case with a mismatch (printed)",
        discrepancy="0 (exact)" if sweep.clean else f"{formula_mismatch} formula and {positivity_mismatch} "
        "positivity mismatches",
        tolerance="0 (exact equality)",
        worst_margin=f"smallest predicted-positive diagonal entry = {show_value(min_pos)}",
        parameters={"cases": n, "L": f"1..{maxL}", "T": f"0..{maxT}", "λ grid": "{0,1/4,...,1}"},
        details={
            "diagonal entries that vanish (λ_t = 1 and A(t)[i,i] = 0)": zero_cases,
            "note": "for general causal kernels the diagonal can vanish; positivity at every finite "
            "depth needs λ_t < 1 or A(t)[i,i] > 0 in each layer",
        },
    )
    return decided(ev, RULE, figures, ctx)
