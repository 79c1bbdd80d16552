"""herasimchyk2026:u-shape-mechanism (H3): the mechanism v2's abstract names, "at finite depth,
causal masking and residual connections induce broad, often U-shaped, influence profiles", tested
apart from ALiBi and content on the measured configs.

Setting: the 25 residual rollout configs of herasimchyk2026's public code (five models, measured
λ_t, no/mean/per-head content, three data sets, L = 256).  The paper's rollouts with residuals
(Fig. 2/3 (b), (c) per the public code's README) all carry ALiBi; the README names no rollout of
masking and residual connections alone.

The check: fast float64 rollouts of every residual config in the reference convention at three
stages, one force added at a time: masking + residual (the measured λ_t, slopes 0, content 0),
+ ALiBi (the config's slopes, content 0), + content (the config as shipped).  Each profile's
macroscopic U (:mod:`posbias.numerics.shape`: 16 blocks, valley block interior, both end blocks
at least ``u_factor`` times the valley block) is read without the final token's self-influence,
and reported with it beside: the residual path puts an atom on the final token that a U test
reading ``p(L)`` would count as the right arm of a U.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from posbias.numerics.configs import RolloutConfig
from posbias.numerics.shape import BINS, U_FACTOR, shape_with_and_without_final
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.herasimchyk2026._shared import (
    CONFIG_DATASETS,
    CONFIG_MODELS,
    load_shipped,
    needs_yaml,
    reference_profile,
)
from posbias.proofs_checks.data import residual_configs
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "STAGES", "check", "decide", "stage_configs", "stage_u"]

#: the stages, one force added at a time: the abstract's mechanism, then ALiBi, then content
STAGES = ("masking + residual", "+ ALiBi", "+ content")
_MR, _ALIBI, _CONTENT = STAGES


def stage_u(row: Mapping, t: Mapping) -> bool:
    """The macroscopic U of one profile without its final token: the valley block is interior and
    the U factor (the smaller end block over the valley block) is at least ``t["u_factor"]``."""
    return bool(row["interior valley"] and row["U factor"] >= t["u_factor"])


def _fraction(rows: Sequence[Mapping], t: Mapping) -> float:
    return sum(stage_u(r, t) for r in rows) / len(rows) if rows else math.nan


def decide(f: Mapping, t: Mapping) -> str:
    """Verified when masking and residual connections alone (no ALiBi, no content) give a U in a
    fraction ``often`` of the configs; qualified when they do not but the U appears that often
    once ALiBi (or ALiBi and content) is added; refuted when no stage gives it that often."""
    st = f["stages"]
    if _fraction(st[_MR], t) >= t["often"]:
        return "verified"
    if max(_fraction(st[_ALIBI], t), _fraction(st[_CONTENT], t)) >= t["often"]:
        return "qualified"
    return "refuted"


def _ex_rows(n_u: int, n: int = 25, *, u_factor: float = 2.4) -> list[dict]:
    """Rule-example rows: ``n_u`` of ``n`` profiles with an interior valley block and the given
    U factor, the others with the valley in the last block (U factor 1)."""
    return [{"config": f"c{i}", "interior valley": True, "U factor": u_factor} for i in range(n_u)] + [
        {"config": f"m{i}", "interior valley": False, "U factor": 1.0} for i in range(n - n_u)]


RULE = Rule(
    text="Decided on the 25 residual configs in the reference convention (the paper's code) at three "
    "stages, one force added at a time: masking + residual (measured λ_t, ALiBi slopes 0, content 0), "
    "+ ALiBi (the config's slopes, content 0), + content (the config as shipped). A profile is "
    "U-shaped when, without the final token's self-influence (p(1..L-1)), its valley block of 16 is "
    "interior and both end blocks are at least u_factor times the valley block. Verified when "
    "masking + residual alone give a U in at least a fraction `often` of the configs (the mechanism "
    "the abstract names suffices); qualified when they do not but the + ALiBi or the + content stage "
    "does (the U needs ALiBi, a force the abstract's sentence does not name); refuted when no stage "
    "reaches `often`. The statistics with the final token are reported beside, not decided on",
    decide=decide,
    thresholds={
        "u_factor": Threshold(U_FACTOR, "how deep a U: both end blocks >= u_factor x the valley block "
                              "(numerics.shape.U_FACTOR)", scale="log", sensitive=1.5, domain=(1.0, None)),
        "often": Threshold(0.5, "v2's 'often': the fraction of residual configs that must be U-shaped",
                           scale="linear", step=0.05, sensitive=0.1, domain=(0.0, 1.0)),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("masking + residual decrease to the last-but-one token (no U without the final token), "
                "ALiBi makes a U in 14 of 25, content keeps it in 10",
                {"stages": {_MR: _ex_rows(0), _ALIBI: _ex_rows(14), _CONTENT: _ex_rows(10)}},
                "qualified", "realistic"),
        Example("the abstract's mechanism alone makes the U: masking + residual give it in 19 of 25 "
                "configs before ALiBi is added",
                {"stages": {_MR: _ex_rows(19), _ALIBI: _ex_rows(15), _CONTENT: _ex_rows(12)}},
                "verified", "false"),
        Example("no U at any stage (ends at most 1.3x the valley block)",
                {"stages": {_MR: _ex_rows(0), _ALIBI: _ex_rows(25, u_factor=1.3),
                            _CONTENT: _ex_rows(25, u_factor=1.3)}},
                "refuted", "false"),
    ),
    fixed="2026-12-04",
    deciding=("U-shaped by stage (without the final token)",),
    no_paper_figures="the paper shows rollout profiles as plots (Fig. 2/3 (b), (c) per the public "
    "code's README, all with ALiBi); it reports no U statistic and no rollout without ALiBi",
)

CARD = Card(
    paper=Setting(
        "v2 abstract ('At finite depth, causal masking and residual connections induce broad, often "
        "U-shaped, influence profiles'); the rollouts with residuals of Fig. 2/3 (b), (c) per the "
        "public code's README",
        architecture="causal transformer rollout", residual="on", mask="causal", pe=("none", "ALiBi"),
        models=CONFIG_MODELS, datasets=CONFIG_DATASETS, configs=25, L=256,
        data="measured λ_t and mean q·k content scores (none, mean, per head)",
        unconfirmed=("configs", "pe"),
        note="pe: the abstract's sentence names masking and residual connections only (no positional "
        "encoding); the paper's measured rollouts (its figures, per the README) all carry ALiBi. Which "
        "of the two the sentence means, and that the figures use exactly the shipped configs, are not "
        "confirmed from the paper's text"),
    test=Setting(
        "fast float64 rollouts of the 25 residual configs in the reference convention at three stages: "
        "masking + residual (slopes 0, content 0), + ALiBi, + content",
        architecture="causal transformer rollout", residual="on", mask="causal",
        pe=("none", "ALiBi"), models=CONFIG_MODELS, datasets=CONFIG_DATASETS, configs=25, L=256,
        data="measured λ_t and mean q·k content scores (none, mean, per head)"),
    proof=ProofStatus("none", note="an empirical statement about measured configs"),
)


def stage_configs(cfg: RolloutConfig) -> dict[str, RolloutConfig]:
    """The config at each stage of :data:`STAGES`: slopes and content 0, content 0, as shipped."""
    return {_MR: cfg.without_alibi().without_content(), _ALIBI: cfg.without_content(), _CONTENT: cfg}


def _stage_row(name: str, p: np.ndarray) -> dict:
    """The shape statistics of one stage profile, without the final token (decided on) and with it."""
    s = shape_with_and_without_final(p, BINS)
    w, wo = s["with"], s["without"]
    return {"config": name, "L": w.L, "argmin": wo.argmin, "valley block": wo.valley_block,
            "interior valley": wo.interior_valley, "U factor": wo.u_factor,
            "valley depth D": wo.valley_depth, "peak/valley R": wo.peak_valley,
            "with the final token": {"argmin": w.argmin, "valley block": w.valley_block,
                                     "interior valley": w.interior_valley, "U factor": w.u_factor,
                                     "valley depth D": w.valley_depth, "peak/valley R": w.peak_valley},
            "final-token atom p(L)/p(L-1)": w.last_atom}


def _with_final_u(row: Mapping, t: Mapping) -> bool:
    return stage_u(row["with the final token"], t)


def _contributions(stages: Mapping[str, list], t: Mapping) -> dict:
    """What each force adds: per stage the U counts with and without the final token, the
    configs whose U the final token alone decides, the median valley, and the configs whose U a
    force makes or removes."""
    n = len(stages[_MR])
    out: dict[str, Any] = {}
    for s in STAGES:
        rows = stages[s]
        by_final = [r["config"] for r in rows if _with_final_u(r, t) != stage_u(r, t)]
        out[s] = {"U-shaped without the final token": f"{sum(stage_u(r, t) for r in rows)} of {n}",
                  "U-shaped with the final token": f"{sum(_with_final_u(r, t) for r in rows)} of {n}",
                  "decided by the final token alone": len(by_final),
                  "median valley (argmin, without the final token)": statistics.median(r["argmin"] for r in rows),
                  "valley at L-1 (argmin = L-1 without the final token)": sum(
                      r["argmin"] == r["L"] - 1 for r in rows)}
    pairs = ((_MR, _ALIBI, "ALiBi"), (_ALIBI, _CONTENT, "content"))
    for a, b, force in pairs:
        ua = {r["config"]: stage_u(r, t) for r in stages[a]}
        ub = {r["config"]: stage_u(r, t) for r in stages[b]}
        out[f"{force} makes the U"] = sorted(c for c in ua if ub[c] and not ua[c])
        out[f"{force} removes the U"] = sorted(c for c in ua if ua[c] and not ub[c])
    return out


def _summary(contrib: Mapping, n: int) -> str:
    """The forces' contributions in one sentence."""
    mr, al, co = (contrib[s] for s in STAGES)
    return (f"masking + residual: U in {mr['U-shaped without the final token']} without the final token "
            f"({mr['U-shaped with the final token']} with it; the final token alone decides "
            f"{mr['decided by the final token alone']}), valley at L-1 in "
            f"{mr['valley at L-1 (argmin = L-1 without the final token)']} of {n}; + ALiBi: U in "
            f"{al['U-shaped without the final token']} (ALiBi makes it in {len(contrib['ALiBi makes the U'])}, "
            f"removes it in {len(contrib['ALiBi removes the U'])}); + content: U in "
            f"{co['U-shaped without the final token']} (content makes it in "
            f"{len(contrib['content makes the U'])}, removes it in {len(contrib['content removes the U'])})")


