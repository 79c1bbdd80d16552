"""herasimchyk2026:content-diagonal (H2d): content modelled as constant + diagonal: the constant
cancels in the softmax; a positive diagonal logit increases recency, a negative one increases
primacy.

Setting: ALiBi kernels (slopes >= 0) with a diagonal logit d added to every head,
``λ_t ∈ [0, 1]`` (docs/explanation/mathematics.rst H2(d), content as one of the paper's four forces).

The check: (a) dense mpmath softmax kernels (L = 7) with a constant base score and without agree
within the precision escalation; (b) on seeded generated cases (L 2..19, 1..3 layers, 1..2 heads,
d in (0.05, 4.05)) the precise X5 rollouts with diagonal +d, 0 and -d, compared by their CDFs:
``p_{+d}`` dominates ``p_0``, which dominates ``p_{-d}``.
"""

from __future__ import annotations

from collections.abc import Mapping

import mpmath
import numpy as np

from posbias.errors import InvalidArgument
from posbias.numerics.alibi import alibi_kernel_dense_precise, alibi_layer, alibi_rollout_precise
from posbias.numerics.cases import random_alibi_case
from posbias.proofs_checks.cards import Example, Rule
from posbias.proofs_checks.claims._common import nstr_or_zero, sympy_latex
from posbias.proofs_checks.claims.herasimchyk2026._shared import (
    alibi_card,
    build_layers,
    cdf_margin,
    margin_tol_override,
    precise_margin_tol,
    precise_tolerance,
)
from posbias.proofs_checks.precision import Agreement, agree
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

_RULE_TEXT = ("verified when (a) the kernels with and without the constant base score agree within the "
              "precision escalation and (b) every generated case has p_{+d} dominating p_0 and p_0 "
              "dominating p_{-d} with CDF margins >= -margin_tol (10^-(dps-10)); refuted by the first case "
              "that breaks (a) or (b) (printed), inconclusive when (a) runs out of precision")
