"""Stored ablations of the Step-0 measurement: which part of the paper's architectures makes the
shape of their Step-0 influence profile (chowdhury2026:u-shape-step0).

The stored Step-0 profiles (:mod:`posbias.proofs_checks.stored`) are flat over the last part of
the context, where the Cesàro rollout keeps falling, and their minimum (without the final token)
lies inside the context, not at ``L - 1``.  Each run here repeats one stored run's command with
parts of the network switched off (``posbias measure --ablate``,
:mod:`posbias.measurements.ablation`): the same seed, hence the same remaining weights, the same
random inputs and the same probes, so that the ablated profile is paired with the stored one.

:func:`summary` reads each ablation beside its paired run and beside the Cesàro rollout fitted
to it (W1-optimal constant α): the valley block, the position of the minimum and the last four
blocks over the valley block, all without the final token.

Each file ``data/step0-ablation/<stem>.json`` is a record as
:func:`posbias.proofs_checks.stored.record_run` writes it (command, versions, date, wall time,
peak memory, and the JSON the command printed).  Record them again with
``python -m posbias.proofs_checks.ablations [STEM ...]`` (one process, one torch thread).
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import numpy as np

from posbias.files import write_output
from posbias.numerics.shape import BINS, block_means
from posbias.proofs_checks.data import data_path
from posbias.proofs_checks.measured import ProfileRun, compare_with_theory, step0_run_from_record
from posbias.proofs_checks.stored import (
    PAPER_LENGTHS,
    PAPER_MAX_MEMORY,
    PROBES,
    load_record,
    record_run,
)
from posbias.proofs_checks.stored import argv_of as stored_argv

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from posbias.proofs_checks.measured import Step0Run

__all__ = ["ABLATED", "BASELINES", "ablation_dir", "argv_of", "load", "main", "runs", "summary",
           "tail_figures"]

#: the ablations stored, per (architecture, length, seeds, inputs per seed)
ABLATED = (
    ("gpt2", 256, (0, 1), 2, ("uniform-attention", "no-mlp", "uniform-attention,no-mlp",
                              "no-positions")),
    ("gpt2", 1024, (0,), 1, ("uniform-attention",)),
    ("qwen2-0.5b", 256, (0,), 2, ("uniform-attention",)),
)


def _stem(arch: str, length: int, seed: int, parts: str = "") -> str:
    base = f"{arch}-L{length}-seed{seed}"
    return base + ("-" + parts.replace(",", "+") if parts else "")


def argv_of(arch: str, length: int, seed: int, samples: int, parts: str) -> list[str]:
    """The ``posbias measure`` command of one ablated run: the stored run's command
    (:func:`posbias.proofs_checks.stored.argv_of`, RoPE on; at the paper's running length with
    the memory limit of the stored paper-length runs) with ``--ablate``."""
    limit = PAPER_MAX_MEMORY if length == PAPER_LENGTHS.get(arch) else None
    argv = stored_argv(arch, length, seed, samples, "on", PROBES, 0, limit)
    return [*argv[:-2], "--ablate", parts, *argv[-2:]]


def runs() -> dict:
    """``stem -> posbias measure argv`` of every stored ablation."""
    out = {}
    for arch, length, seeds, samples, variants in ABLATED:
        for seed in seeds:
            for parts in variants:
                out[_stem(arch, length, seed, parts)] = argv_of(arch, length, seed, samples, parts)
    return out


#: ``ablated stem -> stored Step-0 stem`` of the run it is paired with (same command without
#: ``--ablate``: same weights elsewhere, inputs and probes; the paired run may also have
#: ``--kernel-inputs``, drawn after the samples, or ``--rope both``, whose RoPE-on profile is
#: that of ``--rope on``)
BASELINES = {stem: _stem(a, L, s) for a, L, seeds, _, variants in ABLATED for s in seeds
             for stem in (_stem(a, L, s, p) for p in variants)}


def ablation_dir() -> str:
    """Folder of the stored ablations."""
    return data_path("step0-ablation")


def load(folder: str | None = None) -> dict:
    """``{stem: Step0Run}`` of the stored ablations present in ``folder`` (default the
    package's), with the Step-0 runs they are paired with under their own stems."""
    out = {}
    for stem in runs():
        rec = load_record(stem, folder or ablation_dir())
        if rec is None:
            continue
        out[stem] = step0_run_from_record(rec)
        base = BASELINES[stem]
        if base not in out:
            b = load_record(base)
            if b is not None:
                out[base] = step0_run_from_record(b)
    return out


def tail_figures(profile: ArrayLike) -> dict:
    """The shape of ``profile`` without its final token (:mod:`posbias.numerics.shape`,
    ``BINS`` blocks): the valley block, the position of the minimum, the first block over the
    valley block, and the last four blocks over the valley block (a falling tail reads
    decreasing to 1 at the last block; a flat one stays near 1 throughout)."""

    p = np.asarray(profile, dtype=float)[:-1]
    b = block_means(p, BINS)
    v = float(b.min())
    return {"L": int(p.size + 1), "valley_block": int(np.argmin(b)) + 1, "bins": BINS,
            "argmin": int(np.argmin(p)) + 1, "first_block_over_valley": float(b[0] / v),
            "tail_over_valley": [float(x / v) for x in b[-4:]]}


def _cesaro_tail(run: Step0Run) -> dict:
    """The Cesàro rollout with the W1-optimal constant α for ``run``'s profile (as many layers
    as the model): α and its :func:`tail_figures`."""
    c = compare_with_theory(ProfileRun(length=run.length, lambdas=run.lambdas,
                                       profile=run.profile))
    return {"alpha": float(c.best_alpha), "w1": float(c.w1_best_alpha),
            **tail_figures(c.profile_best_alpha)}


def summary(data: dict | None = None) -> dict:
    """``stem -> {"ablate", "baseline", "ablated": tail_figures, "unablated": tail_figures,
    "cesaro": the fitted Cesàro rollout's, "attention_tv_max"}`` for every stored ablation and
    the run it is paired with."""
    data = load() if data is None else data
    out = {}
    for stem, base in BASELINES.items():
        if stem not in data or base not in data:
            continue
        r = data[stem]
        tv = r.attention_tv
        out[stem] = {"ablate": list(r.settings.get("ablate") or []), "baseline": base,
                     "ablated": tail_figures(r.profile),
                     "unablated": tail_figures(data[base].profile),
                     "cesaro": _cesaro_tail(r),
                     "attention_tv_max": None if tv is None else float(np.max(tv))}
    return out


def main(argv: list[str] | None = None) -> int:
    """Record the named ablations (default: those not stored yet) into the package's
    ``data/step0-ablation`` folder."""
    known = runs()
    stems = list(argv if argv is not None else sys.argv[1:])
    unknown = [s for s in stems if s not in known]
    if unknown:
        print(f"unknown run(s) {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    stems = stems or [s for s in known if load_record(s, ablation_dir()) is None]
    os.makedirs(ablation_dir(), exist_ok=True)
    for stem in stems:
        rec = record_run(stem, known[stem])
        write_output(json.dumps(rec, indent=1), os.path.join(ablation_dir(), stem + ".json"))
        print(f"{stem}: {rec['wall_seconds']} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
