"""chowdhury2026:primacy-tail (C4): ``ρ_H(x) = (ln 1/x)^(H-1)/(H-1)!`` diverges logarithmically
as x -> 0 (as the power H-1 of ln 1/x, slower than any power of 1/x); on the discrete route the
first token's influence ``L·p(1)`` grows as ``(ln L)^(H-1)/(H-1)!``.

The abstract ("causal masking forces a logarithmic divergence of gradient influence at the start
of the prompt (the Primacy Tail)") and docs/explanation/mathematics.rst C4, applied at the paper's running
example: the attention-only Cesàro model, H = 24, L = 2048.

The check reads ``D_H(L) = L·p(1)`` of float64 Cesàro rollouts (cross-checked with exact
Fractions at L = 256) against the expansion ``A_H(L) = [z^(H-1)] L^z Γ(1-z)`` (mpmath): the
decay of the relative gap over L in the asymptotic regime (H = 2..8, L = 64..2^20) shows that
the computation follows the expansion.  The claimed *formula* ``F_H(L)`` is an input of the
check (the paper's ``(ln L)^(H-1)/(H-1)!`` by default): it is the leading term only when
``D_H/F_H`` tends to 1, which the check reads on the discrete route (the gap
``|D_H/F_H - 1|`` must fall like a power of ``1/ln L`` over the same L) and on the expansion
the route follows, out to ``ln L = 10^4``; then the ratio ``D_H/F_H`` at the paper's H = 24,
L = 2048.  A wrong power, a wrong factorial or a power law of L is refuted
(:data:`FALSE_FORMULAS`).  The continuum tail identities are the sympy derivation
``primacy-tail``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import mpmath
import sympy

from posbias.numerics import cesaro
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import derivation_by_name, symbolic_summary
from posbias.proofs_checks.claims.chowdhury2026._analytic import (
    ANALYTIC_DEPTH,
    ANALYTIC_LENGTH,
    MODEL,
    NOT_READ,
    REREAD_RULES_FIXED,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = [
    "CARD",
    "FALSE_FORMULAS",
    "FORMULA_LOG_LENGTHS",
    "PRIMACY_DEPTHS",
    "PRIMACY_FLOAT_TOL",
    "PRIMACY_LENGTHS",
    "PRIMACY_MIN_EXPONENT",
    "RULE",
    "check",
    "decide",
    "paper_formula",
    "primacy_asymptotic",
]

#: the depths and lengths of the asymptotic regime
PRIMACY_DEPTHS = (2, 3, 4, 5, 6, 7, 8)
PRIMACY_LENGTHS = tuple(2 ** k for k in range(6, 21, 2))  # 64 .. 2^20
#: decay exponent s of the relative gap e(L) ~ L^-s: 1 when the expansion holds (O(1/L) up to
#: logarithms), about 0 when its leading term is wrong; the verdict splits the two at 1/2
PRIMACY_MIN_EXPONENT = 0.5
PRIMACY_FLOAT_TOL = 1e-12  # float64 rollout vs exact at L = 256: T·log2(L)·u ~ 1e-14
#: ln L at which the claimed formula is read against the expansion: a leading term's relative
#: gap falls tenfold from the first to the second ((H-1)γ/ln L), a wrong one's does not
FORMULA_LOG_LENGTHS = (10 ** 3, 10 ** 4)

#: a claimed formula F_H(L) for L·p(1): a function of L (an mpmath number, as large as
#: e^(10^4)) and the depth H
Formula = Callable[[Any, int], Any]


def paper_formula(L: Any, depth: int) -> Any:
    """The paper's primacy tail at x = 1/L: ``(ln L)^(H-1)/(H-1)!`` (mpmath).

    >>> import mpmath
    >>> mpmath.nstr(paper_formula(mpmath.e ** 3, 3), 6)  # 3^2 / 2!
    '4.5'
    """
    return mpmath.log(L) ** (depth - 1) / mpmath.factorial(depth - 1)


#: plausible false formulas for the first token's influence, each refuted by the rule (its
#: power tests feed them to the check): a wrong power of ln L, a wrong factorial, a power law
FALSE_FORMULAS: dict[str, Formula] = {
    "(ln L)^H/H!": lambda L, H: mpmath.log(L) ** H / mpmath.factorial(H),
    "(ln L)^(H-1)/H!": lambda L, H: mpmath.log(L) ** (H - 1) / mpmath.factorial(H),
    "L^(1/10)": lambda L, H: mpmath.mpf(L) ** (mpmath.mpf(1) / 10),
}


def decide(f: Mapping, t: Mapping) -> str:
    """C4: an open tail identity or a float64 route off the exact one: inconclusive; the gap to
    A_H not decaying (a wrong computation), or the claimed formula not the leading term of the
    discrete route or of its expansion (a wrong formula): refuted; both holding with L·p(1)
    within paper_factor of the formula at the paper's point: verified, beyond it qualified."""
    if f["symbolic_open"] > 0 or f["float_gap"] > t["float_tol"]:
        return "inconclusive"
    if f["decay_exponent"] < t["min_exponent"]:
        return "refuted"
    if min(f["formula_exponent_discrete"], f["formula_exponent_expansion"]) < t["min_exponent"]:
        return "refuted"
    r = f["paper_ratio"]
    return "verified" if max(r, 1 / r) <= t["paper_factor"] else "qualified"


