"""herasimchyk2026:dichotomy (H4): the infinite-depth dichotomy.  The diagonal satisfies
``P(T)[i,i] >= Π_t (1 - λ_t δ_t)`` (``δ_t = max_i (1 - A(t)[i,i])``), so ``Σ λ_t δ_t < ∞`` keeps
it positive and ``P(∞)`` exists (no collapse); and ``max_i (1 - P(T)[i,1]) <= Π_t (1 - λ_t
min_{i>=2} A(t)[i,1])``, so ``Σ λ_t = ∞`` with a first column bounded below collapses every row
onto ``e_1``.

Setting: causal row-stochastic kernels and ``λ_t ∈ [0, 1]`` (docs/explanation/mathematics.rst H4); the
collapse half needs a first column bounded below (bounded logits).

The check, in exact Fractions unless said: (a) at every depth of seeded generated cases, both
product bounds and the per-layer increment bound ``||P(t) - P(t-1)||_∞ <= 2 λ_t δ_t`` (which makes
``P(T)`` Cauchy when ``Σ λ_t δ_t < ∞``); (b) the Cesàro kernel (L = 4) at large depth with a
summable schedule (its diagonal settles) and the harmonic one (it collapses below its product
bound, whose Γ closed form is checked in mpmath); (c) a family with unbounded logits, ``Σ λ_t = ∞``
and no collapse, against the closed form of its limit (mpmath).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from fractions import Fraction

import mpmath

from posbias.numerics.cases import random_family_layers_exact, random_schedule_exact
from posbias.numerics.kernels import (
    diagonal_product_exact,
    rollout_last_row_exact,
    rollout_matrices_exact,
    uniform_causal_kernel_exact,
)
from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims._common import CaseSweep, show_value
from posbias.proofs_checks.claims.herasimchyk2026._shared import (
    Matrix,
    as_arg,
    case_generator,
    decided,
    format_case,
    property_card,
    sweep_sizes,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "dichotomy_margins", "increment_margin", "unbounded_logit_family"]

_MARGINS = ("min diagonal - Π(1-λδ)", "min Π(1 - λ min A_i1) - max_i(1 - P_i1)",
            "min 2λδ - ||P(t) - P(t-1)||_inf")
_FLAGS = ("summable and harmonic regimes hold", "unbounded-logit family keeps its positive limit")


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when every margin is >= 0, every flag holds, the closed form agrees and the
    summable diagonal settles; else refuted."""
    ok = all(f[n] >= 0 for n in _MARGINS) and all(f[n] is True for n in _FLAGS)
    ok = ok and f["|harmonic bound - Γ closed form|"] <= t["closed_form_tol"]
    return "verified" if ok and f["summable: P(4T)[L,L] / P(T)[L,L]"] >= t["keep"] else "refuted"


