"""wu2025:trained-rope-tradeoff (wu2025 Figure 2): trained on unbiased in-context
classification, an attention-only causal network (no residual connections) with RoPE trades the
causal mask's first-position preference against recency: its ``Acc(first_last) -
Acc(last_first)`` is lower than without positional encoding.

wu2025 section 5, Figure 2 (depth 2, first-last RoPE about -0.00 against no PE about +0.08;
figures from a third-party reading of the plot), no residual connections.

The check reads the stored attention-only causal runs with RoPE and without PE (re-trained with
``--thorough``) at the reading point (the last iteration both reached, 100,000) and decides on
the shift of first-last per seed beyond ``sqrt(2)`` times the larger noise threshold, the shift
of middle-last read too (a trade-off toward recency must not move the preference toward the
middle), with the gate on both arms: a network at label-copying level cannot show a positional
trade-off.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule
from posbias.proofs_checks.claims.wu2025._trained import (
    ASSUMPTIONS,
    ATTENTION_ONLY_SOURCE,
    NEEDS,
    REIMPLEMENTATION,
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

_DECIDE = shift_decide("first-last", -1, against="middle-last")


def decide(f: Mapping, t: Mapping) -> str:
    """Figure 2 RoPE trade-off: the shift first-last(RoPE) - first-last(no PE) below minus
    its threshold in every seed, the shift of middle-last not above its threshold
    (:func:`shift_decide`, sign -1); inconclusive unless both arms pass the gate."""
    return _DECIDE(f, t)


RULE = Rule(
    text=("Figure 2 (attention only, no residual): RoPE trades the causal mask's first-position "
          "preference toward recency: its first-last (about -0.00) lies below no PE's (about "
          "+0.08). Shift S = first-last(RoPE) - first-last(no PE) per seed (same seeds, same "
          "iteration), threshold sqrt(2) max(noise(RoPE), noise(no PE)); the shift of "
          "middle-last, S_ml = middle-last(RoPE) - middle-last(no PE), is read too: a trade-off "
          "toward recency must not move the preference toward the middle (S_ml beyond its "
          "threshold above 0). verified: S below minus the threshold in every seed with S_ml "
          "not above its threshold, both arms above the gate; refuted (both arms above the "
          "gate): no seed with that shift, or in every seed S above the threshold or S_ml above "
          "its threshold; inconclusive otherwise, and whenever an arm misses the gate. "
          + SHIFT_GATE_TEXT + " Read only from stored runs with residual: false; none stored "
          "-> needs-data."),
    decide=decide,
    thresholds=trained_thresholds(),
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("wu2025 Figure 2, depth 2: first-last RoPE -0.00, no PE +0.08 (no SE or "
                "in-context accuracy reported)",
                example_shift("first-last", [-0.00], [0.08], se=None), "verified", "paper"),
        Example("RoPE above no PE (what the residual runs show): S = +0.044, +0.060",
                example_shift("first-last", [0.234, 0.251], [0.190, 0.191], ic_rope=[0.90, 0.91],
                              ic_nope=[0.89, 0.88]), "refuted", "false"),
        Example("no shift: RoPE +0.08, +0.07 vs no PE +0.08, +0.08 (gate passed)",
                example_shift("first-last", [0.08, 0.07], [0.08, 0.08], ic_rope=[0.85, 0.86],
                              ic_nope=[0.85, 0.86]), "refuted", "false"),
        Example("a shift toward the middle, not recency: S = -0.08, -0.07 but S_ml = +0.06, "
                "+0.05 (gate passed)",
                example_shift("first-last", [0.0, 0.01], [0.08, 0.08], ic_rope=[0.85, 0.86],
                              ic_nope=[0.85, 0.86], against="middle-last",
                              rope_against=[0.06, 0.05], nope_against=[0.0, 0.0]),
                "refuted", "false"),
        Example("a trade-off shown by networks at label-copying level: S = -0.10, -0.09, both "
                "arms at in-context accuracy 0.51-0.52 (the size of the attention-only runs)",
                example_shift("first-last", [0.004, 0.010], [0.105, 0.099],
                              ic_rope=[0.514, 0.515], ic_nope=[0.520, 0.518]),
                "inconclusive", "false"),
        Example("one arm above the gate, the other at label-copying level: S = -0.08, -0.07",
                example_shift("first-last", [0.0, 0.01], [0.08, 0.08], ic_rope=[0.85, 0.86],
                              ic_nope=[0.52, 0.52]), "inconclusive", "false"),
        Example("seeds disagree", example_shift("first-last", [0.0, 0.08], [0.08, 0.08],
                                                ic_rope=[0.85, 0.86], ic_nope=[0.85, 0.86]),
                "inconclusive"),
    ),
    fixed=RULES_FIXED,
    deciding=("shift", "RoPE first-last", "no PE first-last", "shift middle-last",
              "RoPE ic_accuracy", "no PE ic_accuracy"),
)

CARD = Card(
    paper=paper_setting("Figure 2", "off", "causal", ("rope", "none")),
    test=tested_setting("off", "causal", ("rope", "none"), ATTENTION_ONLY_SOURCE),
    proof=ProofStatus("none"),
    implementation=REIMPLEMENTATION,
)


@claim(
    "wu2025:trained-rope-tradeoff",
    statement=("Trained on unbiased in-context classification, an attention-only causal network "
               "(no residual connections) with RoPE trades the causal mask's first-position "
               "preference against recency: its Acc(first_last) - Acc(last_first) is lower than "
               "without positional encoding (wu2025 Figure 2)."),
    latex=r"\Delta_{\mathrm{RoPE}}(\mathrm{first}, \mathrm{last}) < \Delta_{\mathrm{NoPE}}(\mathrm{first}, \mathrm{last})",
    # the stored attention-only runs: shift -0.101, -0.089 beyond noise in both seeds, but both
    # arms stay at label-copying level (in-context accuracy 0.514-0.520 < gate 0.75) at every
    # evaluation: no positional trade-off can be shown, inconclusive by the rule of 2026-12-04
    # (formerly qualified)
    expected="inconclusive",
    assumptions=(*ASSUMPTIONS, "no residual connections (Figure 2)"),
    section="5",
    needs=NEEDS,
    thorough_work=training_work("causal-rope", "causal-nope", residual=False),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The stored attention-only causal runs with RoPE and without PE (re-trained with
    ``--thorough``), compared on first-last at the last iteration both reached, decided by
    :data:`RULE`; needs-data naming the training command when one is not stored."""
    return rope_shift_check(ctx, RULE, "first-last", "trained attention-only causal networks with "
                            "RoPE and without PE", residual=False, against="middle-last")
