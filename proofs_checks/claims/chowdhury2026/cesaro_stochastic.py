"""chowdhury2026:cesaro-stochastic (C1): at initialization q·k ≈ 0, so causal softmax attention
is the Cesàro matrix M, and ``N = (1-α)I + αM`` and its powers are causal and row-stochastic.

The paper's model section (the abstract: "multi-layer causal attention as iterated powers of the
Cesàro matrix"; section number not confirmed here), on the paper's architectures at
initialization (Qwen2-0.5B with 24 layers, GPT-2 small, at full width).

The check has an exact part and a measured one.  Exact (Fractions): the softmax of zero logits
is the Cesàro row 1/i, and ``N^H`` is causal and row-stochastic on a grid of L, α and H.
Measured: the premise q·k ≈ 0 read on the kernel the theory uses, the attention averaged over
random inputs and heads (herasimchyk2026's dataset-averaged A(t)): the total-variation
distance of each layer's averaged kernel from the Cesàro rows, stored by ``posbias measure
--kernel-inputs`` (live with ``--thorough``), with the per-input, per-head distance as the
spread.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from posbias.numerics import kernels
from posbias.proofs_checks import measured
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.chowdhury2026._step0 import (
    MEASURED_RULES_FIXED,
    Step0Data,
    fmt_g,
    fmt_g_range,
    step0_source,
)
from posbias.proofs_checks.measured import Step0Plan, fmt3
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = [
    "CARD",
    "RULE",
    "TV_FAR",
    "TV_NEAR",
    "check",
    "decide",
    "kernel_tv_from_cesaro",
    "measured_attention_tv",
]

#: mean total-variation distance of a layer's averaged attention rows from the Cesàro rows
TV_NEAR = 0.05  # at most 5% of each row's mass placed differently from uniform: "A ≈ M"
TV_FAR = 0.2  # a fifth of the mass placed differently, systematically: attention is not uniform


def decide(f: Mapping, t: Mapping) -> str:
    """C1: the exact part failing refutes; else the largest averaged-kernel TV over the
    architectures decides (<= tv_near verified, > tv_far refuted, qualified between)."""
    if f["exact_part"] != "holds":
        return "refuted"
    worst = max(a["kernel_tv_max"] for a in f["architectures"].values())
    if worst <= t["tv_near"]:
        return "verified"
    if worst > t["tv_far"]:
        return "refuted"
    return "qualified"


def _c1(kernel, lo, hi, L=2048, inputs=4, heads=14):
    return {"L": L, "inputs": inputs, "heads": heads, "kernel_tv_max": kernel,
            "per_instance_tv": [lo, hi]}


RULE = Rule(
    text=(
        "Exact part: the softmax of zero logits equals the Cesàro row 1/i and N^H is causal and "
        "row-stochastic (exact Fractions; any failure: refuted). Premise 'q·k ≈ 0 at "
        "initialization', read on the kernel the theory uses: the attention averaged over "
        "random inputs and over heads (herasimchyk2026's dataset-averaged A(t)). For each of the "
        "paper's architectures (Qwen2-0.5B, GPT-2 small; full width, at the paper's running "
        "length, every seed) `posbias measure --kernel-inputs n` stores per layer the mean "
        "total-variation distance TV_t of the averaged kernel's rows from the Cesàro rows; "
        "the per-input, per-head distance (dominated by zero-mean noise that the average "
        "removes) is reported as the spread, not decided on. verified: every TV_t <= tv_near "
        "(at most that share of a row's mass placed differently from uniform); refuted: some "
        "TV_t > tv_far; qualified otherwise (A = M only up to the measured TV_t, which the "
        "correction prints); needs-data: no stored averaged kernel and no 'models' extra."),
    decide=decide,
    thresholds={
        "tv_near": Threshold(TV_NEAR, "largest averaged-kernel TV from Cesàro read as A ≈ M",
                             sensitive=2.0),
        "tv_far": Threshold(TV_FAR, "averaged-kernel TV beyond which attention is not uniform",
                            sensitive=2.0),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("A = M exactly (q·k = 0): TV 0", {"exact_part": "holds", "architectures": {
            "qwen2-0.5b": _c1(0.0, 0.0, 0.0), "gpt2": _c1(0.0, 0.0, 0.0, 1024, 16, 12)}},
            "verified", "realistic"),
        Example("measured averaged kernels (TV 0.007-0.019 over 16 inputs and heads)",
                {"exact_part": "holds", "architectures": {
                    "qwen2-0.5b": _c1(0.019, 0.11, 0.14), "gpt2": _c1(0.009, 0.08, 0.12, 1024, 16, 12)}},
                "verified", "realistic"),
        Example("the per-input, per-head attention taken as the kernel (TV 0.08-0.14)",
                {"exact_part": "holds", "architectures": {
                    "qwen2-0.5b": _c1(0.14, 0.11, 0.14, 2048, 1, 1),
                    "gpt2": _c1(0.12, 0.08, 0.12, 1024, 1, 1)}},
                "qualified", "realistic"),
        Example("an ALiBi-like decaying kernel (slope 8/L): far from Cesàro",
                {"exact_part": "holds", "architectures": {
                    "qwen2-0.5b": _c1(0.55, 0.55, 0.6), "gpt2": _c1(0.5, 0.5, 0.55, 1024, 16, 12)}},
                "refuted", "false"),
        Example("a content-biased average (a 30% attention sink on the first token)",
                {"exact_part": "holds", "architectures": {
                    "qwen2-0.5b": _c1(0.3, 0.3, 0.35), "gpt2": _c1(0.012, 0.08, 0.12, 1024, 16, 12)}},
                "refuted", "false"),
        Example("N^H not row-stochastic (a leaking rollout)", {"exact_part": "fails: N^H row 3",
                                                               "architectures": {}},
                "refuted", "false"),
    ),
    fixed=MEASURED_RULES_FIXED,
    deciding=("architectures/*/kernel_tv_max",),
    no_paper_figures="the paper reports no distance of the Step-0 attention from Cesàro: it "
    "states q·k ≈ 0, hence A = M",
)

CARD = Card(
    paper=Setting(
        "the paper's model section (abstract: 'multi-layer causal attention as iterated powers "
        "of the Cesàro matrix'; section number not confirmed here), as docs/explanation/mathematics.rst C1 "
        "states it: q·k ≈ 0 at initialization, so causal attention is the Cesàro matrix; "
        "herasimchyk2026 defines the kernel as the dataset-averaged attention",
        architecture="causal decoder with residuals (Qwen2, GPT-2)",
        models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), mask="causal",
        kernel="attention averaged over the data and heads", L=2048, width="full",
        training="none (Step 0, random initialization)",
        unconfirmed=("kernel", "L")),
    test=Setting(
        "exact Fractions for the identities; stored `posbias measure --kernel-inputs` runs "
        "(data/step0): Qwen2-0.5B at L = 2048 (4 inputs per seed), GPT-2 small at L = 1024 "
        "(16 inputs per seed), seeds 0 and 1",
        architecture="causal decoder with residuals (Qwen2, GPT-2)",
        models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), mask="causal",
        kernel="attention averaged over the data and heads", L=(2048, 1024), width="full",
        training="none (Step 0, random initialization)"),
    proof=ProofStatus("all", note="the exact part (softmax of zero logits, N^H stochastic) is "
                      "an identity; the premise q·k ≈ 0 is measured"),
    differences=("L: GPT-2 small is measured at L = 1024, its maximum context (1024 learned "
                 "positions); Qwen2-0.5B at the running length 2048",
                 "data: random token ids over the full vocabulary stand for the data the "
                 "kernel is averaged over (4 inputs per seed for Qwen2-0.5B at L = 2048, 16 for "
                 "GPT-2 small)"),
)


def kernel_tv_from_cesaro(A: np.ndarray) -> float:
    """Mean over rows ``i`` of ``(1/2) sum_j |A[i,j] - 1/i|``: the total-variation distance of a
    causal kernel ``A`` (``L x L``, rows summing to 1) from the Cesàro matrix, the figure
    ``posbias measure --kernel-inputs`` stores per layer for the averaged attention.

    >>> from posbias.numerics.kernels import uniform_causal_kernel
    >>> kernel_tv_from_cesaro(uniform_causal_kernel(8))
    0.0
    """
    A = np.asarray(A, dtype=float)
    L = A.shape[0]
    M = np.tril(np.ones((L, L))) / np.arange(1, L + 1)[:, None]
    return float(0.5 * np.abs(A - M).sum(axis=1).mean())


def _exact_part(ctx: CheckContext) -> tuple:
    """(counterexample or None, cases, worst row-sum deviation, parameters) of the exact part."""
    cases = 0
    worst = Fraction(0)
    # softmax of zero logits over the causal positions, computed from exp(0) = 1 exactly
    for L in (1, 2, 5, 17):
        for i in range(1, L + 1):
            weights = [Fraction(1)] * i  # exp(0)
            row = [w / sum(weights) for w in weights]
            if row != kernels.uniform_causal_kernel_exact(L)[i - 1][:i]:
                return f"softmax of zero logits, L={L}, row {i}", cases, worst, {}
            cases += 1
    lengths = (1, 2, 3, 8, 13) if not ctx.thorough else (1, 2, 3, 8, 13, 24)
    for L in lengths:
        M = kernels.uniform_causal_kernel_exact(L)
        for alpha in (Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(1)):
            for H in (0, 1, 2, 5):
                P = kernels.rollout_matrix_exact(M, [alpha] * H)
                for i, row in enumerate(P):
                    dev = abs(sum(row) - 1)
                    worst = max(worst, dev)
                    if dev != 0 or any(v < 0 for v in row) or any(row[i + 1:]):
                        return f"N^H, L={L}, α={alpha}, H={H}, row {i + 1}: {row}", cases, worst, {}
                cases += 1
    params = {"lengths": list(lengths), "alphas": ["0", "1/3", "1/2", "1"], "depths": [0, 1, 2, 5]}
    return None, cases, worst, params


def measured_attention_tv(data: Step0Data, plan: Step0Plan | None = None) -> dict:
    """Per architecture, at the paper's running length when stored (else any length whose
    runs carry an averaged kernel): the TV distance of each layer's averaged kernel (over the
    kernel inputs and heads) from the Cesàro rows, per seed and its maximum, with the per-input,
    per-head distance as the spread and the noise diagnostics (the expected noise level
    ``spread / sqrt(inputs x heads)`` and the ratio of the half-input average to the full one,
    about sqrt(2) for zero-mean noise).  Architectures with no averaged kernel are left out."""
    plan = plan or measured.STEP0_PLAN
    out = {}
    for arch in plan.architectures:
        runs, _ = measured.decision_runs(data, arch, plan)
        if any(r.kernel_tv is None for r in runs):
            runs = [r for r in data.values() if r.arch == arch and r.kernel_tv is not None]
            if not runs:
                continue
            L = max(r.length for r in runs)
            runs = [r for r in runs if r.length == L]
        stack = np.array([r.kernel_tv for r in runs])
        per_run = [r.attention_tv if r.attention_tv is not None else r.kernel_instance_tv
                   for r in runs]
        inst = (np.array([v for v in per_run if v is not None]) if any(v is not None for v in per_run)
                else None)
        heads = runs[0].heads or 1
        n = min(r.kernel_inputs for r in runs)
        half = [r.kernel_tv_half for r in runs if r.kernel_tv_half is not None]
        out[arch] = {
            "L": int(runs[0].length), "inputs": int(n), "heads": int(heads),
            "seeds": [r.seed for r in runs], "layers": int(stack.shape[1]),
            "kernel_tv_max": float(f"{stack.max():.3g}"),
            "kernel_tv_min": float(f"{stack.min():.3g}"),
            "per_seed": {str(r.seed): [float(f"{v:.3g}") for v in r.kernel_tv] for r in runs},
            "per_instance_tv": (None if inst is None else
                                [float(f"{inst.min():.3g}"), float(f"{inst.max():.3g}")]),
            "noise_level": (None if inst is None else
                            float(f"{inst.max() / math.sqrt(n * heads):.3g}")),
            "half_over_all": (None if not half else float(f"{np.mean(np.array(half) / stack):.3g}")),
        }
    return out


def _shown(tv: Mapping[str, Mapping]) -> str:
    """The measured premise in words, per architecture."""
    return "; ".join(
        f"{a} at L = {v['L']}: averaged over {v['inputs']} inputs and {v['heads']} heads, TV "
        f"{fmt3(v['kernel_tv_min'])} .. {fmt3(v['kernel_tv_max'])} over {v['layers']} layers "
        f"(per input and head {fmt_g_range(v['per_instance_tv'])}; zero-mean noise alone would "
        f"leave about {fmt_g(v['noise_level'])}; half the inputs give "
        f"{fmt_g(v['half_over_all'])} x the full average's TV)" for a, v in tv.items())


def _setting(tv: Mapping[str, Mapping]) -> dict:
    """The test setting of the measured premise: lengths, models and samples of the runs."""
    Ls = tuple(dict.fromkeys(v["L"] for v in tv.values()))
    names = {"qwen2-0.5b": "Qwen2-0.5B (24 layers)", "gpt2": "GPT-2 small"}
    models = tuple(names.get(a, a) for a in tv)
    return {"L": Ls if len(Ls) > 1 else Ls[0],
            "models": models if len(models) > 1 else models[0],
            "samples": "; ".join(f"{v['inputs']} inputs per seed, seeds "
                                 f"{', '.join(str(x) for x in v['seeds'])} ({a})"
                                 for a, v in tv.items())}


@claim(
    "chowdhury2026:cesaro-stochastic",
    statement="At initialization q·k ≈ 0, so causal softmax attention is the Cesàro matrix M "
    "(softmax of zero logits is 1/i), and (1-α)I + αM and its powers are causal and "
    "row-stochastic.",
    latex=r"q\cdot k\approx 0\ \Rightarrow\ \operatorname{softmax}_{j\le i}(0) = \tfrac{1}{i},\quad "
    r"N=(1-\alpha)I+\alpha M,\quad N^H\mathbf{1}=\mathbf{1},\ (N^H)_{ij}=0\ (j>i)",
    expected="verified",
    section="2 (C1)",
    assumptions=("the premise is measured on randomly initialized Qwen2-0.5B and GPT-2 small, on "
                 "the attention averaged over random inputs and heads (stored `posbias measure "
                 "--kernel-inputs` runs; live with --thorough)",),
    needs=("models or stored Step-0 measurement",),
    rule=RULE,
    card=CARD,
    thorough_work=measured.step0_thorough_work,
)
def check(ctx: CheckContext, data: Step0Data | None = None) -> Evidence:
    """C1: the exact consequences of ``q·k = 0`` and the measured premise on the averaged
    kernel (see RULE); ``data`` replaces the Step-0 runs (default: stored, or live with
    ``--thorough``)."""
    bad, cases, worst, params = _exact_part(ctx)
    method = ("exact softmax of zero logits and exact L x L products of N (Fractions); measured "
              "total-variation distance from Cesàro of the attention averaged over random inputs "
              "and heads, per layer (posbias measure --kernel-inputs)")
    if bad:
        figures = {"exact_part": f"fails: {bad}", "architectures": {}}
        return Evidence(RULE.decide(figures, RULE.values()), method=method,
                        counterexample=bad, rule=RULE.text, figures=figures)
    data = data if data is not None else measured.step0_data(ctx)
    tv = measured_attention_tv(data) if data is not None else {}
    common: dict[str, Any] = dict(method=method, precision="exact (identities); float32 (measured attention)",
                                  cases=cases, rule=RULE.text, parameters=params)
    if not tv or data is None:  # no data gives no tv
        return Evidence("needs-data", discrepancy="exact part: 0 (exact); premise not measured "
                        "(needs a stored Step-0 measurement with an averaged kernel, `posbias "
                        "measure --kernel-inputs N`, or the 'models' extra)", **common)
    figures = {"exact_part": "holds",
               "architectures": {a: {k: v[k] for k in ("L", "inputs", "heads", "kernel_tv_max",
                                                        "per_instance_tv")}
                                 for a, v in tv.items()}}
    verdict = RULE.apply(figures).verdict
    hi = max(v["kernel_tv_max"] for v in tv.values())
    lo = min(v["kernel_tv_min"] for v in tv.values())
    shown = _shown(tv)
    details: dict[str, Any] = {"attention_tv": tv, "exact_part": {"cases": cases, "worst_row_sum_deviation": str(worst)},
                               "source": step0_source(data)}
    correction = None
    if verdict == "qualified":
        correction = (f"q·k is not ≈ 0 to the precision the identity A = M suggests: at "
                      f"initialization the averaged attention rows are {fmt3(lo)} .. {fmt3(hi)} "
                      f"from the Cesàro rows in total variation per layer ({shown}); the exact "
                      "results hold for the Cesàro model, the architectures are that model up to "
                      "this per-layer distance")
    missing = [a for a in measured.STEP0_PLAN.architectures if a not in tv]
    if missing:
        details["not_measured"] = missing
        shown += "; no averaged kernel stored for " + ", ".join(missing)
    return Evidence(verdict, discrepancy=f"exact part 0 (exact); measured premise: {shown}",
                    tolerance=f"averaged-kernel TV <= {TV_NEAR} per layer (verified), > "
                    f"{TV_FAR} (refuted)", correction=correction,
                    counterexample=(f"averaged attention far from uniform: {shown}"
                                    if verdict == "refuted" else None),
                    figures=figures, details=details, setting=_setting(tv), **common)