RULE = Rule(
    text="Discrete route: D_H(L) = L·p(1), p the last row of M^H (attention-only Cesàro rollout, "
    "float64), is the Beta(1, L) mean of rho_H (docs/explanation/mathematics.rst X2) and equals "
    "h_{H-1}(1, 1/2, ..., 1/L) (X3), whose generating function prod_i (1 - z/i)^(-1) tends to "
    "L^z Γ(1-z): so D_H(L) follows A_H(L) = [z^(H-1)] L^z Γ(1-z) = (ln L)^(H-1)/(H-1)! "
    "(1 + (H-1)γ/ln L + O(ln^-2 L)). The computation: decay_exponent = the smallest s over "
    f"H = {PRIMACY_DEPTHS[0]}..{PRIMACY_DEPTHS[-1]} of the relative gap e(L) = |D_H(L)/A_H(L) - 1| "
    "~ L^-s at the last two factor-4 steps of L = 4^3..4^10 (s = 1 up to logarithms when the "
    "route follows the expansion, s ≈ 0 when it does not). The formula: F_H(L) the claimed "
    "formula for L·p(1) (the paper's (ln L)^(H-1)/(H-1)!, the density rho_H at x = 1/L); it is "
    "the leading term only when D_H/F_H -> 1, the gap falling like a power of 1/ln L: "
    "formula_exponent_discrete = the smallest s over the same H of |D_H(L)/F_H(L) - 1| ~ "
    "(ln L)^-s at the last two factor-4 steps of L; formula_exponent_expansion = the smallest "
    "over H = 2..8 and 24 of log10 of the ratio of |A_H/F_H - 1| at ln L = 10^3 and at "
    "ln L = 10^4 (1 for a leading term, whose gap is (H-1)γ/ln L; about 0 for a wrong constant "
    "or factorial, -1 or less for a wrong power, about 0 for a power law of L). The paper's "
    "scale: paper_ratio = D_24(2048) / F_24(2048). inconclusive: a symbolic tail identity stays "
    "open or the float64 rollout differs from the exact one by more than float_tol at L = 256; "
    "refuted: decay_exponent < min_exponent (the computation does not follow the expansion), or "
    "formula_exponent_discrete or formula_exponent_expansion < min_exponent (the claimed formula "
    "is not the leading term of the first token's influence: a wrong power, constant or form); "
    "verified: both hold and paper_ratio is within a factor paper_factor of 1 (the formula "
    "describes the first token at the paper's scale); qualified: both hold but at H = 24, "
    "L = 2048 the first token is more than paper_factor away from the formula (it describes the "
    "first token only for ln L >> H). Fixed on 2026-12-04 (the formula became an input, read "
    "against the discrete route, before the verdict on the paper's formula was recomputed).",
    decide=decide,
    thresholds={
        "min_exponent": Threshold(PRIMACY_MIN_EXPONENT, "least decay exponent, of the gap to A_H "
                                  "and of the formula's gap, that reads as the expansion and the "
                                  "formula holding", scale="linear", step=0.05, sensitive=0.2,
                                  domain=(0, 2)),
        "float_tol": Threshold(PRIMACY_FLOAT_TOL, "float64 vs exact rollout at L = 256 "
                               "(T·log2(L)·u ~ 1e-14)", sensitive=10),
        "paper_factor": Threshold(2.0, "factor within which L·p(1) must match the tail formula at "
                                  "the paper's H = 24, L = 2048"),
    },
    outcomes=("verified", "qualified", "refuted", "inconclusive"),
    examples=(
        Example("a shallow network, H = 2 at L = 2048: L·p(1)/ln L = 1 + γ/ln L ≈ 1.08", {
            "symbolic_open": 0, "float_gap": 1e-15, "decay_exponent": 1.0,
            "formula_exponent_discrete": 1.0, "formula_exponent_expansion": 1.0,
            "paper_ratio": 1.08}, "verified", "realistic"),
        Example("the paper's formula at its H = 24, L = 2048: L·p(1) = 2047.8 against "
                "(ln L)^23/23! = 0.0076", {
                    "symbolic_open": 0, "float_gap": 2.22e-16, "decay_exponent": 1.008,
                    "formula_exponent_discrete": 1.0, "formula_exponent_expansion": 1.0,
                    "paper_ratio": 2.709e5}, "qualified", "realistic"),
        Example("false formula: (ln L)^H/H!, one power of ln L too many", {
            "symbolic_open": 0, "float_gap": 2.22e-16, "decay_exponent": 1.008,
            "formula_exponent_discrete": -8.689, "formula_exponent_expansion": -0.009652,
            "paper_ratio": 8.526e5}, "refuted", "false"),
        Example("false formula: (ln L)^(H-1)/H!, the factorial of H instead of H-1", {
            "symbolic_open": 0, "float_gap": 2.22e-16, "decay_exponent": 1.008,
            "formula_exponent_discrete": 0.08073, "formula_exponent_expansion": 0.0004509,
            "paper_ratio": 6.501e6}, "refuted", "false"),
        Example("false formula: L^(1/10), a power law (a log-log plot at L <= 2^20 hardly tells "
                "it from a power of ln L)", {
            "symbolic_open": 0, "float_gap": 2.22e-16, "decay_exponent": 1.008,
            "formula_exponent_discrete": -4.979, "formula_exponent_expansion": -3.219e-27,
            "paper_ratio": 955.3}, "refuted", "false"),
        Example("false computation: a rollout whose first token grows with one power of ln L "
                "less (the gap to A_H does not decay)", {
                    "symbolic_open": 0, "float_gap": 2.22e-16, "decay_exponent": -0.0738,
                    "formula_exponent_discrete": -8.689, "formula_exponent_expansion": 1.0,
                    "paper_ratio": 2.708e5}, "refuted", "false"),
        Example("a float64 route 1e-9 off the exact one", {
            "symbolic_open": 0, "float_gap": 1e-9, "decay_exponent": 1.0,
            "formula_exponent_discrete": 1.0, "formula_exponent_expansion": 1.0,
            "paper_ratio": 2.7e5}, "inconclusive", "realistic"),
    ),
    fixed=REREAD_RULES_FIXED,
    deciding=("decay_exponent", "formula_exponent_discrete", "formula_exponent_expansion",
              "paper_ratio"),
    no_paper_figures="the paper states the tail as a formula ('logarithmic divergence') and "
    "reports no value of the first token's influence",
)


