"""barbero2025:sink-slows-mixing: attending to the first token gives the model a way to avoid
over-mixing (the paper's abstract: the sink "provides a method for LLMs to avoid over-mixing";
third-party notes: sinks slow the spread of a perturbation).

In posbias's model of the mechanism (the sink layer (1-λ)I + λ(αJ₁ + (1-α)C), uniform attention
otherwise) a perturbation of token j reaches the last token with weight p(j); the claim reads:
the influence of every token j >= 2 does not increase with the sink weight α and falls strictly
for 2 <= j <= L when λ > 0, so the mixed-in mass Σ_{j=2}^{L} p(j) falls.  Exact Fractions on a
grid of λ, depths and lengths for α = 0, 1/10, 1/2, 4/5, 1; at chowdhury2026's residual weights,
depth 24 and L = 2048 the spread to the content tokens j = 2..L-1 with a 4/5 sink is reported
against the sink-free one (fast path).  The paper's own figures (trained models' sink rates) are
not inputs of this rule: they measure how much models sink, not what a sink does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from posbias.numerics.rollout import kernel_profile_exact
from posbias.numerics.sinks import SinkKernel
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.barbero2025._shared import (
    DEPTH,
    FIXED,
    READ,
    RESIDUAL_WEIGHTS,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

ALPHAS = (Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(4, 5), Fraction(1))
GRID = tuple((lam, h, L) for lam in (Fraction(1, 10), Fraction(1, 2), Fraction(1))
             for h in (1, 2, 4, 8) for L in (8, 32))
LENGTH = 2048


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: some token j >= 2 gains influence from a larger sink, or the spread does not
    fall; verified otherwise."""
    bad = f["monotonicity_failures"] + f["strictness_failures"] + f["spread_failures"]
    return "refuted" if bad > t["allowed"] else "verified"


