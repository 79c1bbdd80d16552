"""chowdhury2026:u-persists-text-proxy (C10, a natural-text proxy): pretraining a small causal
LM on natural text keeps the macroscopic U of its Step-0 influence profile.

The paper's setting is pretrained checkpoints of its architectures (Qwen2, GPT-2 at L = 2048) on
natural text (C10; the abstract: "comparing initialized and pretrained networks ... the U-shape
persists"); they cannot be downloaded here.  The proxy: small LLaMA- and GPT-2-style causal LMs
(8 layers, hidden 128, L = 256) pretrained from scratch on the Python documentation as prose
(``posbias train --task lm-text``).  Its verdict is about these models at this scale.

The check reads the stored runs (``data/trained-lm-text/``, rules in ``RULES.md``;
``--thorough`` trains them again) and applies, per run, the gate (the validation loss below the
bigram baseline) and the macroscopic U test at Step 0 and Step N.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Example, Rule
from posbias.proofs_checks.claims.chowdhury2026._analytic import REREAD_RULES_FIXED
from posbias.proofs_checks.claims.chowdhury2026._pretrained import (
    BINS,
    FINAL_TOKEN_RULE,
    U_FACTOR,
    both,
    is_u,
)
from posbias.proofs_checks.claims.chowdhury2026._text import (
    FACTOR_THRESHOLD,
    GATE_THRESHOLD,
    TEXT_ASSUMPTIONS,
    TEXT_NEEDS,
    TEXT_RULE_COMMON,
    gated,
    text_card,
    text_evidence,
    text_examples,
    text_thorough_work,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """The U proxy: a run below the gate, or without a U at Step 0, is inconclusive; every run
    keeping the U at Step N qualifies (a proxy is at most qualified), every run losing it
    refutes; otherwise inconclusive.  A U is a U with the final token and without it."""
    runs = f["runs"]

    def u(x):
        return is_u(x, t["factor"])

    if gated(runs, t) or not all(both(r, "u0", u) for r in runs):
        return "inconclusive"
    if all(both(r, "uN", u) for r in runs):
        return "qualified"
    if all(not both(r, "uN", u) for r in runs):
        return "refuted"
    return "inconclusive"


RULE = Rule(
    text=(TEXT_RULE_COMMON
          + f" U test over {BINS} blocks (valley block interior, both end blocks >= "
          f"{U_FACTOR:g} x it). A run without a U at Step 0 -> inconclusive. Every run with a U "
          "at Step N -> qualified; every run without -> refuted; otherwise inconclusive. "
          + FINAL_TOKEN_RULE),
    decide=decide,
    thresholds={"gate": GATE_THRESHOLD, "factor": FACTOR_THRESHOLD},
    outcomes=("qualified", "refuted", "inconclusive"),
    examples=(
        Example("the paper's picture: the U kept after pretraining", text_examples(), "qualified",
                "paper"),
        Example("pretraining flattens the profile (end blocks 1.3 x the valley)",
                text_examples(uN=(1.3, 1.2)), "refuted", "false"),
        Example("only a recency ramp left at Step N (first block 1.1 x the valley)",
                text_examples(uN=(1.1, 9.0)), "refuted", "false"),
        Example("the model below the gate (0.05 nats under the bigram)", text_examples(margin=0.05),
                "inconclusive", "realistic"),
        Example("no U at Step 0", text_examples(u0=(1.5, 8.0)), "inconclusive", "realistic"),
        Example("the Step-N U only through the final token (last block 20 x the valley with it, "
                "1.0 x without)", text_examples(without_final={"uN": (12.0, 1.0)}), "refuted",
                "false"),
        Example("the Step-0 U only through the final token (last block 8 x the valley with it, "
                "1.0 x without)", text_examples(without_final={"u0": (9.0, 1.0)}),
                "inconclusive", "realistic"),
    ),
    fixed=REREAD_RULES_FIXED,
    deciding=("runs/*/uN/first_over_valley", "runs/*/uN/last_over_valley"),
)


CARD = text_card("C10")


@claim(
    "chowdhury2026:u-persists-text-proxy",
    statement="Natural-text proxy of C10: pretraining a small causal LM on natural text keeps "
    "the macroscopic U of its Step-0 influence profile.",
    latex=r"U(p_0) \wedge U(p_N)",
    expected="inconclusive", section="C10", assumptions=TEXT_ASSUMPTIONS, needs=TEXT_NEEDS,
    rule=RULE, card=CARD, thorough_work=text_thorough_work,
)
def check(ctx: CheckContext) -> Evidence:
    """The proxy on the stored (or re-trained) runs, decided by RULE."""
    return text_evidence(ctx, RULE, "U test of the final position's influence, Step 0 vs "
                         "Step N, small LM pretrained on natural text",
                         {"qualified": "the U is kept at Step N in every run, at small scale only",
                          "refuted": "pretraining removes the U in every run",
                          "inconclusive": "no U at Step 0 in every run, or the runs disagree"})
