"""duerinckx2026: a mixture of heads with different ALiBi slopes can give the retrieval profile
two wells: two interior local minima separated by a barrier.

Setting: the public code's common-M multi-head profile (four heads, λ = 3, 0.25, 0.25, 2, mode
sums with M = 8 and 20 modes, t = 1.5; its figure could not be read).  The check: the fast path
reproduces the script's values; each well and the barrier between them are located by
golden-section search on the fast path and valued on the precise path; the head weights are read
(the public example's are signed: one is -27.5, and its profile is negative everywhere); a grid
search over *nonnegative* mixtures of two single-mode heads with different slopes
(λ = 1/2 .. 20, c = 1/5 .. 8, weights 10^-4 .. 10^4) asks whether two wells need a negative
weight; single heads of that grid and mixtures of λ = 0 heads (the Cesàro case, no distance
decay) are scanned the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from posbias.numerics.kinetic import (
    KineticHead,
    KineticModel,
    kinetic_value_precise,
    kinetic_values,
)
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import latex_of_derivation
from posbias.proofs_checks.claims.duerinckx2026._shared import (
    FIXED,
    agreement_digits,
    golden_minimum,
    grid_s,
    local_extrema,
    paper_setting,
    public_figures,
    public_model,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "SEARCH_C", "SEARCH_LAMBDA", "check", "decide", "search_two_wells",
           "wells"]

SEARCH_LAMBDA = tuple(Fraction(x) for x in ("1/2", "1", "2", "3", "5", "8", "12", "20"))
SEARCH_C = tuple(Fraction(x) for x in ("1/5", "1/2", "1", "2", "3", "5", "8"))
#: the search window: the public figures' grid, 0.02 <= s <= 0.98, step 1/1000
WINDOW = np.arange(20, 981) / 1000


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: the public example does not show two wells (fewer than 2 interior minima, a
    barrier below ``barrier_min`` of the profile's level, or values not reproduced to
    ``digits_min``); qualified: it does, but no nonnegative mixture in the search has two wells
    with such a barrier (two wells need a negative head weight); verified otherwise."""
    if (f["public_wells"] < 2 or f["public_barrier"] < t["barrier_min"]
            or f["public_digits"] < t["digits_min"]):
        return "refuted"
    if f["nonneg_wells"] < 2 or f["nonneg_barrier"] < t["barrier_min"]:
        return "qualified"
    return "verified"


RULE = Rule(
    text="wells = interior local minima of a profile in 0.02 <= s <= 0.98; barrier = (the "
    "highest value between the outermost two wells - the higher well) / |the higher well|. "
    "public_*: the public code's four-head mixture (its values reproduced to public_digits "
    "digits, wells and barrier located on the fast path and valued on the precise one); "
    "nonneg_*: the best two-head mixture with nonnegative weights and different slopes found "
    "by the grid search (largest barrier). refuted: public_wells < 2, public_barrier < barrier_min or public_digits < digits_min; qualified: the public "
    "example holds but nonneg_wells < 2 or nonneg_barrier < barrier_min (two wells need a "
    "negative weight); verified otherwise.",
    decide=decide,
    thresholds={
        "barrier_min": Threshold(1e-3, "least barrier between two wells, relative to the profile's "
                                 "level (a well smaller than this is invisible in a figure)"),
        "digits_min": Threshold(6, "digits to which the public values must be reproduced",
                                scale="linear", step=1, sensitive=1),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("the public figure: wells at s = 0.129 and 0.795, barrier 0.8% of the level, "
                "values to 12 decimals; and a nonnegative two-well mixture",
                {"public_wells": 2, "public_barrier": 8.3e-3, "public_digits": 11.5,
                 "nonneg_wells": 2, "nonneg_barrier": 2.0}, "verified", "paper"),
        Example("the public figure's wells, but no nonnegative mixture has two (a negative head "
                "weight is needed)", {"public_wells": 2, "public_barrier": 8.3e-3,
                                      "public_digits": 11.5, "nonneg_wells": 1,
                                      "nonneg_barrier": 0.0}, "qualified", "false"),
        Example("one well only: the mixture is a single U", {"public_wells": 1,
                "public_barrier": 0.0, "public_digits": 11.5, "nonneg_wells": 1,
                "nonneg_barrier": 0.0}, "refuted", "false"),
        Example("two wells a rounding error apart (barrier 1e-9)", {"public_wells": 2,
                "public_barrier": 1e-9, "public_digits": 11.5, "nonneg_wells": 2,
                "nonneg_barrier": 2.0}, "refuted", "false"),
    ),
    fixed=FIXED,
    deciding=("public_wells", "public_barrier", "public_digits", "nonneg_wells", "nonneg_barrier"),
)