CARD = Card(
    paper=Setting("abstract ('causal masking forces a logarithmic divergence of gradient "
                  "influence at the start of the prompt (the Primacy Tail)'); docs/explanation/mathematics.rst C4 "
                  "(applied at the paper's running example)", architecture=MODEL,
                  residual="off", mask="causal", pe="none", L=ANALYTIC_LENGTH, H=ANALYTIC_DEPTH,
                  unconfirmed=("L",), note=NOT_READ),
    test=Setting("float64 Cesàro rollouts (first-token influence L·p(1)) cross-checked with "
                 "exact Fractions at L = 256, vs the expansion [z^(H-1)] L^z Γ(1-z) (mpmath): "
                 "the asymptotic regime at H = 2..8, L = 64..2^20 and the paper's point H = 24, "
                 "L = 2048", architecture=MODEL, residual="off", mask="causal", pe="none",
                 L=(*PRIMACY_LENGTHS, ANALYTIC_LENGTH), H=(*PRIMACY_DEPTHS, ANALYTIC_DEPTH)),
    proof=ProofStatus("numeric", note="the continuum tail identities are symbolic (ρ_H/ln^(H-1) = "
                      "1/(H-1)! for symbolic H; limits for H = 1..6); the discrete L·p(1) "
                      "expansion is checked numerically"),
)


