"""chowdhury2026:primacy-tail (C4): ``ρ_H(x) = (ln 1/x)^(H-1)/(H-1)!`` diverges logarithmically
as x -> 0 (as the power H-1 of ln 1/x, slower than any power of 1/x); on the discrete route the
first token's influence ``L·p(1)`` grows as ``(ln L)^(H-1)/(H-1)!``.

The abstract ("causal masking forces a logarithmic divergence of gradient influence at the start
of the prompt (the Primacy Tail)") and docs/mathematics.rst C4, applied at the paper's running
example: the attention-only Cesàro model, H = 24, L = 2048.

The check reads ``D_H(L) = L·p(1)`` of float64 Cesàro rollouts (cross-checked with exact
Fractions at L = 256) against the expansion ``A_H(L) = [z^(H-1)] L^z Γ(1-z)`` (mpmath), whose
leading term is the paper's formula: the decay of the relative gap over L in the asymptotic
regime (H = 2..8, L = 64..2^20), and the ratio to the leading term at the paper's H = 24,
L = 2048.  The continuum tail identities are the sympy derivation ``primacy-tail``.
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
    ANALYTIC_RULES_FIXED,
    MODEL,
    NOT_READ,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = [
    "CARD",
    "PRIMACY_DEPTHS",
    "PRIMACY_FLOAT_TOL",
    "PRIMACY_LENGTHS",
    "PRIMACY_MIN_EXPONENT",
    "RULE",
    "check",
    "decide",
    "primacy_asymptotic",
]

#: the depths and lengths of the asymptotic regime
PRIMACY_DEPTHS = (2, 3, 4, 5, 6, 7, 8)
PRIMACY_LENGTHS = tuple(2 ** k for k in range(6, 21, 2))  # 64 .. 2^20
#: decay exponent s of the relative gap e(L) ~ L^-s: 1 when the expansion holds (O(1/L) up to
#: logarithms), about 0 when its leading term is wrong; the verdict splits the two at 1/2
PRIMACY_MIN_EXPONENT = 0.5
PRIMACY_FLOAT_TOL = 1e-12  # float64 rollout vs exact at L = 256: T·log2(L)·u ~ 1e-14


def decide(f: Mapping, t: Mapping) -> str:
    """C4: an open tail identity or a float64 route off the exact one: inconclusive; the gap to
    A_H not decaying: refuted; the expansion holding with L·p(1) within paper_factor of the
    formula at the paper's point: verified, beyond it qualified."""
    if f["symbolic_open"] > 0 or f["float_gap"] > t["float_tol"]:
        return "inconclusive"
    if f["decay_exponent"] < t["min_exponent"]:
        return "refuted"
    r = f["paper_ratio"]
    return "verified" if max(r, 1 / r) <= t["paper_factor"] else "qualified"


