"""xiao2024:streaming-profile: inside its support the StreamingLLM profile (uniform attention on
S sinks plus a window of W, T residual layers) has a closed form where the window part stays
clear of the sinks (L - (W-1)T > S):

* the window part is p(L - d) = [z^d] Π_t g_t(z), g_t(z) = 1 - λ_t + λ_t (1 + z + ... +
  z^(W-1))/(S + W): per layer the mass stays, steps back by 0..W-1, or jumps to a sink;
* the sinks hold 1 - Π_t (1 - λ_t S/(S+W)); the mass that jumps at layer t lands uniformly on
  them and mixes there as the residual Cesàro rollout of the layers below it.

Routes: sympy (derivation streaming-profile), the closed form and the streaming:S,W kernel's
propagation (exact Fractions) on generated bulk cases; the fast path's logarithms against the
exact closed form where the profile falls far below float64's range (log-safety); the sinks' share
at the paper's cache settings (S = 4, W = 1020 and 2044, T = 32) on the fast path against the
exact formula.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from posbias.numerics.rollout import kernel_profile_exact
from posbias.numerics.sinks import (
    StreamingKernel,
    streaming_profile_closed_exact,
    streaming_sink_mass_exact,
)
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import case_rng, derivation_by_name
from posbias.proofs_checks.claims.xiao2024._shared import FIXED, PAPER, PAPER_CONFIGS, READ
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

CASES = 40
#: deep cases for the fast path's log-safety: (L, S, W, T), entries down to 6^-400 ~ 1e-311
DEEP = ((460, 2, 4, 150), (810, 3, 3, 400), (64, 1, 2, 40))
SCALE_LENGTH = 65536


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: the closed form and the propagation differ; inconclusive: the fast path misses
    the exact values (a numerical failure, not the formula's) or the symbolic route is open;
    verified otherwise."""
    if f["route_mismatches"] > t["allowed"]:
        return "refuted"
    if f["fast_log_error"] > t["log_tolerance"] or f["sink_mass_error"] > t["log_tolerance"]:
        return "inconclusive"
    return "verified" if f["symbolic_proven"] else "inconclusive"


