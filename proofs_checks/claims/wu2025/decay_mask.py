"""wu2025:decay-mask (W4): under a decay mask the attention-only rollout is
``P(t)[i,j] = Θ(C(t+i-j, i-j) e^{-(i-j)m})``, non-monotone in ``i - j`` with its critical point
near ``t/(e^m - 1)``.

wu2025 section 4, decay-mask theorem (theorem number not confirmed here): one head with logits
``-m(i-j)`` (diagonal 0), attention only, ``P(t) = A(t)...A(0)``: ``t + 1`` layers.

The check computes precise (mpmath) rollouts of one decay head through the O(L) ALiBi route
(X5) on the grid ``(m, t) = (0.5, 10), (0.5, 20), (1, 12)`` (two more cases with
``--thorough``) and reads the last row: the ratios ``P(t)[L,L-k] / (C(t+k,k) e^{-km})`` at every
``k`` against the k-free bounds ``[(1-e^{-m})^{t+1}, 1]``, in the bulk against the exact
constant ``(1-e^{-m})^{t+1}``, and the maximiser over ``k`` against ``t/(e^m - 1)``.  A
contrast computes the off-by-one reading (``t`` layers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mpmath

from posbias.numerics.alibi import alibi_layer, alibi_rollout_precise
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import CaseSweep, nstr_or_zero, sympy_latex
from posbias.proofs_checks.claims.wu2025._shared import FIXED_DATE
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decay_mask_profile", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """W4: refuted when a ratio leaves [(1-e^-m)^(t+1), 1] beyond the relative tolerance or
    the maximiser over k misses the critical point; inconclusive when only the bulk constant is
    not reached within its tolerance; verified otherwise."""
    tol = t["relative_tolerance"]
    if (f["lower_margin"] < -tol or f["upper_margin"] < -tol
            or f["critical_offset"] > t["critical_distance"] or f["critical_at_edge"] > 0):
        return "refuted"
    if f["bulk_deviation_over_tolerance"] > t["bulk_factor"]:
        return "inconclusive"
    return "verified"


RULE = Rule(
    text=("W4 on precise rollouts of one decay head (t + 1 layers: wu2025's P(t) = A(t)...A(0)), "
          "grid (m, t) = (0.5, 10), (0.5, 20), (1, 12). refuted: some ratio P(t)[L,L-k] / "
          "(C(t+k,k) e^{-km}), k = 0..L-1, leaves the k-free bounds [(1-e^{-m})^{t+1}, 1] by "
          "more than relative_tolerance = 10^-(dps-10) (lower_margin or upper_margin below "
          "-relative_tolerance: no Θ constants independent of k), or the maximiser over k is "
          "more than critical_distance = 1 from t/(e^m-1) (k is an integer) or at an end of the "
          "bulk (critical_at_edge > 0); inconclusive: those hold but a bulk ratio misses the "
          "exact constant (1-e^{-m})^{t+1} by more than bulk_factor = 1 times its tolerance "
          "10^-(dps-10) + 2(t+1)e^{-m(K+2)} (raise --dps); verified otherwise."),
    decide=decide,
    thresholds={
        "relative_tolerance": Threshold(1e-20, "relative tolerance of the Θ bounds, "
                                        "10^-(dps-10) (set per run from dps)", sensitive=100.0),
        "critical_distance": Threshold(1, "largest distance of the integer maximiser from the "
                                       "real critical point t/(e^m-1)", scale="fixed"),
        "bulk_factor": Threshold(1.0, "bulk deviation from (1-e^-m)^(t+1) in units of its "
                                 "tolerance", sensitive=10.0),
    },
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("t + 1 layers at dps 30 (the default run)",
                {"lower_margin": 3.9e-31, "upper_margin": 0.997, "critical_offset": 0.98,
                 "critical_at_edge": 0, "bulk_deviation_over_tolerance": 3.7e-8}, "verified"),
        Example("t layers (the off-by-one reading): ratio t/(t+k) (1-e^-m)^t, no k-free lower "
                "constant", {"lower_margin": -0.90, "upper_margin": 0.996, "critical_offset": 2.4,
                             "critical_at_edge": 0, "bulk_deviation_over_tolerance": 1.5e20},
                "refuted", "false"),
        Example("critical point at t/m instead of t/(e^m-1) (largest offset 10, at m = 0.5, "
                "t = 20: 40 against the measured maximiser 30)",
                {"lower_margin": 3.9e-31, "upper_margin": 0.997, "critical_offset": 10.0,
                 "critical_at_edge": 0, "bulk_deviation_over_tolerance": 3.7e-8}, "refuted", "false"),
        Example("bulk constant missed at a too low dps",
                {"lower_margin": 1e-25, "upper_margin": 0.997, "critical_offset": 0.98,
                 "critical_at_edge": 0, "bulk_deviation_over_tolerance": 40.0}, "inconclusive"),
    ),
    fixed=FIXED_DATE,
    deciding=("lower_margin", "upper_margin", "critical_offset", "bulk_deviation_over_tolerance"),
    no_paper_figures="wu2025 states W4 as a Θ formula and a critical point, with no figures",
)

CARD = Card(
    paper=Setting("wu2025 section 4, decay-mask theorem (W4; theorem number not confirmed here): "
                  "P(t) = A(t)...A(0), i.e. t + 1 layers", architecture="attention only",
                  residual="off", mask="decay (ALiBi slope m), one head", L="any",
                  H="any depth t + 1", grid="every slope m > 0 and depth t"),
    test=Setting("precise (mpmath) X5 rollouts of one decay head, last row",
                 architecture="attention only", residual="off",
                 mask="decay (ALiBi slope m), one head", L="248, 494, 122",
                 H="11, 21, 13 layers (t = 10, 20, 12)",
                 grid="(m, t) = (0.5, 10), (0.5, 20), (1, 12)"),
    proof=ProofStatus("numeric", note="mpmath rollouts on a grid of (m, t); the bulk constant "
                      "is exact away from the first token"),
)

_METHOD = ("precise X5 rollouts (mpmath) of one decay-mask head with t+1 layers (P(t) = "
           "A(t)...A(0)): last-row ratios P(t)[L, L-k] / (C(t+k,k) e^{-km}) at every k against "
           "the k-free bounds [(1-e^{-m})^{t+1}, 1] and, in the bulk, against the exact constant "
           "(1-e^{-m})^{t+1}; argmax over k vs t/(e^m-1)")

_RULE_TEXT = ("refuted when some ratio P(t)[L,L-k] / (C(t+k,k) e^{-km}), k = 0..L-1, leaves "
              "[(1-e^{-m})^{t+1}, 1] by more than 10^-(dps-10) relative (no k-independent Θ "
              "constants) or the maximiser over k is more than 1 from t/(e^m-1) (or at k = 0 "
              "although t/(e^m-1) >= 1); inconclusive when those hold but the bulk ratios miss "
              "(1-e^{-m})^{t+1} by more than 10^-(dps-10) + 2(t+1)e^{-m(K+2)} (raise --dps); "
              "verified otherwise")


def _latex(sp):
    t, k, m = sp.symbols("t k m", positive=True)
    stated = sp.binomial(t + k, k) * sp.exp(-k * m)
    exact = (1 - sp.exp(-m)) ** (t + 1) * sp.binomial(t + k, k) * sp.exp(-k * m)
    return (r"P(t) = A(t)\cdots A(0):\ P(t)_{i,i-k} = \Theta\!\left(" + sp.latex(stated)
            + r"\right);\ \text{bulk value } " + sp.latex(exact)
            + r",\ k^{*} \approx \frac{t}{e^{m} - 1}")


def decay_mask_profile(L: int, m: float, t: int, dps: int) -> list:
    """Last row of wu2025's ``P(t) = A(t) ⋯ A(0)`` (``t + 1`` layers) for one decay-mask head
    with slope ``m`` (logits ``-m(i-j)``, diagonal 0), attention only, in mpmath at ``dps``."""
    return alibi_rollout_precise(L, [alibi_layer([m])] * (t + 1), 1, dps=dps)


def _bulk_size(m: float, t: int) -> int:
    """K, the bulk of offsets k <= K read for the exact constant: 8 t/(e^m - 1), at least 60."""
    return int(max(8 * t / (mpmath.exp(m) - 1), 60))


def _grid_case(m: float, t: int, layers: int, kstar_pred: Any, rel: Any, dps: int,
               sweep: CaseSweep) -> dict:
    """One grid case (inside ``workdps(dps)``): the Θ bounds at every k (a), the critical point
    (b) and the bulk constant (c) of the rollout with ``layers`` layers, recorded in ``sweep``;
    returns the case's figures and its rows of the evidence."""
    sweep.case()
    q = mpmath.exp(-mpmath.mpf(m))
    K = _bulk_size(m, t)
    L = 2 * K + 2
    p = alibi_rollout_precise(L, [alibi_layer([m])] * layers, 1, dps=dps)
    ratio = [p[L - 1 - k] / (mpmath.binomial(t + k, k) * q ** k) for k in range(L)]
    lo, hi = (1 - q) ** (t + 1), mpmath.mpf(1)
    # (a) Θ with constants independent of k: (1-q)^{t+1} <= ratio <= 1 at every position
    below = min(range(L), key=lambda k: ratio[k] / lo)
    above = max(range(L), key=lambda k: ratio[k])
    sweep.low("lower", ratio[below] / lo - 1)
    sweep.low("upper", 1 - ratio[above])
    if ratio[below] < lo * (1 - rel) or ratio[above] > hi * (1 + rel):
        k_bad = below if ratio[below] < lo * (1 - rel) else above
        sweep.fail(f"m={m}, t={t}, L={L}: P(t)[L,L-{k_bad}] / (C(t+k,k) e^(-km)) = "
                   f"{mpmath.nstr(ratio[k_bad], 6)} outside [(1-e^-m)^(t+1), 1] = "
                   f"[{mpmath.nstr(lo, 6)}, 1]")
    # (b) critical point within 1 of t/(e^m - 1), interior when t/(e^m - 1) >= 1
    bulk = [p[L - 1 - k] for k in range(K + 1)]
    kstar = max(range(K + 1), key=lambda k: bulk[k])
    interior = (kstar > 0 or kstar_pred < 1) and kstar < K
    if not (abs(kstar - kstar_pred) <= 1 and interior):
        sweep.fail(f"m={m}, t={t}: argmax_k P(t)[L,L-k] = {kstar}, t/(e^m-1) = "
                   f"{mpmath.nstr(kstar_pred, 6)}")
    # (c) the exact bulk value (1-q)^{t+1} C(t+k,k) q^k (Z_i -> 1/(1-q) away from token 1)
    tol_bulk = rel + 2 * (t + 1) * q ** (K + 2)
    dev = max(abs(ratio[k] / lo - 1) for k in range(K + 1))
    floor_pred = int(mpmath.floor(kstar_pred))
    return {
        "lower": ratio[below] / lo - 1, "upper": 1 - ratio[above],
        "critical": abs(kstar - kstar_pred), "edge": int(not interior),
        "bulk": dev / tol_bulk, "deviation": dev, "floor": kstar == floor_pred,
        "critical row": {"m": m, "t": t, "k* measured": kstar,
                         "t/(e^m-1)": mpmath.nstr(kstar_pred, 6), "floor(t/(e^m-1))": floor_pred},
        "row": {"m": m, "t": t, "layers": t + 1, "L": L, "K": K,
                "(1-e^-m)^(t+1)": mpmath.nstr(lo, 6),
                "ratio to stated form: min over all k": mpmath.nstr(min(ratio), 6),
                "max over all k": mpmath.nstr(max(ratio), 6),
                "bulk k <= K: max |ratio/(1-e^-m)^(t+1) - 1|": nstr_or_zero(dev),
                "bulk tolerance": mpmath.nstr(tol_bulk, 3)},
    }


