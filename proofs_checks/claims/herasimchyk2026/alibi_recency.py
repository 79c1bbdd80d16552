"""herasimchyk2026:alibi-recency (H2c): an ALiBi positional bias favouring recent keys reinforces
recency: the residual-aware profile is stochastically increasing in the slope m (all heads'
slopes scaled by a common factor c > 1).

Setting: causal ALiBi kernels with slopes ``m_h >= 0``, any diagonal logits and head weights,
``λ_t ∈ [0, 1]`` (docs/explanation/mathematics.rst H2(c), one of the paper's four forces).

The check: seeded generated cases (L 2..40, 1..4 layers, 1..3 heads, c in (1, 4)); the profiles
with slopes m and c m by precise X5 rollouts (mpmath at ``--dps``), compared by their CDFs.  A
margin below the tolerance is recomputed at ``--max-dps`` before it refutes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mpmath
import numpy as np

from posbias.numerics.alibi import alibi_rollout_precise
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
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

_RULE_TEXT = ("verified when every generated case has min_k (F_m(k) - F_{cm}(k)) >= -margin_tol, "
              "margin_tol = 10^-(dps-10); a case below it is recomputed at --max-dps and refutes the claim "
              "(printed) if still below 10^-(max_dps-10)")
_FIG = "worst margin min_k (F_m(k) - F_cm(k))"


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when the worst CDF margin is >= -margin_tol, else refuted."""
    return "verified" if f[_FIG] >= -t["margin_tol"] else "refuted"


RULE = Rule(
    text=_RULE_TEXT,
    decide=decide,
    thresholds={"margin_tol": precise_margin_tol()},
    examples=(
        Example("generated ALiBi cases, slopes scaled by c in (1, 4): worst margin 1.3e-11 > 0",
                {_FIG: 1.34e-11, "cases": 40}, "verified", "realistic"),
        Example("the other sign: slopes scaled by c in (1/4, 1) claimed to add recency (CDF margin -0.03)",
                {_FIG: -0.03, "cases": 1}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=(_FIG,),
    no_paper_figures="a monotonicity proposition: the paper reports no figures it could be fed",
)

CARD = alibi_card("docs/explanation/mathematics.rst H2(c): a positional bias favouring recent keys (ALiBi) reinforces recency",
                  "precise (mpmath) X5 rollouts of seeded generated cases, slopes m and c m",
                  L="2..40", layers="1..4", heads="1..3", grid="c ∈ (1, 4)", cases=40)


def _latex(sp):
    _j, k, m1, m2 = sp.symbols("j k m_1 m_2", positive=True)
    F = sp.Function("F")
    return (sp.latex(sp.Implies(sp.StrictLessThan(m1, m2), sp.LessThan(F(k, m2), F(k, m1))))
            + r"\quad F(k, m) = \sum_{j \le k} p_m(j)")


def _slope_margin(L: int, base: list, lam: list, c: float, dps: int) -> tuple:
    """``min_k (F_m(k) - F_{cm}(k))`` and its ``k`` for one case, by precise rollouts at ``dps``."""
    with mpmath.workdps(dps):
        p1 = alibi_rollout_precise(L, build_layers(base), lam, dps=dps)
        p2 = alibi_rollout_precise(L, build_layers(base, slope_factor=c), lam, dps=dps)
        return cdf_margin(p2, p1)


def _refuted(case: int, d2: int, margin: Any, k: int, what: tuple, setting: dict) -> Evidence:
    """The refutation by a case whose margin stays below the tolerance at ``--max-dps``."""
    L, T, H, c, lam, base = what
    return Evidence(
        "refuted", method="precise X5 rollouts (mpmath), CDFs compared",
        precision=f"dps={d2}", cases=case + 1, worst_margin=nstr_or_zero(margin),
        counterexample=f"L={L}, T={T}, H={H}, c={c!r}, lambda={lam}, slopes="
        f"{[b[0].tolist() for b in base]}: F_(c m)({k}) - F_m({k}) = {nstr_or_zero(-margin)} > 0",
        details={"rule": _RULE_TEXT},
        figures={_FIG: float(f"{float(margin):.6g}"), "cases": case + 1},
        thresholds={"margin_tol": float(precise_tolerance(d2))}, setting=setting,
    )


@claim(
    "herasimchyk2026:alibi-recency",
    statement="An ALiBi positional bias favouring recent keys reinforces recency: the residual-aware "
    "profile is stochastically increasing in the slope m (all heads' slopes scaled by c > 1).",
    latex=sympy_latex(_latex),
    expected="verified",
    section="H2c",
    assumptions=("causal ALiBi kernels with slopes m_h >= 0, any diagonal logits, head weights and "
                 "lambda_t in [0, 1]; slopes scaled by a common factor c > 1",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, factor_range: tuple[float, float] = (1.0, 4.0)) -> Evidence:
    """``factor_range``: the range of the slope factor ``c`` (the claim: ``c > 1``); a power
    test passes ``(0.25, 1.0)``, the claim with the other sign."""
    rng = np.random.default_rng(ctx.seed)
    n = 150 if ctx.thorough else 40
    tol = precise_tolerance(ctx.dps)
    over = margin_tol_override(ctx)
    c_lo, c_hi = (float(x) for x in factor_range)
    setting: dict[str, Any] = {} if not ctx.thorough else {"cases": n}
    if (c_lo, c_hi) != (1.0, 4.0):
        setting["grid"] = f"c ∈ ({c_lo:g}, {c_hi:g})"
    trivial = 0
    worst = None
    worst_case = None
    for case in range(n):
        L = int(rng.integers(2, 41))
        T = int(rng.integers(1, 5))
        H = int(rng.integers(1, 4))
        base = random_alibi_case(rng, T, H)
        c = float(c_lo + rng.random() * (c_hi - c_lo))
        lam = [float(x) for x in rng.random(T)]
        if case % 5 == 0:
            lam = [1.0] * T
        margin, k = _slope_margin(L, base, lam, c, ctx.dps)
        if margin < -tol:  # confirm at the highest precision before refuting
            margin, k = _slope_margin(L, base, lam, c, ctx.max_dps)
            if margin < -precise_tolerance(ctx.max_dps):
                return _refuted(case, ctx.max_dps, margin, k, (L, T, H, c, lam, base), setting)
        if all((b[0] == 0).all() for b in base) or c == 1.0:
            trivial += 1  # all slopes 0 (or c = 1): c m = m, the profiles coincide
        elif worst is None or margin < worst:
            worst, worst_case = margin, (L, T, H, c, k)
    figures = {_FIG: float(f"{float(worst):.6g}") if worst is not None else 0.0, "cases": n}
    return Evidence(
        RULE.decide(figures, RULE.values(**over)),
        method="precise X5 rollouts (mpmath) of generated cases: min_k (F_m(k) - F_{cm}(k)) >= 0",
        precision=f"dps={ctx.dps}",
        tolerance=f"margin >= -1e-{ctx.dps - 10} ({ctx.dps - 10} of {ctx.dps} digits)",
        cases=n,
        worst_margin=nstr_or_zero(worst),
        parameters={"seed": ctx.seed, "L": "2..40", "T": "1..4", "H": "1..3", "c": f"({c_lo:g}, {c_hi:g})"},
        details={"rule": _RULE_TEXT,
                 "worst_case(L,T,H,c,k)": list(map(str, worst_case)) if worst_case else None,
                 "trivial cases (all slopes 0, not counted in the worst margin)": trivial},
        figures=figures, thresholds=over, setting=setting,
    )