@functools.lru_cache(maxsize=64)
def _gamma_series(depth: int, dps: int) -> tuple:
    """Taylor coefficients c_0..c_{depth-1} of Γ(1-z) at z = 0 (mpmath at ``dps``), from
    ``ln Γ(1-z) = γz + Σ_{k>=2} ζ(k) z^k/k`` exponentiated as a power series (``b' = a' b``):
    exact to the working precision at every order, unlike numerical differentiation.

    >>> [mpmath.nstr(c, 12) for c in _gamma_series(3, 20)]  # 1, γ, (γ² + ζ(2))/2
    ['1.0', '0.577215664902', '0.989055995328']
    """
    with mpmath.workdps(dps + 10):
        a = [mpmath.mpf(0), +mpmath.euler] + [mpmath.zeta(k) / k for k in range(2, depth)]
        b = [mpmath.mpf(1)] + [mpmath.mpf(0)] * (depth - 1)
        for m in range(1, depth):
            b[m] = sum(k * a[k] * b[m - k] for k in range(1, m + 1)) / m
        return tuple(b)


def primacy_asymptotic(L: Any, depth: int, dps: int = 30) -> Any:
    """``A_H(L) = Σ_{m=0}^{H-1} c_{H-1-m} (ln L)^m / m!`` with ``c_k`` the Taylor coefficients
    of ``Γ(1-z)``: the large-L expansion of ``L·p(1)`` for the attention-only Cesàro rollout of
    depth ``H`` (from ``Π_{i<=L} (1 - z/i)^{-1} → L^z Γ(1-z)``).  mpmath at ``dps``.

    >>> import mpmath
    >>> mpmath.nstr(primacy_asymptotic(10**6, 2), 12)  # ln L + γ
    '14.3927262229'
    """
    with mpmath.workdps(dps):
        return _expansion_at(mpmath.log(L), depth, dps)


def _expansion_at(lnL: Any, depth: int, dps: int) -> Any:
    """:func:`primacy_asymptotic` as a function of ``ln L`` (for L as large as e^(10^4))."""
    c = _gamma_series(depth, dps)
    with mpmath.workdps(dps):
        u = mpmath.mpf(lnL)
        return sum(c[depth - 1 - m] * u ** m / mpmath.factorial(m) for m in range(depth))


def _ln_length_within(formula: Formula, depth: int, factor: float, dps: int) -> float | None:
    """The ln L (to 0.1) beyond which the expansion A_H(L) is within ``factor`` of the claimed
    ``formula``: where the formula starts to describe the first token; None when it is not
    within the factor at ln L = 10 H (a formula that is not the leading term)."""
    with mpmath.workdps(dps):
        def ratio(u):
            return _expansion_at(u, depth, dps) / formula(mpmath.exp(u), depth)

        def within(u):
            r = ratio(u)
            return 1 / factor <= r <= factor
        lo, hi = mpmath.mpf(1), mpmath.mpf(10 * depth)
        if not within(hi):
            return None
        while hi - lo > mpmath.mpf(1) / 10:
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if within(mid) else (mid, hi)
        return round(float(hi), 1)


def _formula_exponents(D: Mapping[int, Sequence[Any]], lengths: Sequence[int],
                       formula: Formula, dps: int) -> tuple[dict, dict]:
    """Per depth: the decay exponent s of the claimed formula's gap ``|D_H(L)/F_H(L) - 1| ~
    (ln L)^-s`` on the discrete route (the smaller of the last two factor-4 steps of L; ``D``
    the first-token influences over ``lengths`` per depth), and ``log10`` of the ratio of
    ``|A_H/F_H - 1|`` at the two ln L of :data:`FORMULA_LOG_LENGTHS` on the expansion (depths
    :data:`PRIMACY_DEPTHS` and the paper's 24)."""
    discrete, expansion = {}, {}
    with mpmath.workdps(dps):
        for H, row in D.items():
            gaps = [abs(mpmath.mpf(d) / formula(mpmath.mpf(L), H) - 1)
                    for L, d in zip(lengths, row)]
            discrete[H] = min(
                float(mpmath.log(gaps[k] / gaps[k + 1])
                      / mpmath.log(mpmath.log(lengths[k + 1]) / mpmath.log(lengths[k])))
                for k in range(len(gaps) - 3, len(gaps) - 1))
        for H in (*PRIMACY_DEPTHS, ANALYTIC_DEPTH):
            gap = [abs(_expansion_at(u, H, dps) / formula(mpmath.exp(u), H) - 1)
                   for u in FORMULA_LOG_LENGTHS]
            expansion[H] = float(mpmath.log10(gap[0] / gap[1]))
    return discrete, expansion