CARD = Card(
    paper=paper_setting(
        "the public code's 'common-M multi-head profile exhibiting a double well' "
        "(write_common_m_doublewell_profile; the paper's figure could not be read)",
        model="kinetic retrieval profile, mixture of heads", heads="4, weights 1, -27.52, "
        "-1.552, 3.9e-6", pe="ALiBi, lambda = 3, 0.25, 0.25, 2", t="1.5", M="8", modes="20"),
    test=Setting("fast-path reproduction and precise wells of the public mixture; a grid "
                 "search over nonnegative two-head mixtures with different slopes",
                 model="kinetic retrieval profile, mixture of heads",
                 heads=("4, weights 1, -27.52, -1.552, 3.9e-6", "2 nonnegative one-mode heads"),
                 pe=("ALiBi, lambda = 3, 0.25, 0.25, 2", "ALiBi, lambda = 1/2 .. 20, and 0"),
                 t="1.5", M="8", modes="20"),
    proof=ProofStatus("numeric", note="wells located numerically (grid, then golden section at "
                      "dps); the search covers a fixed grid of heads and weights, it proves "
                      "nothing about mixtures outside it"),
)


def wells(values: Any) -> tuple[int, float]:
    """Number of interior local minima of sampled values and the relative barrier between the
    outermost two (0 with fewer than two)."""
    mins, _ = local_extrema(list(values))
    if len(mins) < 2:
        return len(mins), 0.0
    i, j = mins[0], mins[-1]
    higher = max(values[i], values[j])
    return len(mins), float((max(values[i:j + 1]) - higher) / abs(higher))


def _public_wells(dps: int) -> dict:
    """The public mixture: its values against the script's, its wells and barrier refined on the
    precise path (golden section around each grid minimum and the grid maximum between)."""
    rec = public_figures()["double_well"]
    model = public_model([tuple(h) for h in rec["heads"]], rec["t"])
    grid = np.array([float(grid_s(j)) for j in range(800)])
    ours = kinetic_values(grid, model)
    digits = min(agreement_digits(ours[int(j)], mpmath.mpf(v)) for j, v in rec["values"].items())
    mins, maxs = local_extrema(list(ours))

    def fast(x):  # located on the fast path (positions to about 1e-8), valued on the precise
        return float(kinetic_values([float(x)], model)[0])

    def precise(x):
        return kinetic_value_precise(Fraction(mpmath.nstr(x, 17)), model, dps)

    where = [golden_minimum(fast, grid_s(i - 1), grid_s(i + 1), 20, 45)[0] for i in mins]
    located = [precise(s) for s in where]
    barrier = None
    if len(mins) >= 2:
        top = max((k for k in maxs if mins[0] < k < mins[-1]), key=lambda k: ours[k])
        s_top, _ = golden_minimum(lambda x: -fast(x), grid_s(top - 1), grid_s(top + 1), 20, 45)
        higher = max(located[0], located[-1])
        with mpmath.workdps(dps):
            barrier = (precise(s_top) - higher) / abs(higher)
    weights = [float(Fraction(h[0])) for h in rec["heads"]]
    return {"digits": min(digits, 15.0), "wells": len(mins),
            "barrier": 0.0 if barrier is None else float(barrier),
            "located": [[mpmath.nstr(s, 8), mpmath.nstr(v, 12)] for s, v in zip(where, located)],
            "script_minima": [round(float(grid_s(j)), 6) for j in rec["local_minima_indices"]],
            "min_weight": min(weights), "largest_value": float(ours.max())}


