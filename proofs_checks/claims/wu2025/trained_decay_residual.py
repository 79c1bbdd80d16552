"""wu2025:trained-decay-residual: with residual connections, a decay-mask network (gamma = 0.8,
no PE) trained on unbiased in-context classification prefers the end over the first position,
``Acc(first_middle) - Acc(middle_first) < 0``, with ``Acc(first_last) - Acc(last_first)`` and
``Acc(middle_last) - Acc(last_middle)`` not above 0.

wu2025 section 5 states the decay recency for attention-only networks (Figure 2); whether
Figure 5 (residual connections) shows the decay mask is not confirmed here, so this claim tests
Figure 2's statement in Figure 5's setting (a variant).

The check reads the stored decay-mask runs of ``posbias train`` with residual connections
(re-trained with ``--thorough``) at the reading point (their last evaluation, 100,000
iterations) and decides on first-middle per seed beyond its noise threshold, first-last and
middle-last as support (middle-last beyond noise above 0, the middle preferred over the last
position, contradicts recency), with the gate on the in-context accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule
from posbias.proofs_checks.claims.wu2025._trained import (
    ASSUMPTIONS,
    DECAY_PAPER,
    GATE_TEXT,
    NEEDS,
    NO_SE,
    RECENCY_TEXT,
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

_DECIDE = direction_decide("first-middle", -1, support=("first-last", "middle-last"),
                           against=("middle-last",))


def decide(f: Mapping, t: Mapping) -> str:
    """Decay recency with residual connections: first-middle beyond noise below 0 in every
    seed, first-last and middle-last not beyond noise above 0; middle-last beyond noise above 0
    contradicts recency (:func:`direction_decide`, sign -1); the gate turns verified into
    qualified."""
    return _DECIDE(f, t)


RULE = Rule(
    text=("With residual connections, decay mask gamma = 0.8, no PE: the recency wu2025 states "
          "for the decay mask (Figure 2: first-middle about -0.055, first-last about -0.07, "
          "middle-last about -0.003), carried to the residual setting of Figure 5 (whether "
          "Figure 5 shows the decay mask is not confirmed here); decided on first-middle, "
          "first-last and middle-last as support (neither may lie beyond noise above 0). "
          "verified: first-middle below minus its noise threshold in every seed with the support "
          "holding, gate passed; refuted: no seed with first-middle beyond noise below 0 (gate "
          "passed), or in every seed first-middle beyond noise above 0 or middle-last beyond "
          "noise above 0 (any gate); qualified: the stated sign with its support in every seed "
          "but gate not passed; inconclusive otherwise. " + RECENCY_TEXT + " " + GATE_TEXT),
    decide=decide,
    thresholds=trained_thresholds(),
    outcomes=("verified", "qualified", "refuted", "inconclusive"),
    examples=(
        Example("Figure 2's attention-only decay figures read as residual ones: first-middle "
                "-0.055, first-last -0.07, middle-last -0.003",
                example_figures(seed_entry(None, fm=-0.055, fl=-0.07, ml=-0.003, se=NO_SE)),
                "verified"),
        Example("a middle preference, not recency, without in-context matching (the figures of "
                "the residual decay runs: ic 0.527, first-middle -0.088, -0.098, first-last "
                "-0.025, -0.045, middle-last +0.060, +0.050)",
                example_figures(seed_entry(0.5266, -0.0876, -0.0252, 0.0596, 0.00626, 0.713),
                                seed_entry(0.5269, -0.0981, -0.0446, 0.0503, 0.00634, 0.719)),
                "refuted", "false"),
        Example("recency without in-context matching: ic 0.52, first-middle -0.06, -0.05, "
                "middle-last -0.01, 0.0",
                example_figures(seed_entry(0.52, -0.06, -0.06, -0.01),
                                seed_entry(0.52, -0.05, -0.05, 0.0)),
                "qualified"),
        Example("matching network with recency: ic 0.8, first-middle -0.05, -0.06",
                example_figures(seed_entry(0.8, -0.05, -0.06), seed_entry(0.8, -0.06, -0.05)),
                "verified"),
        Example("residual primacy wins over the decay (the causal sign): first-middle +0.05",
                example_figures(seed_entry(0.8, 0.05, 0.04), seed_entry(0.8, 0.06, 0.05)),
                "refuted", "false"),
        Example("no recency with matching: first-middle within noise",
                example_figures(seed_entry(0.8, 0.002, 0.0), seed_entry(0.8, -0.003, 0.0)),
                "refuted", "false"),
        Example("a middle preference with matching: first-middle -0.05, -0.06, middle-last "
                "+0.05, +0.04 (ic 0.8)",
                example_figures(seed_entry(0.8, -0.05, 0.0, 0.05),
                                seed_entry(0.8, -0.06, -0.02, 0.04)),
                "refuted", "false"),
        Example("recency in one seed, a middle preference in the other: middle-last -0.01 and "
                "+0.05 (ic 0.8)",
                example_figures(seed_entry(0.8, -0.05, -0.06, -0.01),
                                seed_entry(0.8, -0.06, -0.01, 0.05)),
                "inconclusive", "false"),
        Example("no recency and no matching: first-middle within noise, ic 0.52",
                example_figures(seed_entry(0.52, 0.002, 0.0), seed_entry(0.52, -0.003, 0.0)),
                "inconclusive"),
    ),
    fixed=RULES_FIXED,
    deciding=("first-middle", "first-last", "middle-last", "ic_accuracy", "train_accuracy"),
    no_paper_figures=("Figure 5's decay-mask figures are not confirmed here (the third-party "
                      "reading gives Figure 5's causal no-PE and RoPE curves only)"),
)

CARD = Card(
    paper=paper_setting("Figure 5", "on", DECAY_PAPER, "none",
                        extra="; whether Figure 5 shows the decay mask is not confirmed: the "
                              "statement tested is Figure 2's decay recency in this setting"),
    test=tested_setting("on", DECAY_PAPER, "none", RESIDUAL_SOURCE),
    proof=ProofStatus("none"),
    differences=("Figure 5 is not confirmed to show the decay mask: Figure 2's statement is "
                 "tested in Figure 5's setting",),
    scale_only=False,
    implementation=REIMPLEMENTATION,
)


@claim(
    "wu2025:trained-decay-residual",
    statement=("With residual connections, a decay-mask network (gamma = 0.8, no PE) trained on "
               "unbiased in-context classification prefers the end over the first position: "
               "Acc(first_middle) - Acc(middle_first) < 0, with Acc(first_last) - Acc(last_first) "
               "and Acc(middle_last) - Acc(last_middle) not above 0 (Figure 2's statement in "
               "Figure 5's setting; Figure 5's decay curve is not confirmed here)."),
    latex=r"\mathrm{Acc}(\mathrm{first}_{\mathrm{middle}}) - \mathrm{Acc}(\mathrm{middle}_{\mathrm{first}}) < 0",
    # first-middle -0.088, -0.098 but middle-last +0.060, +0.050 beyond noise (0.019) in both
    # seeds: the middle preferred over the last position, not recency; refuted by the rule of
    # 2026-12-04 (formerly qualified), at 50,000-100,000 iterations; in-context accuracy 0.527
    expected="refuted",
    assumptions=(*ASSUMPTIONS, "residual connections around attention (Figure 5)"),
    section="5",
    needs=NEEDS,
    thorough_work=training_work("decay-nope",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The stored decay-mask/no-PE runs with residual connections (re-trained with
    ``--thorough``) decided by :data:`RULE`; needs-data when they are missing."""
    return direction_check(ctx, "decay-nope", RULE, "trained decay-mask/no-PE network with "
                           "residual connections, paired test sets IC_X_Y vs IC_Y_X", residual=True)
