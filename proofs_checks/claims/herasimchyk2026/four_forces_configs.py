"""herasimchyk2026:four-forces-configs (H2, H5): on the real BLOOM/MPT/Falcon-RW configs each of
the paper's four forces shows its direction when switched off: causal depth moves mass earlier
(a layer added on the output side), the residual stream and ALiBi move it later, a positive
diagonal content logit moves it later and a negative one earlier (first-order stochastic
dominance).

Setting: the four architectural forces (causal masking, residual connections, ALiBi, content;
docs/explanation/mathematics.rst H2a-d), proven in the paper for stochastically monotone kernels and shown on
the measured configs in Fig. 2/3 (a)-(c) per the public code's README: the 25 residual rollout
configs of herasimchyk2026's public code (five models, no/mean/per-head content, three data sets,
L = 256).

The check: fast float64 ALiBi rollouts of every residual config in both conventions with one force
switched off (λ ≡ 1; slopes 0; the diagonal logits clipped to d+ = max(d, 0) or d- = min(d, 0)
against d = 0; the model truncated to t and t+1 layers), and the CDF margin of each in its claimed
direction.  Two configs are computed live by default and the others read from the stored run
(``--thorough`` recomputes all); live rows must agree with the stored ones.  The layers'
stochastic monotonicity, the premise of the causal-depth leg, is measured on dense kernels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from posbias.errors import InvalidArgument
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.herasimchyk2026._shared import (
    CONFIG_DATASETS,
    CONFIG_MODELS,
    both_margins,
    gather_rows,
    needs_yaml,
)
from posbias.proofs_checks.data import residual_configs
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "FORCE_DIRECTIONS", "RULE", "check", "decide", "output_side_margin"]

#: the directions the four forces claim: ``later`` (the profile with the force dominates the one
#: without: more mass on later positions) or ``earlier``; for causal depth "on" is the deeper profile
FORCE_DIRECTIONS = {"residual": "later", "alibi": "later", "content d+": "later", "content d-": "earlier",
                    "causal depth": "earlier"}

#: the configs whose four-force margins the default check computes live (the causal-depth leg
#: costs O(T^2) layer applications: 2 s for BLOOM-176B); the others are read from the stored run
_FORCES_LIVE = ("no_content/bloom-7b1", "all_content/fineweb-edu/mpt-7b")

_FORCES = ("residual", "alibi", "content d+", "content d-", "causal depth")
_WORST = "worst margin by force (claimed direction)"


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when every force's worst margin in its claimed direction is >= -margin_tol, else
    refuted."""
    return "verified" if all(v >= -t["margin_tol"] for v in f[_WORST].values()) else "refuted"


