"""Theory against measurement at initialization (chowdhury2026 C1, C7, C8, C9).

Route: randomly initialized models built from ``transformers`` configuration classes
(:mod:`posbias.measurements.measure`; nothing is downloaded), the Step-0 influence of each input
position on the final one measured by the Frobenius norm of the input-output Jacobian (random
Rademacher probes, several random inputs), compared with the float64 Cesàro rollout
(:func:`posbias.numerics.cesaro.cesaro_profile`) by Spearman and normalized Wasserstein-1
(:mod:`posbias.numerics.compare`).

The claims read the papers' architectures at full width (Qwen2-0.5B, GPT-2 small) through
:func:`step0_data`: by default the runs that ``posbias measure`` stored in the package
(:mod:`posbias.proofs_checks.stored`, with their provenance), with ``--thorough`` the same
commands measured live (the ``models`` extra).  Without either the claims report needs-data.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize_scalar

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.measurements.hooks import require_models_extra
from posbias.measurements.measure import (
    Measurement,
    measure_influence,
    measure_influence_cached,
)
from posbias.numbers import rounded, significant
from posbias.numerics.cesaro import cesaro_profile
from posbias.numerics.compare import spearman, wasserstein1
from posbias.proofs_checks import stored as st
from posbias.proofs_checks.stored import STEP0_PLAN, Step0Plan
from posbias.validation import MAX_DEPTH, check_integer

if TYPE_CHECKING:
    from posbias.proofs_checks.registry import CheckContext

__all__ = [
    "CLAIMED_SPEARMAN",
    "CLAIMED_W1",
    "STEP0_MISSING",
    "STEP0_PLAN",
    "ProfileRun",
    "RopeComparison",
    "Step0Plan",
    "Step0Run",
    "TheoryComparison",
    "best_constant_alpha",
    "compare_with_theory",
    "decision_runs",
    "fmt3",
    "paper_runs",
    "peak_over_valley",
    "peak_valley",
    "pooled_profile",
    "primary_runs",
    "rope_comparison",
    "scan_runs",
    "step0_data",
    "step0_run_from_record",
]


def _theory_profile(length: int, schedule: Iterable[float]) -> np.ndarray:
    return np.asarray(cesaro_profile(length, [float(x) for x in schedule]), dtype=float)


def _w1(p: ArrayLike, q: ArrayLike) -> float:
    return float(wasserstein1(p, q))


def _spearman(p: ArrayLike, q: ArrayLike) -> float:
    return float(spearman(p, q))


def best_constant_alpha(measured: ArrayLike, layers: int, *, tol: float = 1e-4) -> tuple[float, float]:
    """See :func:`_best_constant_alpha`; memoized on the profile's bytes (claims fit the same
    stored profiles more than once)."""
    p = np.ascontiguousarray(measured, dtype=float)
    return _best_alpha_memo(p.tobytes(), p.shape, layers, tol)


@functools.lru_cache(maxsize=256)
def _best_alpha_memo(data: bytes, shape: tuple, layers: int, tol: float) -> tuple[float, float]:
    return _best_constant_alpha(np.frombuffer(data, dtype=float).reshape(shape), layers, tol=tol)


def _best_constant_alpha(measured: ArrayLike, layers: int, *, tol: float = 1e-4) -> tuple[float, float]:
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


def peak_valley(profile: ArrayLike) -> dict:
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
        r = functools.partial(rounded, digits=digits)
        out: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray):
                out[k] = [r(x) for x in v]
            elif isinstance(v, dict):
                out[k] = {kk: (r(vv) if isinstance(vv, float) and math.isfinite(vv) else vv)
                          for kk, vv in v.items()}
            else:
                out[k] = r(v)
        return out


@dataclass(frozen=True)
class ProfileRun:
    """The part of a measurement :func:`compare_with_theory` reads: the length, the measured
    schedule and the normalized influence profile."""

    length: int
    lambdas: Sequence[float] | np.ndarray
    profile: np.ndarray


def compare_with_theory(m: Measurement | ProfileRun) -> TheoryComparison:
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
                    **kwargs: Any) -> RopeComparison:
    """Measure ``arch`` with RoPE on and off (same seed, hence the same weights and inputs;
    independent probe streams) and compare the two normalized profiles by Spearman and
    normalized W1 (chowdhury2026 C8).  ``noise_floor=True`` adds a second RoPE-on run with
    independent probes (exact Jacobians have no probe noise: then it is skipped)."""
    kwargs.pop("rope", None)
    kwargs.pop("probe_seed", None)
    fn = measure_influence_cached if cached else measure_influence
    seed = kwargs.get("seed", 0)
    on = fn(arch, rope=True, **kwargs)
    kwargs.pop("kernel_inputs", None)  # the averaged kernel is measured once, with RoPE on
    off = fn(arch, rope=False, probe_seed=seed + 2, **kwargs)
    out = RopeComparison(on=on, off=off, spearman=_spearman(on.profile, off.profile),
                         w1=_w1(on.profile, off.profile))
    if noise_floor and on.estimator.endswith("probes"):
        again = fn(arch, rope=True, probe_seed=seed + 3, **kwargs)
        out.noise_spearman = _spearman(on.profile, again.profile)
        out.noise_w1 = _w1(on.profile, again.profile)
    return out


#: figures claimed by chowdhury2026 for theory vs the measured Step-0 Jacobian (C9) and for RoPE
#: on vs off (C8): docs/explanation/mathematics.rst (chowdhury2026)
CLAIMED_SPEARMAN = 0.99
CLAIMED_W1 = 0.02

def fmt3(x: float) -> str:
    """``x`` with 3 significant digits (:func:`posbias.numbers.significant`)."""
    return significant(x, 3)


# ----------------------------------------------------------------------------------------------
# Step-0 measurements at the papers' widths: stored (default) or live (--thorough)

@dataclass
class Step0Run:
    """One ``posbias measure`` run of a paper architecture at initialization, as read back from
    its JSON (stored under ``data/step0`` or produced live): profiles renormalized in float64
    (the JSON holds 7 significant digits), one row per random input in ``sample_profiles``."""

    stem: str
    arch: str
    length: int
    seed: int
    samples: int
    estimator: str
    settings: dict
    profile: np.ndarray
    sample_profiles: np.ndarray
    lambdas: np.ndarray
    attention_tv: np.ndarray | None
    rope: dict | None
    provenance: dict
    #: further inputs of the averaged kernel (0: none), its TV from Cesàro per layer, averaged
    #: over all of them and over heads, and over the first half of them
    kernel_inputs: int = 0
    kernel_tv: np.ndarray | None = None
    kernel_tv_half: np.ndarray | None = None
    #: the per-input, per-head distance on the kernel inputs (the spread the average removes)
    kernel_instance_tv: np.ndarray | None = None

    @property
    def heads(self) -> int | None:
        """Attention heads per layer (None when the settings do not say)."""
        h = self.settings.get("num_attention_heads")
        return None if h is None else int(h)

    @property
    def comparison(self) -> TheoryComparison:
        """The Cesàro comparison of this run's profile (best constant alpha, measured lambda)."""
        if not hasattr(self, "_comparison"):
            self._comparison = compare_with_theory(
                ProfileRun(length=self.length, lambdas=self.lambdas, profile=self.profile))
        return self._comparison


