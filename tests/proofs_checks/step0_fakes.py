"""Constructed Step-0 measurements for the claims decided on measured data: a small plan and
runs whose profiles the tests choose, so that every verdict a rule allows can be reached."""

import numpy as np

from posbias.proofs_checks import measured
from posbias.proofs_checks.measured import Step0Plan, Step0Run

PLAN = Step0Plan(architectures=("arch-a", "arch-b"), length=64, probes=2, samples=2,
                 seeds=(0, 1), scan_lengths=(32, 64, 128), rotary=("arch-a",))


def _run(stem, arch, L, seed, rows, layers, tv, rope):
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    rows = rows / rows.sum(axis=1, keepdims=True)
    p = rows.mean(axis=0)
    return Step0Run(stem=stem, arch=arch, length=L, seed=seed, samples=rows.shape[0],
                    estimator="2 rademacher probes", settings={"num_hidden_layers": layers},
                    profile=p / p.sum(), sample_profiles=rows,
                    lambdas=np.full(layers, 0.3), attention_tv=None if tv is None else np.full(layers, tv),
                    rope=rope, provenance={"source": "constructed in a test"})


def fake_data(profile, *, layers=4, tv=0.01, rope=None, plan=PLAN):
    """``{stem: Step0Run}`` for every run of ``plan``: ``profile(arch, L, seed, sample)`` gives
    each sample's (unnormalized) profile; ``tv`` the attention TV of every layer; ``rope`` the
    RoPE on/off figures of the rotary architecture's first seed."""
    out = {}
    for stem, argv in plan.runs().items():
        arch = argv[argv.index("--arch") + 1]
        L = int(argv[argv.index("--length") + 1])
        seed = int(argv[argv.index("--seed") + 1])
        samples = int(argv[argv.index("--samples") + 1])
        both = argv[argv.index("--rope") + 1] == "both"
        rows = [profile(arch, L, seed, s) for s in range(samples)]
        out[stem] = _run(stem, arch, L, seed, rows, layers, tv, rope if both else None)
    return out


def use_plan(monkeypatch, plan=PLAN):
    monkeypatch.setattr(measured, "STEP0_PLAN", plan)
