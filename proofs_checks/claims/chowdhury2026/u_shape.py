"""chowdhury2026:u-shape (C7): the influence profile at initialization is U-shaped: lost in the
middle.

The abstract ("the U-shape is already present at initialization ... an inherent geometric
property of the causal decoder with residual connections") and docs/explanation/mathematics.rst C7: the
Cesàro model with residuals at the paper's depth H = 24 and running length L = 2048, for the
residual α of its architectures (the paper states none: the Step-0 fits give 7/100..13/100).

The check reads the last rows of ``N^H`` (float64, rerun in mpmath where the position of the
minimum is not resolved): both ends against the mean of the middle half, and the distance of
the minimum from the nearer end.  Beside it, an exact scan (Fractions) over L = 8..256,
H = 2..24 and α = 1/10..1 says where each profile's minimum sits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from posbias.numerics import cesaro
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.chowdhury2026._analytic import (
    ALPHA_NOTE,
    ANALYTIC_DEPTH,
    ANALYTIC_LENGTH,
    ANALYTIC_RULES_FIXED,
    MODEL,
    NOT_READ,
    RESIDUAL_ALPHAS,
    alpha_names,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "u_shape_figures"]


def decide(f: Mapping, t: Mapping) -> str:
    """C7 shape: an end not end_factor above the middle refutes; both ends above it verify with
    an interior valley (the minimum at least valley_position from an end) and qualify
    without."""
    if f["end_ratio"] < t["end_factor"]:
        return "refuted"
    return "verified" if f["valley_offset"] >= t["valley_position"] else "qualified"


RULE = Rule(
    text="Profiles: the last rows of N^H at the paper's H = 24, L = 2048 for the residual α "
    "7/100, 1/10, 13/100. end_ratio = the smallest of p(1)/m and p(L)/m over "
    "these profiles, m the mean of p over the middle half (1/4 <= (j-1)/(L-1) <= 3/4); "
    "valley_offset = the smallest distance of a profile's minimum from the nearer end, as a "
    "fraction of L - 1. verified: end_ratio >= end_factor and valley_offset >= "
    "valley_position (both ends above the middle, an interior valley); qualified: end_ratio >= "
    "end_factor but the minimum sits within valley_position of an end (a primacy tail plus a "
    "recency atom, no interior valley); refuted: end_ratio < end_factor (an end is not above the "
    "middle by the end factor: no U).",
    decide=decide,
    thresholds={
        "end_factor": Threshold(2.0, "how far both ends must rise above the middle's mean"),
        "valley_position": Threshold(0.1, "least distance of the minimum from the nearer end "
                                     "(fraction of the context) for an interior valley",
                                     domain=(1e-9, 0.5)),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("ALiBi rollout with an interior valley (16 heads, BLOOM slopes / 10, λ = 0.1, "
                "H = 24, L = 2048): ends 9.3 and 265 times the middle, minimum at j/L = 0.22",
                {"end_ratio": 9.3, "valley_offset": 0.217}, "verified", "realistic"),
        Example("the Cesàro model at the paper's residual α (H = 24, L = 2048): ends 35..626 "
                "times the middle, minimum at L - 1", {"end_ratio": 35.0,
                                                       "valley_offset": 1 / 2047},
                "qualified", "realistic"),
        Example("false: a uniform profile (no end above the middle)",
                {"end_ratio": 1.0, "valley_offset": 0.0}, "refuted", "false"),
        Example("false: the monotone attention-only profile (α = 1: no recency atom, "
                "p(L)/m = 2.6e-56)", {"end_ratio": 2.6e-56, "valley_offset": 0.0},
                "refuted", "false"),
        Example("the Cesàro model at α = 1/2 (H = 24, L = 2048): the last token is 0.45 of the "
                "middle", {"end_ratio": 0.45, "valley_offset": 1 / 2047}, "refuted",
                "realistic"),
    ),
    fixed=ANALYTIC_RULES_FIXED,
    deciding=("end_ratio", "valley_offset"),
    no_paper_figures="the paper shows the U as a figure of profiles, with no end factor or "
    "valley position stated",
)


CARD = Card(
    paper=Setting("abstract ('the U-shape is already present at initialization ... an inherent "
                  "geometric property of the causal decoder with residual connections'); "
                  "docs/explanation/mathematics.rst C7", architecture=MODEL, residual="on", mask="causal", pe="none",
                  alpha=alpha_names(RESIDUAL_ALPHAS), L=ANALYTIC_LENGTH, H=ANALYTIC_DEPTH,
                  unconfirmed=("alpha", "L"), note=NOT_READ + "; " + ALPHA_NOTE),
    test=Setting("last rows of N^H at H = 24, L = 2048 (float64) for the residual α; an "
                 "exact argmin scan over L = 8..256, H = 2..24, α = 1/10..1 as detail",
                 architecture=MODEL, residual="on", mask="causal", pe="none",
                 alpha=alpha_names(RESIDUAL_ALPHAS), L=ANALYTIC_LENGTH, H=ANALYTIC_DEPTH),
    proof=ProofStatus("numeric", note="the continuous part is non-increasing in x for every H and "
                      "α (derivation minimum-dead-zone), so the continuum has no interior "
                      "valley; the discrete profiles are exact or mpmath on the grid"),
)


def u_shape_figures(p: Sequence[Any] | np.ndarray) -> dict:
    """Shape figures of a profile ``p`` (0-indexed, ``p[j-1]`` = p(j)): the end levels over the
    mean of the middle half (positions with 1/4 <= (j-1)/(L-1) <= 3/4) and the distance of the
    minimum from the nearer end as a fraction of L - 1.  The minimum is located on the values as
    given (exactly for Fractions); the ratios are floats.

    >>> f = u_shape_figures([4, 1, 1, 1, 4])
    >>> f["first_over_middle"], f["last_over_middle"], f["valley_offset"]
    (4.0, 4.0, 0.25)
    """
    L = len(p)
    arg = min(range(L), key=lambda j: p[j])
    mid = [float(p[j]) for j in range(L) if L - 1 <= 4 * j <= 3 * (L - 1)]
    middle = math.fsum(mid) / len(mid)
    return {"first_over_middle": float(p[0]) / middle, "last_over_middle": float(p[-1]) / middle,
            "valley_offset": min(arg, L - 1 - arg) / (L - 1), "argmin": arg + 1}


def _without_final_words(per: Mapping[str, Mapping]) -> str:
    """What the profiles' figures without the final token say, in words: how high the new last
    position stands above the middle and where the minimum then sits."""
    wo = [f["without_final"] for f in per.values()]
    lo = min(w["last_over_middle"] for w in wo)
    hi = max(w["last_over_middle"] for w in wo)
    at_end = all(w["argmin"] == f["argmin"] for w, f in zip(wo, per.values()))
    span = f"{lo:.3g}" if f"{lo:.3g}" == f"{hi:.3g}" else f"{lo:.3g}..{hi:.3g}"
    return (f"without the final token's self-influence the last position L - 1 stands {span} "
            "times the middle" + (" and is the minimum" if at_end else "")
            + ": the right arm of that 'U' is the final token alone")


def _cesaro_last_row(L, H, alpha, dps=30):
    """The last row of N^H: exact Fractions for L <= 256; above, the float64 fast path (relative
    error a few units of H·2^-52), rerun in mpmath at ``dps`` when its two smallest entries are
    within 1e-9 of each other (the position of the minimum is then not resolved in float64)."""
    if L <= 256:
        return cesaro.cesaro_profile_exact(L, [alpha] * H)
    p = cesaro.cesaro_profile(L, [float(alpha)] * H)
    lo, nxt = np.partition(p, 1)[:2]
    if nxt - lo <= 1e-9 * lo:
        return cesaro.cesaro_profile_precise(L, [alpha] * H, dps)
    return p.tolist()


@claim(
    "chowdhury2026:u-shape",
    statement="The influence profile at initialization is U-shaped: lost in the middle.",
    latex=r"\arg\min_j (N^H)_{Lj}\in\{2,\dots,L-2\}",
    expected="qualified",
    section="2 (C7)",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext,
          profile: Callable[[int, int, Fraction], Sequence[Any]] | None = None) -> Evidence:
    """C7 shape: end levels and valley position of the last rows at the paper's H = 24,
    L = 2048 for the residual α, plus an exact argmin scan over a grid.

    ``profile(L, H, alpha)`` replaces the Cesàro last row (a sequence, 0-indexed; default: exact
    Fractions for L <= 256, float64 above, see :func:`_cesaro_last_row`)."""
    profile = profile or (lambda L, H, a: _cesaro_last_row(L, H, a, ctx.dps))
    per: dict[str, dict[str, Any]] = {}
    with mpmath.workdps(ctx.dps):
        for alpha in RESIDUAL_ALPHAS:
            p = profile(ANALYTIC_LENGTH, ANALYTIC_DEPTH, alpha)
            f = u_shape_figures(p)
            per[str(alpha)] = {k: (float(f"{v:.4g}") if isinstance(v, float) else v)
                               for k, v in f.items()}
            # strictly decreasing from the first token to the minimum?
            per[str(alpha)]["decreasing_to_min"] = all(
                p[j] > p[j + 1] for j in range(f["argmin"] - 1))
            # the same figures without the final token's self-influence (the recency atom)
            w = u_shape_figures(list(p)[:-1])
            per[str(alpha)]["without_final"] = {
                k: (float(f"{v:.4g}") if isinstance(v, float) else v) for k, v in w.items()}
    figures = {"end_ratio": min(min(f["first_over_middle"], f["last_over_middle"])
                                for f in per.values()),
               "valley_offset": min(f["valley_offset"] for f in per.values()),
               "profiles": per}
    verdict = RULE.apply(figures).verdict
    # the same rule on the figures without the final token: does that one token decide?
    without = {"end_ratio": min(min(f["without_final"]["first_over_middle"],
                                    f["without_final"]["last_over_middle"]) for f in per.values()),
               "valley_offset": min(f["without_final"]["valley_offset"] for f in per.values())}
    v_without = RULE.decide(without, RULE.values())
    final = {"verdict_with_final": verdict, "verdict_without_final": v_without,
             "decided_by_final_token": v_without != verdict, "figures_without_final": without}
    # the grid: where is the minimum of each exact profile?
    lengths = (8, 16, 64, 256) if not ctx.thorough else (8, 16, 64, 256, 1024)
    depths = (2, 4, 12, 24)
    alphas = [Fraction(1, 10), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(9, 10),
              Fraction(1)]
    interior: list = []
    argmins: dict[str, Any] = {}
    both_ends: list = []
    for L in lengths:
        for H in depths:
            for alpha in alphas:
                g = u_shape_figures(profile(L, H, alpha))
                arg = g["argmin"]
                argmins.setdefault(str(alpha), set()).add(
                    "L-1" if arg == L - 1 else "L" if arg == L else str(arg))
                if 2 <= arg <= L - 2:
                    interior.append(f"L={L}, H={H}, α={alpha}: argmin {arg}")
                if min(g["first_over_middle"], g["last_over_middle"]) >= RULE.thresholds["end_factor"].value:
                    both_ends.append(f"L={L}, H={H}, α={alpha}")
    common: dict[str, Any] = dict(
        method=f"last rows of N^H at H = {ANALYTIC_DEPTH}, L = {ANALYTIC_LENGTH} (float64, mpmath "
        f"where the minimum is not resolved) for α = {', '.join(per)}; exact argmin scan over "
        "the grid", precision="float64 at L = 2048 (figures to 4 digits); exact on the grid",
        cases=len(per) + len(lengths) * len(depths) * len(alphas),
        worst_margin=f"smallest end/middle ratio {figures['end_ratio']:.3g}, minimum "
        f"{figures['valley_offset']:.3g} of the context from an end",
        parameters={"L": ANALYTIC_LENGTH, "H": ANALYTIC_DEPTH, "alphas": list(per),
                    "grid": {"lengths": list(lengths), "depths": list(depths),
                             "alphas": [str(a) for a in alphas]}},
        details={"final_token": final,
                 "interior_minima_on_grid": interior[:20], "interior_minima_count": len(interior),
                 "argmin_by_alpha": {k: sorted(v) for k, v in argmins.items()},
                 "both_ends_above_middle_on_grid": len(both_ends)},
        figures=figures, rule=RULE.text)
    if verdict == "qualified":
        return Evidence("qualified", correction=(
            f"no interior valley: at H = 24, L = 2048 and the residual α the ends stand "
            f"{figures['end_ratio']:.3g}..{max(max(f['first_over_middle'], f['last_over_middle']) for f in per.values()):.3g} "
            "times above the middle, but "
            + ("each profile decreases strictly" if all(f["decreasing_to_min"] for f in per.values())
               else "the profiles fall (not strictly everywhere)")
            + " up to its minimum at positions "
            + ", ".join(sorted({str(f["argmin"]) for f in per.values()}))
            + f" (L = {ANALYTIC_LENGTH}), next to the recency atom "
            f"(exact scan: {len(interior)} interior minima over the grid); the profile is a "
            "primacy tail plus a recency atom, a 'U' only in its two ends; "
            + _without_final_words(per)
            + (f" (the rule on the figures without it: {v_without})"
               if final["decided_by_final_token"] else "")
            + "; an interior valley needs a distance-decaying kernel (ALiBi) or content terms"),
            **common)
    if verdict == "refuted":
        worst = min(per, key=lambda a: min(per[a]["first_over_middle"], per[a]["last_over_middle"]))
        return Evidence("refuted", counterexample=(
            f"α = {worst}: p(1)/m = {per[worst]['first_over_middle']:.3g}, p(L)/m = "
            f"{per[worst]['last_over_middle']:.3g}: an end is not {RULE.thresholds['end_factor'].value:g} "
            "times above the middle"), **common)
    return Evidence("verified", **common)
