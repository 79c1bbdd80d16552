"""wu2025:trained-causal-primacy-residual (wu2025 Figure 5): with residual connections, a causal
network without positional encoding trained on unbiased in-context classification prefers the
first position, ``Acc(first_middle) - Acc(middle_first) > 0``.

wu2025 section 5, Figure 5 (depth 2, first-middle about +0.25 without PE; figures from a
third-party reading of the plot): the network of Figure 2 with residual connections around
attention.

The check reads the stored causal/no-PE runs of ``posbias train`` with residual connections
(``data/trained/causal_none_res_lr0.001.json``; re-trained with ``--thorough``) at the reading
point (their last evaluation, 100,000 iterations) and decides on first-middle per seed beyond
its noise threshold, first-last as support, with the gate on the in-context accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule
from posbias.proofs_checks.claims.wu2025._trained import (
    ASSUMPTIONS,
    GATE_TEXT,
    NEEDS,
    NO_SE,
    REIMPLEMENTATION,
    RESIDUAL_SOURCE,
    RULES_FIXED,
    direction_check,
    direction_decide,
    example_figures,
    paper_setting,
    seed_entry,
    tested_setting,
    trained_thresholds,
    training_work,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

_DECIDE = direction_decide("first-middle", +1, support=("first-last",))


def decide(f: Mapping, t: Mapping) -> str:
    """Figure 5 primacy: first-middle beyond noise above 0 in every seed, first-last not
    beyond noise below 0 (:func:`direction_decide`, sign +1); the gate turns verified into
    qualified."""
    return _DECIDE(f, t)


RULE = Rule(
    text=("Figure 5 (with residual connections), causal mask, no PE: a first-position "
          "preference, first-middle about +0.25 at depth 2 (stronger than Figure 2's); decided "
          "on first-middle, first-last as support (it must not lie beyond noise below 0). "
          "verified: first-middle above its noise threshold in every seed, gate passed; "
          "refuted: no seed with first-middle beyond noise above 0 (gate passed), or below "
          "-noise in every seed (any gate); qualified: the stated sign in every seed but gate "
          "not passed; inconclusive otherwise. " + GATE_TEXT
          + " The comparison with Figure 2's strength (residual against attention only) is not "
          "decided here: a comparison of two configurations needs both arms above the gate."),
    decide=decide,
    thresholds=trained_thresholds(),
    outcomes=("verified", "qualified", "refuted", "inconclusive"),
    examples=(
        Example("wu2025 Figure 5, depth 2, no PE: first-middle +0.25 (no SE or in-context "
                "accuracy reported)", example_figures(seed_entry(None, fm=0.25, se=NO_SE)),
                "verified", "paper"),
        Example("the stored residual runs: first-middle +0.178, +0.174 (ic 0.889, 0.881)",
                example_figures(seed_entry(0.889, 0.1778, 0.19, -0.0128, 0.0054),
                                seed_entry(0.881, 0.1741, 0.1907, -0.0093, 0.0055)), "verified"),
        Example("no primacy: first-middle +0.004, -0.003 (ic 0.88)",
                example_figures(seed_entry(0.88, 0.004, 0.01), seed_entry(0.88, -0.003, 0.0)),
                "refuted", "false"),
        Example("recency: first-middle -0.03, -0.04 (gate not passed)",
                example_figures(seed_entry(0.6, -0.03, -0.02), seed_entry(0.6, -0.04, -0.03)),
                "refuted", "false"),
        Example("primacy without in-context matching (ic 0.54, as at 20,000 iterations)",
                example_figures(seed_entry(0.54, 0.05, 0.06), seed_entry(0.52, 0.04, 0.05)),
                "qualified"),
        Example("seeds disagree",
                example_figures(seed_entry(0.88, 0.1, 0.1), seed_entry(0.88, 0.0, 0.1)),
                "inconclusive"),
    ),
    fixed=RULES_FIXED,
    deciding=("first-middle", "first-last", "ic_accuracy", "train_accuracy"),
)

CARD = Card(
    paper=paper_setting("Figure 5", "on", "causal", "none"),
    test=tested_setting("on", "causal", "none", RESIDUAL_SOURCE),
    proof=ProofStatus("none"),
    implementation=REIMPLEMENTATION,
)


@claim(
    "wu2025:trained-causal-primacy-residual",
    statement=("With residual connections, a causal network without positional encoding trained "
               "on unbiased in-context classification prefers the first position: "
               "Acc(first_middle) - Acc(middle_first) > 0 (wu2025 Figure 5)."),
    latex=r"\mathrm{Acc}(\mathrm{first}_{\mathrm{middle}}) - \mathrm{Acc}(\mathrm{middle}_{\mathrm{first}}) > 0",
    expected="verified",
    assumptions=(*ASSUMPTIONS, "residual connections around attention (Figure 5)"),
    section="5",
    needs=NEEDS,
    thorough_work=training_work("causal-nope",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The stored causal/no-PE runs with residual connections (re-trained with ``--thorough``)
    decided by :data:`RULE`; needs-data when they are missing."""
    return direction_check(ctx, "causal-nope", RULE, "trained causal/no-PE network with residual "
                           "connections, paired test sets IC_X_Y vs IC_Y_X", residual=True)
