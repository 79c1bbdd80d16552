"""wu2025:trained-decay-recency (wu2025 Figure 2): trained on unbiased in-context
classification, an attention-only decay-mask network (gamma = 0.8 per token, no residual
connections, no PE) prefers the end over the first position, ``Acc(first_middle) -
Acc(middle_first) < 0``, with ``Acc(first_last) - Acc(last_first) < 0`` beside it and
``Acc(middle_last) - Acc(last_middle)`` not above 0.

wu2025 section 5, Figure 2 (depth 2, first-middle about -0.055, first-last about -0.07,
middle-last about -0.003; figures from a third-party reading of the plot): the decay mask
of wu2025's public code (a γ^(i-j) mask, γ = 0.8), no residual connections.

The check reads the stored attention-only decay-mask runs of ``posbias train`` (re-trained with
``--thorough``) at the reading point (their last evaluation, 100,000 iterations) and decides on
first-middle per seed beyond its noise threshold, first-last and middle-last as support
(middle-last beyond noise above 0, the middle preferred over the last position, contradicts
recency), with the gate on the in-context accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule
from posbias.proofs_checks.claims.wu2025._trained import (
    ASSUMPTIONS,
    ATTENTION_ONLY_SOURCE,
    DECAY_PAPER,
    GATE_TEXT,
    NEEDS,
    NO_SE,
    RECENCY_TEXT,
    REIMPLEMENTATION,
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

_DECIDE = direction_decide("first-middle", -1, support=("first-last", "middle-last"),
                           against=("middle-last",))


def decide(f: Mapping, t: Mapping) -> str:
    """Figure 2 decay recency: first-middle beyond noise below 0 in every seed, first-last and
    middle-last not beyond noise above 0; middle-last beyond noise above 0 contradicts recency
    (:func:`direction_decide`, sign -1); the gate turns verified into qualified."""
    return _DECIDE(f, t)


RULE = Rule(
    text=("Figure 2 (attention only, no residual), decay mask gamma = 0.8 (m = -ln 0.8), no PE: "
          "the recency wu2025 reports is first-middle (about -0.055 at depth 2) with first-last "
          "(about -0.07) and middle-last (about -0.003) beside it; decided on first-middle, "
          "first-last and middle-last as support (neither may lie beyond noise above 0). "
          "verified: first-middle below minus its noise threshold in every seed with the "
          "support holding, gate passed; refuted: no seed with first-middle beyond noise below "
          "0 (gate passed), or in every seed first-middle beyond noise above 0 or middle-last "
          "beyond noise above 0 (any gate); qualified: the stated sign with its support in every "
          "seed but gate not passed; inconclusive otherwise. " + RECENCY_TEXT + " " + GATE_TEXT
          + " Read only from stored runs with residual: false; none stored -> needs-data."),
    decide=decide,
    thresholds=trained_thresholds(),
    outcomes=("verified", "qualified", "refuted", "inconclusive"),
    examples=(
        Example("wu2025 Figure 2, depth 2: first-middle -0.055, first-last -0.07, middle-last "
                "-0.003 (no SE or in-context accuracy reported)",
                example_figures(seed_entry(None, fm=-0.055, fl=-0.07, ml=-0.003, se=NO_SE)),
                "verified", "paper"),
        Example("a network that matches in context (ic 0.80) with wu2025's figures: middle-last "
                "-0.003 is within noise, first-middle decides",
                example_figures(seed_entry(0.80, fm=-0.055, fl=-0.07, ml=-0.003)), "verified"),
        Example("primacy instead (the causal no-PE sign): first-middle +0.06, +0.05",
                example_figures(seed_entry(0.85, 0.06, 0.07), seed_entry(0.85, 0.05, 0.06)),
                "refuted", "false"),
        Example("no recency: first-middle within noise (ic 0.85)",
                example_figures(seed_entry(0.85, 0.003, 0.0), seed_entry(0.85, -0.004, 0.002)),
                "refuted", "false"),
        Example("a middle preference, not recency: first-middle -0.05, -0.06 but middle-last "
                "+0.05, +0.04 (ic 0.85)",
                example_figures(seed_entry(0.85, -0.05, -0.005, 0.05),
                                seed_entry(0.85, -0.06, -0.02, 0.04)),
                "refuted", "false"),
        Example("the same middle preference without in-context matching (the figures of the "
                "residual decay runs: ic 0.527, first-middle -0.088, -0.098, middle-last +0.060, "
                "+0.050)",
                example_figures(seed_entry(0.527, -0.0876, -0.0252, 0.0596, 0.0063, 0.713),
                                seed_entry(0.527, -0.0981, -0.0446, 0.0503, 0.0063, 0.719)),
                "refuted", "false"),
        Example("recency without in-context matching: ic 0.52, first-middle -0.05, -0.06, "
                "first-last -0.06, -0.05, middle-last -0.01, 0.0",
                example_figures(seed_entry(0.52, -0.05, -0.06, -0.01),
                                seed_entry(0.52, -0.06, -0.05, 0.0)),
                "qualified"),
        Example("support contradicts: first-middle -0.06 but first-last +0.05 (ic 0.85)",
                example_figures(seed_entry(0.85, -0.06, 0.05), seed_entry(0.85, -0.06, 0.05)),
                "inconclusive"),
    ),
    fixed=RULES_FIXED,
    deciding=("first-middle", "first-last", "middle-last", "ic_accuracy", "train_accuracy"),
)

CARD = Card(
    paper=paper_setting("Figure 2", "off", DECAY_PAPER, "none"),
    test=tested_setting("off", DECAY_PAPER, "none", ATTENTION_ONLY_SOURCE),
    proof=ProofStatus("none"),
    implementation=REIMPLEMENTATION,
)


@claim(
    "wu2025:trained-decay-recency",
    statement=("Trained on unbiased in-context classification, an attention-only decay-mask "
               "network (gamma = 0.8 per token, no residual connections, no PE) prefers the end "
               "over the first position: Acc(first_middle) - Acc(middle_first) < 0, with "
               "Acc(first_last) - Acc(last_first) < 0 beside it and Acc(middle_last) - "
               "Acc(last_middle) not above 0 (wu2025 Figure 2)."),
    latex=r"\mathrm{Acc}(\mathrm{first}_{\mathrm{middle}}) - \mathrm{Acc}(\mathrm{middle}_{\mathrm{first}}) < 0",
    # the stored attention-only runs (2026-12-01): first-middle -0.013 (within noise 0.022),
    # -0.034; gate not passed (0.519, 0.508): inconclusive by the rule
    expected="inconclusive",
    assumptions=(*ASSUMPTIONS, "no residual connections (Figure 2)"),
    section="5",
    needs=NEEDS,
    thorough_work=training_work("decay-nope", residual=False),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The stored attention-only decay-mask/no-PE runs (re-trained with ``--thorough``) decided
    by :data:`RULE`; needs-data naming the training command when none is stored."""
    return direction_check(ctx, "decay-nope", RULE, "trained attention-only decay-mask/no-PE "
                           "network, paired test sets", residual=False)
