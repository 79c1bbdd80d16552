"""chowdhury2026:rope-init (C8): RoPE is irrelevant at initialization: with isotropic Gaussian
queries and keys a rotation does not change the law of ``q^T R k``, and the measured Step-0
influence profiles of Qwen2-0.5B (24 layers) with and without RoPE agree (Spearman 0.99).

The abstract ("identical with or without RoPE") and the paper's Step-0 experiments (section and
figure not confirmed here), as docs/explanation/mathematics.rst C8 states them: Qwen2-0.5B at full width,
randomly initialized.

Two halves.  The score law (also claim ``posbias:rope-score-law``, which reads
:func:`rope_law_check`): RoPE rotations orthogonal and the score covariance and characteristic
function unchanged (the sympy derivation ``rope-init``), and a seeded Monte Carlo two-sample KS
test with a moment comparison.  The measurement: the Spearman correlation of the Step-0
influence profiles of Qwen2-0.5B with RoPE on and patched to the identity (``posbias measure
--rope both``; stored, live with ``--thorough``), read against the probe-noise floor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import ks_2samp

from posbias.proofs_checks import measured
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import (
    derivation_by_name,
    latex_of_derivation,
    symbolic_summary,
)
from posbias.proofs_checks.claims.chowdhury2026._step0 import (
    Step0Data,
    fmt_g,
    rope_measured_figures,
    step0_source,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = [
    "CARD",
    "ROPE_CLAIMED",
    "ROPE_FAR",
    "ROPE_LAW_RULE",
    "ROPE_RULE_FIXED",
    "ROPE_WITHIN",
    "RULE",
    "RopeTransform",
    "check",
    "decide",
    "ks_two_sample",
    "rope_law_check",
    "rope_monte_carlo",
]

#: a replacement of the RoPE rotation: ``transform(k, rng)`` rotates the keys ``k`` (n x dim)
RopeTransform = Callable[[np.ndarray, np.random.Generator], np.ndarray]

#: the paper's Spearman (reported beside the rule: a rank statistic with no rival decides nothing)
ROPE_CLAIMED = 0.99
#: RoPE's W1 at most this multiple of the noise floor verifies, beyond ROPE_FAR times it refutes
ROPE_WITHIN = 1.0
ROPE_FAR = 3.0
#: the date the noise-floor rule was fixed, before the input-floor run it reads was measured
ROPE_RULE_FIXED = "2026-12-04"


def decide(f: Mapping, t: Mapping) -> str:
    """C8: the score law failing refutes, an open identity is inconclusive; then RoPE's W1
    against the noise floor of inputs and weights: within it verifies, beyond far times it
    refutes, between qualifies; probe noise as large as the floor is inconclusive."""
    if f["score_law"] == "refuted":
        return "refuted"
    if f["score_law"] != "verified" or f["probe_w1"] >= f["floor_w1"]:
        return "inconclusive"
    if f["w1"] <= t["within"] * f["floor_w1"]:
        return "verified"
    if f["w1"] > t["far"] * f["floor_w1"]:
        return "refuted"
    return "qualified"


def _rp(w1, floor=0.006, probe=0.0004, law="verified", L=256):
    return {"score_law": law, "w1": w1, "floor_w1": floor, "probe_w1": probe, "L": L}


RULE = Rule(
    text=(
        "Score-law half (posbias:rope-score-law): RoPE rotations orthogonal (sympy) and q^T R k "
        "equal in law to q^T k (Monte Carlo KS and moments). Measured half: the Step-0 influence "
        "profiles of Qwen2-0.5B (24 layers, full width 896, head dimension 64) with RoPE on and "
        "patched to the identity, same weights, inputs and seed (`posbias measure --rope both`), "
        "pooled over the run's inputs; w1 = their normalized Wasserstein-1 distance, judged "
        "against the noise floor floor_w1: the smallest W1 between two RoPE-on profiles pooled "
        "over as many inputs that differ in nothing RoPE touches (the same weights with two "
        "other inputs, from the input-floor run; another seed: other weights and inputs); "
        "probe_w1 = the W1 of two estimates of the same profile with independent probes. "
        "Spearman is reported beside with the same floor, not used: it cannot tell profiles "
        "apart that rank alike (the Cesàro rollouts at α = 0.07 and 0.13 have Spearman "
        "0.999996 and W1 0.23). needs-data: no stored or live measurement, or no input-floor "
        "run; refuted: the score law fails, or w1 > far x floor_w1 (RoPE moves the profile "
        "well beyond what another input or seed does); inconclusive: a symbolic identity does "
        "not close, or probe_w1 >= floor_w1 (probe noise as large as the floor: raise "
        "--probes); verified: w1 <= within x floor_w1 (RoPE changes the profile no more than "
        "another input or seed of the same protocol does); qualified: otherwise (the "
        "correction gives w1 and every pair of the floor)."),
    decide=decide,
    thresholds={
        "within": Threshold(ROPE_WITHIN, "RoPE's W1 at most this multiple of the noise floor",
                            sensitive=1.5),
        "far": Threshold(ROPE_FAR, "RoPE's W1 beyond this multiple of the noise floor refutes",
                         sensitive=1.5),
    },
    outcomes=("verified", "qualified", "refuted", "inconclusive"),
    examples=(
        Example("RoPE changes the profile less than another pair of inputs does: W1 0.004 "
                "against a floor 0.006", _rp(0.004), "verified", "realistic"),
        Example("false: on and off differ as the Cesàro rollouts at α = 0.07 and 0.13 do "
                "(Spearman 0.999996, W1 0.23) against a floor 0.006", _rp(0.226), "refuted",
                "false"),
        Example("RoPE moves the profile twice as far as another input does", _rp(0.012),
                "qualified", "realistic"),
        Example("false: a rotation that is not orthogonal: the score law fails",
                _rp(0.001, law="refuted"), "refuted", "false"),
        Example("too few probes: probe noise as large as the floor", _rp(0.004, probe=0.007),
                "inconclusive", "realistic"),
    ),
    fixed=ROPE_RULE_FIXED,
    deciding=("w1", "floor_w1", "probe_w1"),
    no_paper_figures="the paper's figure is a Spearman (0.99) with no distance and no noise "
    "floor; the rule reports it beside and decides on W1 against the floor",
)


CARD = Card(
    paper=Setting(
        "the abstract ('identical with or without RoPE') and the paper's Step-0 experiments "
        "(section and figure not confirmed here), as docs/explanation/mathematics.rst C8 states them from "
        "third-party summaries: Spearman 0.99 between Step-0 profiles of Qwen2-0.5B with and "
        "without RoPE; the model size, length, width, measure and the figure 0.99 are not read "
        "from the paper",
        architecture="Qwen2 (causal decoder with residuals)", models="Qwen2-0.5B (24 layers)",
        residual="on", mask="causal", pe="RoPE on vs off", L=2048, width="full",
        training="none (Step 0, random initialization)",
        measure="input-output Jacobian norm of the final position",
        unconfirmed=("models", "L", "width", "measure")),
    test=Setting(
        "sympy and Monte Carlo for the score law; the stored `posbias measure --rope both` run "
        "of Qwen2-0.5B (L = 256, 2 inputs, seed 0, 8 Rademacher probes, a second RoPE-on "
        "estimate with independent probes for the probe noise); W1 on vs off against the noise "
        "floor of the stored 4-input run of the same weights (inputs 1-2 vs 3-4) and of seed 1",
        architecture="Qwen2 (causal decoder with residuals)", models="Qwen2-0.5B (24 layers)",
        residual="on", mask="causal", pe="RoPE on vs off", L=256, width="full",
        training="none (Step 0, random initialization)",
        measure="input-output Jacobian norm of the final position"),
    proof=ProofStatus("range", "head dimensions d = 2, 4, 6 (the sympy derivation of the score "
                      "law for isotropic Gaussian q, k; Monte Carlo at d = 64)",
                      note="the measured agreement is empirical"),
)


def ks_two_sample(a: ArrayLike, b: ArrayLike) -> float:
    """Two-sample Kolmogorov-Smirnov statistic ``sup |F_a - F_b|`` (``scipy.stats.ks_2samp``).

    >>> ks_two_sample([0.0, 1.0, 2.0], [0.0, 1.0, 2.0])
    0.0
    """
    return float(ks_2samp(np.asarray(a, dtype=float), np.asarray(b, dtype=float)).statistic)


def rope_monte_carlo(seed: int, samples: int = 20000, dim: int = 64,
                     transform: RopeTransform | None = None) -> dict:
    """Monte Carlo comparison of the laws of ``q^T k`` and ``q^T R k``.

    ``q, k ~ N(0, I_dim)`` independent; ``R`` block-diagonal with random angles drawn per sample
    (as RoPE does per position pair).  ``transform(k, rng)`` replaces the rotation (tests pass a
    non-orthogonal map to see the check fail).  Two independent sample sets are drawn so that the
    two-sample KS test decides at level 1e-3 (scipy's p-value, exact for these sizes where
    available, else the asymptotic Kolmogorov law); the asymptotic critical value
    ``c(a) sqrt((n+m)/(n m))``, ``c(a) = sqrt(-ln(a/2)/2)``, is reported beside it.
    """
    rng = np.random.default_rng(seed)
    half = dim // 2

    def rotate(k, rng):
        theta = rng.uniform(0.0, 2 * np.pi, size=(k.shape[0], half))
        c, s = np.cos(theta), np.sin(theta)
        k1, k2 = k[:, 0::2], k[:, 1::2]
        out = np.empty_like(k)
        out[:, 0::2] = c * k1 - s * k2
        out[:, 1::2] = s * k1 + c * k2
        return out

    transform = transform or rotate
    q1, k1 = rng.standard_normal((samples, dim)), rng.standard_normal((samples, dim))
    q2, k2 = rng.standard_normal((samples, dim)), rng.standard_normal((samples, dim))
    plain = np.einsum("ij,ij->i", q1, k1)
    rotated = np.einsum("ij,ij->i", q2, transform(k2, rng))
    level = 1e-3
    crit = float(np.sqrt(-np.log(level / 2) / 2) * np.sqrt(2.0 / samples))
    test = ks_2samp(plain, rotated)
    ks, p_value = float(test.statistic), float(test.pvalue)
    # moments: variance dim for both (q^T k is a sum of dim products of unit normals, variance 1
    # each); standard error of a sample variance of this law is sqrt(Var(Z^2)/n) with
    # E[Z^4] = 3 dim^2 + 6 dim for Z = q^T k, so Var(Z^2) = 2 dim^2 + 6 dim
    se_var = float(np.sqrt((2 * dim**2 + 6 * dim) / samples))
    var_p, var_r = float(plain.var()), float(rotated.var())
    moments_ok = abs(var_p - var_r) <= 5 * np.sqrt(2) * se_var and abs(plain.mean() - rotated.mean()) <= 5 * np.sqrt(2 * dim / samples)
    return {
        "samples": samples,
        "dim": dim,
        "ks": ks,
        "ks_critical": crit,
        "ks_p_value": p_value,
        "ks_ok": p_value >= level,
        "var_plain": var_p,
        "var_rotated": var_r,
        "var_expected": float(dim),
        "mean_plain": float(plain.mean()),
        "mean_rotated": float(rotated.mean()),
        "moments_ok": bool(moments_ok),
    }


#: the rule of the score-law half (a text: the half is decided by its own claim's rule)
ROPE_LAW_RULE = (
    "verified: every sympy identity (orthogonality for d = 2, 4, 6, equal score variance, equal "
    "characteristic function) closes and the Monte Carlo scores pass the two-sample KS test at "
    "level 1e-3 with variances within 5 standard errors; refuted: the Monte Carlo test fails; "
    "inconclusive: an identity does not close."
)


def rope_law_check(ctx: CheckContext, transform: RopeTransform | None = None) -> Evidence:
    """The score-law half of C8 (claim ``posbias:rope-score-law``): symbolic orthogonality,
    covariance and characteristic function, and a seeded Monte Carlo two-sample KS test with a
    moment comparison.  ``transform(k, rng)`` replaces the rotation (tests pass a
    non-orthogonal map to see the check fail)."""
    d = derivation_by_name("rope-init")
    mc = rope_monte_carlo(ctx.seed, 40000 if ctx.thorough else 20000, 64, transform)
    mc_ok = mc["ks_ok"] and mc["moments_ok"]
    if not mc_ok:
        verdict = "refuted"
    elif not d.proven:
        verdict = "inconclusive"
    else:
        verdict = "verified"
    return Evidence(
        verdict,
        method="sympy orthogonality and score covariance for d = 2, 4, 6; numpy Monte Carlo "
        "(seeded) two-sample KS at level 1e-3 and variance comparison",
        discrepancy=f"KS {mc['ks']:.3g} (critical {mc['ks_critical']:.3g})",
        precision="exact (symbolic); float64 (Monte Carlo)",
        tolerance="KS level 1e-3; variances within 5 standard errors",
        rule=ROPE_LAW_RULE,
        counterexample=None if mc_ok else
        f"KS {mc['ks']:.3g} > {mc['ks_critical']:.3g} or variances {mc['var_plain']:.4g} vs "
        f"{mc['var_rotated']:.4g}",
        parameters={"seed": ctx.seed, "samples": mc["samples"], "dim": mc["dim"]},
        details={"symbolic": symbolic_summary([d]),
                 "monte_carlo": {k: (repr(v) if isinstance(v, float) else v) for k, v in mc.items()}},
    )


def _floor_text(pairs: list) -> str:
    """The pairs of the noise floor in words: what they differ in, their runs, inputs and seeds."""
    return "; ".join(
        f"{p['what']} ({' vs '.join(p['runs']) if len(p['runs']) > 1 else p['runs'][0]}, inputs "
        f"{' vs '.join(','.join(map(str, i)) for i in p['inputs'])}, seeds "
        f"{', '.join(map(str, p['seeds']))}): W1 {p['w1']:.3g}, Spearman {p['spearman']:.4f}"
        for p in pairs)


def _shape_text(shapes: Mapping) -> str:
    """First/min, last atom and U factor of the on and off profiles, with and without the final
    token."""
    parts = []
    for name in ("on", "off"):
        if name not in shapes:
            continue
        w, wo = shapes[name]["with"], shapes[name]["without"]
        parts.append(f"RoPE {name}: first/min {w['first_over_min']:.3g}, last atom "
                     f"{w['last_atom']:.3g}, U factor {w['u_factor']:.3g} (without the final "
                     f"token: last atom {wo['last_atom']:.3g}, U factor {wo['u_factor']:.3g})")
    return "; ".join(parts)


@claim(
    "chowdhury2026:rope-init",
    statement="RoPE is irrelevant at initialization: with isotropic Gaussian queries and keys a "
    "rotation does not change the law of q^T R k, and the measured Step-0 influence profiles "
    "of Qwen2-0.5B (24 layers) with and without RoPE agree (Spearman 0.99).",
    latex=latex_of_derivation("rope-init"),
    expected="verified",
    assumptions=("k ~ N(0, sigma^2 I) independent of q", "RoPE block rotations",
                 "Qwen2-0.5B at full width, L = 256, 8 probes, 2 samples, seed 0 (stored "
                 "`posbias measure --rope both` run; live with --thorough)",
                 "noise floor: the same weights with two other inputs (stored run of 4 inputs, "
                 "seed 0) and another seed (seed 1), pooled over 2 inputs like the comparison"),
    section="C8",
    needs=("models or stored Step-0 measurement",),
    rule=RULE,
    card=CARD,
    thorough_work=measured.step0_thorough_work,
)
def check(ctx: CheckContext, data: Step0Data | None = None,
          transform: RopeTransform | None = None) -> Evidence:
    """C8: the score-law half (:func:`rope_law_check`) and the measured half at the paper's
    width, RoPE's W1 against the noise floor of inputs and weights, combined by RULE."""
    law = rope_law_check(ctx, transform)
    method = ("sympy orthogonality and score law; Monte Carlo KS; Step-0 Jacobian profiles of "
              "Qwen2-0.5B at full width with RoPE on vs patched off (posbias measure --rope "
              "both), W1 against the noise floor of other inputs and another seed")
    common: dict[str, Any] = dict(method=method, rule=RULE.text,
                  precision="exact (symbolic); float64 (Monte Carlo); float32 (measurement)",
                  tolerance=f"W1 <= {ROPE_WITHIN:g} x floor (verified), > {ROPE_FAR:g} x floor "
                  "(refuted); probe noise below the floor")
    data = data if data is not None else measured.step0_data(ctx)
    figs = rope_measured_figures(data) if data is not None else None
    if figs is not None and not all(
            any(p["what"] == "same weights, other inputs" for p in f["floor_pairs"])
            for f in figs.values()):
        figs = None  # the input floor is not stored: the rule cannot be read
    if law.verdict == "refuted" or figs is None or data is None:  # no data gives no figs
        if law.verdict != "refuted":
            return Evidence("needs-data", discrepancy="measured half not run: needs a stored "
                            "Step-0 measurement with RoPE on and off and its input-floor run "
                            "(python -m posbias.proofs_checks.stored "
                            + " ".join(measured.STEP0_PLAN.floor_stems().values())
                            + "), or the 'models' extra; the score-law half alone is claim "
                            "posbias:rope-score-law", details={"score_law": law.as_dict()},
                            **common)
        figures = _rp(None, None, None, law="refuted")
        figures["L"] = None
        return Evidence("refuted", counterexample=law.counterexample, figures=figures,
                        details={"score_law": law.as_dict()}, **common)
    w1 = max(f["w1"] for f in figs.values())
    floor = min(p["w1"] for f in figs.values() for p in f["floor_pairs"])
    # exact Jacobians have no probe noise
    probe = max(0.0 if f["noise_w1"] is None else f["noise_w1"] for f in figs.values())
    rho = min(f["spearman"] for f in figs.values())
    rho_floor = max(p["spearman"] for f in figs.values() for p in f["floor_pairs"])
    Ls = sorted({f["length"] for f in figs.values()})
    figures = {"score_law": law.verdict, "w1": float(f"{w1:.4g}"),
               "floor_w1": float(f"{floor:.4g}"), "probe_w1": float(f"{probe:.4g}"),
               "spearman": float(f"{rho:.4g}"), "floor_spearman": float(f"{rho_floor:.4g}"),
               "L": Ls[0] if len(Ls) == 1 else Ls}
    verdict = RULE.apply(figures).verdict
    text = "; ".join(
        f"{a} (L = {f['length']}, {f['estimator']}, {f['samples']} inputs, seed {f['seed']}): "
        f"RoPE on vs off W1 {f['w1']:.3g}, Spearman {f['spearman']:.4f}; noise floor: "
        f"{_floor_text(f['floor_pairs'])}; probe noise (the same profile, independent probes) "
        f"W1 {fmt_g(f['noise_w1'])}, Spearman {fmt_g(f['noise_spearman'])}"
        + (f"; shapes: {_shape_text(f['shapes'])}" if f["shapes"] else "")
        for a, f in figs.items())
    alternatives = {}
    for a, f in figs.items():
        alternatives[f"{a}: RoPE on vs on, independent probes (probe noise)"] = {
            "spearman": f["noise_spearman"], "w1": f["noise_w1"]}
        for p in f["floor_pairs"]:
            alternatives[f"{a}: RoPE on, {p['what']} ({', '.join(p['runs'])})"] = {
                "spearman": p["spearman"], "w1": p["w1"]}
    details = {"measured": figs, "score_law": law.as_dict(), "source": step0_source(data),
               "noise_floor": {a: f["floor_pairs"] for a, f in figs.items()},
               "spearman_note": "Spearman is reported beside, not used: the Cesàro rollouts at "
               "α = 0.07 and 0.13 (H = 24, L = 256) rank alike to 0.999996 while their W1 is 0.23"}
    common.update(figures=figures, alternatives=alternatives, details=details,
                  setting={"L": figures["L"]})
    ratio = w1 / floor
    spear = (f"Spearman on/off {rho:.3f} against {rho_floor:.3f} for the closest pair of the "
             f"floor and the claimed {ROPE_CLAIMED}")
    if verdict == "inconclusive":
        why = ("score-law half: " + law.verdict if law.verdict != "verified" else
               f"probe noise W1 {probe:.3g} is as large as the floor {floor:.3g}: raise --probes")
        return Evidence("inconclusive", discrepancy=f"{why}; {text}", **common)
    if verdict == "verified":
        return Evidence("verified", discrepancy=(
            f"RoPE changes the Step-0 profile less than another input or seed does: W1 on/off "
            f"{w1:.3g} = {ratio:.2g} x the floor {floor:.3g}; {spear}. {text}"), **common)
    if verdict == "refuted":
        return Evidence("refuted", counterexample=(
            f"RoPE moves the Step-0 profile {ratio:.3g} times as far as the floor: {text}"),
            **common)
    return Evidence(
        "qualified", discrepancy=text,
        correction=(f"the score law is unchanged by RoPE (exactly, for isotropic Gaussian q, k), "
                    f"but the measured Step-0 profiles with and without RoPE are {ratio:.2g} "
                    f"times as far apart (W1 {w1:.3g}) as the closest pair of the noise floor "
                    f"({floor:.3g}); {spear} ({text})"),
        **common)
