"""chowdhury2026:peak-valley (C7): at initialization the peak-to-valley influence ratio of the
paper's architectures (Qwen2-0.5B with 24 layers, GPT-2 small) is about 10^2.

The paper's Step-0 experiments (the abstract: "untrained Qwen2 and GPT-2 architectures exhibit
this U-shape at Step 0"; section and figure not confirmed here), as docs/explanation/mathematics.rst C7
states them: peak-to-valley ≈ 10^2 at initialization, at the running example's context of 2048
tokens.

The check reads ``R = max(p(1), p(L)) / min_j p(j)`` of the measured Step-0 influence profiles
(``posbias measure`` at full width; stored runs, live with ``--thorough``) at the paper's running
length, pooled over seeds and samples, with its spread over the per-sample profiles; beside it a
one-seed length scan and the Cesàro rollout with the W1-optimal constant α (float64).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from posbias.numerics import cesaro
from posbias.numerics.shape import shape_with_and_without_final
from posbias.proofs_checks import measured
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.chowdhury2026._step0 import (
    MEASURED_RULES_FIXED,
    Step0Data,
    fmt_g,
    step0_source,
)
from posbias.proofs_checks.measured import Step0Plan
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["BAND", "CARD", "RULE", "check", "decide", "peak_valley_figures"]

#: "≈ 10^2" read as within half a decade
BAND = (10 ** 1.5, 10 ** 2.5)


def decide(f: Mapping, t: Mapping) -> str:
    """C7: every architecture's pooled R and spread inside [band_lo, band_hi] -> verified;
    every architecture's spread entirely outside -> refuted; else qualified."""
    archs = f["architectures"].values()
    lo, hi = t["band_lo"], t["band_hi"]
    inside = [a["spread"][0] >= lo and a["spread"][1] <= hi for a in archs]
    outside = [a["spread"][1] < lo or a["spread"][0] > hi for a in archs]
    if all(inside):
        return "verified"
    if all(outside):
        return "refuted"
    return "qualified"


def _pv(R, lo=None, hi=None, L=2048):
    return {"L": L, "R": R, "spread": [R if lo is None else lo, R if hi is None else hi]}


RULE = Rule(
    text=(
        "R = max(p(1), p(L)) / min_j p(j) of the measured Step-0 influence profile of each of "
        "the paper's architectures (Qwen2-0.5B with 24 layers and GPT-2 small, full width, "
        "`posbias measure`), at the paper's running length: L = 2048 for Qwen2-0.5B and "
        "L = 1024 for GPT-2 small (its 1024 learned positions; the primary length L = 256 "
        "only when no paper-length run is stored). R of the profile pooled over seeds x "
        "samples, and its spread: the range of R over the pooled and the per-sample profiles. "
        "'≈ 10^2' is read as band_lo <= R <= band_hi (half a decade either side). verified: for "
        "every architecture the whole spread lies in the band; refuted: for every architecture "
        "the whole spread lies outside it; qualified: otherwise (the band is met by some "
        "architectures or samples only); needs-data: no stored measurement and no 'models' "
        "extra. The length scan and the Cesàro rollout with the W1-optimal constant α are "
        "shown beside, not used."),
    decide=decide,
    thresholds={
        "band_lo": Threshold(10 ** 1.5, "lower edge of '≈ 10^2' (half a decade below)",
                             sensitive=2.0),
        "band_hi": Threshold(10 ** 2.5, "upper edge of '≈ 10^2' (half a decade above)",
                             sensitive=2.0),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("the paper's figure: R ≈ 10^2 for both architectures",
                {"architectures": {"qwen2-0.5b": _pv(100.0), "gpt2": _pv(100.0, L=1024)}},
                "verified", "paper"),
        Example("no valley: an almost flat profile, R ≈ 3 for both",
                {"architectures": {"qwen2-0.5b": _pv(3.0, 2.5, 3.5),
                                   "gpt2": _pv(3.2, 2.8, 3.9, L=1024)}},
                "refuted", "false"),
        Example("the post-training figure at Step 0: R ≈ 10^3 for both",
                {"architectures": {"qwen2-0.5b": _pv(1200.0, 900.0, 1500.0),
                                   "gpt2": _pv(2000.0, 1500.0, 2600.0, L=1024)}},
                "refuted", "false"),
        Example("measured at the paper's length (Qwen2 ≈ 157 at L = 2048, GPT-2 434 at 1024)",
                {"architectures": {"qwen2-0.5b": _pv(157.0, 140.0, 175.0),
                                   "gpt2": _pv(434.0, 400.0, 470.0, L=1024)}},
                "qualified", "realistic"),
        Example("measured at L = 256 (Qwen2 15, GPT-2 99)",
                {"architectures": {"qwen2-0.5b": _pv(15.2, 12.0, 18.0, L=256),
                                   "gpt2": _pv(99.0, 85.0, 118.0, L=256)}},
                "qualified", "realistic"),
    ),
    fixed=MEASURED_RULES_FIXED,
    deciding=("architectures/*/R", "architectures/*/spread"),
)