RULE = Rule(
    text="verified when (a) at every depth of every generated case the diagonal is >= Π(1-λδ), "
    "max_i(1 - P_i1) <= Π(1 - λ min_{i>=2} A_i1) and ||P(t)-P(t-1)||_inf <= 2λ_tδ_t (exact: the three "
    "smallest margins >= 0); (b) at the regime depth the summable schedule keeps P[L,L] >= Π(1-λ_tδ) > 0, "
    "the harmonic one has 1 - P[L,1] below its product bound and smaller than at half depth, and the "
    "bound agrees with its Γ closed form within closed_form_tol, and the summable schedule's diagonal "
    "keeps at least a fraction keep of its value from depth T to 4T (it settles: no collapse); "
    "(c) the unbounded-logit family keeps "
    "P(T)[L,L] >= its positive limit sin(π√c)/(π√c(1-c)) (no collapse, consistent with the summable "
    "half); refuted by the first violation (printed)",
    decide=decide,
    thresholds={"closed_form_tol": Threshold(1e-15, "agreement of the harmonic product bound with its Γ "
                                             "closed form (mpmath at 20 digits)", scale="log", sensitive=100.0),
                "keep": Threshold(0.9, "the summable schedule's diagonal from depth T to 4T keeps at least this "
                                  "fraction (≈ 0.995 for 1/(t+1)^2 at T = 120; ≈ 0.35 for 1/(t+1))",
                                  scale="linear", step=0.01, sensitive=0.05, domain=(0.0, 1.0))},
    examples=(
        Example("the generated cases and regimes: every margin >= 0, closed form to 1e-19",
                {"min diagonal - Π(1-λδ)": Fraction(0), "min Π(1 - λ min A_i1) - max_i(1 - P_i1)": Fraction(0),
                 "min 2λδ - ||P(t) - P(t-1)||_inf": Fraction(0), "summable and harmonic regimes hold": True,
                 "unbounded-logit family keeps its positive limit": True, "|harmonic bound - Γ closed form|": 1e-19,
                 "summable: P(4T)[L,L] / P(T)[L,L]": 0.9954},
                "verified", "realistic"),
        Example("the bound with the wrong product: Π(1 - λ max_i A_i1) instead of the min",
                {"min diagonal - Π(1-λδ)": Fraction(0), "min Π(1 - λ min A_i1) - max_i(1 - P_i1)": Fraction(-1, 3),
                 "min 2λδ - ||P(t) - P(t-1)||_inf": Fraction(0), "summable and harmonic regimes hold": True,
                 "unbounded-logit family keeps its positive limit": True, "|harmonic bound - Γ closed form|": 1e-19,
                 "summable: P(4T)[L,L] / P(T)[L,L]": 0.9954},
                "refuted", "false"),
        Example("δ_t taken as the smallest defect min_i (1 - A(t)[i,i]): the diagonal bound fails",
                {"min diagonal - Π(1-λδ)": Fraction(-1, 4), "min Π(1 - λ min A_i1) - max_i(1 - P_i1)": Fraction(0),
                 "min 2λδ - ||P(t) - P(t-1)||_inf": Fraction(0), "summable and harmonic regimes hold": True,
                 "unbounded-logit family keeps its positive limit": True, "|harmonic bound - Γ closed form|": 1e-19,
                 "summable: P(4T)[L,L] / P(T)[L,L]": 0.9954},
                "refuted", "false"),
        Example("Σ λ_t = ∞ claimed not to collapse: the harmonic schedule 1/(t+1) in place of a summable "
                "one (its diagonal keeps 0.355 from depth T to 4T and tends to 0)",
                {"min diagonal - Π(1-λδ)": Fraction(0), "min Π(1 - λ min A_i1) - max_i(1 - P_i1)": Fraction(0),
                 "min 2λδ - ||P(t) - P(t-1)||_inf": Fraction(0), "summable and harmonic regimes hold": True,
                 "unbounded-logit family keeps its positive limit": True, "|harmonic bound - Γ closed form|": 1e-19,
                 "summable: P(4T)[L,L] / P(T)[L,L]": 0.3554}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=_MARGINS + _FLAGS + ("summable: P(4T)[L,L] / P(T)[L,L]",),
    no_paper_figures="a theorem about limits: the paper reports no figures it could be fed",
)


CARD = property_card("docs/explanation/mathematics.rst H4: the infinite-depth dichotomy (no collapse for Σ λ_t δ_t < ∞, collapse "
                     "for Σ λ_t = ∞ with a first column bounded below)",
                     "causal row-stochastic (positive, sparse, monotone); regimes: Cesàro L = 4",
                     proof_note="property test over generated cases and depths 0..5, regimes at depth "
                     "120 (400 thorough); the limits themselves are not computed")


def dichotomy_margins(ks: list, lams: list, P: Matrix) -> tuple[Fraction, Fraction]:
    """(summable margin, collapse margin) at one depth: the diagonal minus Π(1-λδ), and the
    product bound minus max_i (1 - P[i,1])."""
    L = len(P)
    low = Fraction(1)
    up = Fraction(1)
    for A, lam in zip(ks, lams):
        delta = max(1 - A[i][i] for i in range(L))
        low *= 1 - lam * delta
        if L >= 2:
            up *= 1 - lam * min(A[i][0] for i in range(1, L))
    m_diag = min(P[i][i] for i in range(L)) - low
    m_coll = up - max(1 - P[i][0] for i in range(L))
    return m_diag, m_coll


def increment_margin(A: Matrix, lam: Fraction, P_prev: Matrix, P: Matrix) -> Fraction:
    """``2 λ_t δ_t - max_i Σ_j |P(t)[i,j] - P(t-1)[i,j]|`` for one layer (``δ_t = max_i
    (1 - A(t)[i,i])``): non-negative because ``P(t) - P(t-1) = λ_t (A(t) - I) P(t-1)`` and
    ``||A - I||_∞ = 2 δ``.  Summed over depth it shows that ``P(∞)`` exists when
    ``Σ λ_t δ_t < ∞``."""
    L = len(A)
    delta = max(1 - A[i][i] for i in range(L))
    step = max(sum((abs(P[i][j] - P_prev[i][j]) for j in range(L)), Fraction(0)) for i in range(L))
    return 2 * lam * delta - step


def unbounded_logit_family(L: int, depth: int) -> dict:
    """The family on which the collapse half of the dichotomy needs its first-column bound.

    Attention-only layers (``λ_t = 1``, so ``Σ λ_t = ∞``) with ``A(t) = (1 - s_t) I + s_t M``,
    ``s_t = 1/(t+1)^2`` and ``M`` the Cesàro kernel: a softmax kernel whose diagonal logit
    ``ln(1 + i (1 - s_t)/s_t)`` grows like ``2 ln t`` (unbounded logits), so the first column
    ``A(t)[i,1] = s_t / i`` is not bounded below and ``δ_t = s_t (1 - 1/L)`` is summable.
    The diagonal keeps ``P(T)[L,L] = Π_t (1 - c s_t) >= Π_{t>=1} (1 - c/(t+1)^2) =
    sin(π√c) / (π√c (1 - c))`` with ``c = 1 - 1/L`` (:ref:`X7 <math-x7>`): no collapse onto ``e_1``.

    Returns the exact diagonal entry and first-column mass at ``depth``, the exact product
    bound ``Π (1 - λ_t min_{i>=2} A(t)[i,1])`` and the limit of the diagonal (mpmath, 30 digits).
    """
    M = uniform_causal_kernel_exact(L)
    ks = []
    for t in range(1, depth + 1):
        s_t = Fraction(1, (t + 1) ** 2)
        ks.append([[(1 - s_t) * (i == j) + s_t * M[i][j] for j in range(L)] for i in range(L)])
    lams = [Fraction(1)] * depth
    p = rollout_last_row_exact(ks, lams)
    diag = diagonal_product_exact(ks, lams)[L - 1]
    bound = math.prod((1 - min(A[i][0] for i in range(1, L)) for A in ks), start=Fraction(1))
    with mpmath.workdps(30):
        c = 1 - mpmath.mpf(1) / L
        limit = mpmath.sin(mpmath.pi * mpmath.sqrt(c)) / (mpmath.pi * mpmath.sqrt(c) * (1 - c))
    return {"diagonal": diag, "first": p[0], "collapse_bound": bound, "limit": limit,
            "first_column_min": min(ks[-1][i][0] for i in range(1, L)),
            "sum_lambda": depth, "sum_delta": sum((1 - ks[t][L - 1][L - 1] for t in range(depth)), Fraction(0))}


def _sweep_depths(ctx: CheckContext, rng: random.Random,
                  margins: Callable[[list, list, Matrix], tuple[Fraction, Fraction]]) -> tuple[CaseSweep, int]:
    """(a): both product bounds and the increment bound at every depth 0..T of the generated
    cases (exact); returns the sweep and the number of depths checked."""
    n, maxL, maxT = sweep_sizes(ctx)
    sweep = CaseSweep()
    checks = 0
    for _ in range(n):
        sweep.case()
        L, T = rng.randint(1, maxL), rng.randint(0, maxT)
        ks = random_family_layers_exact(rng, L, T, rng.choice(("positive", "sparse", "monotone")))
        lams = random_schedule_exact(rng, T)
        Ps = rollout_matrices_exact(as_arg(ks, T), lams)
        for t in range(T + 1):  # every depth 0..T
            md, mc = margins(ks[:t], lams[:t], Ps[t])
            mi = increment_margin(ks[t - 1], lams[t - 1], Ps[t - 1], Ps[t]) if t else Fraction(0)
            checks += 1
            sweep.low("diagonal", md)
            sweep.low("collapse", mc)
            sweep.low("increment", mi)
            if md < 0 or mc < 0 or mi < 0:
                sweep.fail(lambda ks=ks, t=t, lams=lams: format_case(ks[:t], lams[:t]))
    return sweep, checks


def _regimes(L: int, depth: int, summable: Callable[[int], Fraction]) -> dict:
    """(b): the two regimes at large depth on the Cesàro kernel (exact): the schedule claimed
    summable keeps the last diagonal entry above its positive bound Π(1 - λ_t δ) and settles from
    depth T to 4T; the harmonic λ_t = 1/(t+1) collapses below its product bound Π(1 - λ_t/L)."""
    M = uniform_causal_kernel_exact(L)
    summable_4 = [summable(t) for t in range(1, 4 * depth + 1)]
    summable_T = summable_4[:depth]
    harmonic = [Fraction(1, t + 1) for t in range(1, depth + 1)]
    d_sum = diagonal_product_exact(M, summable_T)[L - 1]
    # no collapse needs the diagonal to settle: from depth T to 4T it keeps Π_{T<t<=4T}(1 - λ_t δ),
    # close to 1 for a summable schedule, ~ 4^(-(1-1/L)) for the harmonic one
    d_sum_4 = diagonal_product_exact(M, summable_4)[L - 1]
    keep = d_sum_4 / d_sum if d_sum else Fraction(0)
    low = math.prod((1 - lam * Fraction(L - 1, L) for lam in summable_T), start=Fraction(1))
    p_h = rollout_last_row_exact(M, harmonic)
    p_h_half = rollout_last_row_exact(M, harmonic[: depth // 2])
    bound_h = math.prod((1 - lam * Fraction(1, L) for lam in harmonic), start=Fraction(1))
    ok = d_sum >= low > 0 and (1 - p_h[0]) <= bound_h and (1 - p_h_half[0]) > (1 - p_h[0])
    return {"d_sum": d_sum, "keep": keep, "low": low, "tail": 1 - p_h[0], "tail_half": 1 - p_h_half[0],
            "bound_h": bound_h, "ok": ok}


def _closed_form_discrepancy(L: int, depth: int, bound_h: Fraction) -> float:
    """|the harmonic product bound - its closed form Γ(T+2-a)/(Γ(2-a)Γ(T+2))|, a = 1/L (mpmath at
    20 digits; docs/explanation/mathematics.rst X7)."""
    with mpmath.workdps(20):
        a = mpmath.mpf(1) / L
        closed = mpmath.gamma(depth + 2 - a) / (mpmath.gamma(2 - a) * mpmath.gamma(depth + 2))
        bound_mp = mpmath.mpmathify(bound_h)
        return float(abs(closed - bound_mp))


def _family_keeps_its_limit(fam: dict) -> bool:
    """(c): the unbounded-logit family's diagonal stays at or above its positive limit, and
    below the mass off the first token (mpmath, 30 digits)."""
    with mpmath.workdps(30):
        fam_diag = mpmath.mpmathify(fam["diagonal"])
        return bool(fam["limit"] > 0 and fam_diag >= fam["limit"] and 1 - fam["first"] >= fam["diagonal"])


def _details(reg: dict, fam: dict, L: int, depth: int, closed_ok: bool, family_ok: bool) -> dict:
    """The regimes and the unbounded-logit family, as printed in the evidence."""
    return {
        "summable λ_t=1/(t+1)^2, Cesàro L=4: P[L,L]": show_value(reg["d_sum"]),
        "summable: P(4T)[L,L] / P(T)[L,L]": f"{float(reg['keep']):.6g}",
        "summable: lower bound Π(1-λ_t δ)": show_value(reg["low"]),
        "harmonic λ_t=1/(t+1): 1 - P[L,1]": show_value(reg["tail"]),
        "harmonic: at half depth": show_value(reg["tail_half"]),
        "harmonic: product bound Π(1 - λ_t/L)": show_value(reg["bound_h"]),
        "harmonic bound closed form agrees (15 digits)": bool(closed_ok),
        "harmonic bound decays like": f"T^(-1/L)/Γ(2-1/L) (L = {L}): collapse, polynomially slowly",
        "limit": "||P(t) - P(t-1)||_inf <= 2 λ_t δ_t at every checked depth, so Σ λ_t δ_t < ∞ "
        "makes P(T) Cauchy: P(∞) exists",
        "domain": "Π(1 - λ_t δ_t) > 0 needs λ_t δ_t < 1 in every layer as well as Σ λ_t δ_t < ∞; "
        "a layer with λ_t = 1 and some A(t)[i,i] = 0 zeroes that diagonal entry for good "
        "(excluded for softmax attention, whose diagonal is positive)",
        "without a first-column bound (unbounded logits)": {
            "family": "λ_t = 1 (Σ λ_t = ∞), A(t) = (1 - s_t) I + s_t M, s_t = 1/(t+1)^2, M Cesàro, "
            f"L = {L}: diagonal logit ~ 2 ln t, first column A(t)[i,1] = s_t/i -> 0",
            "depth": depth,
            "Σ λ_t": fam["sum_lambda"],
            "Σ δ_t (converges to (1-1/L)(π²/6 - 1))": show_value(fam["sum_delta"]),
            "min_{i>=2} A(T)[i,1]": show_value(fam["first_column_min"]),
            "P(T)[L,L]": show_value(fam["diagonal"]),
            "limit of P(T)[L,L]: sin(π√c)/(π√c(1-c)), c = 1-1/L": mpmath.nstr(fam["limit"], 6),
            "1 - P(T)[L,1]": show_value(1 - fam["first"]),
            "collapse bound Π(1 - min A[i,1]) (does not tend to 0)": show_value(fam["collapse_bound"]),
            "collapses": False if family_ok else "check failed",
        },
    }


@claim(
    "herasimchyk2026:dichotomy",
    statement="Infinite-depth dichotomy: the diagonal satisfies P(T)[i,i] >= Π_t (1 - λ_t δ_t) "
    "(δ_t = max_i (1 - A(t)[i,i])), so Σ λ_t δ_t < ∞ keeps it positive and P(∞) exists (no "
    "collapse); and "
    "max_i (1 - P(T)[i,1]) <= Π_t (1 - λ_t min_{i>=2} A(t)[i,1]), so Σ λ_t = ∞ with a first "
    "column bounded below collapses every row onto e_1.",
    latex=r"P(T)_{ii} \ge \prod_{t=1}^{T} (1 - \lambda_t \delta_t),\qquad "
    r"\max_i \big(1 - P(T)_{i1}\big) \le \prod_{t=1}^{T}\Big(1 - \lambda_t \min_{i \ge 2} A(t)_{i1}\Big)",
    expected="verified",
    section="H4",
    assumptions=("A(t) causal and row-stochastic", "λ_t ∈ [0, 1]",
                 "for positivity of the limit: λ_t δ_t < 1 in every layer (A(t)[i,i] > 0, "
                 "as for softmax attention)",
                 "for collapse: a first column bounded below, A(t)[i,1] >= a > 0 for every i >= 2 "
                 "and every t (bounded logits: softmax logits in [-B, B] give A(t)[i,1] >= e^{-2B}/i); "
                 "Σ λ_t = ∞ alone does not collapse: with unbounded diagonal logits δ_t can be "
                 "summable (the family is printed in the evidence)"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *,
          margins: Callable[[list, list, Matrix], tuple[Fraction, Fraction]] | None = None,
          summable: Callable[[int], Fraction] | None = None) -> Evidence:
    """``margins(ks, lams, P) -> (diagonal margin, collapse margin)``: the bounds' margins
    (default :func:`dichotomy_margins`); ``summable(t) -> λ_t`` (exact, t >= 1): the schedule
    claimed summable (default ``1/(t+1)^2``); power tests pass a wrong product or a schedule with
    ``Σ λ_t = ∞``."""
    n, maxL, maxT = sweep_sizes(ctx)
    sweep, checks = _sweep_depths(ctx, case_generator(ctx, "dichotomy"), margins or dichotomy_margins)
    worst_diag, worst_coll, worst_inc = (sweep.worst[k] for k in ("diagonal", "collapse", "increment"))
    L = 4
    depth = 400 if ctx.thorough else 120
    reg = _regimes(L, depth, summable or (lambda t: Fraction(1, (t + 1) ** 2)))
    keep = reg["keep"]
    # without the first-column bound: Σ λ_t = ∞, δ_t summable, no collapse
    fam = unbounded_logit_family(L, depth)
    family_ok = _family_keeps_its_limit(fam)
    closed_disc = _closed_form_discrepancy(L, depth, reg["bound_h"])
    closed_ok = closed_disc <= RULE.thresholds["closed_form_tol"].value
    keep_ok = keep >= Fraction(str(RULE.thresholds["keep"].value))
    for good, what in ((reg["ok"], f"the summable/harmonic regimes at depth {depth}"),
                       (keep_ok, f"the schedule claimed summable loses {float(1 - keep):.6g} of its diagonal "
                        f"from depth {depth} to {4 * depth}: it does not settle"),
                       (closed_ok, "the harmonic bound's Γ closed form"),
                       (family_ok, "the unbounded-logit family's diagonal against its limit")):
        if not good:
            sweep.fail(what + " (see details)")
    figures = {"min diagonal - Π(1-λδ)": worst_diag, "min Π(1 - λ min A_i1) - max_i(1 - P_i1)": worst_coll,
               "min 2λδ - ||P(t) - P(t-1)||_inf": worst_inc, "summable and harmonic regimes hold": bool(reg["ok"]),
               "unbounded-logit family keeps its positive limit": bool(family_ok),
               "|harmonic bound - Γ closed form|": float(f"{closed_disc:.3g}"),
               "summable: P(4T)[L,L] / P(T)[L,L]": float(f"{float(keep):.6g}")}
    ev = sweep.evidence(
        method="exact Fraction rollouts at every depth of generated layers vs both product bounds "
        "and the per-layer increment bound; Cesàro L=4 with summable and harmonic schedules at "
        "large depth; the unbounded-logit family (λ_t = 1, δ_t summable) at the same depth",
        rule="verified when (a) at every depth of every generated case the diagonal is >= Π(1-λδ), "
        "max_i(1 - P_i1) <= Π(1 - λ min_{i>=2} A_i1) and ||P(t)-P(t-1)||_inf <= 2λ_tδ_t (exact); "
        "(b) at the regime depth the summable schedule keeps P[L,L] >= Π(1-λ_tδ) > 0, the harmonic "
        "one has 1 - P[L,1] below its product bound and smaller than at half depth, and the bound "
        "agrees with its Γ closed form to 15 digits; (c) the unbounded-logit family keeps "
        "P(T)[L,L] >= its positive limit sin(π√c)/(π√c(1-c)) (no collapse, consistent with the "
        "summable half); refuted by the first violation (printed)",
        ok=reg["ok"] and closed_ok and family_ok and keep_ok,
        discrepancy="0 (exact)" if sweep.clean and reg["ok"] and family_ok else None,
        worst_margin=f"diagonal - Π(1-λδ) >= {show_value(worst_diag)}; "
        f"bound - max_i(1 - P_i1) >= {show_value(worst_coll)}; "
        f"2λδ - ||P(t) - P(t-1)|| >= {show_value(worst_inc)}",
        parameters={"cases": n, "depth checks": checks, "L": f"1..{maxL}", "T": f"0..{maxT}",
                    "regime depth": depth},
        details=_details(reg, fam, L, depth, closed_ok, family_ok),
    )
    return decided(ev, RULE, figures, ctx)