def _latex():
    """The claim's LaTeX: the density and the expansion of the first token's influence."""
    x, L, H, _z = sympy.symbols("x L H z", positive=True)
    p = sympy.Function("p")
    parts = [
        sympy.Eq(sympy.Function(r"\rho_H")(x),
                 sympy.log(1 / x) ** (H - 1) / sympy.factorial(H - 1)),
        sympy.Eq(L * p(1), sympy.log(L) ** (H - 1) / sympy.factorial(H - 1)
                 * (1 + (H - 1) * sympy.EulerGamma / sympy.log(L)
                    + sympy.Symbol(r"O(\ln^{-2} L)"))),
    ]
    return r",\qquad ".join(sympy.latex(e) for e in parts)


def _float_gap(rollout: Callable[[int, int], float]) -> float:
    """The largest relative gap of the float64 route ``rollout`` from the exact first-token
    influence (Fractions) at L = 256, over the depths of the check."""
    float_gap = 0.0
    for H in (*PRIMACY_DEPTHS, ANALYTIC_DEPTH):
        exact = cesaro.cesaro_profile_exact(256, [1] * H)[0] * 256
        float_gap = max(float_gap, abs(rollout(256, H) / float(exact) - 1))
    return float_gap


def _asymptotic_regime(rollout: Callable[[int, int], float], lengths: Sequence[int],
                       formula: Formula, dps: int) -> tuple[dict, dict, dict, dict]:
    """Per depth of :data:`PRIMACY_DEPTHS`: the table of ``L·p(1)`` against ``A_H(L)`` and the
    claimed ``formula`` over ``lengths``, the decay exponent of the relative gap to A_H (the
    smaller of the last two steps of L), the ratio of ``L·p(1)`` to the formula at the largest
    L, and the first-token influences themselves (mpmath at the working precision)."""
    table, growth, ratio, firsts = {}, {}, {}, {}
    for H in PRIMACY_DEPTHS:
        rows = []
        for L in lengths:
            D = mpmath.mpf(rollout(L, H))
            A = primacy_asymptotic(L, H, dps)
            rows.append((L, D, A, abs(D / A - 1), D / formula(mpmath.mpf(L), H)))
        es = [e for _, _, _, e, _ in rows]
        growth[H] = min(float(mpmath.log(es[k] / es[k + 1]) / mpmath.log(lengths[k + 1] / lengths[k]))
                        for k in range(len(es) - 3, len(es) - 1))
        firsts[H] = [D for _, D, _, _, _ in rows]
        ratio[H] = float(rows[-1][4])
        table[f"H={H}"] = {str(L): {"L*p(1)": mpmath.nstr(D, 8), "A_H(L)": mpmath.nstr(A, 8),
                                    "rel_gap": mpmath.nstr(e, 3),
                                    "L*p(1)/formula": mpmath.nstr(r, 4),
                                    "1+(H-1)γ/lnL": mpmath.nstr(1 + (H - 1) * mpmath.euler
                                                                 / mpmath.log(L), 4)}
                           for L, D, A, e, r in rows}
    return table, growth, ratio, firsts


def _paper_point(rollout: Callable[[int, int], float], formula: Formula,
                 dps: int) -> tuple[Any, Any, dict]:
    """``L·p(1)``, the claimed formula and the figures of the paper's point H = 24, L = 2048
    (mpmath at the working precision)."""
    H, L = ANALYTIC_DEPTH, ANALYTIC_LENGTH
    D = mpmath.mpf(rollout(L, H))
    A = primacy_asymptotic(L, H, dps)
    F = formula(mpmath.mpf(L), H)
    paper = {"L*p(1)": float(mpmath.nstr(D, 8)), "p(1)": float(mpmath.nstr(D / L, 6)),
             "formula F_24(L)": float(mpmath.nstr(F, 4)),
             "A_24(L)": float(mpmath.nstr(A, 8)), "rel_gap_to_A": float(mpmath.nstr(abs(D / A - 1), 3))}
    return D, F, paper


