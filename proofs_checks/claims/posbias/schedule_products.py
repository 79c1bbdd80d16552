"""posbias:schedule-products (X7): for Cesàro kernels the diagonal products have closed forms:
``prod_{t>=1}(1 - c/(t+1)^2) = sin(π√c)/(π√c(1-c))`` (a summable schedule, no collapse) and
``prod_{t=1}^{T}(1 - a/(t+1)) = Γ(T+2-a)/(Γ(2-a)Γ(T+2)) ~ T^{-a}/Γ(2-a)`` (harmonic, collapse).

posbias' own result (docs/explanation/mathematics.rst X7, 'schedules with closed forms'): ``c = 1 - 1/i``
for a position ``i >= 2`` and rational ``0 <= a < 2``; the closed forms are derived
symbolically in the derivations summable-product and harmonic-product.

The check computes in three steps: (1) the finite harmonic products for a = 0, 1/3, 1/2, 1,
3/2, 5/3 and T = 1, 2, 5, 10, 50 (200, 1000 with ``--thorough``), exactly against the rising
factorial and with escalating precision against mpmath's Gamma ratio; (2) the rate: the
remainder ``T(Γ(T+2-a)T^a/Γ(T+2) - 1) - a(a-3)/2`` must shrink like 1/T over T = 1e3..1e6
(mpmath loggamma); (3) the infinite product for c = 1 - 1/i, i = 2, 3, 5, 10, 100, as the exact
partial product to T = 60 times the Hurwitz-zeta tail, against the sine form.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import mpmath

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Setting, Threshold
from posbias.proofs_checks.claims.posbias._shared import (
    AGREE_TEXT,
    agreement_example,
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
    """An exact mismatch of a finite product, or a remainder that does not shrink like 1/T ->
    refuted; otherwise the agreements decide (:func:`decide_agreement`)."""
    if f["exact_mismatches"] > 0 or f["rate_shrink"] < t["decade_shrink"]:
        return "refuted"
    return decide_agreement(f, t)


RULE = agreement_rule(
    "Finite harmonic products for a = 0, 1/3, 1/2, 1, 3/2, 5/3 and T = 1, 2, 5, 10, 50 (200, 1000 "
    "thorough): exactly equal to the rising factorial / (T+1)! (exact_mismatches) and agreeing "
    "with mpmath's Gamma ratio; the remainder T(Γ(T+2-a)T^a/Γ(T+2) - 1) - a(a-3)/2 shrinking "
    "by at least decade_shrink = 5 per decade of T = 1e3..1e6 (O(1/T), rate_shrink the "
    "smallest such factor); the infinite product for c = 1 - 1/i, i = 2, 3, 5, 10, 100 (exact "
    "partial product to T = 60 times the Hurwitz-zeta tail) agreeing with "
    "sin(π√c)/(π√c(1-c)). refuted: an exact mismatch, a remainder that does not shrink, or a "
    "disagreement as below. " + AGREE_TEXT + "verified otherwise.",
    (Example("the default run", agreement_example(1e-29, exact_mismatches=0, rate_shrink=10.0),
             "verified"),
     Example("sin(π√c)/(π√c) without the factor 1/(1 - c)",
             agreement_example(0.5, dps=240, exact_mismatches=0, rate_shrink=10.0),
             "refuted", "false"),
     Example("a T^(-a) rate with an O(1/sqrt(T)) remainder: shrinks by 3.2 per decade",
             agreement_example(1e-29, exact_mismatches=0, rate_shrink=3.2), "refuted", "false"),
     Example("precision ran out", agreement_example(1e-15, ran_out=True, dps=240,
                                                    exact_mismatches=0, rate_shrink=10.0),
             "inconclusive")),
    decide,
    extra={"decade_shrink": Threshold(5.0, "factor by which an O(1/T) remainder must shrink per "
                                      "decade of T (10 for exactly 1/T)", sensitive=1.5)},
    deciding=("discrepancy", "exact_mismatches", "rate_shrink"))

CARD = Card(
    paper=Setting(x_source(7, "schedules with closed forms"), kernel="Cesàro",
                  configs="c = 1 - 1/i for every position i >= 2; every 0 <= a < 2",
                  H="T any, and T -> oo"),
    test=Setting("exact products, mpmath Gamma and Hurwitz zeta", kernel="Cesàro",
                 configs="i = 2, 3, 5, 10, 100; a = 0, 1/3, 1/2, 1, 3/2, 5/3",
                 H="T = 1, 2, 5, 10, 50; 1e3..1e6 for the rate; oo by the zeta tail"),
    proof=ProofStatus("numeric", note="the closed forms are derived symbolically in the "
                      "derivations summable-product and harmonic-product; this check "
                      "compares them numerically"))

#: the depth of the exact partial product of the infinite product (the rest is the zeta tail)
_T0 = 60


def _tail_factor(c, T, d):
    """``Π_{t > T} (1 - c/(t+1)^2) = exp(-Σ_k c^k/k ζ(2k, T+2))`` (Hurwitz zeta), at dps ``d``."""
    with mpmath.workdps(d + 10):
        total = mpmath.mpf(0)
        eps = mpmath.mpf(10) ** (-(d + 10))
        k = 1
        while True:
            term = c**k / k * mpmath.zeta(2 * k, T + 2)
            total += term
            if abs(term) < eps * abs(total):
                break
            k += 1
        return mpmath.exp(-total)


class _Run:
    """What the three steps accumulate: the agreements, the smallest shrink factor of the
    remainder per decade, the cases compared and the infinite-product history."""

    def __init__(self) -> None:
        self.ags: list[Agreement] = []
        self.shrink = math.inf
        self.n = 0
        self.history: list[dict] = []

    def decided(self, ev: Evidence, mismatches: int = 0) -> Evidence:
        """``ev`` with the figures so far, its verdict from :data:`RULE`."""
        return with_agreement(ev, self.ags, 0, RULE, exact_mismatches=mismatches,
                              rate_shrink=float(self.shrink))


def _finite_products(ctx: CheckContext, run: _Run, a_values: list, T_values: list
                     ) -> Evidence | None:
    """(1) The finite Gamma identity: the exact product against the rising factorial / (T+1)!
    and against mpmath's Gamma ratio; the refuting (or inconclusive) evidence, or None."""
    for a in a_values:
        for T in T_values:
            lhs = F(1)
            for t in range(1, T + 1):
                lhs *= 1 - a / (t + 1)
            rising = F(1)  # Γ(T+2-a)/Γ(2-a) = (2-a)(3-a)...(T+1-a), functional equation
            for m in range(T):
                rising *= 2 - a + m
            fact = 1
            for m in range(2, T + 2):
                fact *= m
            run.n += 1
            if lhs != rising / fact:
                return run.decided(Evidence("refuted", method="exact product vs rising factorial",
                                            precision="exact",
                                            counterexample=f"a={a}, T={T}: {lhs} != {rising / fact}",
                                            cases=run.n), 1)

            def route_gamma(d, a=a, T=T):
                am = mpf(a)
                return mpmath.gamma(T + 2 - am) / (mpmath.gamma(2 - am) * mpmath.gamma(T + 2))

            def route_product(d: int, lhs: Fraction = lhs) -> Any:
                return mpf(lhs)

            res = agree(route_product, route_gamma, ctx.dps, ctx.max_dps)
            run.ags.append(res)
            if not res.ok:
                return run.decided(Evidence((res.state == "disagree" and "refuted") or "inconclusive",
                                            method="exact product vs mpmath Gamma ratio",
                                            precision=f"dps={res.dps}", tolerance=res.tolerance(),
                                            counterexample=f"a={a}, T={T}: discrepancy {res.discrepancy}",
                                            cases=run.n))
    return None