@claim(
    "herasimchyk2026:u-shape-mechanism",
    statement="At finite depth, causal masking and residual connections induce broad, often U-shaped, "
    "influence profiles (v2's abstract): with the measured λ schedules, masking and residual "
    "connections alone (no ALiBi, no content) give a U in at least a fraction 'often' of the configs.",
    latex=r"\#\{c : U\big(p^{\text{mask+res}}_c(1..L{-}1)\big)\} \ge f\cdot 25,\qquad "
    r"U(p) \iff 1 < v^{*} < 16,\ \min(\bar p_1, \bar p_{16}) \ge c\,\bar p_{v^{*}}",
    expected="qualified",
    section="H3",
    assumptions=("the 25 shipped configs with measured λ (five models, no/mean/per-head content, three "
                 "data sets, L = 256), reference convention; forces added one at a time: masking + "
                 "residual (slopes 0, content 0), + ALiBi, + content",
                 "U: 16 blocks, valley block interior, both end blocks >= c x the valley block (c = 2), "
                 "read without the final token's self-influence; 'often': a fraction >= f = 0.5"),
    needs=("yaml",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, names: Sequence[str] | None = None,
          stage_profiles: Callable[[RolloutConfig], Mapping[str, np.ndarray]] | None = None,
          **thresholds: float) -> Evidence:
    """``names``: the residual configs to decide on (default: all 25); ``stage_profiles``: the
    profile of each stage of a config (default: the rollouts of :func:`stage_configs`), for power
    tests with another world; ``thresholds``: overrides of the rule's thresholds."""
    miss = needs_yaml()
    if miss:
        return miss
    names = list(names) if names is not None else residual_configs()
    t = RULE.values(**thresholds)
    stages: dict[str, list] = {s: [] for s in STAGES}
    for n in names:
        cfg = load_shipped(n, "reference")
        if stage_profiles is not None:
            profiles = stage_profiles(cfg)
        else:  # the config as shipped is the reference profile the U claim reads too
            profiles = {s: c.profile() for s, c in stage_configs(cfg).items() if s != _CONTENT}
            profiles[_CONTENT] = reference_profile(n)
        for s in STAGES:
            p = np.asarray(profiles[s], dtype=float)
            stages[s].append(_stage_row(n, p))
    contrib = _contributions(stages, t)
    figures: dict[str, Any] = {
        "stages": stages,
        "U-shaped by stage (without the final token)": {
            s: f"{sum(stage_u(r, t) for r in stages[s])} of {len(names)}" for s in STAGES},
        "U-shaped by stage (with the final token)": {
            s: f"{sum(_with_final_u(r, t) for r in stages[s])} of {len(names)}" for s in STAGES},
    }
    verdict = RULE.decide(figures, t)
    summary = _summary(contrib, len(names))
    details = {"rule": RULE.text, "what each force contributes": contrib, "summary": summary,
               "sources": {"computed live": len(names) * len(STAGES)}}
    common: dict[str, Any] = dict(
        method="fast ALiBi rollouts (float64, reference convention) of the residual configs with the "
        "forces added one at a time; numerics.shape statistics without and with the final token",
        precision="float64", cases=len(names) * len(STAGES), figures=figures, thresholds=thresholds,
        details=details, setting={"configs": len(names)} if len(names) != 25 else {})
    if verdict == "qualified":
        return Evidence("qualified", **common, correction=(
            "the U needs ALiBi: " + summary))
    if verdict == "refuted":
        return Evidence("refuted", **common, counterexample="no stage is often U-shaped: " + summary)
    return Evidence("verified", **common)