def _normalized(rows: ArrayLike) -> np.ndarray:
    a = np.atleast_2d(np.asarray(rows, dtype=float))
    if a.ndim != 2 or a.shape[1] < 2 or not np.isfinite(a).all() or (a < 0).any() \
            or not (a.sum(axis=1) > 0).all():
        raise ValueError("profiles must be rows of at least 2 finite numbers >= 0 with a "
                         "positive sum")
    return a / a.sum(axis=1, keepdims=True)


def step0_run_from_record(record: dict) -> Step0Run:
    """A :class:`Step0Run` from a stored record (:mod:`posbias.proofs_checks.stored`)."""
    res = record["result"]
    m = res["measurement"]
    samples = _normalized(m.get("sample_profiles") or [m["profile"]])
    rope = res.get("rope")
    return Step0Run(
        stem=record.get("stem", ""), arch=m["arch"], length=int(m["length"]), seed=int(m["seed"]),
        samples=int(m["samples"]), estimator=m["estimator"], settings=dict(m["settings"]),
        profile=_normalized(m["profile"])[0], sample_profiles=samples,
        lambdas=np.asarray(m["lambdas"], dtype=float),
        attention_tv=None if m.get("attention_tv") is None else np.asarray(m["attention_tv"], float),
        rope=None if rope is None else dict(rope),
        provenance={k: record.get(k) for k in ("command", "seed", "versions", "date",
                                               "wall_seconds", "machine", "source")},
        kernel_inputs=int(m.get("kernel_inputs") or 0),
        kernel_tv=None if m.get("kernel_tv") is None else np.asarray(m["kernel_tv"], float),
        kernel_tv_half=(None if m.get("kernel_tv_half") is None
                        else np.asarray(m["kernel_tv_half"], float)),
        kernel_instance_tv=(None if m.get("kernel_instance_tv") is None
                            else np.asarray(m["kernel_instance_tv"], float)),
    )


@functools.lru_cache(maxsize=64)
def _live_record(stem: str, argv: tuple) -> dict:
    rec = st.record_run(stem, list(argv))
    rec["source"] = "live"
    return rec


#: what a Step-0 claim says it lacks when :func:`step0_data` gives None (its method, then this)
STEP0_MISSING = ("needs a stored Step-0 measurement or the 'models' extra "
                 "(pip install 'posbias[models]')")


