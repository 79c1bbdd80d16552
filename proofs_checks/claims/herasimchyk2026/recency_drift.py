"""herasimchyk2026:recency-drift (H2b): residual connections give recency drift: under
stochastically monotone causal kernels the residual-aware profile
``e_L Π_t ((1-λ_t) I + λ_t A(t))`` first-order dominates the attention-only profile
``e_L Π_t A(t)`` at equal depth.

Setting: causal, row-stochastic, stochastically monotone kernels and ``λ_t ∈ [0, 1]``
(docs/explanation/mathematics.rst H2(b), one of the paper's four forces).

The check: seeded generated cases of monotone kernels in exact Fractions; the profile with the
schedule λ and the one with every ``λ_t = 1`` on the same kernels, compared by their exact CDFs.
Beside it, non-monotone kernels are searched for a failure (the premise matters).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction

from posbias.numerics.cases import (
    random_family_kernel_exact,
    random_family_layers_exact,
    random_schedule_exact,
)
from posbias.numerics.compare import Dominance, stochastically_dominates
from posbias.numerics.kernels import rollout_last_row_exact
from posbias.proofs_checks.cards import Example, Rule
from posbias.proofs_checks.claims._common import CaseSweep, show_value
from posbias.proofs_checks.claims.herasimchyk2026._shared import (
    as_arg,
    case_generator,
    decided,
    format_case,
    property_card,
    sweep_sizes,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "recency_drift_dominance"]

_FIG = "min over cases of min_k (F_attn(k) - F_res(k))"


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when the smallest CDF margin over all cases is >= 0, else refuted."""
    return "verified" if f[_FIG] >= 0 else "refuted"


RULE = Rule(
    text="verified when, in every generated case of stochastically monotone kernels, the residual-aware "
    "profile first-order dominates the attention-only one on the same kernels: the smallest exact CDF "
    "margin min_k (F_attn(k) - F_res(k)) over all cases is >= 0; refuted when it is negative (the case "
    "is printed)",
    decide=decide,
    examples=(
        Example("monotone kernels: margin 0 (T = 0, L = 1 or λ ≡ 1 cases coincide), every case dominates",
                {_FIG: Fraction(0), "failing cases": 0}, "verified", "realistic"),
        Example("kernels that are not stochastically monotone: the attention-only profile ends later "
                "(margin -1/4)", {_FIG: Fraction(-1, 4), "failing cases": 5}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=(_FIG, "failing cases"),
    no_paper_figures="an exact property: the paper proves it for monotone kernels and reports no figures",
)

CARD = property_card("docs/explanation/mathematics.rst H2(b): residual connections give recency drift (one of the paper's four "
                     "forces)", "causal, row-stochastic, stochastically monotone (row CDFs ordered)")


def recency_drift_dominance(ks: list, lams: list) -> Dominance:
    """Dominance of the residual-aware profile (schedule ``lams``) over the attention-only one
    (every ``λ_t = 1``) on the same kernels ``ks``."""
    T = len(lams)
    residual = rollout_last_row_exact(as_arg(ks, T), lams)
    attention = rollout_last_row_exact(as_arg(ks, T), [Fraction(1)] * T)
    return stochastically_dominates(residual, attention)


def _without_monotonicity(rng: random.Random, n: int, maxL: int, maxT: int) -> tuple:
    """Search ``n`` cases of non-monotone (sparse) kernels for a failure; returns ``(failures,
    first counterexample)``."""
    free_fail, free_example = 0, None
    for _ in range(n):
        L, T = rng.randint(3, max(3, maxL)), rng.randint(2, max(2, maxT))
        ks = [random_family_kernel_exact(rng, L, "sparse") for _ in range(T)]
        lams = [Fraction(rng.randint(0, 4), 4) for _ in range(T)]
        if not recency_drift_dominance(ks, lams).dominates:
            free_fail += 1
            if free_example is None:
                free_example = format_case(ks, lams)
    return free_fail, free_example


@claim(
    "herasimchyk2026:recency-drift",
    statement="Residual connections give recency drift: under stochastically monotone causal "
    "kernels the residual-aware profile e_L Π_t((1-λ_t)I + λ_t A(t)) stochastically dominates the "
    "attention-only profile e_L Π_t A(t) at equal depth.",
    latex=r"e_L^{\top} \prod_{t=T}^{1}\big((1-\lambda_t) I + \lambda_t A(t)\big) \succeq_{\mathrm{st}} "
    r"e_L^{\top} \prod_{t=T}^{1} A(t)",
    expected="verified",
    section="H2(b)",
    assumptions=("A(t) causal, row-stochastic and stochastically monotone", "λ_t ∈ [0, 1]"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, family: str = "monotone") -> Evidence:
    """``family``: the kernel family of the cases; the premise is ``monotone``, a power test passes
    one that is not (``sparse``)."""
    rng = case_generator(ctx, "recency-drift")
    n, maxL, maxT = sweep_sizes(ctx)
    sweep = CaseSweep()
    strict = 0  # cases with F_attn(k) > F_res(k) at every k < L
    for _ in range(n):
        sweep.case()
        L, T = rng.randint(1, maxL), rng.randint(0, maxT)
        ks = random_family_layers_exact(rng, L, T, family)[: max(T, 1)]
        lams = random_schedule_exact(rng, T)
        r = recency_drift_dominance(ks, lams)
        if sweep.low("drift", r.worst_margin) > 0:
            strict += 1
        if not r.dominates:
            sweep.fail(lambda ks=ks, T=T, lams=lams: format_case(ks[:T], lams))
    worst = sweep.worst["drift"]
    free_fail, free_example = _without_monotonicity(rng, n, maxL, maxT)
    figures = {_FIG: worst, "failing cases": sweep.failures}
    ev = sweep.evidence(
        method="exact Fraction profiles with schedule λ and with every λ_t = 1 on the same generated "
        "monotone kernels; first-order dominance of exact CDFs",
        rule="verified when, in every generated case of monotone kernels, the residual-aware profile "
        "first-order dominates the attention-only one on the same kernels (exact CDFs); refuted by "
        "the first case where it does not (printed)",
        tolerance="0 (exact comparison of CDFs)",
        worst_margin=f"min_k (F_attn(k) - F_res(k)) = {show_value(worst)} (>= 0 means recency drift)",
        parameters={"cases": n, "L": f"1..{maxL}", "T": f"0..{maxT}", "λ grid": "{0,1/4,...,1}"},
        details={
            "cases with a strict drift (margin > 0 at every k < L)": strict,
            "note on the worst margin": "0 is reached by cases where both profiles coincide (T = 0, "
            "L = 1, every λ_t = 1) or share a CDF value; dominance is still checked exactly in all",
            "non-monotone kernels tried": n,
            "non-monotone failures": free_fail,
            "non-monotone counterexample": free_example,
            "kernel family of the cases": family,
        },
    )
    if family != "monotone":
        ev.setting = {"kernel": f"{family} (outside the claim's premise)"}
    return decided(ev, RULE, figures, ctx)
