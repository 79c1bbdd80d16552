"""wu2024:masked-rank-collapse: pure self-attention (no residual, no LayerNorm) under any
quasi-strongly connected mask still collapses to a rank-one subspace exponentially: with attention
entries at least ε on the mask and r the graph's radius from a centre token, the distance to
consensus is at most C(1 - ε^r)^(t/r).

The check measures collapse by the Dobrushin coefficient τ(P(t)) (the worst case over inputs of
the ratio of the rows' spread after and before), P(t) = A(t)...A(1), and computes exactly
(Fractions): on generated time-varying kernels on causal and sliding-window masks (random positive
weights on the mask), τ(P(t)) <= (1 - ε^r)^⌊t/r⌋ at every depth (the discrete form of the bound,
C = 1/(1 - ε^r)); for the masks' uniform kernels (L = 12) the exact rate lim τ(A^t)^(1/t), the
largest diagonal entry after the first (derivation collapse-rate), and τ at depth 60.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from posbias.numerics.cases import causal_mask, window_mask
from posbias.numerics.collapse import (
    centre_distance,
    collapse_bound_exact,
    dobrushin_exact,
    matrix_powers_exact,
    spectral_collapse_rate_exact,
)
from posbias.numerics.kernels import min_entry_on_mask, random_masked_kernel_exact
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import case_rng
from posbias.proofs_checks.claims.wu2024._shared import (
    FIXED,
    LENGTH,
    MASKS,
    PAPER,
    READ,
    consensus_distances,
    uniform_kernel,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

CASES = 40
DEPTH = 60


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: a case above the graph bound, a uniform kernel that does not collapse (rate 1), or
    one still far from consensus at depth 60; verified otherwise."""
    if (f["bound_failures"] > t["allowed"] or f["uniform_rate_max"] >= 1
            or f["uniform_tau_at_60"] > t["collapsed"]):
        return "refuted"
    return "verified"


RULE = Rule(
    text=(f"{CASES} generated cases (L = 3..7, causal or sliding-window masks w = 2..4, T = 1..10 "
          "layers of random weights 1..9 on the mask; ε the smallest entry, r the radius from "
          "token 1), exact Fractions: bound_failures counts depths with τ(P(t)) > (1 - ε^r)^⌊t/r⌋; "
          f"for the uniform kernels of the causal mask and windows 2, 3, 4, 6 at L = {LENGTH}: "
          "uniform_rate_max = the largest exact rate (second eigenvalue), uniform_tau_at_60 = the "
          "largest τ(A^60). verified: no failure, uniform_rate_max < 1 and uniform_tau_at_60 <= "
          "collapsed = 1e-3; refuted otherwise."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons", scale="fixed"),
                "collapsed": Threshold(1e-3, "the largest τ at depth 60 that counts as collapsed "
                                       "(measured 8e-8)", sensitive=100.0)},
    examples=(
        Example("the graph bound holds; the uniform kernels collapse at the rate 1/2",
                {"bound_failures": 0, "uniform_rate_max": 0.5, "uniform_tau_at_60": 8.1e-8},
                "verified"),
        Example("false: the causal rate (1 - ε)^t for every mask (r = 1: the window's radius "
                "ignored)", {"bound_failures": 35, "uniform_rate_max": 0.5,
                             "uniform_tau_at_60": 8.1e-8}, "refuted", "false"),
        Example("false: a mask that does not collapse (a token reading only itself)",
                {"bound_failures": 0, "uniform_rate_max": 1.0, "uniform_tau_at_60": 1.0},
                "refuted", "false"),
    ),
    fixed=FIXED,
    deciding=("bound_failures", "uniform_rate_max", "uniform_tau_at_60"),
    no_paper_figures="the paper's Figure 2 plots μ(X(t)) of random and pretrained models in log "
    "scale; its values could not be read",
)

