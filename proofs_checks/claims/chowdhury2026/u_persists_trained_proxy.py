"""chowdhury2026:u-persists-trained-proxy (C10, a proxy at small scale): next-token training of a
small causal LM keeps the macroscopic U of its Step-0 influence profile, and the peak-to-valley
ratio grows.

The paper's setting is pretrained checkpoints of its architectures on natural text (C10; the
abstract: "comparing initialized and pretrained networks ... the U-shape persists"); this proxy
trains a small LLaMA-style causal LM (4 layers, hidden 64, 4 heads, L = 64) on in-context
unigram estimation, a task whose optimum weighs every earlier token equally, and asks whether
the U survives when the data need the middle.  Its verdict is about that task at that scale.

The check reads the stored runs (``data/trained-lm/``, rules in ``RULES.md``; ``--thorough``
trains them again) and applies, per seed, the gate (the learned fraction), the macroscopic U
test at Step 0 and Step N, and the growth ``g = log10(R_N / R_0)`` of the peak-to-valley ratio.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims.chowdhury2026._analytic import REREAD_RULES_FIXED
from posbias.proofs_checks.claims.chowdhury2026._lm import (
    LM_ASSUMPTIONS,
    LM_GATE,
    LM_GROWTH,
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
    FINAL_TOKEN_RULE,
    U_FACTOR,
    both,
    is_u,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "u_persists_trained_verdict"]

#: the rule before the proxy's caveat
_RULE_TEXT = (
    f"per seed, Step 0 and Step N (final evaluation) influence profiles; U test over {BINS} "
    f"blocks (valley block interior, both end blocks >= {U_FACTOR:g} x it); R = max(p(1), p(L)) "
    f"/ min p, g = log10(R_N / R_0). Gate: learned fraction (ln V - loss)/(ln V - Bayes loss) "
    f"of the final position at Step N >= {LM_GATE} in every seed, else inconclusive. A seed "
    f"without a U at Step 0 -> inconclusive. Every seed without a U at Step N, or every seed "
    f"g < -{LM_GROWTH} -> refuted. Every seed with a U at Step N and g > +{LM_GROWTH} -> "
    f"qualified (a proxy at small scale is at most qualified). Otherwise inconclusive. "
    + FINAL_TOKEN_RULE)


def decide(f: Mapping, t: Mapping) -> str:
    """The proxy of C10: a seed below the gate, or without a U at Step 0, is inconclusive; every
    seed without a U at Step N, or every seed with R falling, refutes; every seed keeping the U
    with R grown qualifies (a proxy is at most qualified); otherwise inconclusive."""
    seeds = f["seeds"]
    if any(s["learned"] < t["gate"] for s in seeds):
        return "inconclusive"

    def u(x):
        return is_u(x, t["factor"])

    if not all(both(s, "u0", u) for s in seeds):
        return "inconclusive"
    if (all(not both(s, "uN", u) for s in seeds)
            or all(both(s, "g", lambda g: g < -t["growth"]) for s in seeds)):
        return "refuted"
    if all(both(s, "uN", u) and both(s, "g", lambda g: g > t["growth"]) for s in seeds):
        return "qualified"
    return "inconclusive"


RULE = Rule(
    text=_RULE_TEXT + " " + LM_PROXY_TEXT,
    decide=decide,
    thresholds={**LM_THRESHOLDS,
                "growth": Threshold(LM_GROWTH, "|log10(R_N / R_0)| beyond which the ratio has "
                                    "grown or fallen", sensitive=2.0)},
    outcomes=("qualified", "refuted", "inconclusive"),
    examples=(
        Example("the paper's picture: the U kept and R grown tenfold (g = 1)", lm_examples(g=1.0),
                "qualified", "paper"),
        Example("training removes the U in every seed (a flat profile at Step N)",
                lm_examples(uN=(1.3, 1.2), g=-0.4), "refuted", "false"),
        Example("the U kept but R falls in every seed", lm_examples(g=-0.5), "refuted", "false"),
        Example("the U kept without growth (g = 0)", lm_examples(g=0.0), "inconclusive", "false"),
        Example("the Step-N U only through the final token (last block 20 x the valley with it, "
                "1.0 x without)", lm_examples(g=1.0, without_final={"uN": (12.0, 1.0)}),
                "refuted", "false"),
        Example("the Step-0 U only through the final token (last block 8 x the valley with it, "
                "1.0 x without)", lm_examples(without_final={"u0": (9.0, 1.0)}), "inconclusive",
                "realistic"),
        Example("the task not learned (learned fraction 0.3)", lm_examples(learned=0.3),
                "inconclusive", "realistic"),
    ),
    fixed=REREAD_RULES_FIXED,
    deciding=("seeds/*/learned", "seeds/*/uN/first_over_valley",
              "seeds/*/uN/last_over_valley", "seeds/*/g"),
)


CARD = lm_card("C10")


def u_persists_trained_verdict(summaries: list[dict]) -> tuple[str, str]:
    """The verdict of ``chowdhury2026:u-persists-trained-proxy`` from :func:`lm_summaries`
    (rule: :data:`RULE`, ``data/trained-lm/RULES.md``)."""
    verdict, shown, gated = lm_decision(RULE, summaries)
    if gated:
        return verdict, shown
    u0 = [s["u0"]["u"] and s["without_final"]["u0"]["u"] for s in summaries]
    if verdict == "inconclusive" and not all(u0):
        only = [s["seed"] for s in summaries
                if s["u0"]["u"] and not s["without_final"]["u0"]["u"]]
        why = ("every Step-0 U is the final token alone (no U without it)" if
               len(only) == len(summaries) else "no U at Step 0 with and without the final "
               "token in every seed")
        return verdict, why + ", nothing to persist: " + shown
    if verdict == "refuted":
        lost = all(not (s["uN"]["u"] and s["without_final"]["uN"]["u"]) for s in summaries)
        return verdict, ("training removes the U in every seed" if lost else
                         "peak/valley falls in every seed") + f" ({LM_SCALE}): " + shown
    if verdict == "qualified":
        return verdict, (f"U kept and peak/valley grown in every seed, at small scale only "
                         f"({LM_SCALE}): " + shown)
    return verdict, "seeds disagree, or the U is kept without growth: " + shown


@claim(
    "chowdhury2026:u-persists-trained-proxy",
    statement="Proxy of C10 at small scale: next-token training of a small causal LM keeps the "
    "macroscopic U of its Step-0 influence profile and the peak-to-valley ratio grows.",
    latex=r"U(p_0) \wedge U(p_N),\quad \frac{\max(p_{N,1}, p_{N,L})}{\min_j p_{N,j}} > "
    r"\frac{\max(p_{0,1}, p_{0,L})}{\min_j p_{0,j}}",
    # refuted on the first reading; inconclusive since the rule reads the U test without the
    # final token: every Step-0 U of the stored seeds is the final token alone (last block over
    # the valley 8.3 and 8.1 with it, 1 without), so there is no U to persist or to lose
    expected="inconclusive",
    section="C10",
    assumptions=LM_ASSUMPTIONS,
    needs=LM_NEEDS,
    rule=RULE,
    card=CARD,
    thorough_work=lm_thorough_work,
)
def check(ctx: CheckContext) -> Evidence:
    """The proxy of C10 on the stored (or re-trained) runs, decided by
    :func:`u_persists_trained_verdict`."""
    return lm_evidence(ctx, u_persists_trained_verdict, RULE,
                       "U test and peak/valley of the final position's influence, Step 0 vs "
                       "Step N, trained small LM")