RULE = Rule(
    text=(f"{CASES} generated bulk cases (S = 0..3, W = 1..5, T = 1..4, λ_t in {{1/3, 1/2, 1}}, "
          "L the smallest length with L - (W-1)T > S plus 0..6): route_mismatches counts profiles "
          "where the closed form and the exact propagation differ; fast_log_error = max |ln p_fast "
          "- ln p_exact| on three deep cases (T = 40..400, entries to 1e-311) and on the sinks' "
          "share at the paper's settings (sink_mass_error). refuted: a mismatch; inconclusive: "
          "a fast-path error above log_tolerance = 1e-9 or the symbolic route open; verified "
          "otherwise."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons", scale="fixed"),
                "log_tolerance": Threshold(1e-9, "absolute error of a natural log on the fast "
                                           "path (about 1e-9 relative in p)", sensitive=100.0)},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("the closed form equals the rollout; the fast path to 1e-12 in ln p",
                {"route_mismatches": 0, "fast_log_error": 3e-12, "sink_mass_error": 1e-15,
                 "symbolic_proven": True}, "verified"),
        Example("false: the window polynomial 1 + ... + z^W (one step too many per layer)",
                {"route_mismatches": 40, "fast_log_error": 3e-12, "sink_mass_error": 1e-15,
                 "symbolic_proven": True}, "refuted", "false"),
        Example("false: the sinks' mass spread uniformly (no mixing among the sinks)",
                {"route_mismatches": 16, "fast_log_error": 3e-12, "sink_mass_error": 1e-15,
                 "symbolic_proven": True}, "refuted", "false"),
        Example("a fast path that flushes the deep tail to 0", {"route_mismatches": 0,
                "fast_log_error": math.inf, "sink_mass_error": 1e-15, "symbolic_proven": True},
                "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("route_mismatches", "fast_log_error", "sink_mass_error"),
    no_paper_figures="the paper measures perplexity, not the profile of its mask",
)

CARD = Card(
    paper=Setting("xiao2024 Section 3.2 and Figure 4 (the KV cache of StreamingLLM: 4 attention "
                  "sinks plus a rolling window); " + READ, architecture="decoder-only LLM with a "
                  "streaming KV cache", mask="S sinks + window W", kernel="learned attention",
                  L="4M tokens streamed", H="32 (Llama-2-7B, Falcon-7B, MPT-7B)",
                  unconfirmed=("H", "kernel")),
    test=Setting("exact Fractions (closed form vs propagation), fast-path logs, the paper's "
                 "cache settings", architecture="decoder-only LLM with a streaming KV cache",
                 mask="S sinks + window W", kernel="uniform on the mask", L=("5..40", SCALE_LENGTH),
                 H=("1..4", "40..400", 32), cases=CASES),
    proof=ProofStatus("all", note="derivation streaming-profile (the lazy walk's generating "
                      "function) with the exact comparisons on generated cases"),
)


def _closed(L: int, S: int, W: int, lams: list) -> list:
    return streaming_profile_closed_exact(L, S, W, lams)


def _bulk_case(r: random.Random) -> tuple:
    S, W, T = r.randint(0, 3), r.randint(1, 5), r.randint(1, 4)
    lams = [r.choice((Fraction(1, 3), Fraction(1, 2), Fraction(1))) for _ in range(T)]
    return S + (W - 1) * T + 1 + r.randint(0, 6), S, W, lams


def _log_error(exact: list, lp: np.ndarray) -> float:
    worst = 0.0
    with mpmath.workdps(30):
        for x, y in zip(exact, lp.tolist()):
            if x == 0 or not math.isfinite(y):
                if (x == 0) != (not math.isfinite(y)):
                    return math.inf
                continue
            worst = max(worst, abs(float(mpmath.log(mpmath.mpmathify(x))) - y))
    return worst


def _scale(rows: dict) -> float:
    err = 0.0
    for S, W, T, model in PAPER_CONFIGS:
        for lam in (Fraction(1), Fraction(1, 2)):
            exact = streaming_sink_mass_exact(S, W, [lam] * T)
            lp = StreamingKernel(S, W).log_profile(SCALE_LENGTH, [float(lam)] * T)
            fast = float(np.sum(np.exp(lp[:S])))
            err = max(err, abs(math.log(fast) - math.log(float(exact))))
            rows[f"{model}, λ = {lam}"] = f"sinks hold {float(exact):.6g}"
    return err


@claim(
    "xiao2024:streaming-profile",
    statement="Under StreamingLLM's mask with uniform attention the last token's profile is, in "
    "its window part, the coefficient list of Π_t (1 - λ_t + λ_t(1 + z + ... + z^(W-1))/(S+W)) and "
    "on the sinks the residual Cesàro rollout of the mass that jumped there, which totals "
    "1 - Π_t(1 - λ_t S/(S+W)).",
    latex=r"p(L-d) = [z^d] \prod_{t=1}^{T}\Bigl(1 - \lambda_t + \lambda_t\,\frac{1 + z + "
    r"\dots + z^{W-1}}{S+W}\Bigr),\qquad \sum_{s \le S} p(s) = 1 - \prod_{t=1}^{T}\Bigl(1 - "
    r"\frac{\lambda_t S}{S+W}\Bigr)",
    expected="verified",
    section="3.2, Figure 4 (posbias's rollout of the mask)",
    assumptions=("uniform attention on the mask", "L - (W-1)T > S (the window clear of the sinks)"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, closed: Callable[[int, int, int, list], list] | None = None) -> Evidence:
    """Closed form vs propagation; ``closed(L, S, W, lams)`` replaces the closed form (false
    versions for the tests)."""
    closed = closed or _closed
    r = case_rng(ctx, PAPER, "streaming-profile")
    mismatches, first = 0, None
    for _ in range(CASES):
        L, S, W, lams = _bulk_case(r)
        prop = kernel_profile_exact(L, StreamingKernel(S, W), lams)
        if closed(L, S, W, lams) != prop:
            mismatches += 1
            first = first or f"L={L}, S={S}, W={W}, λ={[str(x) for x in lams]}: closed form != rollout"
    deep = {}
    for L, S, W, T in DEEP:
        exact = streaming_profile_closed_exact(L, S, W, [Fraction(1)] * T)
        deep[f"L={L}, S={S}, W={W}, T={T}"] = _log_error(exact, StreamingKernel(S, W).log_profile(L, [1.0] * T))
    rows: dict[str, str] = {}
    figures: dict[str, Any] = {"route_mismatches": mismatches,
                               "fast_log_error": float(f"{max(deep.values()):.3g}"),
                               "sink_mass_error": float(f"{_scale(rows):.3g}"),
                               "symbolic_proven": derivation_by_name("streaming-profile").proven}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, method="exact Fractions: closed form (lazy walk + Cesàro on the sinks) vs the "
        "streaming:S,W propagation; fast-path logs vs the exact closed form; sympy",
        discrepancy="0 (exact)" if verdict == "verified" else None,
        precision="exact; float64 logs", tolerance="exact; 1e-9 in ln p on the fast path",
        cases=CASES + len(DEEP), counterexample=first if verdict == "refuted" else None,
        parameters={"cases": CASES, "deep cases (L, S, W, T)": [list(d) for d in DEEP]},
        details={"fast path |Δ ln p| by deep case": {k: f"{v:.3g}" for k, v in deep.items()},
                 "the paper's settings (sinks' share of the last token's influence)": rows},
        figures=figures)
