"""xiao2024:streaming-support: under StreamingLLM's mask (each token attends to the S first
tokens, the attention sinks, and to the W most recent tokens, itself included), after T layers
the influence of token i is supported exactly on

    [1, min(S, i)] ∪ [max(1, i - (W-1)T), i]

(0-indexed: [0, S-1] ∪ [i - (W-1)T, i]), for any attention weights positive on the mask and any
residual weights λ_t in (0, 1] (T counts the layers with λ_t > 0).

Path argument: a path steps at each layer to a token at most W-1 back or to a sink; a sink s
reads only [1, s]; rows i <= S + W - 1 read their whole past, which is the same union; self-loops
let a shorter path wait, so exactly the union is reached (derivation streaming-profile: the
window part is a polynomial of degree (W-1)T).  Checked exactly on generated cases (uniform and
random positive weights on the mask, Fractions: the support is the set of non-zero entries) and
at the paper's cache settings (S = 4; W = 1020, 2044; T = 32) on the fast path at L = 65536,
whose logarithms keep exact zeros as -inf.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from posbias.numerics.kernels import random_masked_kernel_exact, rollout_last_row_exact
from posbias.numerics.rollout import kernel_profile_exact
from posbias.numerics.sinks import StreamingKernel, streaming_support
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import case_rng
from posbias.proofs_checks.claims.xiao2024._shared import FIXED, PAPER, PAPER_CONFIGS, READ
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "streaming_mask"]

CASES = 80
SCALE_LENGTH = 65536


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: a case whose non-zero entries are not the stated support; verified otherwise."""
    return "refuted" if f["support_mismatches"] + f["paper_scale_mismatches"] > t["allowed"] else "verified"


