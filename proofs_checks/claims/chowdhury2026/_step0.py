"""What the claims of chowdhury2026 decided on measurements share: the date their rules were fixed,
the Step-0 runs they read (:mod:`posbias.proofs_checks.measured`) with their provenance, the
RoPE on/off figures (C8, and the probe-noise floor C9 prints), and the printing of a measured
figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from posbias.numerics.compare import spearman, wasserstein1
from posbias.numerics.shape import BINS, shape_with_and_without_final
from posbias.proofs_checks import measured

if TYPE_CHECKING:
    from posbias.proofs_checks.measured import Step0Plan, Step0Run

__all__ = [
    "MEASURED_RULES_FIXED",
    "Step0Data",
    "fmt_g",
    "fmt_g_range",
    "rope_floor_pairs",
    "rope_measured_figures",
    "step0_source",
]

#: the date of the commit that fixed the rules of the measured claims (C1, C7-C10, proxies)
MEASURED_RULES_FIXED = "2026-12-01"

#: the Step-0 runs a measured claim reads (``measured.step0_data``: stem -> run)
Step0Data = dict[str, "Step0Run"]


def fmt_g(x: float | None) -> str:
    """A measured figure to 3 significant digits, ``-`` when absent.

    >>> fmt_g(156.789), fmt_g(None)
    ('157', '-')
    """
    return "-" if x is None else f"{x:.3g}"


def fmt_g_range(r: Sequence[float] | None) -> str:
    """A measured range ``lo .. hi`` to 3 significant digits, ``-`` when absent."""
    return "-" if r is None else f"{r[0]:.3g} .. {r[1]:.3g}"


def step0_source(data: Step0Data) -> dict:
    """Where the Step-0 runs came from: stored files (with provenance) or live measurement."""
    out = {}
    for stem, r in data.items():
        p = r.provenance
        out[stem] = {"source": p.get("source"), "command": p.get("command"),
                     "date": p.get("date"), "versions": p.get("versions"),
                     "wall_seconds": p.get("wall_seconds")}
    return out


def _pair(what: str, a: ArrayLike, b: ArrayLike, source: dict) -> dict:
    """One comparison of two Step-0 profiles: Spearman and W1, with what the two differ in and
    where they come from."""
    return {"what": what, "spearman": float(spearman(a, b)), "w1": float(wasserstein1(a, b)),
            **source}


def _pooled(rows: ArrayLike) -> np.ndarray:
    p = np.asarray(rows, dtype=float).mean(axis=0)
    return p / p.sum()


def rope_floor_pairs(data: Step0Data, arch: str, plan: Step0Plan | None = None) -> list:
    """The noise floor of the RoPE comparison of ``arch``: pairs of its RoPE-on profiles pooled
    over as many inputs as the on/off comparison, that differ in nothing RoPE touches: the same
    weights with two other inputs (the input-floor run: its first inputs are those of the
    ``--rope both`` run, the rest new), and another seed (other weights and inputs).  Each pair
    names its runs, inputs and seeds."""
    plan = plan or measured.STEP0_PLAN
    runs = measured.primary_runs(data, arch, plan)
    on = runs[0]
    k = on.samples
    pairs = []
    stem = plan.floor_stems().get(arch)
    if stem is not None and stem in data and data[stem].samples >= 2 * k:
        f = data[stem]
        pairs.append(_pair(
            "same weights, other inputs", _pooled(f.sample_profiles[:k]),
            _pooled(f.sample_profiles[k:2 * k]),
            {"runs": [stem], "inputs": [list(range(1, k + 1)), list(range(k + 1, 2 * k + 1))],
             "seeds": [f.seed]}))
    for other in runs[1:]:
        pairs.append(_pair(
            "other weights and inputs", on.profile, other.profile,
            {"runs": [on.stem, other.stem],
             "inputs": [list(range(1, k + 1)), list(range(1, other.samples + 1))],
             "seeds": [on.seed, other.seed]}))
    return pairs


def rope_measured_figures(data: Step0Data, plan: Step0Plan | None = None) -> dict | None:
    """RoPE on vs off at the first seed of every rotary architecture of the plan (from the
    ``posbias measure --rope both`` record): Spearman, W1 and the probe-noise floor, the noise
    floor of inputs and weights (:func:`rope_floor_pairs`), and the shape statistics of the on
    and off profiles with and without the final token."""
    plan = plan or measured.STEP0_PLAN
    out = {}
    for arch in plan.rotary:
        runs = measured.primary_runs(data, arch, plan)
        r = runs[0]
        if not r.rope or r.rope.get("spearman") is None:
            continue
        seeds = None
        if len(runs) >= 2:
            seeds = {"spearman": float(spearman(runs[0].profile, runs[1].profile)),
                     "w1": float(wasserstein1(runs[0].profile, runs[1].profile)),
                     "seeds": [runs[0].seed, runs[1].seed]}
        # the shape statistics need BINS positions without the final token
        shapes = {}
        if r.profile.size > BINS:
            shapes["on"] = {k: v.as_dict()
                            for k, v in shape_with_and_without_final(r.profile).items()}
            if r.rope.get("profile_off") is not None:
                off = _pooled([r.rope["profile_off"]])
                shapes["off"] = {k: v.as_dict()
                                 for k, v in shape_with_and_without_final(off).items()}
        out[arch] = {"spearman": r.rope["spearman"], "w1": r.rope["w1"],
                     "noise_spearman": r.rope.get("noise_spearman"),
                     "noise_w1": r.rope.get("noise_w1"), "length": r.length, "seed": r.seed,
                     "estimator": r.estimator, "samples": r.samples, "seed_to_seed": seeds,
                     "floor_pairs": rope_floor_pairs(data, arch, plan), "shapes": shapes,
                     "settings": {k: r.settings.get(k) for k in (
                         "num_hidden_layers", "hidden_size", "num_attention_heads",
                         "num_key_value_heads", "head_dim")}}
    return out or None
