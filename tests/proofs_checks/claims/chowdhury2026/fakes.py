"""Constructed inputs for the tests of chowdhury2026's measured and pretrained claims: Step-0
profiles with chosen end ratios (for ``posbias_tests_step0_fakes.fake_data``), and folders of
measured influence as ``posbias measure --save-influence`` writes them."""

import json

import numpy as np

from posbias.proofs_checks import registry
from posbias.proofs_checks.registry import CheckContext

#: the length of the constructed pretrained profiles, and their architecture (not a paper's)
L = 64
ARCH = {"model_type": "bloom", "num_layers": 2, "num_heads": 4, "hidden_size": 32}
#: the architecture key of Qwen2-0.5B, one of the paper's models
QWEN2 = {"model_type": "qwen2", "num_layers": 24, "num_heads": 14, "hidden_size": 896}


def raised_ends(ratio_first, ratio_last):
    """A profile with p(1)/min = ratio_first and p(L)/min = ratio_last at every length."""
    def prof(arch, L, seed, s):
        p = np.ones(L)
        p[0], p[-1] = ratio_first, ratio_last
        return p
    return prof


def u_profile(peak: float, valley: float = 1.0, L: int = L) -> np.ndarray:
    """A macroscopic U: raised ends (first and last eighth at 10 x valley), the two end tokens at
    ``peak``; peak/valley = peak / valley exactly."""
    p = np.full(L, valley)
    p[: L // 8] = p[-L // 8:] = 10 * valley
    p[0] = p[-1] = peak
    return p


def decreasing_profile(ratio: float) -> np.ndarray:
    """Monotone primacy tail, no valley: p(1)/min = ratio, minimum at L."""
    return np.geomspace(ratio, 1.0, L)


def write(folder, name, profile, stage="pretrained", arch=ARCH):
    """``<folder>/measured-influence/<name>.csv`` and, unless ``stage`` is None, its
    ``.measurement.json`` record (stage and architecture)."""
    d = folder / "measured-influence"
    d.mkdir(exist_ok=True)
    rows = ["position,influence"] + [f"{j},{float(v)!r}" for j, v in enumerate(profile, 1)]
    (d / f"{name}.csv").write_text("\n".join(rows) + "\n")
    if stage is not None:
        record = {"stage": stage, "architecture": arch}
        (d / f"{name}.measurement.json").write_text(json.dumps(record))


def verdict(claim_id, folder):
    """The evidence of a claim run on the measured influence of ``folder`` (None: no data)."""
    c = registry.get_claim(claim_id)
    result = registry.run_claim(c, CheckContext(data_dir=str(folder) if folder else None))
    return result.evidence