_FIGS = ("base score cancels", "worst margin +d vs 0", "worst margin 0 vs -d")


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when the base score cancels and both worst margins are >= -margin_tol, else
    refuted."""
    ok = f["base score cancels"] is True and min(f["worst margin +d vs 0"], f["worst margin 0 vs -d"]) >= -t["margin_tol"]
    return "verified" if ok else "refuted"


RULE = Rule(
    text=_RULE_TEXT,
    decide=decide,
    thresholds={"margin_tol": precise_margin_tol()},
    examples=(
        Example("generated cases: the base cancels to 30 digits, +d adds recency, -d primacy (margins 1.6e-8)",
                {"base score cancels": True, "worst margin +d vs 0": 1.6e-8, "worst margin 0 vs -d": 2.1e-8},
                "verified", "realistic"),
        Example("the other sign: 'a positive diagonal logit increases primacy' (margins of the swapped pair)",
                {"base score cancels": True, "worst margin +d vs 0": -0.21, "worst margin 0 vs -d": -0.18},
                "refuted", "false"),
        Example("a base score that does not cancel (a softmax without its normaliser)",
                {"base score cancels": False, "worst margin +d vs 0": 1.6e-8, "worst margin 0 vs -d": 2.1e-8},
                "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=_FIGS,
    no_paper_figures="a monotonicity proposition: the paper reports no figures it could be fed",
)

CARD = alibi_card("docs/explanation/mathematics.rst H2(d): content as constant + diagonal; the constant cancels, the diagonal's "
                  "sign sets the direction", "dense mpmath kernels with and without a base score (L = 7); "
                  "precise X5 rollouts of seeded generated cases with diagonal +d, 0, -d",
                  L="2..19", layers="1..3", heads="1..2", grid="d ∈ (0.05, 4.05)", cases=16)

#: the kernel length of part (a)
_KERNEL_L = 7


def _latex(sp):
    d, _b, _m, _i, _j = sp.symbols("d b m i j", real=True)
    return (r"\mathrm{softmax}_j(b + s_{ij}) = \mathrm{softmax}_j(s_{ij}),\qquad "
            + sp.latex(sp.Implies(sp.StrictGreaterThan(d, 0), sp.Symbol(r"p_d \succeq p_0")))
            + r",\quad d < 0 \Rightarrow p_d \preceq p_0")


def _base_cancels(ctx: CheckContext) -> Agreement:
    """(a): the dense mpmath kernel of one two-head layer with the base score 37/3 and without,
    compared entry by entry with precision escalation."""
    lay = alibi_layer([0.3, 1.1], diagonal=[0.5, -1.25], weights=[1.0, 2.0])

    def with_base(dps):
        A = alibi_kernel_dense_precise(_KERNEL_L, lay, dps=dps, base=mpmath.mpf(37) / 3)
        return [x for row in A for x in row]

    def without(dps):
        A = alibi_kernel_dense_precise(_KERNEL_L, lay, dps=dps)
        return [x for row in A for x in row]

    return agree(with_base, without, ctx.dps, ctx.max_dps)


def _base_evidence(ag: Agreement, over: dict, setting: dict) -> Evidence:
    """The evidence when (a) fails: inconclusive when the escalation ran out of precision,
    else the base score changed the kernel (the rule's verdict on that figure)."""
    if ag.state != "disagree":
        return Evidence("inconclusive", method="dense mpmath kernels with base 37/3 vs without",
                        discrepancy=ag.discrepancy, precision=f"dps={ag.dps}", details={"rule": _RULE_TEXT})
    figures = {"base score cancels": False, "worst margin +d vs 0": 0.0, "worst margin 0 vs -d": 0.0}
    return Evidence(RULE.decide(figures, RULE.values(**over)),
                    method="dense mpmath kernels with base 37/3 vs without",
                    discrepancy=ag.discrepancy, precision=f"dps={ag.dps}",
                    counterexample="the base score changed the kernel", details={"rule": _RULE_TEXT},
                    figures=figures, thresholds=over, setting=setting)


def _direction_margins(ctx: CheckContext, rng: np.random.Generator, n: int, sign: int) -> tuple:
    """(b): over ``n`` generated cases, the worst CDF margins of ``p_{+d}`` over ``p_0`` and of
    ``p_0`` over ``p_{-d}`` (``sign = -1`` swaps the logits claimed to add recency and primacy),
    and the first case below the tolerance (None when there is none)."""
    tol = precise_tolerance(ctx.dps)
    worst_pos = worst_neg = None
    first_bad = None
    for _ in range(n):
        L = int(rng.integers(2, 20))
        T = int(rng.integers(1, 4))
        H = int(rng.integers(1, 3))
        base = random_alibi_case(rng, T, H)
        dd = float(rng.random() * 4 + 0.05)
        lam = [float(x) for x in rng.random(T)]
        up, down = sign * dd, -sign * dd  # the logits claimed to add recency and primacy
        with mpmath.workdps(ctx.dps):
            p0 = alibi_rollout_precise(L, build_layers(base, diag=np.zeros_like), lam, dps=ctx.dps)
            pp = alibi_rollout_precise(L, build_layers(base, diag=lambda d, up=up: np.full_like(d, up)), lam, dps=ctx.dps)
            pn = alibi_rollout_precise(L, build_layers(base, diag=lambda d, down=down: np.full_like(d, down)), lam, dps=ctx.dps)
            mp_, kp = cdf_margin(pp, p0)  # the "recency" logit dominates the zero one
            mn_, kn = cdf_margin(p0, pn)  # the zero diagonal dominates the "primacy" one
        for margin, k, d in ((mp_, kp, up), (mn_, kn, down)):
            if margin < -tol and first_bad is None:
                first_bad = (f"L={L}, T={T}, H={H}, d={d!r}, lambda={lam}: dominance fails at k={k} "
                             f"(margin {nstr_or_zero(margin)})")
        worst_pos = mp_ if worst_pos is None else min(worst_pos, mp_)
        worst_neg = mn_ if worst_neg is None else min(worst_neg, mn_)
    return worst_pos, worst_neg, first_bad


@claim(
    "herasimchyk2026:content-diagonal",
    statement="Content modelled as constant + diagonal: the constant cancels in the softmax; a "
    "positive diagonal logit increases recency, a negative one increases primacy.",
    latex=sympy_latex(_latex),
    expected="verified",
    section="H2d",
    assumptions=("ALiBi kernels (slopes >= 0) with a diagonal logit d added to every head, lambda_t in [0,1]",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, sign: int = 1) -> Evidence:
    """``sign``: +1 the claim (a positive diagonal logit adds recency); -1 the claim with the
    other sign (a positive logit adds primacy), for power tests."""
    if sign not in (1, -1):
        raise InvalidArgument("sign", sign, "+1 or -1")
    rng = np.random.default_rng(ctx.seed + 1)
    over = margin_tol_override(ctx)
    setting = {"cases": 40} if ctx.thorough else {}
    ag = _base_cancels(ctx)
    if not ag.ok:
        return _base_evidence(ag, over, setting)
    n = 40 if ctx.thorough else 16
    worst_pos, worst_neg, first_bad = _direction_margins(ctx, rng, n, sign)
    assert worst_pos is not None and worst_neg is not None  # n >= 16 cases ran
    figures = {"base score cancels": True, "worst margin +d vs 0": float(f"{float(worst_pos):.6g}"),
               "worst margin 0 vs -d": float(f"{float(worst_neg):.6g}")}
    verdict = RULE.decide(figures, RULE.values(**over))
    return Evidence(
        verdict,
        method="(a) dense mpmath softmax kernels with a base score vs without (agree); (b) precise X5 "
        "rollouts with diagonal +d, 0, -d: p_{+d} dominates p_0 dominates p_{-d} (CDFs)",
        discrepancy=ag.discrepancy,
        precision=f"dps={ctx.dps}",
        tolerance=f"{ag.tolerance()}; margins >= -1e-{ctx.dps - 10}",
        cases=n,
        worst_margin=nstr_or_zero(min(worst_pos, worst_neg)),
        counterexample=first_bad if verdict == "refuted" else None,
        parameters={"seed": ctx.seed + 1, "base": "37/3", "kernel L": _KERNEL_L, "sign": sign},
        details={"rule": _RULE_TEXT,
                 "worst margin +d vs 0": nstr_or_zero(worst_pos), "worst margin 0 vs -d": nstr_or_zero(worst_neg)},
        figures=figures, thresholds=over, setting=setting,
    )
