"""What the analytic claims of chowdhury2026 (C2-C7) share: the paper's scale (depth 24, running
length 2048, the residual α of the Step-0 fits), the continuum density with residuals from the
sympy derivation, the interior error of a discrete profile against a density and its rate over
L, and the two-route rule of the continuum claims (a closed form against an independent
numeric route, the precision doubled while they disagree).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import sympy

from posbias.derivations import residual
from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims._common import combine_routes
from posbias.proofs_checks.precision import Agreement
from posbias.proofs_checks.registry import Evidence

__all__ = [
    "ALPHA_NOTE",
    "ANALYTIC_DEPTH",
    "ANALYTIC_LENGTH",
    "ANALYTIC_RULES_FIXED",
    "MODEL",
    "NOT_READ",
    "REREAD_RULES_FIXED",
    "RESIDUAL_ALPHAS",
    "MpFunction",
    "alpha_names",
    "continuous_part",
    "error_growth",
    "error_rate",
    "fraction_mpf",
    "interior_errors",
    "route_evidence",
    "route_figures",
    "routes_decide",
    "routes_rule",
]

#: an mpmath function of one real variable (mpmath is untyped: its numbers are Any)
MpFunction = Callable[[Any], Any]

#: the date the rules of the analytic claims (C2-C7) were fixed, before the verdicts they decide
ANALYTIC_RULES_FIXED = "2026-12-01"
#: the date of the commits that fixed the rules read a second time: a claimed formula as an input
#: of its rule (primacy-tail), statistics with and without the final token (u-shape and the
#: claims on trained models); each before the commit that recomputed what it decides
REREAD_RULES_FIXED = "2026-12-04"
#: the paper's depth (its untrained Qwen2 has 24 layers) and its running context length
ANALYTIC_DEPTH = 24
ANALYTIC_LENGTH = 2048
#: constant α of the residual regime on the paper's architectures: the paper states none; these
#: are the best constant α of the Step-0 fits measured here (docs/explanation/mathematics.rst, "The scale of C4, C6 and C7":
#: fitted α ≈ 0.07-0.13; Qwen2-0.5B at L = 2048: 0.070)
RESIDUAL_ALPHAS = (Fraction(7, 100), Fraction(1, 10), Fraction(13, 100))
#: the model of the analytic claims' cards
MODEL = "Cesàro model (uniform causal attention at initialization)"
NOT_READ = ("the paper's full text could not be read here: the source is its abstract and "
            "docs/explanation/mathematics.rst; section numbers are not confirmed")
ALPHA_NOTE = ("the paper states no α: the values are the best constant α of the Step-0 fits "
              "measured here (docs/explanation/mathematics.rst, 'The scale of C4, C6 and C7')")


def alpha_names(alphas: Iterable[Fraction]) -> tuple:
    """The α of a card's setting as strings (``7/100``, ...)."""
    return tuple(str(a) for a in alphas)


def continuous_part(depth: int, alpha: Fraction) -> MpFunction:
    """The continuum density's continuous part ``c(x)`` for constant ``α`` as an mpmath
    callable, from the sympy derivation (binomial mixture of Gamma laws in ``t = ln 1/x``)."""
    a = sympy.Rational(alpha.numerator, alpha.denominator)
    expr = residual.mixture_sum(depth, a, residual.t)
    f = sympy.lambdify(residual.t, expr, modules="mpmath")
    return lambda x: f(mpmath.log(1 / mpmath.mpf(x)))


def fraction_mpf(q: Fraction) -> Any:
    """An exact fraction as an mpmath number at the working precision."""
    return mpmath.mpmathify(q)


def interior_errors(profile, c, lo=Fraction(1, 10), hi=Fraction(9, 10)):
    """``(max |L p(j) - c(j/L)|, max |L p(j)/c(j/L) - 1|)`` over ``lo <= j/L <= hi`` (mpmath at
    the working precision)."""
    L = len(profile)
    worst = rel = mpmath.mpf(0)
    for j in range(1, L + 1):
        if lo * L <= j <= hi * L:
            cj = c(mpmath.mpf(j) / L)
            v = profile[j - 1]
            v = mpmath.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mpmath.mpmathify(v)
            gap = abs(L * v - cj)
            worst = max(worst, gap)
            rel = max(rel, gap / abs(cj))
    return worst, rel


def error_growth(lengths, errors):
    """Largest ratio ``c(2L)/c(L)`` of ``c(L) = L·err(L)`` over the last two doublings.

    ``err = O(1/L)`` means ``c`` stays bounded: a ratio above 1 at every doubling would show a
    slower rate, while a ratio below 1 (pre-asymptotically faster decay) is consistent with it.
    """
    c = [L * e for L, e in zip(lengths, errors)]
    return max(float(c[k + 1] / c[k]) for k in range(len(c) - 3, len(c) - 1))