def _in_words(verdict: str, d: Any, float_gap: float, growth: Mapping, table: Mapping,
              ratio: Mapping, figures: Mapping, t: Mapping, Lmax: int, name: str) -> dict:
    """The discrepancy, and the counterexample or correction, of the verdict, from the figures
    only (``name`` the claimed formula in words)."""
    disc, expa = figures["formula_exponents"]["discrete"], figures["formula_exponents"]["expansion"]
    hd, he = min(disc, key=disc.__getitem__), min(expa, key=expa.__getitem__)
    hi = PRIMACY_DEPTHS[-1]
    follows = (f"L·p(1) follows the expansion A_H (its relative gap decays like "
               f"L^-{min(growth.values()):.3g}, H = {PRIMACY_DEPTHS[0]}..{hi})")
    against = (f"the gap |L·p(1)/F - 1| to the formula F = {name} falls like (ln L)^-s with s = "
               f"{disc[hd]:.3g} at worst on the discrete route (H = {hd}) and s = {expa[he]:.3g} "
               f"on the expansion to ln L = {FORMULA_LOG_LENGTHS[-1]} (H = {he}); at L = {Lmax} "
               f"L·p(1) is {ratio[2]:.3g} times F at H = 2 and {ratio[hi]:.3g} times at H = {hi}")
    if verdict == "inconclusive":
        why = ("float64 rollout differs from the exact one by " f"{float_gap:.2g}" if float_gap >
               PRIMACY_FLOAT_TOL else "symbolic identities did not close: " + "; ".join(d.unproven()))
        return {"discrepancy": why}
    if verdict == "refuted":
        if figures["decay_exponent"] < t["min_exponent"]:
            bad = min(growth, key=growth.__getitem__)
            return {"counterexample": f"H = {bad}: the gap to A_H decays only like L^-s with "
                    f"s = {growth[bad]:.3g} (at L = {Lmax}: {table[f'H={bad}'][str(Lmax)]})"}
        return {"counterexample": f"{name} is not the leading term of the first token's "
                f"influence: {follows}, but {against}, where a leading term's gap falls like "
                f"(ln L)^-1 (s >= {t['min_exponent']:g} required)"}
    gap = max((table[f"H={H}"][str(Lmax)]["rel_gap"] for H in PRIMACY_DEPTHS),
              key=mpmath.mpf)
    if verdict == "qualified":
        paper = figures["paper_point"]
        most = ": nearly all the influence" if paper["p(1)"] >= 0.99 else ""
        beyond = figures["lnL_within_factor_at_H24"]
        return {"discrepancy": f"largest relative gap to A_H at L = {Lmax}: {gap}", "correction": (
            f"holds only for ln L >> H: {follows}, and {against}; at the paper's H = 24 and "
            f"L = 2048 the first token carries L·p(1) = {paper['L*p(1)']:.6g} (p(1) = "
            f"{paper['p(1)']:.5g}{most}) against the formula's F_24 = "
            f"{paper['formula F_24(L)']:.3g}, {figures['paper_ratio']:.3g} times F (the full "
            f"expansion A_24 matches it to {paper['rel_gap_to_A']:.2g}); at H = 24 the formula "
            f"comes within a factor {t['paper_factor']:g} of the first token only beyond "
            f"ln L = {beyond:g}")}
    return {"discrepancy": f"largest relative gap to A_H at L = {Lmax}: {gap}; {follows}, and "
            f"{against}"}


