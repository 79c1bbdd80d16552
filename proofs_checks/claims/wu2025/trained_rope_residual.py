"""wu2025:trained-rope-residual (wu2025 Figure 5): with residual connections, a causal network
with RoPE trained on unbiased in-context classification prefers the first position more than
without positional encoding: its ``Acc(first_middle) - Acc(middle_first)`` is higher with RoPE.

wu2025 section 5, Figure 5 (depth 2, first-middle RoPE about +0.38 against no PE about +0.25;
figures from a third-party reading of the plot), residual connections around attention.

The check reads the stored causal runs with residual connections, RoPE and no PE (re-trained
with ``--thorough``), at the reading point (the last iteration both reached, 100,000) and
decides on the shift of first-middle per seed beyond ``sqrt(2)`` times the larger noise
threshold, with the gate on both arms: a network at label-copying level cannot show a
positional trade-off.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule
from posbias.proofs_checks.claims.wu2025._trained import (
    ASSUMPTIONS,
    NEEDS,
    REIMPLEMENTATION,
    RESIDUAL_SOURCE,
    RULES_FIXED,
    SHIFT_GATE_TEXT,
    example_shift,
    paper_setting,
    rope_shift_check,
    shift_decide,
    tested_setting,
    trained_thresholds,
    training_work,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

_DECIDE = shift_decide("first-middle", +1)


def decide(f: Mapping, t: Mapping) -> str:
    """Figure 5 RoPE above no PE: the shift first-middle(RoPE) - first-middle(no PE) above
    its threshold in every seed (:func:`shift_decide`, sign +1); inconclusive unless both arms
    pass the gate."""
    return _DECIDE(f, t)


RULE = Rule(
    text=("Figure 5 (with residual connections): RoPE lies above no PE in the first-position "
          "preference, first-middle about +0.38 vs +0.25 at depth 2. Shift S = first-middle(RoPE) "
          "- first-middle(no PE) per seed (same seeds, same iteration), threshold sqrt(2) "
          "max(noise(RoPE), noise(no PE)). verified: S above the threshold in every seed, both "
          "arms above the gate; refuted (both arms above the gate): no seed with that shift, or "
          "S below minus the threshold in every seed (Figure 2's trade-off direction); "
          "inconclusive otherwise, and whenever an arm misses the gate. " + SHIFT_GATE_TEXT),
    decide=decide,
    thresholds=trained_thresholds(),
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("wu2025 Figure 5, depth 2: first-middle RoPE +0.38, no PE +0.25 (no SE or "
                "in-context accuracy reported)",
                example_shift("first-middle", [0.38], [0.25], se=None), "verified", "paper"),
        Example("the stored residual runs: RoPE +0.234, +0.240 vs no PE +0.178, +0.174",
                example_shift("first-middle", [0.2343, 0.24], [0.1778, 0.1741],
                              ic_rope=[0.905, 0.911], ic_nope=[0.889, 0.881]), "verified"),
        Example("RoPE below no PE (Figure 2's trade-off carried over): S = -0.08, -0.07",
                example_shift("first-middle", [0.10, 0.10], [0.18, 0.17], ic_rope=[0.9, 0.9],
                              ic_nope=[0.89, 0.88]), "refuted", "false"),
        Example("RoPE equal to no PE: S = +0.005, -0.004",
                example_shift("first-middle", [0.183, 0.170], [0.178, 0.174], ic_rope=[0.9, 0.9],
                              ic_nope=[0.89, 0.88]), "refuted", "false"),
        Example("the stated shift shown by networks at label-copying level (RoPE ic 0.51, as at "
                "6,000 iterations): S = +0.07, +0.07",
                example_shift("first-middle", [0.10, 0.11], [0.03, 0.04], ic_rope=[0.51, 0.51],
                              ic_nope=[0.54, 0.52]), "inconclusive", "false"),
        Example("one arm above the gate, the other at label-copying level: S = +0.06, +0.07",
                example_shift("first-middle", [0.24, 0.24], [0.18, 0.17], ic_rope=[0.9, 0.9],
                              ic_nope=[0.52, 0.53]), "inconclusive", "false"),
        Example("seeds disagree", example_shift("first-middle", [0.24, 0.17], [0.18, 0.17],
                                                ic_rope=[0.9, 0.9], ic_nope=[0.89, 0.88]),
                "inconclusive"),
    ),
    fixed=RULES_FIXED,
    deciding=("shift", "RoPE first-middle", "no PE first-middle", "RoPE ic_accuracy",
              "no PE ic_accuracy"),
)

CARD = Card(
    paper=paper_setting("Figure 5", "on", "causal", ("rope", "none")),
    test=tested_setting("on", "causal", ("rope", "none"), RESIDUAL_SOURCE),
    proof=ProofStatus("none"),
    implementation=REIMPLEMENTATION,
)


@claim(
    "wu2025:trained-rope-residual",
    statement=("With residual connections, a causal network with RoPE trained on unbiased "
               "in-context classification prefers the first position more than without "
               "positional encoding: Acc(first_middle) - Acc(middle_first) is higher with RoPE "
               "(wu2025 Figure 5)."),
    latex=r"\Delta_{\mathrm{RoPE}}(\mathrm{first}, \mathrm{middle}) > \Delta_{\mathrm{NoPE}}(\mathrm{first}, \mathrm{middle})",
    expected="verified",
    assumptions=(*ASSUMPTIONS, "residual connections around attention (Figure 5)"),
    section="5",
    needs=NEEDS,
    thorough_work=training_work("causal-rope", "causal-nope"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The stored causal runs with residual connections, RoPE and no PE (re-trained with
    ``--thorough``), compared on first-middle at the last iteration both reached, decided by
    :data:`RULE`; needs-data when one is missing."""
    return rope_shift_check(ctx, RULE, "first-middle", "trained causal networks with residual "
                            "connections, RoPE and no PE", residual=True)
