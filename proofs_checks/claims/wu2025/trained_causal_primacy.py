"""wu2025:trained-causal-primacy (wu2025 Figure 2): trained on unbiased in-context
classification, an attention-only causal network (no residual connections) without positional
encoding prefers the first position, ``Acc(first_last) - Acc(last_first) > 0``.

wu2025 section 5, Figure 2 (depth 2, first-last about +0.08; figures from a third-party reading
of the plot): a 2-layer single-head self-attention network on wu2025's in-context
classification task, its public code's default (no residual connections).

The check reads the stored attention-only runs of ``posbias train`` (``residual: false``, causal
mask, no PE; re-trained at the same scale with ``--thorough``) at the reading point (their last
evaluation, 100,000 iterations) and decides on first-last per seed beyond its noise threshold, first-middle as support, with the
gate on the in-context accuracy (see :mod:`posbias.proofs_checks.claims.wu2025._trained`).
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule
from posbias.proofs_checks.claims.wu2025._trained import (
    ASSUMPTIONS,
    ATTENTION_ONLY_SOURCE,
    GATE_TEXT,
    NEEDS,
    NO_SE,
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

_DECIDE = direction_decide("first-last", +1, support=("first-middle",))


def decide(f: Mapping, t: Mapping) -> str:
    """Figure 2 primacy: first-last beyond noise above 0 in every seed, first-middle not
    beyond noise below 0 (:func:`direction_decide`, sign +1); the gate turns verified into
    qualified."""
    return _DECIDE(f, t)


RULE = Rule(
    text=("Figure 2 (attention only, no residual), causal mask, no PE: the first-position "
          "preference wu2025 reports is first-last (about +0.08 at depth 2); decided on "
          "first-last, first-middle as support (it must not lie beyond noise below 0). "
          "verified: first-last > its noise threshold in every seed, gate passed; refuted: no "
          "seed with first-last beyond noise above 0 (gate passed), or below -noise in every "
          "seed (any gate); qualified: first-last beyond noise in every seed but gate not "
          "passed; inconclusive otherwise. " + GATE_TEXT
          + " Read only from stored runs with residual: false; none stored -> needs-data."),
    decide=decide,
    thresholds=trained_thresholds(),
    outcomes=("verified", "qualified", "refuted", "inconclusive"),
    examples=(
        Example("wu2025 Figure 2, depth 2: first-last +0.08 (no in-context accuracy or SE "
                "reported)", example_figures(seed_entry(None, fl=0.08, se=NO_SE)),
                "verified", "paper"),
        Example("attention-only network that matches in context (ic 0.88), first-last +0.07, "
                "+0.06",
                example_figures(seed_entry(0.88, 0.05, 0.07), seed_entry(0.86, 0.04, 0.06)),
                "verified"),
        Example("no primacy: first-last within noise in both seeds (ic 0.85)",
                example_figures(seed_entry(0.85, 0.004, 0.003), seed_entry(0.86, -0.002, 0.006)),
                "refuted", "false"),
        Example("recency instead (the decay-mask sign): first-last -0.05, -0.04",
                example_figures(seed_entry(0.52, -0.03, -0.05), seed_entry(0.53, -0.02, -0.04)),
                "refuted", "false"),
        Example("primacy without in-context matching: ic 0.52 (label-copying level), first-last "
                "+0.05, +0.04 (docs/explanation/mathematics.rst W5: no matching by 95k iterations)",
                example_figures(seed_entry(0.52, 0.03, 0.05, train=0.65),
                                seed_entry(0.52, 0.02, 0.04, train=0.64)),
                "qualified"),
        Example("seeds disagree: +0.07 and +0.004 (ic 0.85)",
                example_figures(seed_entry(0.85, 0.05, 0.07), seed_entry(0.85, 0.0, 0.004)),
                "inconclusive"),
    ),
    fixed=RULES_FIXED,
    deciding=("first-last", "first-middle", "ic_accuracy", "train_accuracy"),
)

CARD = Card(
    paper=paper_setting("Figure 2", "off", "causal", "none"),
    test=tested_setting("off", "causal", "none", ATTENTION_ONLY_SOURCE),
    proof=ProofStatus("none"),
    implementation=REIMPLEMENTATION,
)


@claim(
    "wu2025:trained-causal-primacy",
    statement=("Trained on unbiased in-context classification, an attention-only causal network "
               "(no residual connections) without positional encoding prefers the first "
               "position: Acc(first_last) - Acc(last_first) > 0 (wu2025 Figure 2)."),
    latex=r"\mathrm{Acc}(\mathrm{first}_{\mathrm{last}}) - \mathrm{Acc}(\mathrm{last}_{\mathrm{first}}) > 0",
    # the stored attention-only runs (2026-12-01): first-last +0.105, +0.099 beyond noise in
    # both seeds, but in-context accuracy 0.520, 0.518 < gate 0.75: qualified by the rule
    expected="qualified",
    assumptions=(*ASSUMPTIONS, "no residual connections (Figure 2)"),
    section="5",
    needs=NEEDS,
    thorough_work=training_work("causal-nope", residual=False),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The stored attention-only causal/no-PE runs (re-trained with ``--thorough``) decided by
    :data:`RULE`; needs-data naming the training command when none is stored."""
    return direction_check(ctx, "causal-nope", RULE, "trained attention-only causal/no-PE network, "
                           "paired test sets IC_X_Y vs IC_Y_X", residual=False)