def error_rate(lengths, errors):
    """Least-squares slope of ``log err`` against ``log L`` over the three largest ``L``
    (-1 for an O(1/L) rate in the asymptotic regime)."""
    xs = [math.log(L) for L in lengths[-3:]]
    ys = [float(mpmath.log(e)) for e in errors[-3:]]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


# ----------------------------------------------------------------- the two-route rule (C2, C3)
def routes_decide(f, t):
    """The two-route decision of the continuum claims (see :func:`routes_rule`)."""
    if f["digits"] >= t["digits"]:
        return "verified" if f["open_identities"] == 0 else "inconclusive"
    # short of the digits at the largest precision: a gap that kept shrinking is precision
    # running out; one that did not is a disagreement of the routes
    return "inconclusive" if f["gap_shrinking"] else "refuted"


def routes_rule(what: str, false_label: str, false_digits: float,
                decide: Callable[[Any, Any], str] = routes_decide) -> Rule:
    """The rule of a continuum claim whose closed form is compared with ``what`` (the
    independent numeric route); ``false_label`` and ``false_digits`` give the example of a
    false closed form and the digits it reaches."""
    return Rule(
        text="digits: the digits to which the closed form and the independent numeric route "
        f"({what}) agree at the final working precision (-log10 of the largest relative gap), "
        "the precision doubled up to --max-dps while they do not; open_identities: the sympy "
        "identities of the derivation that do not simplify to 0; gap_shrinking: the gap fell "
        "tenfold at the last doubling. verified: digits >= digits (dps - 10 of the final dps) "
        "and no open identity; refuted: fewer digits at the largest precision and the gap not "
        "shrinking (the closed form is wrong); inconclusive: the digits are reached but an "
        "identity stays open, or the gap shrinks but precision runs out.",
        decide=decide,
        thresholds={"digits": Threshold(20, "agreement digits required (dps - 10 of the final "
                                        "dps)", scale="int", sensitive=2, domain=(1, None))},
        outcomes=("verified", "refuted", "inconclusive"),
        examples=(
            Example("the stated closed form at dps 30",
                    {"digits": 29.7, "open_identities": 0, "gap_shrinking": False}, "verified",
                    "realistic"),
            Example(false_label, {"digits": false_digits, "open_identities": 1,
                                  "gap_shrinking": False}, "refuted", "false"),
            Example("the stated form with sympy unable to close one identity",
                    {"digits": 29.7, "open_identities": 1, "gap_shrinking": False},
                    "inconclusive", "realistic"),
            Example("precision ran out while the gap was still shrinking",
                    {"digits": 5.0, "open_identities": 0, "gap_shrinking": True},
                    "inconclusive", "realistic"),
        ),
        fixed=ANALYTIC_RULES_FIXED,
        deciding=("digits", "open_identities"),
        no_paper_figures="the paper states a closed form; it reports no numeric value of it",
    )


def route_figures(derivations: Sequence[Any], ag: Agreement) -> tuple[dict, dict]:
    """The figures of a two-route check (see :func:`routes_rule`) and the threshold override
    tied to the final working precision."""
    with mpmath.workdps(ag.dps):
        gap = mpmath.mpf(ag.discrepancy)
        digits = float(ag.dps) if gap == 0 else min(float(ag.dps), float(-mpmath.log10(gap)))
        shrinking = False
        if len(ag.history) >= 2:
            prev = mpmath.mpf(ag.history[-2][1])
            shrinking = bool(gap < prev / 10)
    open_ids = sum(len(d.unproven()) for d in derivations)
    figures = {"digits": round(digits, 1), "open_identities": open_ids,
               "gap_shrinking": shrinking, "final_dps": ag.dps}
    return figures, {"digits": ag.dps - 10}


def route_evidence(rule: Rule, derivations: Sequence[Any], ag: Agreement, method: str,
                   parameters: dict, details: dict | None = None) -> Evidence:
    """The evidence of a two-route check, its verdict decided by ``rule`` on
    :func:`route_figures`."""
    ev = combine_routes(derivations, ag, method, parameters, details=details)
    figures, over = route_figures(derivations, ag)
    ev.verdict = rule.apply(figures, **over).verdict
    ev.figures, ev.thresholds, ev.rule = figures, over, rule.text
    if ev.verdict == "refuted":
        ev.counterexample = (f"the closed form and the numeric route agree to {figures['digits']:g} "
                             f"digits only, at dps={ag.dps}")
    return ev