def search_two_wells(lams: Sequence[Fraction] = SEARCH_LAMBDA,
                     cs: Sequence[Fraction] = SEARCH_C, weights: Any = None) -> dict:
    """Nonnegative mixtures ``g_1 + w g_2`` of two one-mode heads with different slopes (every
    such pair of the grid ``lams x cs``; with a single slope, every pair of rates), ``w`` in
    ``weights`` (default 41 values 10^-4 .. 10^4), on :data:`WINDOW`: the mixture with two wells
    and the largest barrier, and how many had two wells."""
    weights = np.geomspace(1e-4, 1e4, 41) if weights is None else np.asarray(weights)
    heads = [(lam, c) for lam in lams for c in cs]
    prof = {h: kinetic_values(WINDOW, KineticModel([KineticHead(h[0], c=h[1])])) for h in heads}
    best: dict = {"wells": 0, "barrier": 0.0, "count": 0}
    for h1, h2 in itertools.combinations(heads, 2):
        if h1[0] == h2[0] and len(lams) > 1:  # heads with different slopes (one slope: any two)
            continue
        G = prof[h1][None, :] + weights[:, None] * prof[h2][None, :]
        d = np.diff(G, axis=1)
        is_min = (d[:, :-1] < 0) & (d[:, 1:] > 0)
        best["wells"] = max(best["wells"], int(is_min.sum(axis=1).max()))
        for r in np.flatnonzero(is_min.sum(axis=1) >= 2):
            n, barrier = wells(G[r])
            if n >= 2:
                best["count"] += 1
                if barrier > best["barrier"]:
                    best.update(barrier=barrier, heads=[[str(x) for x in h1], [str(x) for x in h2]],
                                weight=float(weights[r]),
                                at=[float(WINDOW[i + 1]) for i in np.flatnonzero(is_min[r])])
    return best


@claim(
    "duerinckx2026:double-well",
    statement="A mixture of heads with different ALiBi slopes can give the retrieval profile "
    "two wells (two interior local minima separated by a barrier), as in the public code's "
    "common-M multi-head profile.",
    latex=latex_of_derivation("kinetic-profile"),
    expected="verified",
    assumptions=("heads with their own slopes lambda_h and mode sums, common M = 8",
                 "t = 1.5 (public code)"),
    section="double well of head mixtures (public code: common-M multi-head profile)",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The public mixture's wells; nonnegative two-head mixtures; lambda = 0 mixtures."""
    pub = _public_wells(ctx.dps)
    nonneg = search_two_wells()
    cesaro = search_two_wells(lams=(Fraction(0),))
    single = max(wells(kinetic_values(WINDOW, KineticModel([KineticHead(lam, c=c)])))[0]
                 for lam in SEARCH_LAMBDA for c in SEARCH_C)
    figures = {"public_wells": pub["wells"], "public_barrier": float(f"{pub['barrier']:.4g}"),
               "public_digits": round(pub["digits"], 2), "nonneg_wells": nonneg["wells"],
               "nonneg_barrier": float(f"{nonneg['barrier']:.4g}")}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict,
        method="fast path: the public mixture on its 800-point grid and 961-point scans of two-head "
        "mixtures; precise (golden section at dps): the public wells and barrier",
        discrepancy=f"public values reproduced to {figures['public_digits']:.1f} digits",
        precision=f"float64 scans; dps={ctx.dps} for the wells",
        parameters={"search_lambda": [str(x) for x in SEARCH_LAMBDA],
                    "search_c": [str(x) for x in SEARCH_C], "weights": "41, 1e-4 .. 1e4",
                    "window": "0.02 .. 0.98, step 0.001"},
        details={"public": pub, "nonnegative_search": nonneg,
                 "lambda_0_search": {"wells": cesaro["wells"], "two_well_mixtures": cesaro["count"]},
                 "single_heads_most_wells": single,
                 "note": "the public example's head weights are signed (smallest "
                         f"{pub['min_weight']:.4g}) and its profile is negative everywhere "
                         f"(largest value {pub['largest_value']:.4g}): it is a signed "
                         "combination, not a mixture of heads in the softmax sense"},
        figures=figures,
    )