RULE = Rule(
    text=("Exact Fractions on λ in {1/10, 1/2, 1} x H in {1, 2, 4, 8} x L in {8, 32}, sink "
          "weights α = 0 < 1/10 < 1/2 < 4/5 < 1: monotonicity_failures counts tokens j >= 2 "
          "whose influence p(j) grows from one α to the next; strictness_failures those whose "
          "p(j) does not fall; spread_failures counts (λ, H, L, α) where Σ_{j>=2} p(j) does not "
          "fall. verified: all 0; refuted: any positive."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons", scale="fixed")},
    examples=(
        Example("every token after the first loses influence as the sink grows",
                {"monotonicity_failures": 0, "strictness_failures": 0, "spread_failures": 0},
                "verified"),
        Example("false: attention to the sink is extra mixing (the sink weight added to the "
                "mixing weight)", {"monotonicity_failures": 794, "strictness_failures": 1402,
                                   "spread_failures": 32}, "refuted", "false"),
    ),
    fixed=FIXED,
    deciding=("monotonicity_failures", "strictness_failures", "spread_failures"),
    no_paper_figures="the paper's figures are sink rates of trained models (Table 1, Llama 3.1: "
    "45.97 %, 73.49 %, 78.29 %, third-party reading), which measure how much models sink, not "
    "what a sink does to mixing",
)

CARD = Card(
    paper=Setting("barbero2025 abstract ('this mechanism provides a method for LLMs to avoid "
                  "over-mixing') and its theory section (not read); " + READ,
                  architecture="pretrained LLMs (Gemma 7B, Llama 3.1 8B-405B) and 120M models "
                  "trained from scratch", residual="on", mask="causal", kernel="learned "
                  "attention with a sink on the first token", training="pretrained",
                  unconfirmed=("architecture", "training")),
    test=Setting("exact Fractions: the sink rollout's profile as the sink weight grows; fast path "
                 "at L = 2048, H = 24", architecture="residual attention layers", residual="on",
                 mask="causal", kernel="sink of weight α on token 1 over uniform causal attention",
                 training="none (analytic model)"),
    differences=("the mechanism checked in posbias's uniform-sink model, not in trained models",),
    scale_only=False,
    proof=ProofStatus("all", note="p_sink(j) = E[b_j(X)(1-α)^K] for j >= 2 (K the uniform factors "
                      "of the Bernstein law), non-increasing in α; the grid checks it exactly"),
)


def _profile(L: int, alpha: Fraction, lams: list) -> list[Fraction]:
    return kernel_profile_exact(L, SinkKernel(alpha), lams)


def _spread_at_scale(alpha: Fraction, lam: Fraction) -> float:
    a, k = SinkKernel(alpha).log_blocks(LENGTH, [float(lam)] * DEPTH)
    return float(np.sum(np.ldexp(a[1:-1], k[1:-1])))


@claim(
    "barbero2025:sink-slows-mixing",
    statement="A sink on the first token slows the mixing of the other tokens into the last one: "
    "as the sink weight α grows, the influence of every token j >= 2 falls (strictly for "
    "2 <= j <= L when λ > 0), so a perturbation of the content reaches the last token less.",
    latex=r"\alpha < \alpha' \;\Longrightarrow\; p_{\alpha'}(j) < p_{\alpha}(j)\quad (2 \le j "
    r"\le L),\qquad \sum_{j \ge 2} p_{\alpha}(j) \downarrow",
    expected="verified",
    section="abstract, sink mechanism (posbias's model)",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, profile: Callable[[int, Fraction, list], list] | None = None) -> Evidence:
    """Monotonicity in α on the grid; ``profile(L, alpha, lams)`` replaces the sink rollout (false
    versions for the tests)."""
    profile = profile or _profile
    counts = {"monotonicity_failures": 0, "strictness_failures": 0, "spread_failures": 0}
    first: str | None = None
    for lam, h, L in GRID:
        prev = None
        for alpha in ALPHAS:
            p = profile(L, alpha, [lam] * h)
            if prev is not None:
                grow = [j + 1 for j in range(1, L) if p[j] > prev[j]]
                flat = [j + 1 for j in range(1, L) if p[j] >= prev[j]]
                counts["monotonicity_failures"] += len(grow)
                counts["strictness_failures"] += len(flat)
                counts["spread_failures"] += int(sum(p[1:]) >= sum(prev[1:]))
                if flat and first is None:
                    first = f"λ={lam}, H={h}, L={L}, α={alpha}: p({flat[0]}) does not fall"
            prev = p
    figures: dict[str, Any] = dict(counts)
    spread = {str(lam): [_spread_at_scale(Fraction(0), lam), _spread_at_scale(Fraction(4, 5), lam)]
              for lam in RESIDUAL_WEIGHTS}
    figures["spread_ratio_at_4_5"] = {k: float(f"{v[1] / v[0]:.4g}") for k, v in spread.items()}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, method="exact Fractions: the sink:ALPHA rollout's profile for increasing α; "
        f"fast path at L = {LENGTH}, H = {DEPTH}", discrepancy="0 (exact)" if verdict == "verified" else None,
        precision="exact; float64 block exponents", tolerance="exact comparisons",
        cases=len(GRID) * (len(ALPHAS) - 1), counterexample=first if verdict == "refuted" else None,
        parameters={"grid (λ, H, L)": [f"{lam}, {h}, {L}" for lam, h, L in GRID],
                    "alphas": [str(a) for a in ALPHAS]},
        details={f"content spread Σ_(j=2..L-1) p(j) at L = {LENGTH}, H = {DEPTH} (α = 0, 4/5)":
                 {k: [f"{x:.4g}" for x in v] for k, v in spread.items()},
                 "what the sink leaves": "the last token's own atom (1-λ)^H is the same with and "
                 "without a sink (barbero2025:sink-recency-atom): the sink takes its mass from the "
                 "other tokens"},
        figures=figures)