CARD = Card(
    paper=Setting(
        "the paper's Step-0 experiments (abstract: 'untrained Qwen2 and GPT-2 architectures "
        "exhibit this U-shape at Step 0'; section and figure not confirmed here), as docs/explanation/mathematics.rst "
        "C7 states them: peak-to-valley ≈ 10^2 at initialization; the running "
        "example's context of 2048 tokens",
        architecture="causal decoder with residuals (Qwen2, GPT-2)",
        models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), residual="on", mask="causal",
        pe=("RoPE (Qwen2)", "learned absolute (GPT-2)"), L=2048, width="full",
        training="none (Step 0, random initialization)",
        measure="input-output Jacobian norm of the final position",
        unconfirmed=("L", "measure")),
    test=Setting(
        "stored `posbias measure` runs (data/step0): Qwen2-0.5B at L = 2048 and GPT-2 small at "
        "L = 1024, seeds 0 and 1, one input each, 8 Rademacher probes",
        architecture="causal decoder with residuals (Qwen2, GPT-2)",
        models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), residual="on", mask="causal",
        pe=("RoPE (Qwen2)", "learned absolute (GPT-2)"), L=(2048, 1024), width="full",
        training="none (Step 0, random initialization)",
        measure="input-output Jacobian norm of the final position"),
    proof=ProofStatus("none", note="an empirical figure of random initializations"),
    differences=("L: GPT-2 small cannot go beyond L = 1024 (its 1024 learned positions), so "
                 "at the paper's running length it is measured at L = 1024; Qwen2-0.5B at "
                 "L = 2048",),
)


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` against ``log x``."""
    lx, ly = np.log(np.asarray(xs, float)), np.log(np.asarray(ys, float))
    lx, ly = lx - lx.mean(), ly - ly.mean()
    return float((lx * ly).sum() / (lx * lx).sum())


def _in_band(r: float, band: tuple[float, float] = BAND) -> bool:
    return band[0] <= r <= band[1]


def peak_valley_figures(data: Step0Data, plan: Step0Plan | None = None) -> dict:
    """Per architecture: the measured peak/valley figures at the decision length (the paper's
    running length when stored, else the primary length: pooled, per seed, per sample), the
    length scan, and the Cesàro route beside them."""
    plan = plan or measured.STEP0_PLAN
    out = {}
    for arch in plan.architectures:
        runs, at_paper = measured.decision_runs(data, arch, plan)
        L0 = runs[0].length
        pooled = measured.pooled_profile(runs)
        pv = measured.peak_valley(pooled)
        R = max(pv["first_over_min"], pv["last_over_min"])
        per_sample = [measured.peak_over_valley(row) for r in runs for row in r.sample_profiles]
        depth = len(runs[0].lambdas)
        alpha, _ = measured.best_constant_alpha(pooled, depth)
        th = measured.peak_valley(cesaro.cesaro_profile(L0, [alpha] * depth))
        scan = []
        for r in measured.scan_runs(data, arch, plan):
            m = measured.peak_valley(r.profile)
            t = measured.peak_valley(cesaro.cesaro_profile(r.length, [alpha] * depth))
            scan.append({"L": r.length, "first_over_min": m["first_over_min"],
                         "last_over_min": m["last_over_min"],
                         "R": max(m["first_over_min"], m["last_over_min"]), "argmin": m["argmin"],
                         "theory_R": max(t["first_over_min"], t["last_over_min"]),
                         "theory_first_over_min": t["first_over_min"],
                         "theory_last_over_min": t["last_over_min"]})
        Ls = [s["L"] for s in scan]
        slopes = {"R": _slope(Ls, [s["R"] for s in scan]),
                  "first_over_min": _slope(Ls, [s["first_over_min"] for s in scan]),
                  "last_over_min": _slope(Ls, [s["last_over_min"] for s in scan]),
                  "theory_R": _slope(Ls, [s["theory_R"] for s in scan])}
        band_lengths = [s["L"] for s in scan if _in_band(s["R"])]
        # the same without the final token's self-influence (numerics.shape: p(1..L-1))
        wo = shape_with_and_without_final(pooled)["without"]
        wo_samples = [shape_with_and_without_final(row)["without"].peak_valley
                      for r in runs for row in r.sample_profiles]
        without_final = {
            "R": wo.peak_valley, "first_over_min": wo.first_over_min,
            "last_over_min": wo.last_over_min, "argmin": wo.argmin,
            "spread": [min([*wo_samples, wo.peak_valley]), max([*wo_samples, wo.peak_valley])],
            "last_atom_with_final": shape_with_and_without_final(pooled)["with"].last_atom}
        out[arch] = {
            "layers": depth, "L": L0, "paper_length": at_paper, "R": R,
            "first_over_min": pv["first_over_min"], "last_over_min": pv["last_over_min"],
            "argmin": pv["argmin"], "spread": [min([*per_sample, R]), max([*per_sample, R])],
            "per_seed": {str(r.seed): measured.peak_over_valley(r.profile) for r in runs},
            "per_sample": per_sample,
            "theory_alpha": alpha, "theory_R": max(th["first_over_min"], th["last_over_min"]),
            "theory_first_over_min": th["first_over_min"],
            "theory_last_over_min": th["last_over_min"],
            "scan": scan, "slopes": slopes, "band_lengths": band_lengths,
            "without_final": without_final,
        }
    return out


def _without_final_words(w: Mapping) -> str:
    """An architecture's pooled R without the final token, in words."""
    return (f"without the final token (p(L)/p(L-1) = {fmt_g(w['last_atom_with_final'])} with "
            f"it) R = {fmt_g(w['R'])} (first/min {fmt_g(w['first_over_min'])}, last/min "
            f"{fmt_g(w['last_over_min'])}, minimum at {w['argmin']}; spread "
            f"{fmt_g(w['spread'][0])} .. {fmt_g(w['spread'][1])})")


def _lengths_setting(figs: dict) -> dict:
    """The test setting's L (one value per architecture) and the seeds/samples of the runs."""
    Ls = tuple(dict.fromkeys(int(f["L"]) for f in figs.values()))
    return {"L": Ls if len(Ls) > 1 else Ls[0]}


@claim(
    "chowdhury2026:peak-valley",
    statement="At initialization the peak-to-valley influence ratio of the paper's "
    "architectures (Qwen2-0.5B with 24 layers, GPT-2 small) is about 10^2.",
    latex=r"R=\frac{\max(p(1),p(L))}{\min_j p(j)}\approx 10^{2}",
    expected="qualified",
    section="2 (C7)",
    assumptions=("Step-0 profiles measured with `posbias measure` at full width at the paper's "
                 "running length (stored runs; live with --thorough)",
                 "≈ 10^2 read as within half a decade, [10^1.5, 10^2.5]"),
    needs=("models or stored Step-0 measurement",),
    rule=RULE,
    card=CARD,
    thorough_work=measured.step0_thorough_work,
)
def check(ctx: CheckContext, data: Step0Data | None = None) -> Evidence:
    """C7 at initialization: decided on the measured Step-0 profiles (see RULE)."""
    data = data if data is not None else measured.step0_data(ctx)
    method = ("peak/valley of measured Step-0 Jacobian profiles (posbias measure, full width) "
              "at the paper's running length with their spread over seeds and samples and a "
              "one-seed length scan; float64 Cesàro rollout with the fitted constant α beside")
    if data is None:
        return Evidence("needs-data", method=f"{method}: {measured.STEP0_MISSING}", rule=RULE.text)
    figs = peak_valley_figures(data)
    figures = {"architectures": {a: {"L": f["L"], "R": float(f"{f['R']:.4g}"),
                                     "spread": [float(f"{x:.4g}") for x in f["spread"]]}
                                 for a, f in figs.items()}}
    decision = RULE.apply(figures)
    verdict = decision.verdict
    # the same rule on R without the final token: does that one token decide?
    without = {"architectures": {
        a: {"L": f["L"], "R": float(f"{f['without_final']['R']:.4g}"),
            "spread": [float(f"{x:.4g}") for x in f["without_final"]["spread"]]}
        for a, f in figs.items()}}
    v_without = RULE.decide(without, RULE.values())
    final = {"verdict_with_final": verdict, "verdict_without_final": v_without,
             "decided_by_final_token": v_without != verdict, "figures_without_final": without}
    lines = []
    for a, f in figs.items():
        scan = ", ".join(f"L = {s['L']}: {fmt_g(s['R'])} (first/min {fmt_g(s['first_over_min'])}, "
                         f"last/min {fmt_g(s['last_over_min'])}; Cesàro {fmt_g(s['theory_R'])})"
                         for s in f["scan"])
        peak = "last" if f["last_over_min"] >= f["first_over_min"] else "first"
        where = "the paper's running length" if f["paper_length"] else "the primary length"
        lines.append(
            f"{a} ({f['layers']} layers): at L = {f['L']} ({where}) R = {fmt_g(f['R'])} = 10^"
            f"{math.log10(f['R']):.2f} (the {peak} token is the peak: first/min "
            f"{fmt_g(f['first_over_min'])}, last/min {fmt_g(f['last_over_min'])}; spread over seeds x "
            f"samples {fmt_g(f['spread'][0])} .. {fmt_g(f['spread'][1])}; Cesàro with α = "
            f"{f['theory_alpha']:.3g}: {fmt_g(f['theory_R'])}); length scan {scan}; R grows like "
            f"L^{f['slopes']['R']:.2f} (first/min L^{f['slopes']['first_over_min']:.2f}, last/min "
            f"L^{f['slopes']['last_over_min']:.2f}; Cesàro L^{f['slopes']['theory_R']:.2f}); "
            + _without_final_words(f["without_final"]))
    text = "; ".join(lines)
    if final["decided_by_final_token"]:
        text += (f"; the final token alone decides: {verdict} with it, {v_without} without "
                 "it")
    ev: dict[str, Any] = dict(method=method, rule=RULE.text,
              precision="float32 measurements (probe estimates); float64 Cesàro rollouts",
              tolerance="band [10^1.5, 10^2.5] around 10^2",
              cases=sum(len(f["per_sample"]) + len(f["scan"]) for f in figs.values()),
              parameters=measured.STEP0_PLAN.protocol(), figures=figures,
              setting=_lengths_setting(figs),
              details={"architectures": {a: dict(f) for a, f in figs.items()},
                       "final_token": final,
                       "source": step0_source(data)})
    if verdict == "verified":
        return Evidence(verdict, discrepancy=text, **ev)
    if verdict == "refuted":
        return Evidence(verdict, counterexample=text, **ev)
    held = [a for a, f in figures["architectures"].items()
            if _in_band(f["spread"][0]) and _in_band(f["spread"][1])]
    at = ", ".join(f"{a} at L = {f['L']}" for a, f in figs.items())
    lead = (f"≈ 10^2 holds ({at}) for {', '.join(held)} only" if held else
            f"≈ 10^2 holds ({at}) for no architecture with all its samples")
    depends = [a for a, f in figs.items() if f["band_lengths"] and
               len(f["band_lengths"]) < len(f["scan"])]
    if depends:
        lead += ("; the ratio is a property of the context length as much as of the architecture "
                 f"(in the band only at some lengths for {', '.join(depends)})")
    return Evidence(verdict, correction=lead + ": " + text, **ev)
