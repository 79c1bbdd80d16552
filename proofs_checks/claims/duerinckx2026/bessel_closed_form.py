"""duerinckx2026: the series ``psi_c(y) = Σ_k c^{k+1} y^k/(k! (k+1)!)`` of the retrieval profile
is the Bessel function ``sqrt(c/y) I_1(2 sqrt(c y))``.

Setting: the kinetic retrieval profile (its public code sums the series; whether the paper writes
the Bessel form could not be read).  The check: sympy sums the series and proves it term by term
(derivation ``kinetic-bessel``), and two mpmath routes, the series and mpmath's ``besseli``, agree
at 24 points ``(c, y)`` (c up to 40, y up to 1000) at two precisions, ``dps`` and ``2 dps``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import mpmath

from posbias.numerics.kinetic import psi_bessel_precise, psi_series_precise
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import latex_of_derivation
from posbias.proofs_checks.claims.duerinckx2026._shared import (
    FIXED,
    agreement_digits,
    paper_setting,
    symbolic_open,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "POINTS", "RULE", "check", "decide"]

#: the points (c, y) compared: rates up to the largest of the public figures' a_n t and beyond,
#: log-warps from the final token (y = 0) to positions 10^-430 from the start (y = 1000)
POINTS = tuple((Fraction(c), Fraction(y)) for c in ("1/1000", "1/2", "2.457489", "40")
               for y in ("0", "1/1000", "1", "10", "100", "1000"))


def decide(f: Mapping, t: Mapping) -> str:
    """inconclusive: a symbolic identity did not close; verified: the two routes agree to
    ``dps - guard_digits`` digits at both precisions; refuted: they disagree beyond that at
    ``2 dps`` and doubling the precision gained less than one digit (a disagreement, not
    rounding); inconclusive otherwise (the agreement grows with the precision but falls short)."""
    if f["symbolic_open"] > 0:
        return "inconclusive"
    reached = [d >= p - t["guard_digits"] for d, p in zip(f["digits"], f["dps"])]
    if all(reached):
        return "verified"
    if not reached[-1] and f["digits"][-1] < f["digits"][0] + 1:
        return "refuted"
    return "inconclusive"


RULE = Rule(
    text="Two mpmath routes (the series summed to its tail; sqrt(c/y) besseli(1, 2 sqrt(c y))) "
    "at 24 points (c, y), at dps and at 2 dps; digits = the fewest significant digits on which "
    "they agree. verified: digits >= dps - guard_digits at both precisions and every sympy "
    "identity of kinetic-bessel closes; refuted: short of that at 2 dps with less than one digit "
    "gained by doubling the precision; inconclusive: an identity did not close, or the agreement "
    "grows with the precision but falls short.",
    decide=decide,
    thresholds={"guard_digits": Threshold(10, "digits of the working precision that two routes "
                                          "may lose to rounding", scale="int", sensitive=2,
                                          domain=(0, None))},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("the two routes agree at dps 30 and 60",
                {"digits": [26.5, 56.4], "dps": [30, 60], "symbolic_open": 0}, "verified"),
        Example("I_0 in place of I_1 (sqrt(c/y) I_0(2 sqrt(c y))): off in the first digit at "
                "both precisions", {"digits": [0.1, 0.1], "dps": [30, 60], "symbolic_open": 0},
                "refuted", "false"),
        Example("I_1(sqrt(c y)) without the factor 2 in the argument",
                {"digits": [0.4, 0.4], "dps": [30, 60], "symbolic_open": 0}, "refuted", "false"),
        Example("the series truncated at a fixed 20 terms: wrong for large c y at both precisions",
                {"digits": [2.0, 2.0], "dps": [30, 60], "symbolic_open": 0}, "refuted", "false"),
        Example("agreement grows with the precision but falls short (a slowly converging route)",
                {"digits": [15.0, 40.0], "dps": [30, 60], "symbolic_open": 0}, "inconclusive"),
        Example("the numbers agree but sympy's sum did not close",
                {"digits": [26.5, 56.4], "dps": [30, 60], "symbolic_open": 1}, "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("digits", "dps", "symbolic_open"),
    no_paper_figures="the statement is a formula: the paper reports no figure this rule takes",
)

CARD = Card(
    paper=paper_setting("the retrieval profile's series psi_c(y) (in the public code); the Bessel "
                        "form is the closed form of that series",
                        model="kinetic retrieval profile, one mode", c="c > 0", y="y >= 0"),
    test=Setting("sympy: the sum of the series and its k-th term (symbolic k); mpmath: series vs "
                 "besseli at 24 points, dps and 2 dps", model="kinetic retrieval profile, one mode",
                 c=("c > 0", "1/1000 .. 40 numerically"), y=("y >= 0", "0 .. 1000 numerically")),
    proof=ProofStatus("all", note="sympy sums the series to the Bessel form and proves it term by "
                      "term for symbolic k; the mpmath routes are an independent check"),
)


@claim(
    "duerinckx2026:bessel-closed-form",
    statement="The retrieval profile's series psi_c(y) = sum_k c^(k+1) y^k/(k!(k+1)!) equals "
    "sqrt(c/y) I_1(2 sqrt(c y)) (I_1 the modified Bessel function), psi_c(0) = c.",
    latex=latex_of_derivation("kinetic-bessel"),
    expected="verified",
    assumptions=("c > 0", "y >= 0"),
    section="retrieval profile (public code: psi_c)",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, closed: Callable[[Any, Any, int], Any] | None = None) -> Evidence:
    """Series against the closed form (``closed(c, y, dps)``, default mpmath's besseli) at
    :data:`POINTS`, at ``ctx.dps`` and ``2 ctx.dps``; the sympy derivation ``kinetic-bessel``."""
    closed = closed or psi_bessel_precise
    open_, ds = symbolic_open("kinetic-bessel")
    precisions = [ctx.dps, 2 * ctx.dps]
    digits, worst = [], []
    for dps in precisions:
        with mpmath.workdps(dps):
            pairs = [(psi_series_precise(c, y, dps), closed(c, y, dps)) for c, y in POINTS]
            agree = [agreement_digits(a, b) for a, b in pairs]
        i = min(range(len(agree)), key=lambda k: agree[k])
        digits.append(round(min(agree), 2) if min(agree) != float("inf") else float(dps))
        worst.append({"c": str(POINTS[i][0]), "y": str(POINTS[i][1]),
                      "series": mpmath.nstr(pairs[i][0], 20), "closed": mpmath.nstr(pairs[i][1], 20)})
    shown = [min(d, float(p)) for d, p in zip(digits, precisions)]
    figures = {"digits": shown, "dps": precisions, "symbolic_open": open_}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict,
        method="sympy: summation of the series and its k-th term against the defining series of "
        "I_1 (symbolic k); mpmath: series vs besseli at 24 points, at dps and 2 dps",
        discrepancy=f"agree to {shown[0]:.1f} of {ctx.dps} and {shown[1]:.1f} of "
                    f"{2 * ctx.dps} digits",
        precision=f"dps={ctx.dps} and {2 * ctx.dps}",
        tolerance=f"{ctx.dps - 10} of {ctx.dps} digits",
        parameters={"points": [[str(c), str(y)] for c, y in POINTS]},
        details={"worst_point": worst, "symbolic": {d.name: d.proof_status for d in ds}},
        figures=figures,
    )