RULE = Rule(
    text="Discrete route: D_H(L) = L·p(1), p the last row of M^H (attention-only Cesàro rollout, "
    f"float64), is the Beta(1, L) mean of rho_H (docs/mathematics.rst X2) and equals h_{{H-1}}(1, 1/2, ..., "
    "1/L) (X3), whose generating function prod_i (1 - z/i)^(-1) tends to L^z Γ(1-z); so the "
    "paper's rho_H(x) = (ln 1/x)^(H-1)/(H-1)! at x = 1/L must be the leading term of A_H(L) = "
    "[z^(H-1)] L^z Γ(1-z) = (ln L)^(H-1)/(H-1)! (1 + (H-1)γ/ln L + O(ln^-2 L)). Asymptotic "
    f"regime (H = {PRIMACY_DEPTHS[0]}..{PRIMACY_DEPTHS[-1]}, L = 4^3..4^10): decay_exponent = the "
    "smallest s over H of the relative gap e(L) = |D_H(L)/A_H(L) - 1| ~ L^-s at the last two "
    "factor-4 steps of L (s = 1 up to logarithms when the expansion holds, s ≈ 0 when its "
    "leading power or constant is wrong). The paper's scale: paper_ratio = D_H(L) / ((ln L)^(H-1)"
    "/(H-1)!) at H = 24, L = 2048. inconclusive: a symbolic tail identity stays open or the "
    "float64 rollout differs from the exact one by more than float_tol at L = 256; refuted: "
    "decay_exponent < min_exponent (the first token does not diverge with the stated power and "
    "constant); verified: the expansion holds and paper_ratio is within a factor paper_factor of "
    "1 (the tail formula describes the first token at the paper's scale); qualified: the "
    "expansion holds but at H = 24, L = 2048 the first token is more than paper_factor away from "
    "the formula (it describes the first token only for ln L >> H).",
    decide=decide,
    thresholds={
        "min_exponent": Threshold(PRIMACY_MIN_EXPONENT, "least decay exponent of the relative "
                                  "gap to A_H that reads as the expansion holding",
                                  scale="linear", step=0.05, sensitive=0.2, domain=(0, 2)),
        "float_tol": Threshold(PRIMACY_FLOAT_TOL, "float64 vs exact rollout at L = 256 "
                               "(T·log2(L)·u ~ 1e-14)", sensitive=10),
        "paper_factor": Threshold(2.0, "factor within which L·p(1) must match the tail formula at "
                                  "the paper's H = 24, L = 2048"),
    },
    outcomes=("verified", "qualified", "refuted", "inconclusive"),
    examples=(
        Example("a shallow network, H = 2 at L = 2048: L·p(1)/ln L = 1 + γ/ln L ≈ 1.08", {
            "symbolic_open": 0, "float_gap": 1e-15, "decay_exponent": 1.0, "paper_ratio": 1.08},
            "verified", "realistic"),
        Example("the paper's H = 24 at L = 2048: L·p(1) = 2047.8 against (ln L)^23/23! = 0.0076",
                {"symbolic_open": 0, "float_gap": 1e-15, "decay_exponent": 1.0,
                 "paper_ratio": 2.7e5}, "qualified", "realistic"),
        Example("false: the power H-2 of ln L instead of H-1 (the gap to A_H does not decay)", {
            "symbolic_open": 0, "float_gap": 2.2e-16, "decay_exponent": -0.19,
            "paper_ratio": 2.7e5},
            "refuted", "false"),
        Example("a float64 route 1e-9 off the exact one", {
            "symbolic_open": 0, "float_gap": 1e-9, "decay_exponent": 1.0, "paper_ratio": 2.7e5},
            "inconclusive", "realistic"),
    ),
    fixed=ANALYTIC_RULES_FIXED,
    deciding=("decay_exponent", "paper_ratio"),
    no_paper_figures="the paper states the tail as a formula ('logarithmic divergence') and "
    "reports no value of the first token's influence",
)


