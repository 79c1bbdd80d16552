"""Claims measured on real architectures at initialization (chowdhury2026 C8, C9; C7 at init).

Route: randomly initialized models built from ``transformers`` configuration classes
(:mod:`posbias.measurements.measure`; nothing is downloaded), the Step-0 influence of each input
position on the final one measured by the Frobenius norm of the input-output Jacobian (random
Rademacher probes, several random inputs), compared with the float64 Cesàro rollout
(:func:`posbias.numerics.cesaro.cesaro_profile`) by Spearman and normalized Wasserstein-1
(:mod:`posbias.numerics.compare`).  Needs the ``models`` extra; without it the verdict is
needs-data.

The shapes measured by default are the papers' depths at reduced width (so that the default
``posbias check`` stays within seconds on two cores): Qwen2-0.5B's 24 blocks, 14 heads and 2 KV
heads with hidden 112 (head dim 8), and GPT-2 small's 12 blocks and 12 heads with hidden 96;
``--thorough`` measures the full widths (896 and 768).  The vocabulary is reduced (4096, or 8192
when thorough): for the Jacobian metric it only changes which random embedding rows are drawn,
all with the same initialization law.

Besides the registered claim this module provides :func:`measured_rope_comparison` and
:func:`measured_peak_valley`, used by the RoPE and peak-to-valley claims.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.measurements.measure import (
    Measurement,
    measure_influence,
    measure_influence_cached,
)
from posbias.numerics.cesaro import cesaro_profile
from posbias.numerics.compare import spearman, wasserstein1
from posbias.validation import MAX_DEPTH, check_integer

__all__ = ["measured_rope_comparison", "measured_peak_valley", "step0_measurements",
           "CLAIMED_SPEARMAN", "CLAIMED_W1", "measurement_plan", "fmt3", "TheoryComparison", "RopeComparison",
           "compare_with_theory", "best_constant_alpha", "peak_valley", "rope_comparison"]

def _round(x: float, digits: int) -> float:
    return float(f"{float(x):.{digits}g}")


def _theory_profile(length: int, schedule) -> np.ndarray:
    return np.asarray(cesaro_profile(length, [float(x) for x in schedule]), dtype=float)


def _w1(p, q) -> float:
    return float(wasserstein1(p, q))


def _spearman(p, q) -> float:
    return float(spearman(p, q))


def best_constant_alpha(measured, layers: int, *, tol: float = 1e-4) -> tuple[float, float]:
    """The constant ``alpha`` in [0, 1] minimizing the normalized Wasserstein-1 distance between
    ``measured`` and the Cesàro rollout ``N^T`` with ``N = (1 - alpha) I + alpha M``.

    Returns ``(alpha, w1)``.  Method: a grid of 101 values, then scipy's bounded scalar minimisation
    (Brent) in the bracket around the best grid point down to width ``tol`` (chowdhury2026, constant-alpha
    model, C5/C9).  Parameters: ``measured`` a probability vector of length ``L >= 2``,
    ``layers`` the depth ``T >= 1``.

    >>> from posbias.numerics.cesaro import cesaro_profile
    >>> alpha, w1 = best_constant_alpha(cesaro_profile(32, [0.25] * 4), 4)
    >>> round(alpha, 3), w1 < 1e-6
    (0.25, True)
    """
    measured = np.asarray(measured, dtype=float)
    check_integer("layers", layers, 1, MAX_DEPTH)
    if measured.ndim != 1 or measured.shape[0] < 2:
        raise InvalidArgument("measured", f"an array of shape {measured.shape}",
                              "a profile of length >= 2")
    L = measured.shape[0]

    def cost(a):
        return _w1(measured, _theory_profile(L, [a] * layers))

    grid = np.linspace(0.0, 1.0, 101)
    costs = [cost(a) for a in grid]
    i = int(np.argmin(costs))
    lo, hi = float(grid[max(i - 1, 0)]), float(grid[min(i + 1, 100)])
    res = minimize_scalar(cost, bounds=(lo, hi), method="bounded", options={"xatol": tol})
    best = min([(costs[i], float(grid[i])), (float(res.fun), float(res.x))])
    return float(best[1]), float(best[0])


def peak_valley(profile) -> dict:
    """First/min and last/min ratios of a profile and the (1-indexed) position of its minimum.

    >>> r = peak_valley([0.5, 0.1, 0.05, 0.35])
    >>> (r["argmin"], round(r["first_over_min"], 12), round(r["last_over_min"], 12))
    (3, 10.0, 7.0)
    """
    p = np.asarray(profile, dtype=float)
    k = int(np.argmin(p))
    m = float(p[k])
    return {
        "argmin": k + 1,
        "min": m,
        "first_over_min": float(p[0] / m) if m > 0 else math.inf,
        "last_over_min": float(p[-1] / m) if m > 0 else math.inf,
    }


@dataclass
class TheoryComparison:
    """Measured profile against two Cesàro rollouts: with the measured schedule ``lambdas``
    (herasimchyk2026) and with the best constant ``alpha`` (chowdhury2026)."""

    spearman_measured_lambda: float
    w1_measured_lambda: float
    best_alpha: float
    spearman_best_alpha: float
    w1_best_alpha: float
    measured: dict
    theory_measured_lambda: dict
    theory_best_alpha: dict
    profile_measured_lambda: np.ndarray
    profile_best_alpha: np.ndarray

    def as_dict(self, digits: int = 7) -> dict:
        r = functools.partial(_round, digits=digits)
        out = {}
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray):
                out[k] = [r(x) for x in v]
            elif isinstance(v, dict):
                out[k] = {kk: (r(vv) if isinstance(vv, float) and math.isfinite(vv) else vv)
                          for kk, vv in v.items()}
            else:
                out[k] = r(v)
        return out


def compare_with_theory(m: Measurement) -> TheoryComparison:
    """Spearman and normalized W1 between the measured profile and the Cesàro rollouts with the
    measured lambdas and with the best constant alpha; peak/valley ratios of all three."""
    th_lam = _theory_profile(m.length, m.lambdas)
    alpha, w1_alpha = best_constant_alpha(m.profile, len(m.lambdas))
    th_alpha = _theory_profile(m.length, [alpha] * len(m.lambdas))
    return TheoryComparison(
        spearman_measured_lambda=_spearman(m.profile, th_lam),
        w1_measured_lambda=_w1(m.profile, th_lam),
        best_alpha=alpha,
        spearman_best_alpha=_spearman(m.profile, th_alpha),
        w1_best_alpha=w1_alpha,
        measured=peak_valley(m.profile),
        theory_measured_lambda=peak_valley(th_lam),
        theory_best_alpha=peak_valley(th_alpha),
        profile_measured_lambda=th_lam,
        profile_best_alpha=th_alpha,
    )


@dataclass
class RopeComparison:
    """Measured profiles of the same weights and inputs with RoPE on and patched off (C8).

    ``spearman``/``w1`` compare on with off; the off run uses independent probes, so probe
    noise is not shared.  ``noise_spearman``/``noise_w1`` (when computed) compare the RoPE-on
    profile with a second RoPE-on estimate from independent probes: the agreement that probe
    noise alone allows, against which the on/off figures are to be read.
    """

    on: Measurement
    off: Measurement
    spearman: float
    w1: float
    noise_spearman: float | None = None
    noise_w1: float | None = None


def rope_comparison(arch: str, cached: bool = False, noise_floor: bool = False,
                    **kwargs) -> RopeComparison:
    """Measure ``arch`` with RoPE on and off (same seed, hence the same weights and inputs;
    independent probe streams) and compare the two normalized profiles by Spearman and
    normalized W1 (chowdhury2026 C8).  ``noise_floor=True`` adds a second RoPE-on run with
    independent probes (exact Jacobians have no probe noise: then it is skipped)."""
    kwargs.pop("rope", None)
    kwargs.pop("probe_seed", None)
    fn = measure_influence_cached if cached else measure_influence
    seed = kwargs.get("seed", 0)
    on = fn(arch, rope=True, **kwargs)
    off = fn(arch, rope=False, probe_seed=seed + 2, **kwargs)
    out = RopeComparison(on=on, off=off, spearman=_spearman(on.profile, off.profile),
                         w1=_w1(on.profile, off.profile))
    if noise_floor and on.estimator.endswith("probes"):
        again = fn(arch, rope=True, probe_seed=seed + 3, **kwargs)
        out.noise_spearman = _spearman(on.profile, again.profile)
        out.noise_w1 = _w1(on.profile, again.profile)
    return out


#: figures claimed by chowdhury2026 for theory vs the measured Step-0 Jacobian (C9) and for RoPE
#: on vs off (C8): THEORY.md section 2
CLAIMED_SPEARMAN = 0.99
CLAIMED_W1 = 0.02

# (label, preset, overrides) for the default and the thorough runs
_DEFAULT = (
    ("qwen2-24L-d112", "qwen2-0.5b", {"hidden": 112, "vocab": 4096}),
    ("gpt2-12L-d96", "gpt2", {"hidden": 96, "vocab": 4096}),
)
_THOROUGH = (
    ("qwen2-0.5b-24L-d896", "qwen2-0.5b", {"vocab": 8192}),
    ("gpt2-small-12L-d768", "gpt2", {"vocab": 8192}),
)


def measurement_plan(ctx) -> tuple:
    if ctx.thorough:
        return _THOROUGH, {"length": 256, "probes": 8, "samples": 2}
    return _DEFAULT, {"length": 128, "probes": 12, "samples": 3}


def _measure(ctx, preset, overrides, rope=True, probe_seed=None):
    from posbias.measurements.measure import measure_influence_cached

    archs, common = measurement_plan(ctx)
    kw = dict(common, seed=ctx.seed, rope=rope, **overrides)
    if probe_seed is not None:
        kw["probe_seed"] = probe_seed
    return measure_influence_cached(preset, **kw)


def step0_measurements(ctx) -> list | None:
    """``[(label, Measurement, TheoryComparison), ...]`` for the architectures of ``ctx``
    (default or thorough), or None without the models extra.  Memoized per process."""
    try:
        from posbias.measurements.measure import require_models_extra

        require_models_extra()
    except NeedsExtra:
        return None
    archs, _ = measurement_plan(ctx)
    out = []
    for label, preset, overrides in archs:
        m = _measure(ctx, preset, overrides)
        out.append((label, m, compare_with_theory(m)))
    return out


def fmt3(x: float) -> str:
    return f"{x:.3g}"


def measured_rope_comparison(ctx) -> dict | None:
    """RoPE on vs off (patched to the identity) at initialization on the Qwen2-shaped model of
    ``ctx`` (chowdhury2026 C8): Spearman and normalized W1 between the two measured profiles,
    and the probe-noise floor (Spearman/W1 between two RoPE-on estimates with independent
    probes).  Same weights and inputs in all runs.  None without the models extra.

    Keys: ``arch``, ``settings``, ``length``, ``estimator``, ``samples``, ``seed``,
    ``spearman``, ``w1``, ``noise_spearman``, ``noise_w1``, ``lambda_mean_on``,
    ``lambda_mean_off``, ``claimed_spearman``.
    """
    try:
        from posbias.measurements.measure import require_models_extra

        require_models_extra()
    except NeedsExtra:
        return None
    from posbias.numerics.compare import spearman, wasserstein1

    archs, _ = measurement_plan(ctx)
    label, preset, overrides = archs[0]
    on = _measure(ctx, preset, overrides)
    off = _measure(ctx, preset, overrides, rope=False, probe_seed=ctx.seed + 2)
    again = _measure(ctx, preset, overrides, probe_seed=ctx.seed + 3)
    return {
        "arch": label,
        "settings": {k: on.settings[k] for k in ("model_type", "num_hidden_layers",
                                                  "hidden_size", "num_attention_heads",
                                                  "num_key_value_heads")},
        "length": on.length, "estimator": on.estimator, "samples": on.samples, "seed": ctx.seed,
        "spearman": float(spearman(on.profile, off.profile)),
        "w1": float(wasserstein1(on.profile, off.profile)),
        "noise_spearman": float(spearman(on.profile, again.profile)),
        "noise_w1": float(wasserstein1(on.profile, again.profile)),
        "lambda_mean_on": float(on.lambdas.mean()),
        "lambda_mean_off": float(off.lambdas.mean()),
        "claimed_spearman": CLAIMED_SPEARMAN,
    }


def measured_peak_valley(ctx) -> dict | None:
    """First/min and last/min ratios of the measured Step-0 profiles (chowdhury2026 C7 at
    initialization), for each architecture of ``ctx``, with the same ratios of the Cesàro
    rollouts (best constant alpha and measured lambda_t).  None without the models extra.

    Returns ``{"summary": str, "architectures": {label: {"length", "argmin",
    "first_over_min", "last_over_min", "best_alpha", "theory_best_alpha": {...},
    "theory_measured_lambda": {...}}}}`` (``argmin`` 1-indexed).
    """
    runs = step0_measurements(ctx)
    if runs is None:
        return None
    archs = {
        label: {
            "length": m.length,
            "argmin": c.measured["argmin"],
            "first_over_min": c.measured["first_over_min"],
            "last_over_min": c.measured["last_over_min"],
            "best_alpha": c.best_alpha,
            "theory_best_alpha": dict(c.theory_best_alpha),
            "theory_measured_lambda": dict(c.theory_measured_lambda),
        }
        for label, m, c in runs
    }
    summary = "; ".join(
        f"{label} (L = {v['length']}): first/min {fmt3(v['first_over_min'])}, last/min "
        f"{fmt3(v['last_over_min'])}, minimum at position {v['argmin']}"
        for label, v in archs.items())
    return {"summary": summary, "architectures": archs}
