"""chowdhury2026:dead-zone-text-proxy (C11, a natural-text proxy): next-token pretraining of a
small causal LM on natural text does not fill the dead zone of its Step-0 influence profile (the
valley stays below half the mean).

The paper's setting is pretrained checkpoints of its architectures (Qwen2, GPT-2 at L = 2048) on
natural text (C11; the abstract: "standard training does not overcome the topological valley");
they cannot be downloaded here.  The proxy: small LLaMA- and GPT-2-style causal LMs (8 layers,
hidden 128, L = 256) pretrained from scratch on the Python documentation as prose (``posbias
train --task lm-text``).  Its verdict is about these models at this scale.

The check reads the stored runs (``data/trained-lm-text/``, rules in ``RULES.md``;
``--thorough`` trains them again) and applies, per run, the gate and the valley depth ``D`` (the
smallest of 16 block means over the mean block) at Step 0 and Step N.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims.chowdhury2026._analytic import REREAD_RULES_FIXED
from posbias.proofs_checks.claims.chowdhury2026._pretrained import (
    BINS,
    DEAD_ZONE_DEPTH,
    FINAL_TOKEN_RULE,
    both,
)
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
    """The dead-zone proxy: a run below the gate, or without a dead zone at Step 0, is
    inconclusive; every run keeping the valley below the depth qualifies (a proxy is at most
    qualified), every run lifting it refutes; otherwise inconclusive.  A dead zone is one
    with the final token and without it."""
    runs = f["runs"]
    def dead(d):
        return d < t["depth"]

    if gated(runs, t) or not all(both(r, "D0", dead) for r in runs):
        return "inconclusive"
    if all(both(r, "DN", dead) for r in runs):
        return "qualified"
    if all(not both(r, "DN", dead) for r in runs):
        return "refuted"
    return "inconclusive"


RULE = Rule(
    text=(TEXT_RULE_COMMON
          + f" Valley depth D = smallest of {BINS} block means / mean block; a dead "
          f"zone when D < {DEAD_ZONE_DEPTH:g}. A run with D_0 >= {DEAD_ZONE_DEPTH:g} -> "
          f"inconclusive (no dead zone at Step 0). Every run D_N < {DEAD_ZONE_DEPTH:g} -> "
          f"qualified (not filled); every run D_N >= {DEAD_ZONE_DEPTH:g} -> refuted (filled); "
          "otherwise inconclusive. " + FINAL_TOKEN_RULE),
    decide=decide,
    thresholds={"gate": GATE_THRESHOLD,
                "depth": Threshold(DEAD_ZONE_DEPTH, "valley depth D below which the middle is "
                                   "a dead zone", sensitive=1.25)},
    outcomes=("qualified", "refuted", "inconclusive"),
    examples=(
        Example("the paper's picture: the valley deepened (D 0.3 -> 0.2)", text_examples(),
                "qualified",
                "paper"),
        Example("pretraining lifts the valley to 0.8 of the mean block", text_examples(DN=0.8),
                "refuted", "false"),
        Example("no dead zone at Step 0 (D_0 0.7)", text_examples(D0=0.7), "inconclusive",
                "realistic"),
        Example("the model below the gate", text_examples(margin=0.0), "inconclusive", "realistic"),
        Example("the Step-N dead zone only through the final token (D_N 0.2 with it, 0.8 "
                "without)", text_examples(without_final={"DN": 0.8}), "refuted", "false"),
        Example("the Step-0 dead zone only through the final token (D_0 0.43 with it, 0.73 "
                "without)", text_examples(D0=0.43, without_final={"D0": 0.73}), "inconclusive",
                "realistic"),
    ),
    fixed=REREAD_RULES_FIXED,
    deciding=("runs/*/D0", "runs/*/DN"),
)


CARD = text_card("C11")


@claim(
    "chowdhury2026:dead-zone-text-proxy",
    statement="Natural-text proxy of C11: next-token pretraining of a small causal LM on "
    "natural text does not fill the dead zone of its Step-0 influence profile (the valley "
    "stays below half the mean).",
    latex=r"\frac{\min_k \bar p_{N,k}}{\operatorname{mean}_k \bar p_{N,k}} < \tfrac12",
    # qualified on the first reading; inconclusive since the rule reads D without the final
    # token: GPT-2's Step-0 dead zone (D_0 0.43) is the final token's atom alone (D_0 0.73
    # without it), so not every run has a dead zone at Step 0
    expected="inconclusive", section="C11", assumptions=TEXT_ASSUMPTIONS, needs=TEXT_NEEDS,
    rule=RULE, card=CARD, thorough_work=text_thorough_work,
)
def check(ctx: CheckContext) -> Evidence:
    """The proxy on the stored (or re-trained) runs, decided by RULE."""
    return text_evidence(ctx, RULE, "valley depth of the final position's influence, Step 0 "
                         "vs Step N, small LM pretrained on natural text",
                         {"qualified": "the dead zone stays in every run, at small scale only",
                          "refuted": "pretraining lifts the valley to at least half the mean block "
                                     "in every run",
                          "inconclusive": "no dead zone at Step 0 in every run, or the runs "
                                          "disagree"})