CARD = Card(
    paper=Setting("wu2024 Section 4 (pure masked attention; the theorem number and its exact "
                  "statement not confirmed) and Figure 2; " + READ, architecture="self-attention "
                  "network (attention only, value matrices)", residual="off", mask="quasi-strongly "
                  "connected (causal, sliding window, ...)", L="any", H="t -> oo",
                  unconfirmed=("mask",)),
    test=Setting("exact Fractions: Dobrushin coefficients of generated and uniform rollouts",
                 architecture="self-attention network (attention only, value matrices)",
                 residual="off", mask="quasi-strongly connected (causal, sliding window, ...)",
                 L=("3..7", LENGTH), H=("1..10", "1..60"), cases=CASES),
    differences=("value matrices taken as the identity: τ bounds the collapse of X(t) = P(t)X(0) "
                 "for every input, the paper's μ(X(t)) with value matrices of norm <= 1",),
    proof=ProofStatus("all", note="the graph bound is Dobrushin's coefficient over r layers "
                      "(a column >= ε^r) and submultiplicativity; the uniform rate 1/2 is exact "
                      "(derivation collapse-rate); the generated cases check the bound exactly"),
)


def _mask(r: Any) -> tuple[str, list]:
    L = r.randint(3, 7)
    if r.random() < 0.4:
        return f"causal, L = {L}", causal_mask(L)
    w = r.randint(2, min(4, L - 1))
    return f"window {w}, L = {L}", window_mask(L, w)


@claim(
    "wu2024:masked-rank-collapse",
    statement="Pure masked self-attention collapses to a rank-one subspace exponentially for every "
    "quasi-strongly connected mask: the distance to consensus is at most C(1 - ε^r)^(t/r), ε the "
    "smallest attention entry on the mask and r its radius from a centre token.",
    latex=r"\mu\bigl(X^{(t)}\bigr) \le C\,\bigl(1 - \varepsilon^{r}\bigr)^{t/r}",
    expected="verified",
    section="4 (pure attention)",
    assumptions=("attention only (no residual, no LayerNorm)", "entries >= ε on the mask",
                 "the mask quasi-strongly connected, with self-loops"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, radius: Callable[[list], int] | None = None) -> Evidence:
    """The graph bound on generated cases and the uniform kernels' exact rates; ``radius(mask)``
    replaces the radius in the bound (false versions for the tests)."""
    radius = radius or centre_distance
    r = case_rng(ctx, PAPER, "masked-rank-collapse")
    failures, first, margin = 0, None, None
    for _ in range(CASES):
        name, mask = _mask(r)
        layers = [random_masked_kernel_exact(mask, r) for _ in range(r.randint(1, 10))]
        eps = min(min_entry_on_mask(A, mask) for A in layers)
        rad = radius(mask)
        for t, P in enumerate(matrix_powers_exact(layers), start=1):
            gap = collapse_bound_exact(eps, rad, t) - dobrushin_exact(P)
            margin = gap if margin is None else min(margin, gap)
            if gap < 0:
                failures += 1
                first = first or f"{name}, ε = {eps}, r = {rad}, t = {t}: τ(P(t)) above (1-ε^r)^⌊t/r⌋"
    rates = {m: spectral_collapse_rate_exact(uniform_kernel(m)) for m in MASKS}
    taus = {m: consensus_distances(m, DEPTH)[-1] for m in MASKS}
    figures: dict[str, Any] = {"bound_failures": failures,
                               "uniform_rate_max": float(max(rates.values())),
                               "uniform_tau_at_60": float(f"{float(max(taus.values())):.4g}")}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, method="exact Fractions: Dobrushin coefficient of P(t) vs the graph bound on "
        "generated masked kernels; exact rates and τ(A^60) of the uniform kernels",
        discrepancy="0 (exact)" if verdict == "verified" else None, precision="exact",
        tolerance="exact comparisons", cases=CASES + len(MASKS),
        counterexample=first if verdict == "refuted" else None,
        worst_margin=f"min over depths of the bound minus τ = {float(margin or 0):.4g}",
        parameters={"cases": CASES, "uniform masks": list(MASKS), "L (uniform)": LENGTH,
                    "depth (uniform)": DEPTH},
        details={"uniform kernels": {m: {"exact rate": str(rates[m]), "τ(A^60)": f"{float(taus[m]):.3g}"}
                                     for m in MASKS}},
        figures=figures)
