"""What the claims of chowdhury2026 decided on measurements share: the date their rules were fixed,
the Step-0 runs they read (:mod:`posbias.proofs_checks.measured`) with their provenance, the
RoPE on/off figures (C8, and the probe-noise floor C9 prints), and the printing of a measured
figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from posbias.numerics.compare import spearman, wasserstein1
from posbias.proofs_checks import measured

if TYPE_CHECKING:
    from posbias.proofs_checks.measured import Step0Plan, Step0Run

__all__ = [
    "MEASURED_RULES_FIXED",
    "Step0Data",
    "fmt_g",
    "fmt_g_range",
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


def rope_measured_figures(data: Step0Data, plan: Step0Plan | None = None) -> dict | None:
    """RoPE on vs off at the first seed of every rotary architecture of the plan (from the
    ``posbias measure --rope both`` record): Spearman, W1 and the probe-noise floor, and the
    agreement of the first two seeds with RoPE on (other weights and inputs)."""
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
        out[arch] = {"spearman": r.rope["spearman"], "w1": r.rope["w1"],
                     "noise_spearman": r.rope.get("noise_spearman"),
                     "noise_w1": r.rope.get("noise_w1"), "length": r.length, "seed": r.seed,
                     "estimator": r.estimator, "samples": r.samples, "seed_to_seed": seeds,
                     "settings": {k: r.settings.get(k) for k in (
                         "num_hidden_layers", "hidden_size", "num_attention_heads",
                         "num_key_value_heads", "head_dim")}}
    return out or None