def _off_by_one(m0: float, t0: int, dps: int) -> dict:
    """The contrast (inside ``workdps(dps)``): ``t`` layers instead of ``t + 1``, whose ratio to
    the stated form falls like ``t/(t+k)``, at k = 0 and k = L/2."""
    q0 = mpmath.exp(-mpmath.mpf(m0))
    L0 = 2 * _bulk_size(m0, t0) + 2
    p0 = alibi_rollout_precise(L0, [alibi_layer([m0])] * t0, 1, dps=dps)
    short = [p0[L0 - 1 - k] / (mpmath.binomial(t0 + k, k) * q0 ** k) for k in (0, L0 // 2)]
    return {"m, t": [m0, t0], "ratio at k = 0": mpmath.nstr(short[0], 6),
            f"ratio at k = {L0 // 2}": mpmath.nstr(short[1], 6),
            "reading": "t layers give C(t-1+k,k) in place of C(t+k,k): the ratio to the stated "
            "form falls like t/(t+k), a spurious k-dependence"}


@claim(
    "wu2025:decay-mask",
    statement="Under a decay mask (ALiBi slope m, attention only) P(t)[i,j] = Θ(C(t+i-j, i-j) e^{-(i-j)m}), "
    "non-monotone in i-j with its critical point near t/(e^m - 1).",
    latex=sympy_latex(_latex),
    expected="verified",
    section="W4",
    assumptions=("one head, logits -m(i-j) (diagonal 0), attention only (lambda = 1)",
                 "P(t) = A(t)...A(0): t + 1 layers (wu2025's indexing)",
                 "Θ in i-j at fixed t and m (its constants may depend on t and m)"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, layers: Callable[[int], int] | None = None,
          critical: Callable[[int, Any], Any] | None = None) -> Evidence:
    """W4 on precise rollouts.  ``layers(t)`` is the number of layers read as ``P(t)``
    (default ``t + 1``, wu2025's ``A(t)...A(0)``; ``t`` is the off-by-one reading);
    ``critical(t, m)`` the stated critical point (default ``t/(e^m - 1)``)."""
    dps = ctx.dps
    layers = layers or (lambda tt: tt + 1)
    critical = critical or (lambda tt, mm: tt / (mpmath.exp(mm) - 1))
    grid = [(0.5, 10), (0.5, 20), (1.0, 12)] + ([(0.25, 20), (2.0, 16)] if ctx.thorough else [])
    sweep = CaseSweep()
    rel = mpmath.mpf(10) ** (-(dps - 10))
    with mpmath.workdps(dps):
        cases = [_grid_case(m, t, layers(t), critical(t, mpmath.mpf(m)), rel, dps, sweep)
                 for m, t in grid]
        contrast = _off_by_one(*grid[0], dps)
    bulk_worst = max([mpmath.mpf(0)] + [c["deviation"] for c in cases])
    rows = [c["row"] for c in cases]
    details = {"cases": rows, "critical points": [c["critical row"] for c in cases],
               "rule": _RULE_TEXT,
               "bulk value": "P(t)[i,i-k] = (1-e^{-m})^{t+1} C(t+k,k) e^{-km} (1 + O(e^{-m(i-k)})): "
               "the Θ constant is (1-e^{-m})^{t+1}, the same for every k, exponentially small in t",
               "max |bulk ratio / (1-e^-m)^(t+1) - 1|": nstr_or_zero(bulk_worst),
               "k* = floor(t/(e^m-1)) in every case": all(c["floor"] for c in cases),
               "t layers instead of t+1": contrast}
    figures = {"lower_margin": float(min([mpmath.inf] + [c["lower"] for c in cases])),
               "upper_margin": float(min([mpmath.inf] + [c["upper"] for c in cases])),
               "critical_offset": float(max([mpmath.mpf(0)] + [c["critical"] for c in cases])),
               "critical_at_edge": sum(c["edge"] for c in cases),
               "bulk_deviation_over_tolerance": float(max([mpmath.mpf(0)]
                                                          + [c["bulk"] for c in cases]))}
    thresholds = {"relative_tolerance": float(rel)}
    verdict = RULE.apply(figures, **thresholds).verdict
    if verdict == "inconclusive":
        details["reason"] = "bulk ratios did not reach (1-e^-m)^(t+1) within tolerance: raise --dps"
    return Evidence(
        verdict, method=_METHOD,
        discrepancy=nstr_or_zero(bulk_worst) if verdict == "verified" else None,
        precision=f"dps={dps}",
        tolerance=f"Θ bounds to 10^-{dps - 10} relative; bulk constant to 10^-{dps - 10} + "
                  "2(t+1)e^(-m(K+2))",
        counterexample=sweep.counterexample, cases=sweep.cases,
        worst_margin=f"min over k of ratio/(1-e^-m)^(t+1) - 1 = {nstr_or_zero(sweep.worst['lower'])}; "
                     f"1 - max ratio = {nstr_or_zero(sweep.worst['upper'])}",
        parameters={"grid (m, t)": grid}, details=details,
        figures=figures, thresholds=thresholds,
        setting={"L": ", ".join(str(r["L"]) for r in rows),
                 "H": ", ".join(str(r["layers"]) for r in rows) + " layers",
                 "grid": "(m, t) = " + ", ".join(f"({m:g}, {t})" for m, t in grid)}
        if ctx.thorough else {})