RULE = Rule(
    text=(f"{CASES} generated cases (L = 1..16, S = 0..3, W = 1..5, T = 0..4 layers with λ_t in "
          "{0, 1/3, 1/2, 1}; half uniform attention on the mask, half random weights 1..9 on "
          "it), exact Fractions: support_mismatches counts cases whose non-zero profile entries "
          "differ from [1, min(S, L)] ∪ [max(1, L - (W-1)T), L]; paper_scale_mismatches the same "
          "at S = 4, W = 1020 and 2044, T = 32, L = 65536 on the fast path (exact zeros kept). "
          "verified: both 0; refuted: any mismatch (the case is printed)."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons", scale="fixed")},
    examples=(
        Example("the stated support: [1, S] ∪ [i - (W-1)T, i]",
                {"support_mismatches": 0, "paper_scale_mismatches": 0}, "verified"),
        Example("false: the window part [i - W T, i] (W steps per layer instead of W - 1)",
                {"support_mismatches": 35, "paper_scale_mismatches": 2}, "refuted", "false"),
        Example("false: no sinks after the first layer (the sinks read as a cache of the first "
                "layer only)", {"support_mismatches": 33, "paper_scale_mismatches": 2},
                "refuted", "false"),
    ),
    fixed=FIXED,
    deciding=("support_mismatches", "paper_scale_mismatches"),
    no_paper_figures="the paper states the cache (4 sinks plus a rolling window), not the "
    "support of a rollout",
)

CARD = Card(
    paper=Setting("xiao2024 Section 3.2 and Figure 4 (the KV cache of StreamingLLM: 4 attention "
                  "sinks plus a rolling window; cache 1024 or 2048); " + READ,
                  architecture="decoder-only LLM with a streaming KV cache", mask="S sinks + "
                  "window W", L="4M tokens streamed", H="32 (Llama-2-7B, Falcon-7B, MPT-7B)",
                  unconfirmed=("H",)),
    test=Setting("exact Fractions on generated cases; the fast path's exact zeros at the paper's "
                 "cache settings", architecture="decoder-only LLM with a streaming KV cache",
                 mask="S sinks + window W", L=("1..16", SCALE_LENGTH), H=("0..4", 32),
                 cases=CASES),
    proof=ProofStatus("all", note="the path argument in the module's docstring; the generated "
                      "cases and the paper's settings check it exactly"),
)


def streaming_mask(L: int, S: int, W: int) -> list[list[bool]]:
    """Row i (1-indexed) reads [1, min(S, i)] ∪ [max(1, i - W + 1), i]."""
    return [[j < min(S, i + 1) or i - W < j <= i for j in range(L)] for i in range(L)]


def _positions(intervals: list[tuple[int, int]]) -> set[int]:
    return {j for lo, hi in intervals for j in range(lo, hi + 1)}


def _generated(r: random.Random, case: int) -> tuple:
    L, S, W, T = r.randint(1, 16), r.randint(0, 3), r.randint(1, 5), r.randint(0, 4)
    lams = [r.choice((Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(1))) for _ in range(T)]
    if case % 2 or not lams:
        p = kernel_profile_exact(L, StreamingKernel(S, W), lams) if lams else [Fraction(int(j == L - 1)) for j in range(L)]
    else:
        layers = [random_masked_kernel_exact(streaming_mask(L, S, W), r) for _ in lams]
        p = rollout_last_row_exact(layers, lams)
    return L, S, W, lams, p


def _paper_scale(support: Callable) -> tuple[int, list]:
    mismatches, rows = 0, []
    for S, W, T, model in PAPER_CONFIGS:
        lp = StreamingKernel(S, W).log_profile(SCALE_LENGTH, [1.0] * T)
        found = set((np.flatnonzero(np.isfinite(lp)) + 1).tolist())
        stated = _positions(support(SCALE_LENGTH, S, W, T))
        mismatches += int(found != stated)
        rows.append(f"{model}: S={S}, W={W}, T={T}: support {support(SCALE_LENGTH, S, W, T)}, "
                    f"{'as stated' if found == stated else 'NOT as stated'}")
    return mismatches, rows


@claim(
    "xiao2024:streaming-support",
    statement="Under StreamingLLM's mask (S attention sinks plus a window of the W most recent "
    "tokens) the influence of token i after T layers is supported exactly on "
    "[1, S] ∪ [i - (W-1)T, i]: the window part grows by W - 1 per layer, the sinks are reached "
    "from the first layer on, and nothing between them is.",
    latex=r"\operatorname{supp} P^{(T)}_{i,\cdot} = [1, \min(S, i)] \cup "
    r"[\max(1, i - (W-1)T), i]",
    expected="verified",
    section="3.2, Figure 4",
    assumptions=("attention weights positive on the mask", "T layers with λ_t > 0"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, support: Callable[[int, int, int, int], list] | None = None) -> Evidence:
    """The support on generated cases and at the paper's settings; ``support(i, S, W, T)``
    replaces the stated support (a list of intervals; false versions for the tests)."""
    support = support or streaming_support
    r = case_rng(ctx, PAPER, "streaming-support")
    mismatches, first = 0, None
    for case in range(CASES):
        L, S, W, lams, p = _generated(r, case)
        T = sum(1 for x in lams if x)
        found = {j + 1 for j, x in enumerate(p) if x}
        if found != _positions(support(L, S, W, T)):
            mismatches += 1
            first = first or (f"L={L}, S={S}, W={W}, λ={[str(x) for x in lams]}: non-zero at "
                              f"{sorted(found)}, stated {support(L, S, W, T)}")
    scale, rows = _paper_scale(support)
    figures: dict[str, Any] = {"support_mismatches": mismatches, "paper_scale_mismatches": scale}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, method="exact Fractions: non-zero entries of the streaming rollout (uniform and "
        "random positive weights on the mask) vs the stated support; fast-path exact zeros at "
        "the paper's cache settings", discrepancy="0 (exact)" if verdict == "verified" else None,
        precision="exact; float64 logs (exact zeros)", tolerance="exact equality of sets",
        cases=CASES + len(PAPER_CONFIGS), counterexample=first if verdict == "refuted" else None,
        parameters={"cases": CASES, "paper settings": [list(c[:3]) for c in PAPER_CONFIGS],
                    "L at scale": SCALE_LENGTH},
        details={"paper settings": rows},
        figures=figures)
