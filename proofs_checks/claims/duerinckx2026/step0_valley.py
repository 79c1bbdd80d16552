"""duerinckx2026 against posbias's Step-0 measurements (a proxy): is the kinetic interior minimum
the valley near 0.9·L of the measured Step-0 influence profiles of Qwen2-0.5B and GPT-2?

The kinetic profile has an interior minimum only with a distance-decaying kernel (ALiBi slope
λ > 0) and only while the kinetic time is below ``c_crit(λ) = 2 (1 - e^{-λ})`` (claims
``duerinckx2026:t-crit``, ``duerinckx2026:valley-past-t-crit``; λ = 0, the Cesàro case, has none).
The check reads the stored Step-0 runs at the paper's running lengths (two seeds each) and
computes, per architecture:

* the measured valley: the profile without its final token in 32 blocks; the valley block is
  chosen on one seed and its depth below the block next to the final token measured on the other
  (both ways, the smaller kept), with a z-score from the blocks' scatter on the pooled profile;
* the kinetic prediction most favourable to a valley: the largest ALiBi slope ``λ_max`` the
  measured averaged kernels allow (the discrete ALiBi kernel at that slope is as far from Cesàro,
  in mean row total variation, as the farthest measured layer), and the smallest kinetic time
  ``τ`` the rollout allows (the mean number of attention hops: best constant α times the depth,
  or Σ λ_t measured; Binomial(T, α) -> Poisson(αT), claim ``duerinckx2026:poisson-depth-mixture``);
  ``margin = τ / c_crit(λ_max)``: a kinetic valley needs ``margin < 1``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from posbias.numerics.kinetic import KineticHead, KineticModel, kinetic_profile
from posbias.proofs_checks import measured
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import latex_of_derivation
from posbias.proofs_checks.claims.duerinckx2026._shared import FIXED, paper_setting
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["BLOCKS", "CARD", "RULE", "alibi_tv", "check", "decide", "lambda_for_tv",
           "measured_valley"]

#: blocks of the measured profile (without its final token)
BLOCKS = 32


def decide(f: Mapping, t: Mapping) -> str:
    """Architectures with a measured valley (depth >= ``depth_min``) decide: refuted when the
    kinetic theory has no valley there (margin >= 1) or puts it more than ``position_tol`` away;
    verified when it has one at that place for every such architecture and each valley stands
    ``z_min`` standard errors deep; inconclusive otherwise, and when no architecture has a
    measured valley (nothing to account for)."""
    archs = [a for a, d in f["measured_depth"].items() if d >= t["depth_min"]]
    if not archs:
        return "inconclusive"
    for a in archs:
        margin = f["margin"][a]
        if margin is None:
            return "inconclusive"
        if margin >= 1 or f["position_gap"][a] > t["position_tol"]:
            return "refuted"
    return "verified" if all(f["measured_z"][a] >= t["z_min"] for a in archs) else "inconclusive"


def _fig(depth, z, margin, gap):
    return {"measured_depth": {"qwen2-0.5b": depth[0], "gpt2": depth[1]},
            "measured_z": {"qwen2-0.5b": z[0], "gpt2": z[1]},
            "margin": {"qwen2-0.5b": margin[0], "gpt2": margin[1]},
            "position_gap": {"qwen2-0.5b": gap[0], "gpt2": gap[1]}}


RULE = Rule(
    text="measured_depth = (level of the block next to the final token - level of the valley "
    "block)/valley level, the valley block chosen on one seed and measured on the other (32 "
    "blocks, final token left out; the smaller of the two ways); measured_z = that difference in "
    "standard errors of the pooled blocks; margin = tau/c_crit(lambda_max) (a kinetic valley "
    "needs margin < 1); position_gap = |kinetic valley - measured valley| (fractions of L; inf "
    "without a kinetic valley). Over the architectures with measured_depth >= depth_min: "
    "refuted when one has margin >= 1 or position_gap > position_tol; verified when none does "
    "and every measured_z >= z_min; inconclusive otherwise, or when no architecture has a "
    "valley that deep.",
    decide=decide,
    thresholds={
        "depth_min": Threshold(0.02, "least relative depth of a measured valley below the level "
                               "next to the final token"),
        "z_min": Threshold(3, "least depth of a measured valley in standard errors",
                           scale="linear", step=0.5, sensitive=1),
        "position_tol": Threshold(0.1, "largest distance (fraction of L) between the kinetic and "
                                  "the measured valley", scale="linear", step=0.01, sensitive=0.05),
    },
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("a kinetic valley where the measured one is (margin 0.6, 0.03 of L away, z 4)",
                _fig((0.04, 0.001), (4.0, 0.1), (0.6, 0.6), (0.03, math.inf)), "verified", "false"),
        Example("a 3.8% measured valley at 0.92 L and no kinetic valley (margin 3.2)",
                _fig((0.038, 0.001), (2.3, 0.1), (3.2, 2.9), (math.inf, math.inf)), "refuted",
                "realistic"),
        Example("a kinetic valley, but at 0.5 L against a measured one at 0.92 L",
                _fig((0.038, 0.001), (4.0, 0.1), (0.5, 0.5), (0.42, math.inf)), "refuted", "false"),
        Example("no measured valley deeper than 0.1%: nothing to account for",
                _fig((0.001, 0.0), (0.1, 0.0), (3.2, 2.9), (math.inf, math.inf)), "inconclusive"),
        Example("a kinetic valley at the measured place, but only 1.5 standard errors deep",
                _fig((0.038, 0.001), (1.5, 0.1), (0.6, 0.6), (0.03, math.inf)), "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("measured_depth", "measured_z", "margin", "position_gap"),
    no_paper_figures="the paper reports no Step-0 measurement: the comparison is posbias's",
)

CARD = Card(
    paper=paper_setting(
        "abstract: the kinetic profile gives a rigorous explanation of the empirically observed "
        "lost-in-the-middle phenomenon (its empirical reference: retrieval accuracy of trained "
        "language models)", confirmed=("model", "data"),
        model="causal self-attention particle system (kinetic limit)", data="iid uniform tokens",
        pe="ALiBi", measure="retrieval profile"),
    test=Setting("stored Step-0 runs (posbias measure, full width) at L = 2048 (Qwen2) and 1024 "
                 "(GPT-2), two seeds each, against the kinetic criterion",
                 model="Qwen2-0.5B (24 layers), GPT-2 small (12 layers), randomly initialized",
                 data="random tokens", pe="RoPE (Qwen2), learned absolute (GPT-2); no ALiBi",
                 measure="input-output Jacobian influence", L=(2048, 1024)),
    kind="proxy",
    proof=ProofStatus("none", note="an empirical comparison; the kinetic criterion margin < 1 is "
                      "proven (kinetic-threshold) for lambda < ln 4"),
)


def alibi_tv(L: int, lam: float) -> float:
    """Mean over rows of the total-variation distance between the discrete single-head ALiBi
    kernel with slope ``m = λ/L`` (diagonal logit 0) and the Cesàro matrix (float64, O(L)).

    Row ``i`` has weights ``q^k/Z_i``, ``k = 0..i-1``, ``q = e^{-m}``, decreasing in ``k``: the
    distance is the excess of the ``K`` weights above ``1/i``, ``(1 - q^K)/(1 - q^i) - K/i``,
    with ``K = ceil(ln(i/Z_i)/m)`` (``Z_i = (1 - q^i)/(1 - q)``)."""
    if lam <= 0:
        return 0.0
    m = lam / L
    i = np.arange(1, L + 1, dtype=float)
    Z = np.expm1(-m * i) / np.expm1(-m)
    K = np.clip(np.ceil(np.log(i / Z) / m), 0, i)
    tv = np.expm1(-m * K) / np.expm1(-m * i) - K / i
    return float(np.mean(tv))


def lambda_for_tv(L: int, tv: float, hi: float = 64.0) -> float:
    """The slope ``λ`` at which :func:`alibi_tv` equals ``tv`` (bisection; the distance
    increases with ``λ``), to 1e-6."""
    lo = 0.0
    if alibi_tv(L, hi) < tv:
        return math.inf
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if alibi_tv(L, mid) < tv else (lo, mid)
    return hi


def _blocks(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    body = np.asarray(p, dtype=float)[:-1]
    n = body.size // BLOCKS
    B = body[: n * BLOCKS].reshape(BLOCKS, n)
    return B.mean(axis=1), B.std(axis=1, ddof=1) / math.sqrt(n)


def measured_valley(profiles: Sequence[np.ndarray]) -> dict:
    """The valley of a measured profile (one per seed): chosen on one seed, measured on the
    other (the smaller depth of the two ways), its position (block centre, fraction of L) and
    z-score on the pooled profile."""
    blocks = [_blocks(p)[0] for p in profiles]
    pairs = [(a, b) for a in range(len(blocks)) for b in range(len(blocks)) if a != b] or [(0, 0)]
    depths, positions = [], []
    for a, b in pairs:
        k = int(np.argmin(blocks[a]))
        depths.append(float((blocks[b][-1] - blocks[b][k]) / blocks[b][k]))
        positions.append((k + 0.5) / BLOCKS)
    pooled = np.mean([p / p.sum() for p in profiles], axis=0)
    mean, se = _blocks(pooled)
    k = int(np.argmin(mean))
    z = float((mean[-1] - mean[k]) / math.hypot(se[-1], se[k]))
    i = int(np.argmin(depths))
    return {"depth": depths[i], "position": positions[i], "z": z,
            "positions": positions, "depths": depths}


def _kinetic_side(runs: Sequence[Any]) -> dict:
    """λ_max from the measured averaged kernels, τ from the rollout fits, the margin and, when
    it is below 1, the kinetic valley at (λ_max, τ)."""
    L = runs[0].length
    tvs = [float(np.max(r.kernel_tv)) for r in runs if r.kernel_tv is not None]
    layers = len(runs[0].lambdas)
    taus = {"best_alpha_T": float(np.mean([r.comparison.best_alpha for r in runs])) * layers,
            "sum_lambda": float(np.mean([np.sum(r.lambdas) for r in runs]))}
    tau = min(taus.values())
    if not tvs:
        return {"L": L, "tau": taus, "lambda_max": None, "margin": None, "position": None}
    lam_max = lambda_for_tv(L, max(tvs))
    c_crit = 2 * -math.expm1(-lam_max)
    margin = tau / c_crit
    position = None
    if margin < 1:
        values = kinetic_profile(L, KineticModel([KineticHead(Fraction(repr(lam_max)),
                                                              c=Fraction(repr(tau)))]))
        position = (int(np.argmin(values[:-1])) + 1) / L
    return {"L": L, "tau": taus, "kernel_tv_max": max(tvs), "lambda_max": lam_max,
            "c_crit": c_crit, "margin": margin, "position": position}


@claim(
    "duerinckx2026:step0-valley",
    statement="The valleys near 0.9·L of the measured Step-0 influence profiles of Qwen2-0.5B and "
    "GPT-2 are the kinetic theory's interior minimum (the one the Cesàro model lacks).",
    latex=latex_of_derivation("kinetic-threshold"),
    expected="refuted",
    assumptions=("kinetic time = mean number of attention hops of the residual rollout",
                 "ALiBi slope bounded by the measured averaged kernel's distance from Cesàro"),
    section="lost in the middle (abstract) against posbias's Step-0 measurements",
    rule=RULE,
    card=CARD,
    thorough_work=measured.step0_thorough_work,
)
def check(ctx: CheckContext) -> Evidence:
    """Measured valleys against the kinetic criterion, per architecture."""
    data = measured.step0_data(ctx)
    method = ("measured: 32-block valleys of stored Step-0 Jacobian profiles (cross-validated "
              "between seeds); kinetic: margin = tau/c_crit(lambda_max)")
    if data is None:
        return Evidence("needs-data", method=f"{method}: {measured.STEP0_MISSING}", rule=RULE.text)
    per: dict[str, dict] = {}
    for arch in measured.STEP0_PLAN.architectures:
        runs, at_paper = measured.decision_runs(data, arch)
        valley = measured_valley([r.profile for r in runs])
        kin = _kinetic_side(runs)
        per[arch] = {"valley": valley, "kinetic": kin, "at_paper_length": at_paper,
                     "seeds": [r.seed for r in runs]}
    figures = {
        "measured_depth": {a: round(v["valley"]["depth"], 4) for a, v in per.items()},
        "measured_z": {a: round(v["valley"]["z"], 3) for a, v in per.items()},
        "margin": {a: None if v["kinetic"]["margin"] is None else round(v["kinetic"]["margin"], 4)
                   for a, v in per.items()},
        "position_gap": {a: (math.inf if v["kinetic"]["position"] is None else
                             round(abs(v["kinetic"]["position"] - v["valley"]["position"]), 4))
                         for a, v in per.items()},
    }
    verdict = RULE.apply(figures).verdict
    shown = "; ".join(
        f"{a}: valley {v['valley']['depth']:.1%} deep at {v['valley']['position']:.2f} L "
        f"(z {v['valley']['z']:.2g}), margin {v['kinetic']['margin']:.3g} "
        f"(tau {min(v['kinetic']['tau'].values()):.3g}, lambda_max {v['kinetic']['lambda_max']:.3g})"
        if v["kinetic"]["margin"] is not None else f"{a}: no averaged kernel" for a, v in per.items())
    return Evidence(
        verdict,
        method=method,
        discrepancy=shown,
        counterexample=shown if verdict == "refuted" else None,
        precision="float64",
        parameters={"blocks": BLOCKS, "lengths": {a: v["kinetic"]["L"] for a, v in per.items()}},
        details={"per_architecture": per,
                 "cesaro": "lambda = 0: c_crit = 0, no interior minimum for any time"},
        setting={"L": tuple(v["kinetic"]["L"] for v in per.values())},
        figures=figures,
    )