def _rate(ctx: CheckContext, run: _Run, a_values: list, rates: dict) -> Evidence | None:
    """(2) The rate: ``T (Γ(T+2-a)/Γ(T+2) T^a - 1) -> a(a-3)/2`` with an O(1/T) remainder, each
    decade of T = 1e3..1e6 shrinking it by at least decade_shrink (unless it is 0); the
    remainders go into ``rates``; the refuting evidence, or None."""
    with mpmath.workdps(ctx.dps + 20):
        for a in a_values:
            am = mpf(a)
            limit = am * (am - 3) / 2
            errs = []
            for T in (10**3, 10**4, 10**5, 10**6):
                r = mpmath.exp(mpmath.loggamma(T + 2 - am) - mpmath.loggamma(T + 2)) * mpmath.power(T, am)
                errs.append(abs(T * (r - 1) - limit))
            run.n += 1
            rates[str(a)] = [mpmath.nstr(e, 3) for e in errs]
            for e1, e2 in itertools.pairwise(errs):
                if e1 == 0 and e2 == 0:
                    continue
                run.shrink = min(run.shrink, float(e1 / e2) if e2 else math.inf)
                if not (e2 < e1 / RULE.thresholds["decade_shrink"].value):
                    return run.decided(Evidence(
                        "refuted", method="mpmath loggamma: T(Γ(T+2-a)T^a/Γ(T+2) - 1) vs a(a-3)/2",
                        precision=f"dps={ctx.dps + 20}",
                        counterexample=f"a={a}: remainders {rates[str(a)]} do not decay like 1/T",
                        cases=run.n))
    return None


