"""posbias:bernstein (X2): each entry of the residual-aware Cesàro rollout is a Bernstein
integral ``P[n,k] = C(n,k) ∫ x^k (1-x)^(n-k) dχ(x)``, ``χ`` the law of ``U_1⋯U_K`` with ``K``
Poisson-binomial(λ_1..λ_T) and ``U_i`` i.i.d. uniform on (0, 1).

posbias' own result (docs/explanation/mathematics.rst X2, 'Bernstein form'): the Cesàro kernel and any
schedule ``λ_t`` in [0, 1].

The check compares, with escalating precision, the exact (or, for an irrational schedule,
mpmath) last-row propagation against mpmath tanh-sinh quadrature of the Bernstein integral
(the atom ``Π(1-λ_t)`` at ``x = 1`` plus a Poisson-binomial mixture of Gamma densities in
``t = ln 1/x``; the quadrature never uses the moments ``μ_n``), on 4 schedules at L = 6..8
(2 more with ``--thorough``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import mpmath

from posbias.numerics.cesaro import cesaro_profile_exact, cesaro_profile_precise
from posbias.numerics.closed_forms import bernstein_profile_precise
from posbias.numerics.schedules import list_schedule, power_schedule
from posbias.proofs_checks.cards import Card, ProofStatus, Setting
from posbias.proofs_checks.claims.posbias._shared import (
    AGREE_TEXT,
    agree_examples,
    agreement_rule,
    decide_agreement,
    mpf,
    rounded,
    with_agreement,
    x_source,
)
from posbias.proofs_checks.precision import Agreement, agree
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

F = Fraction


def decide(f: Mapping, t: Mapping) -> str:
    """Propagation against quadrature, case by case (:func:`decide_agreement`)."""
    return decide_agreement(f, t)


RULE = agreement_rule(
    "Each case (constant 1/2, λ = 1, mixed, an irrational power schedule; 2 more thorough): the "
    "exact (or mpmath) last-row propagation against mpmath tanh-sinh quadrature of "
    "C(n,k) ∫ x^k (1-x)^(n-k) dχ(x), χ the law of U_1...U_K, K Poisson-binomial(λ_1..λ_T) "
    "(the quadrature never uses the moments μ_n). " + AGREE_TEXT + "verified otherwise.",
    agree_examples("K ~ Binomial(T, mean λ) in place of the Poisson-binomial", 0.02)[:3],
    decide)

CARD = Card(
    paper=Setting(x_source(2, "Bernstein form"), kernel="Cesàro", L="any",
                  configs="any schedule λ_t in [0, 1]"),
    test=Setting("propagation against quadrature", kernel="Cesàro", L="6..8",
                 configs="4 schedules (one irrational)"),
    proof=ProofStatus("numeric", note="quadrature at the working precision"))


def _cases(ctx: CheckContext) -> list:
    """(name, L, schedule): constant 1/2, λ = 1, mixed, an irrational power schedule; two more
    with ``--thorough``."""
    cases = [
        ("const 1/2", 6, list_schedule([F(1, 2)] * 3)),
        ("lambda=1", 8, list_schedule([1] * 4)),
        ("mixed", 7, list_schedule([F(1, 3), 1, F(2, 5), 0, F(7, 8)])),
        ("power 1/2,1/2 (irrational)", 6, power_schedule(F(1, 2), F(1, 2), 4)),
    ]
    if ctx.thorough:
        cases += [("power 1/2,1", 12, power_schedule(F(1, 2), 1, 6)),
                  ("const 9/10", 10, list_schedule([F(9, 10)] * 8))]
    return cases


def _propagation(L: int, sched: Any) -> tuple[Callable[[int], list], str]:
    """The propagation route of one case at dps ``d``: exact for a rational schedule, mpmath
    otherwise; and its label."""
    if sched.is_rational:
        exact = cesaro_profile_exact(L, sched)

        def exact_route(d: int, exact: list = exact) -> list:
            return [mpf(x) for x in exact]
        return exact_route, "exact propagation"

    def precise_route(d: int, L: int = L, sched: Any = sched) -> list:
        return cesaro_profile_precise(L, sched, d)
    return precise_route, "mpmath propagation"


@claim(
    "posbias:bernstein",
    statement=(
        "Each rollout entry is a Bernstein integral P[n,k] = C(n,k) ∫ x^k (1-x)^(n-k) dχ(x), "
        "χ the law of U_1⋯U_K with K Poisson-binomial(λ_1..λ_T) and U_i i.i.d. uniform on (0,1)."
    ),
    latex=(
        r"P[n,k] = \binom{n}{k} \int_{0}^{1} x^{k} (1-x)^{n-k} \, d\chi(x), \qquad "
        r"\chi = \operatorname{law}\Big(\prod_{i=1}^{K} U_{i}\Big), \quad "
        r"K \sim \operatorname{PoissonBinomial}(\lambda_{1}, \dots, \lambda_{T})"
    ),
    expected="verified",
    assumptions=("M the Cesàro matrix", "λ_t in [0, 1]"),
    section="docs/explanation/mathematics.rst X2",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, profile: Callable[[int, Any, int], list] | None = None) -> Evidence:
    """X2 by quadrature; ``profile(L, schedule, dps)`` replaces the Bernstein route (tests pass
    false versions, e.g. a Binomial law with the mean λ in place of the Poisson-binomial)."""
    profile = profile or bernstein_profile_precise
    cases = _cases(ctx)
    worst: Agreement | None = None
    history: list[dict[str, Any]] = []
    for name, L, sched in cases:
        route_a, label = _propagation(L, sched)

        def route_b(d, L=L, sched=sched):
            return profile(L, sched, d)

        res = agree(route_a, route_b, ctx.dps, ctx.max_dps)
        history.append({"case": name, "L": L, "state": res.state, "dps": res.dps,
                        "discrepancy": res.discrepancy})
        if res.state == "disagree":
            return with_agreement(Evidence(
                "refuted", method=f"{label} vs Bernstein quadrature",
                precision=f"dps={res.dps}", tolerance=res.tolerance(),
                counterexample=f"{name}, L={L}: relative discrepancy {res.discrepancy} at dps={res.dps}",
                details={"history": history}), history, 0, RULE)
        if res.state == "inconclusive":
            return with_agreement(Evidence(
                "inconclusive", method=f"{label} vs Bernstein quadrature",
                precision=f"dps={res.dps}", tolerance=res.tolerance(),
                discrepancy=res.discrepancy,
                details={"history": history, "raise": "max_dps (posbias check --max-dps)"}),
                history, 0, RULE)
        if worst is None or res.dps > worst.dps:
            worst = res
    assert worst is not None  # the case list is not empty
    return with_agreement(Evidence(
        "verified",
        method=("exact (or mpmath) last-row propagation vs mpmath tanh-sinh quadrature of the "
                "Bernstein integral against χ (atom Π(1-λ_t) at x=1 plus a Poisson-binomial "
                "mixture of Gamma densities in t = ln 1/x); the quadrature never uses μ_n"),
        # "0" from agree() means equal after rounding both routes to dps digits, not an identity
        discrepancy=rounded(max((h["discrepancy"] for h in history), key=mpmath.mpf),
                            worst.dps),
        precision=f"dps={worst.dps}", tolerance=worst.tolerance(), cases=len(cases),
        details={"history": history},
    ), history, 0, RULE)