@claim(
    "chowdhury2026:primacy-tail",
    statement="Primacy tail: rho_H(x) = (ln 1/x)^(H-1)/(H-1)! diverges logarithmically as x -> 0 "
    "(as the power H-1 of ln 1/x, slower than any power of 1/x); on the discrete route the "
    "first token's influence L·p(1) grows as (ln L)^(H-1)/(H-1)!.",
    latex=_latex,
    expected="qualified",
    assumptions=("H >= 2 an integer (H = 1: rho_1 = 1 and L·p(1) = 1, no divergence)",
                 "attention only (α = 1)"),
    section="C4",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, rollout: Callable[[int, int], float] | None = None,
          lengths: Sequence[int] = PRIMACY_LENGTHS, formula: Formula | None = None,
          formula_name: str = "(ln L)^(H-1)/(H-1)!") -> Evidence:
    """C4 on the discrete route: ``L·p(1)`` of the exact/float64 Cesàro rollout against the
    expansion A_H, and the claimed ``formula`` (the paper's ``(ln L)^(H-1)/(H-1)!`` by default,
    named ``formula_name``) against both (see RULE), in the asymptotic regime and at the
    paper's H = 24, L = 2048.  ``rollout(L, H)`` replaces the float64 first-token influence
    ``L·p(1)`` and ``lengths`` the grid of L (tests); ``formula(L, H)`` is called with L an
    mpmath number (up to e^(10^4))."""
    if rollout is None:
        def rollout(L, H):
            return L * float(cesaro.cesaro_profile(L, [1.0] * H)[0])
    formula = formula or paper_formula
    d = derivation_by_name("primacy-tail")
    method = ("float64 Cesàro rollouts M^H (first-token influence L·p(1), L = 64 .. 2^20, and "
              "H = 24 at L = 2048), cross-checked with exact Fractions at L = 256, vs the "
              "expansion [z^(H-1)] L^z Γ(1-z) (mpmath, to ln L = 10^4) and vs the claimed "
              f"formula {formula_name}; sympy limits and tail mass of rho_H")
    # cross-check of the float64 route against the exact one
    float_gap = _float_gap(rollout)
    with mpmath.workdps(ctx.dps):
        table, growth, ratio, firsts = _asymptotic_regime(rollout, lengths, formula, ctx.dps)
        disc, expa = _formula_exponents(firsts, lengths, formula, ctx.dps)
        D, F, paper = _paper_point(rollout, formula, ctx.dps)
        paper_ratio = float(mpmath.nstr(D / F, 4))
    t = RULE.values()
    figures = {"symbolic_open": len(d.unproven()), "float_gap": float(f"{float_gap:.3g}"),
               "decay_exponent": round(min(growth.values()), 4),
               "formula_exponent_discrete": float(f"{min(disc.values()):.4g}"),
               "formula_exponent_expansion": float(f"{min(expa.values()):.4g}"),
               "paper_ratio": paper_ratio, "paper_point": paper,
               "formula_exponents": {
                   "discrete": {str(H): float(f"{v:.4g}") for H, v in disc.items()},
                   "expansion": {str(H): float(f"{v:.4g}") for H, v in expa.items()}},
               "lnL_within_factor_at_H24": _ln_length_within(formula, ANALYTIC_DEPTH,
                                                             t["paper_factor"], ctx.dps)}
    verdict = RULE.apply(figures).verdict
    worst = min(growth.values())
    return Evidence(verdict, method=method, precision=f"float64 rollouts, dps={ctx.dps}",
                    tolerance=f"decay exponents (of the gap to A_H in L, of the formula's gap "
                    f"in ln L) >= {PRIMACY_MIN_EXPONENT}; float64 vs exact <= "
                    f"{PRIMACY_FLOAT_TOL:g}; L·p(1) within a factor {t['paper_factor']:g} of the "
                    "formula at H = 24, L = 2048",
                    cases=len(PRIMACY_DEPTHS) * len(lengths) + len(expa) + 1,
                    worst_margin=f"smallest decay exponent of e(L): {worst:.3f}; of the "
                    f"formula's gap: {min(disc.values()):.3f} (discrete route), "
                    f"{min(expa.values()):.3f} (expansion)",
                    parameters={"depths": list(PRIMACY_DEPTHS), "lengths": list(lengths),
                                "formula": formula_name,
                                "formula_log_lengths": list(FORMULA_LOG_LENGTHS),
                                "paper_point": {"H": ANALYTIC_DEPTH, "L": ANALYTIC_LENGTH}},
                    details={"table": table,
                             "decay_exponent": {str(k): round(v, 4) for k, v in growth.items()},
                             "symbolic": symbolic_summary([d]),
                             "float64_vs_exact_at_L256": f"{float_gap:.2g}"},
                    figures=figures, rule=RULE.text,
                    **_in_words(verdict, d, float_gap, growth, table, ratio, figures, t,
                                lengths[-1], formula_name))