def _infinite_product(ctx: CheckContext, run: _Run,
                      sine: Callable[[Any], Any] | None) -> Evidence | None:
    """(3) The infinite product for c = 1 - 1/i: the exact partial product to T0 = 60 times the
    Hurwitz-zeta tail against ``sin(π√c)/(π√c(1-c))`` (or ``sine(c)``); the refuting (or
    inconclusive) evidence, or None."""
    for i in (2, 3, 5, 10, 100) + ((1000, 10**6) if ctx.thorough else ()):
        c = 1 - F(1, i)
        partial = F(1)
        for t in range(1, _T0 + 1):
            partial *= 1 - c / (t + 1) ** 2

        def route_infinite(d, c=c, partial=partial):
            return mpf(partial) * _tail_factor(mpf(c), _T0, d)

        def route_closed(d, c=c):
            cm = mpf(c)
            if sine is not None:
                return sine(cm)
            s = mpmath.sqrt(cm)
            return mpmath.sin(mpmath.pi * s) / (mpmath.pi * s * (1 - cm))

        res = agree(route_infinite, route_closed, ctx.dps, ctx.max_dps)
        run.ags.append(res)
        run.n += 1
        with mpmath.workdps(ctx.dps):
            closed = route_closed(ctx.dps)
            rate = (mpf(partial) / closed - 1) * (_T0 + 2) / mpf(c)  # tail ≈ c/(T+2): ratio -> 1
        run.history.append({"i": i, "state": res.state, "dps": res.dps,
                            "discrepancy": res.discrepancy, "tail_rate_ratio": mpmath.nstr(rate, 6)})
        if not res.ok:
            return run.decided(Evidence((res.state == "disagree" and "refuted") or "inconclusive",
                                        method="exact partial product x Hurwitz-zeta tail vs closed form",
                                        precision=f"dps={res.dps}", tolerance=res.tolerance(),
                                        counterexample=f"c = 1 - 1/{i}: discrepancy {res.discrepancy}",
                                        cases=run.n, details={"history": run.history}))
    return None


@claim(
    "posbias:schedule-products",
    statement=(
        "For Cesàro kernels the diagonal products have closed forms: "
        "prod_{t>=1}(1 - c/(t+1)^2) = sin(π√c)/(π√c(1-c)) (summable schedule, no collapse) and "
        "prod_{t=1}^{T}(1 - a/(t+1)) = Γ(T+2-a)/(Γ(2-a)Γ(T+2)) ~ T^{-a}/Γ(2-a) (harmonic, collapse)."
    ),
    latex=(
        r"\prod_{t=1}^{\infty}\left(1 - \frac{c}{(t+1)^{2}}\right) = "
        r"\frac{\sin(\pi\sqrt{c})}{\pi\sqrt{c}\,(1-c)}, \qquad "
        r"\prod_{t=1}^{T}\left(1 - \frac{a}{t+1}\right) = "
        r"\frac{\Gamma(T+2-a)}{\Gamma(2-a)\,\Gamma(T+2)} \sim \frac{T^{-a}}{\Gamma(2-a)}"
    ),
    expected="verified",
    assumptions=("c = 1 - 1/i for a position i >= 2 (so 0 < c < 1)", "0 <= a < 2 rational"),
    section="docs/explanation/mathematics.rst X7",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, sine: Callable[[Any], Any] | None = None) -> Evidence:
    """X7; ``sine(c)`` replaces the closed form of the summable product (tests pass false
    versions, e.g. without the factor 1/(1 - c))."""
    run = _Run()
    a_values = [F(0), F(1, 3), F(1, 2), F(1), F(3, 2), F(5, 3)]
    T_values = [1, 2, 5, 10, 50] + ([200, 1000] if ctx.thorough else [])
    rates: dict = {}
    failed = _finite_products(ctx, run, a_values, T_values)
    if failed is None:
        failed = _rate(ctx, run, a_values, rates)
    if failed is None:
        failed = _infinite_product(ctx, run, sine)
    if failed is not None:
        return failed
    return run.decided(Evidence(
        "verified",
        method=("finite Gamma identity: exact product == rising factorial / (T+1)! and agrees "
                "with mpmath Gamma; rate: T(Γ(T+2-a)T^a/Γ(T+2) - 1) -> a(a-3)/2 with an O(1/T) "
                "remainder (mpmath loggamma, T = 1e3..1e6); infinite product: exact partial "
                f"product to T={_T0} times exp(-Σ_k c^k ζ(2k, T+2)/k) agrees with "
                "sin(π√c)/(π√c(1-c))"),
        discrepancy=rounded(max((h["discrepancy"] for h in run.history), key=mpmath.mpf),
                            ctx.dps),
        precision=f"dps={ctx.dps}", tolerance=f"{ctx.dps - 10} of {ctx.dps} digits", cases=run.n,
        parameters={"a": [str(a) for a in a_values], "T": T_values, "partial_T": _T0},
        details={"rate_remainders": rates, "infinite_product": run.history},
    ))
