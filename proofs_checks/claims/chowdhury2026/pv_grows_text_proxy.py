"""chowdhury2026:pv-grows-text-proxy (C10, a natural-text proxy): pretraining a small causal LM on
natural text raises the peak-to-valley ratio of its influence profile.

The paper's setting is pretrained checkpoints of its architectures (Qwen2, GPT-2 at L = 2048) on
natural text (C10: peak-to-valley from about 10^2 at initialization to about 10^3); they cannot
be downloaded here.  The proxy: small LLaMA- and GPT-2-style causal LMs (8 layers, hidden 128,
L = 256) pretrained from scratch on the Python documentation as prose (``posbias train --task
lm-text``).  Its verdict is about these models at this scale, and asks for the direction (R
grown), not the paper's magnitudes.

The check reads the stored runs (``data/trained-lm-text/``, rules in ``RULES.md``;
``--thorough`` trains them again) and applies, per run, the gate and the growth
``g = log10(R_N / R_0)`` of ``R = max(p(1), p(L)) / min_j p(j)``.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims.chowdhury2026._analytic import REREAD_RULES_FIXED
from posbias.proofs_checks.claims.chowdhury2026._lm import LM_GROWTH
from posbias.proofs_checks.claims.chowdhury2026._pretrained import FINAL_TOKEN_RULE, both
from posbias.proofs_checks.claims.chowdhury2026._text import (
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
    """The R proxy: a run below the gate is inconclusive; every run with R grown beyond growth
    qualifies (a proxy is at most qualified), every run with R fallen as much refutes; otherwise
    inconclusive.  Grown (fallen) is grown (fallen) with the final token and without it."""
    runs = f["runs"]
    if gated(runs, t):
        return "inconclusive"
    if all(both(r, "g", lambda g: g > t["growth"]) for r in runs):
        return "qualified"
    if all(both(r, "g", lambda g: g < -t["growth"]) for r in runs):
        return "refuted"
    return "inconclusive"


RULE = Rule(
    text=(TEXT_RULE_COMMON
          + f" R = max(p(1), p(L)) / min_j p(j), g = log10(R_N / R_0). Every run g > "
          f"+{LM_GROWTH} -> qualified (grown; the paper's 10^2 -> 10^3 is g = 1); every run "
          f"g < -{LM_GROWTH} -> refuted; otherwise inconclusive. " + FINAL_TOKEN_RULE),
    decide=decide,
    thresholds={"gate": GATE_THRESHOLD,
                "growth": Threshold(LM_GROWTH, "|log10(R_N / R_0)| beyond which the ratio has "
                                    "grown or fallen", sensitive=2.0)},
    outcomes=("qualified", "refuted", "inconclusive"),
    examples=(
        Example("the paper's figures: 10^2 -> 10^3 (g = 1)", text_examples(g=1.0), "qualified",
                "paper"),
        Example("pretraining lowers the peak/valley ratio fourfold (g = -0.6)",
                text_examples(g=-0.6),
                "refuted", "false"),
        Example("no change (g = 0.02)", text_examples(g=0.02), "inconclusive", "false"),
        Example("R grows only through the final token's atom (g = +1 with it, -0.6 without)",
                text_examples(g=1.0, without_final={"g": -0.6}), "inconclusive", "false"),
        Example("R falls fourfold without the final token, not with it (g = 0.02 with it)",
                text_examples(g=0.02, without_final={"g": -0.6}), "inconclusive", "realistic"),
        Example("the model below the gate", text_examples(margin=-0.4), "inconclusive",
                "realistic"),
    ),
    fixed=REREAD_RULES_FIXED,
    deciding=("runs/*/g",),
)


CARD = text_card("C10")


@claim(
    "chowdhury2026:pv-grows-text-proxy",
    statement="Natural-text proxy of C10: pretraining a small causal LM on natural text raises "
    "the peak-to-valley ratio of its influence profile.",
    latex=r"\frac{\max(p_{N,1}, p_{N,L})}{\min_j p_{N,j}} > "
    r"\frac{\max(p_{0,1}, p_{0,L})}{\min_j p_{0,j}}",
    expected="inconclusive", section="C10", assumptions=TEXT_ASSUMPTIONS, needs=TEXT_NEEDS,
    rule=RULE, card=CARD, thorough_work=text_thorough_work,
)
def check(ctx: CheckContext) -> Evidence:
    """The proxy on the stored (or re-trained) runs, decided by RULE."""
    return text_evidence(ctx, RULE, "peak/valley ratio of the final position's influence, "
                         "Step 0 vs Step N, small LM pretrained on natural text",
                         {"qualified": "peak/valley grows in every run, at small scale only",
                          "refuted": "peak/valley falls in every run"})