RULE = Rule(
    text="For every residual config (25) in both conventions, each force's CDF margin in the direction "
    "the paper claims (residual, ALiBi and a positive diagonal logit move mass later: min_k (F_off(k) - "
    "F_on(k)); a negative diagonal logit and one more causal layer on the output side move it earlier: "
    "min_k (F_on(k) - F_off(k))) must be >= -margin_tol (float64 CDFs of length-256 profiles). Verified "
    "when every margin passes, refuted by those that do not (named with the config, position k and depth)",
    decide=decide,
    thresholds={"margin_tol": Threshold(1e-12, "float64 tolerance on a CDF margin (256 terms of <= 1)",
                                        scale="log", sensitive=100.0)},
    examples=(
        Example("the 25 measured configs: every force in its direction (worst margins; 0 where no head "
                "has a content logit of that sign)",
                {_WORST: {"residual": 7.451e-06, "alibi": 2.714e-05, "content d+": 0.0, "content d-": 0.0,
                          "causal depth": 1.441e-08}}, "verified", "realistic"),
        Example("the other sign: 'residual connections move mass earlier' (the reverse margin of the "
                "residual force)", {_WORST: {"residual": -0.5, "alibi": 0.05, "causal depth": 7.5e-6}},
                "refuted", "false"),
        Example("a non-monotone kernel on top: one more output-side layer moves mass later (margin -1)",
                {_WORST: {"residual": 0.2, "alibi": 0.05, "causal depth": -1.0}}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=(_WORST,),
    no_paper_figures="the paper states the forces as propositions and shows their effect in plots; it "
    "reports no CDF margins",
)

CARD = Card(
    paper=Setting(
        "the four architectural forces (causal masking, residual connections, ALiBi, content; "
        "docs/explanation/mathematics.rst H2a-d), shown on the measured configs in Fig. 2/3 (a)-(c) per the public code's README",
        architecture="ALiBi causal transformer rollout", residual="on", mask="causal", pe="ALiBi",
        models=CONFIG_MODELS,
        datasets=CONFIG_DATASETS, configs=25, L=256,
        unconfirmed=("configs",),
        note="the paper proves each force under stochastically monotone kernels; switching each off on "
        "its measured configs tests those propositions in the paper's setting"),
    test=Setting(
        "fast float64 ALiBi rollouts of the 25 residual configs with one force switched off (both "
        "conventions); causal depth: the model truncated to t and t+1 layers",
        architecture="ALiBi causal transformer rollout", residual="on", mask="causal", pe="ALiBi",
        models=CONFIG_MODELS,
        datasets=CONFIG_DATASETS, configs=25, L=256),
    proof=ProofStatus("none", note="proven in the paper for monotone kernels; here checked on measured "
                      "configs"),
)


def output_side_margin(profiles: Sequence[np.ndarray]) -> tuple:
    """``min_t min_k (F_{t+1}(k) - F_t(k))`` over consecutive depths, with the ``(t, k)`` where
    it is reached: ``>= 0`` when adding a layer on the output side moves mass to earlier positions
    at every depth (herasimchyk2026 H2a, which needs stochastically monotone kernels)."""
    worst = (np.inf, 0, 0)
    for t in range(len(profiles) - 1):
        mg, k = both_margins(profiles[t], profiles[t + 1])["later"]  # p_t dominates p_{t+1}
        worst = min(worst, (mg, t + 1, k))
    return worst


def _margin_table(names: Sequence[str], rows: dict, dirs: dict, t: dict) -> tuple:
    """Each config's margins in the claimed directions, both conventions: the table, the worst
    margin of each force and where it is reached, and the margins below ``-margin_tol``."""
    worst: dict[str, float] = {}
    where: dict[str, str] = {}
    table: list[dict] = []
    failures: list[str] = []
    for n in names:
        for conv in ("reference", "corrected"):
            fr = rows[(n, conv)]["forces"]
            row: dict[str, Any] = {"config": n, "convention": conv}
            for force in _FORCES:
                key = f"{force} {dirs[force]}"
                if key not in fr:
                    continue  # no content force on a no-content config
                m = fr[key]
                row[force] = float(f"{m:.6g}")
                at = f"k={fr[key + ' at k']}"
                if key + " at t" in fr:
                    at += f", depth {fr[key + ' at t']} -> {fr[key + ' at t'] + 1}"
                if force not in worst or m < worst[force]:
                    worst[force] = m
                    where[force] = f"{n} ({conv}), {at}"
                if m < -t["margin_tol"]:
                    failures.append(f"{n} ({conv}) {force} ({dirs[force]}): margin {m:.3g} at {at}")
            row["observation: max monotonicity defect of the layers (L = 64)"] = float(
                f"{fr['monotonicity defect (L = 64)']:.3g}")
            table.append(row)
    return worst, where, table, failures


@claim(
    "herasimchyk2026:four-forces-configs",
    statement="On the real BLOOM/MPT/Falcon-RW configs each force shows its direction when switched off: "
    "causal depth moves mass earlier (adding a layer on the output side), the residual stream and "
    "ALiBi move it later, a positive diagonal content logit moves it later and a negative one earlier "
    "(first-order stochastic dominance).",
    latex=r"p_{\text{full}} \succeq p_{\lambda\equiv 1},\ p_{\text{full}} \succeq p_{m=0},\ "
    r"p_{d^{+}} \succeq p_{d=0} \succeq p_{d^{-}},\ e_L^{\top} P(t) \succeq e_L^{\top} R(t{+}1) P(t)",
    expected="verified",
    section="H2, H5",
    assumptions=("the 25 shipped configs with measured λ (five models, no/mean/per-head content, three "
                 "data sets, L = 256), reference and corrected conventions; d+ = max(d, 0), "
                 "d- = min(d, 0) per head",
                 "causal depth: the model's first t layers against its first t+1 layers (the new layer "
                 "on the output side), t = 1..T-1"),
    needs=("yaml",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, names: Sequence[str] | None = None,
          directions: dict[str, str] | None = None, **thresholds: float) -> Evidence:
    """``names``: configs to decide on (default: every residual config); ``directions``: the
    claimed direction of a force (``later`` or ``earlier``; default :data:`FORCE_DIRECTIONS`),
    for power tests with a claim of the other sign; ``thresholds``: rule overrides."""
    miss = needs_yaml()
    if miss:
        return miss
    names = list(names) if names is not None else residual_configs()
    dirs = {**FORCE_DIRECTIONS, **(directions or {})}
    for force, d in dirs.items():
        if force not in FORCE_DIRECTIONS or d not in ("later", "earlier"):
            raise InvalidArgument("directions", {force: d}, "forces of FORCE_DIRECTIONS mapped to later or earlier")
    rows, sources, mismatches = gather_rows(ctx, names, forces_live=_FORCES_LIVE)
    t = RULE.values(**thresholds)
    worst, where, table, failures = _margin_table(names, rows, dirs, t)
    figures = {_WORST: {k: float(f"{v:.6g}") + 0.0 for k, v in worst.items()}, "where": where}
    verdict = RULE.decide(figures, t)
    details = {
        "rule": RULE.text,
        "margins": table, "claimed directions": dirs, "sources": sources,
        "note": "the output-side depth leg (the paper's statement) needs stochastically monotone layers: "
        "an ALiBi head with slope m >= 0 and any diagonal logit is monotone (F_{i+1}(k) / F_i(k) = "
        "e^{-m} Z_i / Z_{i+1} <= 1 for k < i); the monotonicity defect is checked on dense kernels at "
        "L = 64; a content margin of exactly 0 means that no head of the config has a diagonal logit "
        "of that sign (d+ or d- is then d = 0)"}
    common: dict[str, Any] = dict(method="fast ALiBi rollouts of the configs with one force switched off; CDF margins "
                                  "in the claimed direction of each force", precision="float64",
                                  tolerance=f"margins >= -{t['margin_tol']:g}", cases=len(table),
                                  worst_margin=f"{min(worst.values()):.3g}", details=details,
                                  setting={"configs": len(names)} if len(names) != 25 else {})
    if mismatches:
        details["stored run mismatches"] = mismatches
        return Evidence("inconclusive", **common)
    return Evidence(verdict, **common, figures=figures, thresholds=thresholds,
                    counterexample="; ".join(failures[:6]) or None)