def step0_thorough_work(ctx: CheckContext, plan: Step0Plan | None = None) -> list:
    """What ``--thorough`` re-measures for a claim reading the Step-0 runs: one entry per run of
    ``plan``, ``(key, description, seconds)``, the seconds being the stored record's wall time
    on this project's machine (the runs are measured one after the other)."""
    plan = plan or STEP0_PLAN
    out = []
    for stem, argv in plan.runs().items():
        try:
            rec = st.load_record(stem)
        except (OSError, ValueError):
            rec = None
        seconds = float(rec["wall_seconds"]) if rec and "wall_seconds" in rec else float("nan")
        out.append((f"step0:{stem}", f"re-measuring {stem} (posbias {' '.join(argv)})",
                    seconds))
    return out


def step0_data(ctx: CheckContext, plan: Step0Plan | None = None) -> dict | None:
    """The Step-0 runs of ``plan`` (default :data:`STEP0_PLAN`) as ``{stem: Step0Run}``.

    Default run: the stored records, from ``<ctx.data_dir>/step0`` when that folder exists,
    else from the package's ``data/step0``; when one is missing it is measured live if torch
    is present, except a run at the paper's running length, which is then left out (the claims
    decide at the primary length and their cards say so), and an input-floor run, also left
    out (the RoPE comparison then needs data).  ``--thorough``: every run is measured live (the same commands; memoized per
    process).  None when a run is neither stored nor measurable (no ``models`` extra): the
    claims reading it report needs-data.
    """
    plan = plan or STEP0_PLAN
    folder = None
    data_dir = getattr(ctx, "data_dir", None)
    if data_dir and os.path.isdir(os.path.join(data_dir, "step0")):
        folder = os.path.join(data_dir, "step0")
    try:
        require_models_extra()
        can_measure = True
    except NeedsExtra:
        can_measure = False
    key = (bool(ctx.thorough), folder, plan, can_measure)
    if key in _STEP0_CACHE:
        return _STEP0_CACHE[key]
    out = {}
    optional = plan.paper_stems() | set(plan.floor_stems().values())
    for stem, argv in plan.runs().items():
        rec = None if ctx.thorough else st.load_record(stem, folder)
        if rec is None and not ctx.thorough and stem in optional:
            continue  # tens of minutes each: measured live only with --thorough
        if rec is not None:
            rec = dict(rec, source="stored: " + os.path.join(folder or "posbias/proofs_checks/data/step0",
                                                             stem + ".json"))
        elif can_measure:
            rec = _live_record(stem, tuple(argv))
        else:
            return None
        try:
            out[stem] = step0_run_from_record(rec)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidArgument("Step-0 record", rec.get("source", stem),
                                  f"a record of `posbias measure` with a finite, non-negative "
                                  f"profile ({type(exc).__name__}: {str(exc)[:120]})") from None
    _STEP0_CACHE[key] = out
    return out


#: Step-0 data already read in this process, per (thorough, folder, plan, torch present)
_STEP0_CACHE: dict = {}


def primary_runs(data: dict, arch: str, plan: Step0Plan | None = None) -> list:
    """The runs of ``arch`` at the plan's primary length, one per seed."""
    plan = plan or STEP0_PLAN
    return [data[f"{arch}-L{plan.length}-seed{s}"] for s in plan.seeds]


def paper_runs(data: dict, arch: str, plan: Step0Plan | None = None) -> list:
    """The runs of ``arch`` at the paper's running length, one per seed (empty when the plan
    has no paper length for ``arch`` or a run is missing from ``data``)."""
    plan = plan or STEP0_PLAN
    L = plan.paper_length(arch)
    if L is None:
        return []
    stems = [f"{arch}-L{L}-seed{s}" for s in plan.seeds_at_paper_length(arch)]
    if not all(st in data for st in stems):
        return []
    return [data[st] for st in stems]


def decision_runs(data: dict, arch: str, plan: Step0Plan | None = None) -> tuple[list, bool]:
    """``(runs, at_paper_length)``: the runs a claim decides on for ``arch``: those at the
    paper's running length when the plan has them, else those at the primary length."""
    runs = paper_runs(data, arch, plan)
    if runs:
        return runs, True
    return primary_runs(data, arch, plan), False


def scan_runs(data: dict, arch: str, plan: Step0Plan | None = None) -> list:
    """The runs of ``arch`` at every scan length (first seed), ordered by length; the paper
    length's run is part of the scan when it is stored."""
    plan = plan or STEP0_PLAN
    lengths = set(plan.scan_lengths) | {plan.length}
    L = plan.paper_length(arch)
    if L is not None and f"{arch}-L{L}-seed{plan.seeds[0]}" in data:
        lengths.add(L)
    return [data[f"{arch}-L{L}-seed{plan.seeds[0]}"] for L in sorted(lengths)]


def pooled_profile(runs: Iterable[Step0Run]) -> np.ndarray:
    """Mean of all per-sample normalized profiles of ``runs`` (seeds x samples), normalized."""
    rows = np.concatenate([r.sample_profiles for r in runs], axis=0)
    p = rows.mean(axis=0)
    return p / p.sum()


def peak_over_valley(profile: ArrayLike) -> float:
    """``max(p(1), p(L)) / min_j p(j)`` (chowdhury2026 C7)."""
    r = peak_valley(profile)
    return max(r["first_over_min"], r["last_over_min"])
