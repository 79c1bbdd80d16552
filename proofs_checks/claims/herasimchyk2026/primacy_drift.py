"""herasimchyk2026:primacy-drift (H2a): causal masking gives primacy drift: under stochastically
monotone causal kernels, adding a layer on the output side moves the last-row profile to earlier
positions, ``e_L P(T)`` first-order dominates ``e_L R(T+1) P(T)``.

Setting: causal, row-stochastic, stochastically monotone kernels (row CDFs ordered) and
``λ_t ∈ [0, 1]``, attention-only and residual-aware layers (docs/explanation/mathematics.rst H2(a), one of
the paper's four forces).

The check: seeded generated cases of monotone kernels in exact Fractions; the profiles at depths
T and T+1 compared by their exact CDFs.  Beside it, the premise is probed: layer-dependent
kernels that are not monotone are searched for a failure, and a constant non-monotone kernel
(where the new layer acts on the input side) is confirmed never to fail.
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
from posbias.numerics.kernels import rollout_last_row_exact, stochastically_monotone
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

__all__ = ["CARD", "RULE", "check", "decide", "primacy_drift_dominance"]

_FIG = "min over cases of min_k (F_(T+1)(k) - F_T(k))"


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when the smallest CDF margin over all cases is >= 0, else refuted."""
    return "verified" if f[_FIG] >= 0 else "refuted"


RULE = Rule(
    text="verified when, in every generated case of stochastically monotone kernels, the profile at depth "
    "T first-order dominates the profile with layer T+1 added on the output side: the smallest exact CDF "
    "margin min_k (F_(T+1)(k) - F_T(k)) over all cases is >= 0; refuted when it is negative (the case is "
    "printed)",
    decide=decide,
    examples=(
        Example("monotone kernels (posbias' generator): margin 0 (reached where both profiles share a CDF value)",
                {_FIG: Fraction(0), "failing cases": 0}, "verified", "realistic"),
        Example("kernels that are not stochastically monotone, changing with depth: a layer on top moves "
                "mass later (margin -1/2)", {_FIG: Fraction(-1, 2), "failing cases": 9}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=(_FIG, "failing cases"),
    no_paper_figures="an exact property: the paper proves it for monotone kernels and reports no figures",
)

CARD = property_card("docs/explanation/mathematics.rst H2(a): causal masking gives primacy drift (one of the paper's four forces)",
                     "causal, row-stochastic, stochastically monotone (row CDFs ordered)")


def primacy_drift_dominance(ks: list, lams: list) -> Dominance:
    """Dominance of e_L P(T) over e_L P(T+1) for layers ks[0..T] (the last one is added on top)."""
    T = len(lams) - 1
    before = rollout_last_row_exact(as_arg(ks[:T], T) if T else ks[0], lams[:T])
    after = rollout_last_row_exact(ks, lams)
    return stochastically_dominates(before, after)


def _without_monotonicity(rng: random.Random, n: int, maxL: int, maxT: int) -> tuple:
    """Search ``n`` cases of layer-dependent non-monotone (sparse) kernels for a failure, and
    confirm that a constant non-monotone kernel (``P(T+1) = P(T) R``, a causal step on the input
    side) never fails.  Returns ``(failures, first counterexample, constant-kernel failures)``."""
    free_fail, free_example = 0, None
    const_fail = 0
    for _ in range(n):
        L, T = rng.randint(3, max(3, maxL)), rng.randint(1, maxT)
        ks = [random_family_kernel_exact(rng, L, "sparse") for _ in range(T + 1)]
        lams = random_schedule_exact(rng, T + 1)
        if not primacy_drift_dominance(ks, lams).dominates:
            free_fail += 1
            if free_example is None:
                mono = all(stochastically_monotone(A) for A in ks)
                free_example = format_case(ks, lams) + f" (all monotone: {mono})"
        A = random_family_kernel_exact(rng, L, "sparse")
        lam = Fraction(rng.randint(1, 4), 4)
        if not primacy_drift_dominance([A] * (T + 1), [lam] * (T + 1)).dominates:
            const_fail += 1
    return free_fail, free_example, const_fail


@claim(
    "herasimchyk2026:primacy-drift",
    statement="Causal masking gives primacy drift: under stochastically monotone causal kernels, "
    "adding a layer moves the last-row profile to earlier positions, "
    "e_L P(T) stochastically dominates e_L P(T+1) "
    "(first order), for attention-only and residual-aware layers.",
    latex=r"F_{i}(k) \ge F_{i'}(k)\ (i<i') \;\Longrightarrow\; "
    r"e_L^{\top} P(T) \succeq_{\mathrm{st}} e_L^{\top} R(T{+}1)\,P(T)",
    expected="verified",
    section="H2(a)",
    assumptions=("A(t) causal, row-stochastic and stochastically monotone (row CDFs ordered)",
                 "λ_t ∈ [0, 1]; the new layer R(T+1) is placed on top (output side)"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, family: str = "monotone") -> Evidence:
    """``family``: the kernel family of the cases (:data:`posbias.numerics.cases.KERNEL_FAMILIES`);
    the claim's premise is ``monotone``, a power test passes a family that is not (``sparse``)."""
    rng = case_generator(ctx, "primacy-drift")
    n, maxL, maxT = sweep_sizes(ctx)
    sweep = CaseSweep()
    strict = 0  # cases with F_(T+1)(k) > F_T(k) at every k < L (a strict drift)
    for _ in range(n):
        sweep.case()
        L, T = rng.randint(1, maxL), rng.randint(0, maxT)
        ks = random_family_layers_exact(rng, L, T + 1, family)
        lams = random_schedule_exact(rng, T + 1)
        r = primacy_drift_dominance(ks, lams)
        if sweep.low("drift", r.worst_margin) > 0:
            strict += 1
        if not r.dominates:
            sweep.fail(lambda ks=ks, lams=lams: format_case(ks, lams))
    worst = sweep.worst["drift"]
    # without monotonicity: search for a failure with layer-dependent kernels, and confirm that
    # a constant kernel (P(T+1) = P(T) R, a causal step at the input side) never fails
    n_free = n
    free_fail, free_example, const_fail = _without_monotonicity(rng, n_free, maxL, maxT)
    figures = {_FIG: worst, "failing cases": sweep.failures}
    ev = sweep.evidence(
        method="exact Fraction profiles at depths T and T+1 for generated monotone kernels; "
        "first-order dominance of exact CDFs",
        rule="verified when, in every generated case of monotone kernels, the profile at depth T "
        "first-order dominates the profile with layer T+1 added on the output side (exact CDFs); "
        "refuted by the first case where it does not (printed)",
        tolerance="0 (exact comparison of CDFs)",
        worst_margin=f"min_k (F_(T+1)(k) - F_T(k)) = {show_value(worst)} (>= 0 means drift to earlier positions)",
        parameters={"cases": n, "L": f"1..{maxL}", "T": f"0..{maxT}", "λ grid": "{0,1/4,...,1}"},
        details={
            "cases with a strict drift (margin > 0 at every k < L)": strict,
            "non-monotone layer-dependent kernels tried": n_free,
            "non-monotone failures": free_fail,
            "non-monotone counterexample": free_example,
            "constant non-monotone kernel failures": const_fail,
            "note": "monotonicity is needed only when kernels change with depth: for one kernel in "
            "every layer P(T+1) = P(T) R and one causal step on the input side always moves mass "
            "earlier",
            "kernel family of the cases": family,
        },
    )
    if family != "monotone":
        ev.setting = {"kernel": f"{family} (outside the claim's premise)"}
    return decided(ev, RULE, figures, ctx)
