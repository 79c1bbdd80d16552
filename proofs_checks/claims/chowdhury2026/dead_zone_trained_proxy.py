"""chowdhury2026:dead-zone-trained-proxy (C11, a proxy at small scale): standard next-token
training of a small causal LM does not overcome the dead zone of its Step-0 influence profile
(the valley stays below half the mean).

The paper's setting is pretrained checkpoints of its architectures on natural text (C11; the
abstract: "standard training does not overcome the topological valley"); this proxy trains a
small LLaMA-style causal LM (4 layers, hidden 64, 4 heads, L = 64) on in-context unigram
estimation, a task whose optimum weighs every earlier token equally: the data need the middle,
which C11 itself says targeted data would do.  Its verdict is about that task at that scale.

The check reads the stored runs (``data/trained-lm/``, rules in ``RULES.md``; ``--thorough``
trains them again) and applies, per seed, the gate (the learned fraction) and the valley depth
``D`` (the smallest of 16 block means over the mean block) at Step 0 and Step N.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims.chowdhury2026._analytic import REREAD_RULES_FIXED
from posbias.proofs_checks.claims.chowdhury2026._lm import (
    LM_ASSUMPTIONS,
    LM_GATE,
    LM_NEEDS,
    LM_PROXY_TEXT,
    LM_SCALE,
    LM_THRESHOLDS,
    lm_card,
    lm_decision,
    lm_evidence,
    lm_examples,
    lm_thorough_work,
)
from posbias.proofs_checks.claims.chowdhury2026._pretrained import (
    BINS,
    DEAD_ZONE_DEPTH,
    FINAL_TOKEN_RULE,
    both,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "dead_zone_trained_verdict", "decide"]

#: the rule before the proxy's caveat
_RULE_TEXT = (
    f"per seed, valley depth D = smallest of {BINS} block means / mean block, at Step 0 and "
    f"Step N; a dead zone when D < {DEAD_ZONE_DEPTH:g}. Gate: learned fraction of the final "
    f"position at Step N >= {LM_GATE} in every seed, else inconclusive. A seed with D_0 >= "
    f"{DEAD_ZONE_DEPTH:g} -> inconclusive (no dead zone at Step 0). Every seed D_N >= "
    f"{DEAD_ZONE_DEPTH:g} -> refuted (overcome). Every seed D_N < {DEAD_ZONE_DEPTH:g} -> "
    f"qualified (not overcome, at small scale). Otherwise inconclusive. " + FINAL_TOKEN_RULE)


def decide(f: Mapping, t: Mapping) -> str:
    """The proxy of C11: a seed below the gate, or without a dead zone at Step 0, is
    inconclusive; every seed with the valley lifted to the dead-zone depth refutes; every seed
    keeping it below qualifies (a proxy is at most qualified); otherwise inconclusive."""
    seeds = f["seeds"]
    if any(s["learned"] < t["gate"] for s in seeds):
        return "inconclusive"

    def dead(x):
        return x < t["depth"]

    if not all(both(s, "D0", dead) for s in seeds):
        return "inconclusive"
    if all(not both(s, "DN", dead) for s in seeds):
        return "refuted"
    if all(both(s, "DN", dead) for s in seeds):
        return "qualified"
    return "inconclusive"


RULE = Rule(
    text=_RULE_TEXT + " " + LM_PROXY_TEXT,
    decide=decide,
    thresholds={**LM_THRESHOLDS,
                "depth": Threshold(DEAD_ZONE_DEPTH, "valley depth D below which the middle is a "
                                   "dead zone", sensitive=1.25)},
    outcomes=("qualified", "refuted", "inconclusive"),
    examples=(
        Example("the paper's picture: the valley deepened by training (D 0.3 -> 0.2)",
                lm_examples(), "qualified", "paper"),
        Example("training lifts the valley to the mean (D_N 0.9) in every seed",
                lm_examples(DN=0.9), "refuted", "false"),
        Example("no dead zone at Step 0 (D_0 0.7)", lm_examples(D0=0.7), "inconclusive", "false"),
        Example("the task not learned (learned fraction 0.2)", lm_examples(learned=0.2),
                "inconclusive", "realistic"),
        Example("the Step-N dead zone only through the final token (D_N 0.2 with it, 0.8 "
                "without)", lm_examples(without_final={"DN": 0.8}), "refuted", "false"),
        Example("the Step-0 dead zone only through the final token (D_0 0.43 with it, 0.73 "
                "without)", lm_examples(D0=0.43, without_final={"D0": 0.73}), "inconclusive",
                "realistic"),
    ),
    fixed=REREAD_RULES_FIXED,
    deciding=("seeds/*/learned", "seeds/*/D0", "seeds/*/DN"),
)


CARD = lm_card("C11")


def dead_zone_trained_verdict(summaries: list[dict]) -> tuple[str, str]:
    """The verdict of ``chowdhury2026:dead-zone-trained-proxy`` from :func:`lm_summaries`
    (rule: :data:`RULE`, ``data/trained-lm/RULES.md``)."""
    verdict, shown, gated = lm_decision(RULE, summaries)
    if gated:
        return verdict, shown
    if verdict == "inconclusive" and not all(
            max(s["D0"], s["without_final"]["D0"]) < DEAD_ZONE_DEPTH for s in summaries):
        return verdict, ("no dead zone at Step 0 with and without the final token in every "
                         "seed: " + shown)
    if verdict == "refuted":
        return verdict, ("next-token training lifts the valley to at least "
                         f"{DEAD_ZONE_DEPTH:g} x the mean block, with or without the final token, in every "
                         f"seed ({LM_SCALE}): "
                         + shown)
    if verdict == "qualified":
        return verdict, (f"the dead zone stays in every seed, at small scale only ({LM_SCALE}): "
                         + shown)
    return verdict, "seeds disagree: " + shown


@claim(
    "chowdhury2026:dead-zone-trained-proxy",
    statement="Proxy of C11 at small scale: standard next-token training of a small causal LM "
    "does not overcome the dead zone of its Step-0 influence profile (the valley stays below "
    "half the mean).",
    latex=r"\frac{\min_k \bar p_{N,k}}{\operatorname{mean}_k \bar p_{N,k}} < \tfrac12",
    expected="refuted",
    section="C11",
    assumptions=LM_ASSUMPTIONS,
    needs=LM_NEEDS,
    rule=RULE,
    card=CARD,
    thorough_work=lm_thorough_work,
)
def check(ctx: CheckContext) -> Evidence:
    """The proxy of C11 on the stored (or re-trained) runs, decided by
    :func:`dead_zone_trained_verdict`."""
    return lm_evidence(ctx, dead_zone_trained_verdict, RULE,
                       "valley depth of the final position's influence, Step 0 vs Step N, "
                       "trained small LM")