CARD = Card(
    paper=Setting("abstract ('causal masking forces a logarithmic divergence of gradient "
                  "influence at the start of the prompt (the Primacy Tail)'); docs/mathematics.rst C4 "
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
    c = _gamma_series(depth, dps)
    with mpmath.workdps(dps):
        lnL = mpmath.log(L)
        return sum(c[depth - 1 - m] * lnL ** m / mpmath.factorial(m) for m in range(depth))


def _ln_length_within(depth: int, factor: float, dps: int) -> float:
    """The ln L (to 0.1) beyond which the expansion A_H(L) is within ``factor`` of its leading
    term (ln L)^(H-1)/(H-1)!: where the tail formula starts to describe the first token."""
    with mpmath.workdps(dps):
        def ratio(u):
            return primacy_asymptotic(mpmath.exp(u), depth, dps) / (
                mpmath.mpf(u) ** (depth - 1) / mpmath.factorial(depth - 1))
        lo, hi = mpmath.mpf(1), mpmath.mpf(10 * depth)
        while hi - lo > mpmath.mpf(1) / 10:
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if ratio(mid) > factor else (lo, mid)
        return round(float(hi), 1)


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
                       dps: int) -> tuple[dict, dict, dict]:
    """Per depth of :data:`PRIMACY_DEPTHS`: the table of ``L·p(1)`` against ``A_H(L)`` over
    ``lengths``, the decay exponent of the relative gap (the smaller of the last two steps of
    L) and the ratio of ``L·p(1)`` to the leading term at the largest L (mpmath at the working
    precision)."""
    table, growth, ratio = {}, {}, {}
    for H in PRIMACY_DEPTHS:
        rows = []
        for L in lengths:
            D = mpmath.mpf(rollout(L, H))
            A = primacy_asymptotic(L, H, dps)
            lead = mpmath.log(L) ** (H - 1) / mpmath.factorial(H - 1)
            rows.append((L, D, A, abs(D / A - 1), D / lead))
        es = [e for _, _, _, e, _ in rows]
        growth[H] = min(float(mpmath.log(es[k] / es[k + 1]) / mpmath.log(lengths[k + 1] / lengths[k]))
                        for k in range(len(es) - 3, len(es) - 1))
        L, D, A, _e, r = rows[-1]
        ratio[H] = float(r)
        table[f"H={H}"] = {str(L): {"L*p(1)": mpmath.nstr(D, 8), "A_H(L)": mpmath.nstr(A, 8),
                                    "rel_gap": mpmath.nstr(e, 3),
                                    "L*p(1)/leading": mpmath.nstr(r, 4),
                                    "1+(H-1)γ/lnL": mpmath.nstr(1 + (H - 1) * mpmath.euler
                                                                 / mpmath.log(L), 4)}
                           for L, D, A, e, r in rows}
    return table, growth, ratio


def _paper_point(rollout: Callable[[int, int], float], dps: int) -> tuple[Any, Any, dict]:
    """``L·p(1)``, the leading term and the figures of the paper's point H = 24, L = 2048
    (mpmath at the working precision)."""
    H, L = ANALYTIC_DEPTH, ANALYTIC_LENGTH
    D = mpmath.mpf(rollout(L, H))
    A = primacy_asymptotic(L, H, dps)
    lead = mpmath.log(L) ** (H - 1) / mpmath.factorial(H - 1)
    paper = {"L*p(1)": float(mpmath.nstr(D, 8)), "p(1)": float(mpmath.nstr(D / L, 6)),
             "leading (ln L)^23/23!": float(mpmath.nstr(lead, 4)),
             "A_24(L)": float(mpmath.nstr(A, 8)), "rel_gap_to_A": float(mpmath.nstr(abs(D / A - 1), 3))}
    return D, lead, paper


def _in_words(verdict: str, d: Any, float_gap: float, growth: Mapping, table: Mapping,
              ratio: Mapping, figures: Mapping, t: Mapping, Lmax: int) -> dict:
    """The discrepancy, and the counterexample or correction, of the verdict."""
    rate = ("the divergence is the power H-1 of ln L with constant 1/(H-1)!, approached at "
            f"relative rate (H-1)γ/ln L: at L = {Lmax} L·p(1) is {ratio[2]:.3g} (H = 2) .. "
            f"{ratio[PRIMACY_DEPTHS[-1]]:.3g} (H = {PRIMACY_DEPTHS[-1]}) times "
            "(ln L)^(H-1)/(H-1)!")
    if verdict == "inconclusive":
        why = ("float64 rollout differs from the exact one by " f"{float_gap:.2g}" if float_gap >
               PRIMACY_FLOAT_TOL else "symbolic identities did not close: " + "; ".join(d.unproven()))
        return {"discrepancy": why}
    if verdict == "refuted":
        bad = min(growth, key=growth.__getitem__)
        return {"counterexample": f"H = {bad}: the gap to A_H decays only like "
                f"L^-{growth[bad]:.3g} (at L = {Lmax}: {table[f'H={bad}'][str(Lmax)]})"}
    gap = max((table[f"H={H}"][str(Lmax)]["rel_gap"] for H in PRIMACY_DEPTHS),
              key=mpmath.mpf)
    if verdict == "qualified":
        paper = figures["paper_point"]
        return {"discrepancy": f"largest relative gap to A_H at L = {Lmax}: {gap}", "correction": (
            "holds only for ln L >> H: " + rate + "; at the paper's H = 24 and L = 2048 the first "
            f"token carries L·p(1) = {paper['L*p(1)']:.6g} (p(1) = {paper['p(1)']:.5g}: nearly "
            f"all the influence) against the tail formula's (ln L)^23/23! = "
            f"{paper['leading (ln L)^23/23!']:.3g}, {figures['paper_ratio']:.3g} times more (the "
            f"full expansion A_24 matches it to {paper['rel_gap_to_A']:.2g}); at H = 24 the "
            f"formula comes within a factor {t['paper_factor']:g} of the first token only beyond "
            f"ln L = {figures['lnL_within_factor_at_H24']:g}")}
    return {"discrepancy": f"largest relative gap to A_H at L = {Lmax}: {gap}; " + rate}


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
          lengths: Sequence[int] = PRIMACY_LENGTHS) -> Evidence:
    """C4 on the discrete route: ``L·p(1)`` of the exact/float64 Cesàro rollout against the
    expansion whose leading term is the paper's ``(ln L)^(H-1)/(H-1)!`` (see RULE), in the
    asymptotic regime and at the paper's H = 24, L = 2048.
    ``rollout(L, H)`` replaces the float64 first-token influence ``L·p(1)`` and ``lengths`` the
    grid of L (tests)."""
    if rollout is None:
        def rollout(L, H):
            return L * float(cesaro.cesaro_profile(L, [1.0] * H)[0])
    d = derivation_by_name("primacy-tail")
    method = ("float64 Cesàro rollouts M^H (first-token influence L·p(1), L = 64 .. 2^20, and "
              "H = 24 at L = 2048), cross-checked with exact Fractions at L = 256, vs the "
              "expansion [z^(H-1)] L^z Γ(1-z) (mpmath); sympy limits and tail mass of rho_H")
    # cross-check of the float64 route against the exact one
    float_gap = _float_gap(rollout)
    with mpmath.workdps(ctx.dps):
        table, growth, ratio = _asymptotic_regime(rollout, lengths, ctx.dps)
        D, lead, paper = _paper_point(rollout, ctx.dps)
    t = RULE.values()
    figures = {"symbolic_open": len(d.unproven()), "float_gap": float(f"{float_gap:.3g}"),
               "decay_exponent": round(min(growth.values()), 4),
               "paper_ratio": float(mpmath.nstr(D / lead, 4)),
               "paper_point": paper,
               "lnL_within_factor_at_H24": _ln_length_within(ANALYTIC_DEPTH, t["paper_factor"],
                                                             ctx.dps)}
    verdict = RULE.apply(figures).verdict
    worst = min(growth.values())
    return Evidence(verdict, method=method, precision=f"float64 rollouts, dps={ctx.dps}",
                    tolerance=f"decay exponent of e(L) >= {PRIMACY_MIN_EXPONENT}; float64 vs "
                    f"exact <= {PRIMACY_FLOAT_TOL:g}; L·p(1) within a factor "
                    f"{t['paper_factor']:g} of the formula at H = 24, L = 2048",
                    cases=len(PRIMACY_DEPTHS) * len(lengths) + 1,
                    worst_margin=f"smallest decay exponent of e(L): {worst:.3f}",
                    parameters={"depths": list(PRIMACY_DEPTHS), "lengths": list(lengths),
                                "paper_point": {"H": ANALYTIC_DEPTH, "L": ANALYTIC_LENGTH}},
                    details={"table": table,
                             "decay_exponent": {str(k): round(v, 4) for k, v in growth.items()},
                             "symbolic": symbolic_summary([d]),
                             "float64_vs_exact_at_L256": f"{float_gap:.2g}"},
                    figures=figures, rule=RULE.text,
                    **_in_words(verdict, d, float_gap, growth, table, ratio, figures, t,
                                lengths[-1]))
