"""posbias:symmetric-polynomial (X3): the last row of ``M^H`` (attention only, the Cesàro
kernel) is ``(M^H)[L,j] = (1/L) h_{H-1}(1/j, 1/(j+1), ..., 1/L)``, ``h_d`` the complete
homogeneous symmetric polynomial.

posbias' own result (docs/explanation/mathematics.rst X3, 'symmetric-polynomial form'): any length L and
depth H >= 1 (H = 0 is the identity).

The check compares exactly (Fractions), for L = 1..16 and H = 0..8 (L <= 40, H <= 16 with
``--thorough``), the propagated last row of ``M^H`` against the row computed by the recurrence
``h_e(x_j..x_L) = h_e(x_{j+1}..x_L) + x_j h_{e-1}(x_j..x_L)`` (no expansion), and stops at the
first mismatch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from posbias.numerics.cesaro import cesaro_profile_exact
from posbias.numerics.closed_forms import symmetric_polynomial_profile_exact
from posbias.proofs_checks.cards import Card, ProofStatus, Setting
from posbias.proofs_checks.claims.posbias._shared import (
    decide_exact,
    exact_figures,
    exact_rule,
    x_source,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """Exact equality on every (L, H) (:func:`decide_exact`)."""
    return decide_exact(f, t)


RULE = exact_rule(
    "Exact Fractions, L = 1..16, H = 0..8 (L <= 40, H <= 16 thorough): (1/L) h_{H-1}(1/j, ..., "
    "1/L) by its recurrence equals the propagated last row of M^H. verified: no mismatch; "
    "refuted: the first mismatch (printed).",
    "h_H in place of h_{H-1} (the degree off by one)",
    decide)

CARD = Card(
    paper=Setting(x_source(3, "symmetric-polynomial form"), kernel="Cesàro", L="any", H="any"),
    test=Setting("exact Fraction comparisons", kernel="Cesàro", L="1..16", H="0..8"),
    proof=ProofStatus("range", "L = 1..16, H = 0..8 (exact equality)"))


@claim(
    "posbias:symmetric-polynomial",
    statement=(
        "The last row of M^H is (M^H)[L,j] = (1/L) h_{H-1}(1/j, 1/(j+1), ..., 1/L), h_d the "
        "complete homogeneous symmetric polynomial."
    ),
    latex=r"(M^{H})_{L,j} = \frac{1}{L}\, h_{H-1}\!\left(\frac{1}{j}, \frac{1}{j+1}, \dots, \frac{1}{L}\right)",
    expected="verified",
    assumptions=("attention only (λ ≡ 1)", "H >= 1 (H = 0 is the identity)"),
    section="docs/explanation/mathematics.rst X3",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, profile: Callable[[int, int], list] | None = None) -> Evidence:
    """X3 exactly; ``profile(L, H)`` replaces the symmetric-polynomial row (tests pass false
    versions, e.g. h_H in place of h_{H-1})."""
    profile = profile or symmetric_polynomial_profile_exact
    Ls = range(1, (41 if ctx.thorough else 17))
    Hs = range(17 if ctx.thorough else 9)
    n = 0
    for L in Ls:
        for H in Hs:
            a = cesaro_profile_exact(L, [1] * H)
            b = profile(L, H)
            n += 1
            if a != b:
                j = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
                return exact_figures(1, Evidence(
                    "refuted", method="propagation vs h-recurrence (exact)", precision="exact",
                    counterexample=f"L={L}, H={H}: p({j + 1}) = {a[j]} vs {b[j]}", cases=n))
    return exact_figures(0, Evidence(
        "verified",
        method="exact last-row propagation of M vs the recurrence h_e(x_j..x_L) = "
               "h_e(x_{j+1}..x_L) + x_j h_{e-1}(x_j..x_L) (no expansion)",
        discrepancy="0 (exact)", precision="exact", tolerance="exact equality", cases=n,
        parameters={"L": [min(Ls), max(Ls)], "H": [min(Hs), max(Hs)]},
    ), {"L": f"1..{max(Ls)}", "H": f"0..{max(Hs)}"} if ctx.thorough else None)
