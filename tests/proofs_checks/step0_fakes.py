"""Constructed Step-0 measurements for the claims decided on measured data: a small plan and
runs whose profiles the tests choose, so that every verdict a rule allows can be reached."""

import numpy as np

from posbias.proofs_checks import measured
from posbias.proofs_checks.measured import Step0Plan, Step0Run

#: a primary length, a scan, a "paper's running length" (128) with averaged kernels, and the
#: input-floor run of the rotary architecture (4 inputs of seed 0 at the primary length)
PLAN = Step0Plan(architectures=("arch-a", "arch-b"), length=64, probes=2, samples=2,
                 seeds=(0, 1), scan_lengths=(32, 64, 128), rotary=("arch-a",),
                 paper_lengths=(("arch-a", 128), ("arch-b", 128)),
                 kernel_inputs=(("arch-a", 4), ("arch-b", 4)),
                 floor_runs=(("arch-a", 64, 0, 4),))
#: the same plan without paper-length runs (the claims then decide at the primary length)
PLAN_PRIMARY = Step0Plan(architectures=("arch-a", "arch-b"), length=64, probes=2, samples=2,
                         seeds=(0, 1), scan_lengths=(32, 64, 128), rotary=("arch-a",))

HEADS = 4


def _run(stem, arch, L, seed, rows, layers, tv, rope, kernel=None, inputs=0):
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    rows = rows / rows.sum(axis=1, keepdims=True)
    p = rows.mean(axis=0)
    k = None if kernel is None else np.full(layers, float(kernel))
    return Step0Run(stem=stem, arch=arch, length=L, seed=seed, samples=rows.shape[0],
                    estimator="2 rademacher probes",
                    settings={"num_hidden_layers": layers, "num_attention_heads": HEADS},
                    profile=p / p.sum(), sample_profiles=rows,
                    lambdas=np.full(layers, 0.3), attention_tv=None if tv is None else np.full(layers, tv),
                    rope=rope, provenance={"source": "constructed in a test"},
                    kernel_inputs=inputs if k is not None else 0, kernel_tv=k,
                    kernel_tv_half=None if k is None else k * np.sqrt(2))


def fake_data(profile, *, layers=4, tv=0.1, rope=None, plan=PLAN, kernel_tv=0.01):
    """``{stem: Step0Run}`` for every run of ``plan``: ``profile(arch, L, seed, sample)`` gives
    each sample's (unnormalized) profile; ``tv`` the per-input, per-head attention TV of every
    layer; ``kernel_tv`` the TV of the averaged kernel of the runs with kernel inputs (a number,
    or ``kernel_tv(arch)``; None: no averaged kernel); ``rope`` the RoPE on/off figures of the
    rotary architecture's first seed."""
    out = {}
    for stem, argv in plan.runs().items():
        arch = argv[argv.index("--arch") + 1]
        L = int(argv[argv.index("--length") + 1])
        seed = int(argv[argv.index("--seed") + 1])
        samples = int(argv[argv.index("--samples") + 1])
        both = argv[argv.index("--rope") + 1] == "both"
        inputs = int(argv[argv.index("--kernel-inputs") + 1]) if "--kernel-inputs" in argv else 0
        k = kernel_tv(arch) if callable(kernel_tv) else kernel_tv
        rows = [profile(arch, L, seed, s) for s in range(samples)]
        out[stem] = _run(stem, arch, L, seed, rows, layers, tv, rope if both else None,
                         k if inputs else None, inputs)
    return out


def use_plan(monkeypatch, plan=PLAN):
    monkeypatch.setattr(measured, "STEP0_PLAN", plan)
