"""chowdhury2026:boundary-peaks-text-proxy (C10, a natural-text proxy): pretraining a small causal
LM on packed documents adds local peaks of the final position's influence at document
boundaries.

The paper's setting is pretrained checkpoints of its architectures on natural text (C10:
training adds local "content" spikes, at document boundaries of chunked data for instance);
they cannot be downloaded here.  The proxy: small LLaMA- and GPT-2-style causal LMs (8 layers,
hidden 128, L = 256) pretrained from scratch on the Python documentation as prose, documents
packed with a separator (``posbias train --task lm-text``).  Its verdict is about these models at
this scale.

The check reads the stored runs (``data/trained-lm-text/``, rules in ``RULES.md``;
``--thorough`` trains them again) and, per run, the gate and the boundary windows (held-out
windows with a separator in their middle half): in each, the percentile of the boundary among
the window's ordinary positions of the local ratio ``max(p_j, p_(j+1))`` over the median of the
positions around (:func:`boundary_percentile`), at Step 0 and Step N.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.claims.chowdhury2026._step0 import MEASURED_RULES_FIXED
from posbias.proofs_checks.claims.chowdhury2026._text import (
    BOUNDARY_HALF_WIDTH,
    BOUNDARY_PEAK,
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

__all__ = [
    "BOUNDARY_MIN_WINDOWS",
    "BOUNDARY_NULL_MEAN",
    "BOUNDARY_NULL_SHARE",
    "BOUNDARY_PEAK_SHARE",
    "CARD",
    "RULE",
    "check",
    "decide",
]

#: boundaries are peaks when at least this share of the boundary windows has one
BOUNDARY_PEAK_SHARE = 0.5
#: boundaries are ordinary positions when at most this share has one (and the mean percentile
#: is at most BOUNDARY_NULL_MEAN)
BOUNDARY_NULL_SHARE = 0.25
BOUNDARY_NULL_MEAN = 0.75
#: fewer boundary windows than this per seed decide nothing
BOUNDARY_MIN_WINDOWS = 6


def _b_peaks(x: Mapping, t: Mapping) -> bool:
    """Boundaries are local peaks: the share of peak windows at least ``share``."""
    return x["peak_share"] >= t["share"]


def _b_null(x: Mapping, t: Mapping) -> bool:
    """Boundaries are ordinary positions: few peak windows and a low mean percentile."""
    return x["peak_share"] <= t["null_share"] and x["mean"] <= t["null_mean"]


def decide(f: Mapping, t: Mapping) -> str:
    """The boundary proxy: a run below the gate, with too few boundary windows or with peaks
    already at Step 0 is inconclusive; every run with a share of peak windows at least share at
    Step N qualifies (a proxy is at most qualified); every run whose boundaries are ordinary
    positions refutes; otherwise inconclusive."""
    runs = f["runs"]
    if gated(runs, t):
        return "inconclusive"
    if any(r["B0"] is None or r["BN"] is None or r["BN"]["windows"] < t["windows"]
           for r in runs):
        return "inconclusive"
    if any(_b_peaks(r["B0"], t) for r in runs):  # already peaks at Step 0: not added
        return "inconclusive"
    if all(_b_peaks(r["BN"], t) for r in runs):
        return "qualified"
    if all(_b_null(r["BN"], t) for r in runs):
        return "refuted"
    return "inconclusive"


RULE = Rule(
    text=(TEXT_RULE_COMMON + " Boundaries: 8 held-out windows with a document separator in "
          "their middle half (posbias train --boundary-windows); per window, the boundary's "
          f"percentile among the window's ordinary positions of the local ratio max(p_j, "
          f"p_(j+1)) / median of the {2 * BOUNDARY_HALF_WIDTH} positions around "
          "(boundary_percentile); a window has a boundary peak when the percentile exceeds "
          f"{BOUNDARY_PEAK}. Fewer than {BOUNDARY_MIN_WINDOWS} windows in a run -> "
          f"inconclusive; a run whose share of peak windows is >= {BOUNDARY_PEAK_SHARE} already "
          f"at Step 0 -> inconclusive (not added by training). Every run with a share >= "
          f"{BOUNDARY_PEAK_SHARE} at Step N -> qualified; every run with a share <= "
          f"{BOUNDARY_NULL_SHARE} and a mean percentile <= {BOUNDARY_NULL_MEAN} at Step N -> "
          "refuted (boundaries like any other position); otherwise inconclusive. Under the null "
          "(boundaries ordinary) a window is a peak with probability 0.05, 4 of 8 with "
          "probability 4e-4."),
    decide=decide,
    thresholds={"gate": GATE_THRESHOLD,
                "share": Threshold(BOUNDARY_PEAK_SHARE, "share of boundary windows that must "
                                   "be peaks", scale="linear", step=0.05, sensitive=0.15,
                                   domain=(0.0, 1.0)),
                "null_share": Threshold(BOUNDARY_NULL_SHARE, "share of peak windows at most "
                                        "which boundaries are ordinary", scale="linear",
                                        step=0.05, sensitive=0.1, domain=(0.0, 1.0)),
                "null_mean": Threshold(BOUNDARY_NULL_MEAN, "mean percentile at most which "
                                       "boundaries are ordinary", scale="linear", step=0.05,
                                       sensitive=0.1, domain=(0.0, 1.0)),
                "windows": Threshold(BOUNDARY_MIN_WINDOWS, "boundary windows a run needs",
                                     scale="int", sensitive=1, domain=(1, 64))},
    outcomes=("qualified", "refuted", "inconclusive"),
    no_paper_figures="the paper reports content spikes at boundaries in words, without a "
                     "figure of their height that this rule could take",
    examples=(
        Example("local peaks added at the boundaries (6 of 8 windows, mean percentile 0.97)",
                text_examples(), "qualified", "realistic"),
        Example("boundaries like any other position (1 of 8 windows, mean 0.52)",
                text_examples(BN=(8, 0.52, 0.125)), "refuted", "false"),
        Example("boundaries are dips (mean percentile 0.2)", text_examples(BN=(8, 0.2, 0.0)),
                "refuted", "false"),
        Example("peaks already at Step 0", text_examples(B0=(8, 0.97, 0.75)), "inconclusive",
                "false"),
        Example("too few boundary windows (3)", text_examples(BN=(3, 0.97, 1.0)), "inconclusive",
                "realistic"),
        Example("the model below the gate", text_examples(margin=0.02), "inconclusive",
                "realistic"),
    ),
    fixed=MEASURED_RULES_FIXED,
    deciding=("runs/*/B0/peak_share", "runs/*/BN/peak_share", "runs/*/BN/mean"),
)


CARD = text_card("C10")


@claim(
    "chowdhury2026:boundary-peaks-text-proxy",
    statement="Natural-text proxy of C10: pretraining a small causal LM on packed documents "
    "adds local peaks of the final position's influence at document boundaries.",
    latex=r"\Pr\bigl[\text{percentile of } p_{N,j_b} \text{ among ordinary } j > 0.95\bigr] "
    r"\ge \tfrac12",
    expected="inconclusive", section="C10", assumptions=TEXT_ASSUMPTIONS, needs=TEXT_NEEDS,
    rule=RULE, card=CARD, thorough_work=text_thorough_work,
)
def check(ctx: CheckContext) -> Evidence:
    """The proxy on the stored (or re-trained) runs, decided by RULE."""
    return text_evidence(ctx, RULE, "local peaks of the final position's influence at "
                         "document boundaries, Step 0 vs Step N, small LM pretrained on natural "
                         "text",
                         {"qualified": "training adds local peaks at the document boundaries in "
                                       "every run, at small scale only",
                          "refuted": "the boundaries are like any other position at Step N in "
                                     "every run",
                          "inconclusive": "too few boundary windows, peaks already at Step 0, or "
                                          "the runs disagree"})
