"""chowdhury2026:peak-valley-pretrained (C10): after pretraining the peak-to-valley influence
ratio grows from about 10^2 (initialization) to about 10^3.

The paper's pretrained experiments (section and figure not confirmed here), as
docs/explanation/mathematics.rst C7 and C10 state them: peak-to-valley ≈ 10^2 at initialization, ≈ 10^3
after training, for pretrained checkpoints of its architectures on natural text.

The check reads the user's measurements (``--data-dir``: a pretrained profile and the Step-0
profile of the same architecture, ``posbias measure --model M [--random-init]
--save-influence``) and computes ``R = max(p(1), p(L)) / min_j p(j)`` of each: the pretrained R
against "about 10^3" (half a decade either side) and its growth over the Step-0 R.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from posbias.numerics.shape import shape_with_and_without_final
from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims.chowdhury2026._analytic import REREAD_RULES_FIXED
from posbias.proofs_checks.claims.chowdhury2026._pretrained import (
    FINAL_TOKEN_RULE,
    PAIRED_ASSUMPTIONS,
    PAIRED_NEEDS,
    final_token_figures,
    one_side,
    paired_measurements,
    pretrained_card,
    pretrained_setting,
    without_pairs,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "PV_BAND", "PV_GROWTH", "RULE", "check", "decide"]

#: "about 10^3": within half a decade, as "about 10^2" is for the Step-0 claim (C7)
PV_BAND = (10 ** 2.5, 10 ** 3.5)
#: "grows from about 10^2 to about 10^3": R_N / R_0 at least half a decade
PV_GROWTH = 10 ** 0.5


def decide(f: Mapping, t: Mapping) -> str:
    """C10: a pair whose R did not grow, or a pretrained R outside "about 10^3", refutes; grown
    by the growth factor in every pair verifies; grown by less qualifies.  Each holds only when
    it holds with the final token and without it: the verdict is the lesser of the two."""
    verdicts = {_decide_one_side(one_side(f, side)["pairs"], t) for side in ("with", "without")}
    return next(v for v in ("refuted", "qualified", "verified") if v in verdicts)


def _decide_one_side(pairs: Sequence[Mapping], t: Mapping) -> str:
    if any(p["R_pretrained"] <= t["no_growth"] * p["R_step0"] for p in pairs):
        return "refuted"
    if any(not t["band_lo"] <= p["R_pretrained"] <= t["band_hi"] for p in pairs):
        return "refuted"
    if all(p["R_pretrained"] >= t["growth"] * p["R_step0"] for p in pairs):
        return "verified"
    return "qualified"


def _pvp(rn, r0, rn_without=None, r0_without=None):
    return {"pairs": [{"name": "m", "step0_name": "m-step0", "R_pretrained": rn, "R_step0": r0,
                       "without_final": {"R_pretrained": rn if rn_without is None else rn_without,
                                         "R_step0": r0 if r0_without is None else r0_without}}]}


RULE = Rule(
    text=(
        "Pairs as for u-persists-pretrained (a pretrained and a Step-0 measurement of the same "
        "architecture; needs-data without one). R = max(p(1), p(L)) / min_j p(j) of each "
        "profile, R_N pretrained, R_0 at Step 0. refuted: for some pair R_N <= no_growth x R_0 "
        "(the ratio does not grow) or R_N outside [band_lo, band_hi] (not 'about 10^3', half a "
        "decade either side); verified: every R_N in the band and R_N >= growth x R_0 (grown by "
        "at least half a decade, as from about 10^2 to about 10^3); qualified: every R_N in the "
        "band and above R_0, but grown by less than the growth factor. " + FINAL_TOKEN_RULE),
    decide=decide,
    thresholds={
        "band_lo": Threshold(PV_BAND[0], "lower edge of 'about 10^3'", sensitive=2.0),
        "band_hi": Threshold(PV_BAND[1], "upper edge of 'about 10^3'", sensitive=2.0),
        "growth": Threshold(PV_GROWTH, "R_N / R_0 read as grown from about 10^2 to about 10^3",
                            sensitive=1.5),
        "no_growth": Threshold(1.0, "R_N / R_0 at or below which the ratio has not grown",
                               scale="fixed"),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("the paper's figures: 10^2 at Step 0, 10^3 after pretraining", _pvp(1000.0, 100.0),
                "verified", "paper"),
        Example("R shrinks with training (1000 -> 600)", _pvp(600.0, 1000.0), "refuted", "false"),
        Example("R about 10^2 after training too", _pvp(120.0, 100.0), "refuted", "false"),
        Example("R in the band, grown by a factor 2 only", _pvp(800.0, 400.0), "qualified",
                "realistic"),
        Example("R grows to 10^3 only through the final token's atom (150 without it)",
                _pvp(1000.0, 100.0, 150.0), "refuted", "false"),
        Example("R_0 at 10^2 only through the untrained recency atom (R_0 10 without it, grown "
                "from there)", _pvp(1000.0, 100.0, 1000.0, 10.0), "verified", "realistic"),
    ),
    fixed=REREAD_RULES_FIXED,
    deciding=("pairs",),
)


CARD = pretrained_card(
    "the paper's pretrained experiments (section and figure not confirmed here), as "
    "docs/explanation/mathematics.rst C7 and C10 state them: peak-to-valley ≈ 10^2 at initialization, "
    "≈ 10^3 after training")


@claim(
    "chowdhury2026:peak-valley-pretrained",
    statement="After pretraining the peak-to-valley influence ratio grows from about 10^2 "
    "(initialization) to about 10^3.",
    latex=r"\frac{\max(p_1, p_L)}{\min_j p_j} \approx 10^3 > "
    r"\left.\frac{\max(p_1, p_L)}{\min_j p_j}\right|_{\text{step }0}",
    # no expected verdict: no pretrained weights could be had where posbias was built, so this
    # claim was never computed; with --data-dir its verdict is reported as new
    expected="needs-data",
    section="C10",
    assumptions=PAIRED_ASSUMPTIONS,
    needs=PAIRED_NEEDS,
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """C10 on the user's pretrained measurements, each paired with its Step-0 measurement (see
    RULE); needs-data without a pair."""
    pairs, unpaired, skipped = paired_measurements(ctx)
    rule = RULE.text
    if not pairs:
        return without_pairs(rule, pairs, unpaired, skipped, ": growth cannot be tested")
    def rs(r, s):
        return {"R_pretrained": float(f"{r.peak_valley:.4g}"),
                "R_step0": float(f"{s.peak_valley:.4g}")}

    shapes = [(r, s, shape_with_and_without_final(r.profile),
               shape_with_and_without_final(s.profile)) for r, s in pairs]
    figures: dict[str, Any] = {"pairs": [
        {"name": r.name, "step0_name": s.name, **rs(a["with"], b["with"]),
         "without_final": rs(a["without"], b["without"])} for r, s, a, b in shapes]}
    verdict = RULE.apply(figures).verdict
    final = final_token_figures(RULE, figures, "pairs", "name")

    def show(p):
        w = p["without_final"]
        return (f"{p['name']}: R = {p['R_pretrained']:.4g} after pretraining, "
                f"{p['R_step0']:.4g} at Step 0 ({p['step0_name']}): R_N / R_0 = "
                f"{p['R_pretrained'] / p['R_step0']:.3g}; without the final token R = "
                f"{w['R_pretrained']:.4g} and {w['R_step0']:.4g}, R_N / R_0 = "
                f"{w['R_pretrained'] / w['R_step0']:.3g}")

    text = "; ".join(show(p) for p in figures["pairs"])
    if final["decided_by_final_token"]:
        text += (f"; the final token decides: {final['verdict_with_final']} with it, "
                 f"{final['verdict_without_final']} without it")
    common: dict[str, Any] = dict(
        method="peak-to-valley ratio of the measured pretrained influence and of its Step-0 pair",
        precision="float64",
        tolerance="R_N in [10^2.5, 10^3.5], R_N / R_0 >= 10^0.5", cases=len(pairs),
        figures=figures, setting=pretrained_setting(pairs),
        details={"rule": rule, "pairs": figures["pairs"], "final_token": final,
                 "unpaired": unpaired,
                 "skipped": skipped})
    if verdict == "refuted":
        return Evidence("refuted", counterexample=text, **common)
    if verdict == "qualified":
        return Evidence("qualified", correction="R is about 10^3 after pretraining and above the "
                        "Step-0 ratio, but grown by less than half a decade: " + text, **common)
    return Evidence("verified", discrepancy=text, **common)
