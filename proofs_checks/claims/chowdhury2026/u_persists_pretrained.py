"""chowdhury2026:u-persists-pretrained (C10): after pretraining the macroscopic U-shaped
influence profile persists: training adds local content spikes but does not remove the valley.

The abstract ("comparing initialized and pretrained networks ... the U-shape persists") and the
paper's pretrained experiments (section and figure not confirmed here; docs/explanation/mathematics.rst
C10): pretrained checkpoints of its architectures on natural text, against their Step 0.

The check reads the user's measurements (``--data-dir``: ``posbias measure --model M --text T
--save-influence``, and ``--random-init`` for the Step-0 pair of the same architecture) and
applies the macroscopic U test (16 blocks of positions, an interior valley block with both end
blocks at least twice it) to each pretrained profile and to its Step-0 pair.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posbias.numerics.shape import shape_with_and_without_final
from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims.chowdhury2026._analytic import REREAD_RULES_FIXED
from posbias.proofs_checks.claims.chowdhury2026._pretrained import (
    BINS,
    FINAL_TOKEN_RULE,
    PAIRED_ASSUMPTIONS,
    PAIRED_NEEDS,
    U_FACTOR,
    both,
    final_token_figures,
    final_token_words,
    is_u,
    paired_measurements,
    pretrained_card,
    pretrained_setting,
    u_of,
    without_pairs,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """C10: a pretrained profile without a U refutes; a U in every pretrained profile and in its
    Step-0 pair verifies; a U after training only qualifies (it appears rather than persists).
    A U is a U with the final token and without it."""
    pairs = f["pairs"]

    def u(x):
        return is_u(x, t["factor"])

    if any(not both(p, "pretrained", u) for p in pairs):
        return "refuted"
    if all(both(p, "step0", u) for p in pairs):
        return "verified"
    return "qualified"


def _up(pre, s0, pre_without=None, s0_without=None):
    def blk(first, last, interior=True):
        return {"valley_block": 8 if interior else BINS, "interior": interior,
                "first_over_valley": first, "last_over_valley": last}
    return {"name": "m", "step0_name": "m-step0", "pretrained": blk(*pre), "step0": blk(*s0),
            "without_final": {"pretrained": blk(*(pre_without or pre)),
                              "step0": blk(*(s0_without or s0))}}


RULE = Rule(
    text=(
        f"Pairs: every pretrained measurement (stage 'pretrained') with a Step-0 measurement of "
        f"the same architecture (stage 'step-0': model type, layers, heads and width agree); "
        f"needs-data without a pretrained measurement or without any such pair (persistence "
        f"needs both ends). Each profile -> means over {BINS} equal blocks of positions; a "
        f"macroscopic U when the smallest block is interior and the first and last blocks are "
        f"each >= factor x it. refuted: the pretrained profile of some pair has no U (the U does "
        f"not persist); verified: in every pair both the pretrained and the Step-0 profile have a "
        f"U; qualified: every pretrained profile has a U but some Step-0 profile has none (the U "
        f"appears with training rather than persisting). Unpaired pretrained measurements are "
        f"reported, not decided on. " + FINAL_TOKEN_RULE),
    decide=decide,
    thresholds={"factor": Threshold(U_FACTOR, "an end block at least this many times the valley "
                                    "block makes a macroscopic U", sensitive=1.25)},
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("the paper's picture: U at Step 0 and after pretraining (spikes added, valley "
                "deepened)", {"pairs": [_up((40.0, 60.0), (10.0, 30.0))]}, "verified", "paper"),
        Example("pretraining fills the valley: a monotone primacy profile after training",
                {"pairs": [_up((30.0, 1.0, False), (10.0, 30.0))]}, "refuted", "false"),
        Example("a flat pretrained profile (ends 1.3 x the valley)",
                {"pairs": [_up((1.3, 1.2), (10.0, 30.0))]}, "refuted", "false"),
        Example("no U at Step 0, a U after training", {"pairs": [_up((40.0, 60.0),
                                                                      (30.0, 1.0, False))]},
                "qualified", "realistic"),
        Example("the pretrained U only through the final token (last block 60 x the valley with "
                "it, 1.0 x without)", {"pairs": [_up((40.0, 60.0), (10.0, 30.0), (40.0, 1.0))]},
                "refuted", "false"),
        Example("the Step-0 U only through the final token (the untrained recency atom)",
                {"pairs": [_up((40.0, 60.0), (10.0, 30.0), None, (10.0, 1.0))]}, "qualified",
                "realistic"),
    ),
    fixed=REREAD_RULES_FIXED,
    deciding=("pairs",),
)


CARD = pretrained_card(
    "the abstract ('comparing initialized and pretrained networks ... the U-shape persists') "
    "and the paper's pretrained experiments (section and figure not confirmed here; "
    "docs/explanation/mathematics.rst C10)")


@claim(
    "chowdhury2026:u-persists-pretrained",
    statement="After pretraining the macroscopic U-shaped influence profile persists: training "
    "adds local content spikes but does not remove the valley.",
    latex=r"\arg\min_k \bar p_k \in \{2,\dots,B-1\},\quad \bar p_1, \bar p_B \ge 2 \min_k \bar p_k",
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
        return without_pairs(rule, pairs, unpaired, skipped,
                             " (posbias measure --model M --random-init --save-influence DIR)")
    shapes = [(r, s, shape_with_and_without_final(r.profile),
               shape_with_and_without_final(s.profile)) for r, s in pairs]
    figures: dict[str, Any] = {"pairs": [
        {"name": r.name, "step0_name": s.name, "pretrained": u_of(a["with"]),
         "step0": u_of(b["with"]),
         "without_final": {"pretrained": u_of(a["without"]), "step0": u_of(b["without"])}}
        for r, s, a, b in shapes]}
    verdict = RULE.apply(figures).verdict
    final = final_token_figures(RULE, figures, "pairs", "name")

    def ends(x):
        return (f"valley block {x['valley_block']}, ends/valley {x['first_over_valley']:.4g}, "
                f"{x['last_over_valley']:.4g}")

    def show(p):
        w = p["without_final"]
        return (f"{p['name']}: {ends(p['pretrained'])} (without the final token "
                f"{ends(w['pretrained'])}); Step 0 ({p['step0_name']}): {ends(p['step0'])} "
                f"(without the final token {ends(w['step0'])})")

    text = "; ".join(show(p) for p in figures["pairs"])
    alone = final_token_words(
        figures["pairs"], lambda p: p["name"], "pair",
        [("a U after pretraining", "pretrained", lambda x: is_u(x, U_FACTOR)),
         ("a U at Step 0", "step0", lambda x: is_u(x, U_FACTOR))])
    if alone:
        text += "; " + alone
    if final["decided_by_final_token"]:
        text += (f"; the final token decides: {final['verdict_with_final']} with it, "
                 f"{final['verdict_without_final']} without it")
    common: dict[str, Any] = dict(
        method=f"macroscopic profile ({BINS} blocks) of the measured pretrained influence and "
        "of its Step-0 pair", precision="float64",
        tolerance=f"ends >= {U_FACTOR:g} x valley block", cases=len(pairs),
        parameters={"bins": BINS, "factor": U_FACTOR}, figures=figures,
        setting=pretrained_setting(pairs),
        details={"rule": rule, "pairs": figures["pairs"], "final_token": final,
                 "unpaired": unpaired,
                 "skipped": skipped})
    if verdict == "refuted":
        return Evidence("refuted", counterexample="no macroscopic U after pretraining: " + text,
                        **common)
    if verdict == "qualified":
        return Evidence("qualified", correction="the pretrained profiles are U-shaped, but the "
                        "Step-0 model of the same architecture is not: the U appears with "
                        "training rather than persisting (" + text + ")", **common)
    return Evidence("verified", discrepancy=text, **common)
