"""Benchmark: wu2025's in-context classification training (``posbias train --task wu2025-icl``)
at the paper's scale, per configuration, on the CPU or an accelerator.

Each configuration trains seed 0 exactly as the stored runs did (AdamW, lr 1e-3, batch 128,
an evaluation on 10,000 test sequences every 2,000 iterations with the Jacobian influence of
32 of them), for ``--iterations`` iterations, and prints the wall time, the iterations per
second and the time 100,000 iterations take at that rate (the wall time scaled by
100,000 / iterations: the evaluations scale with it when ``--iterations`` is a multiple of
``--eval-every``; the Step-0 evaluation, one more in a short run than its share, makes the
projection a little high: 4 evaluations in 6,000 iterations against 3.06 in proportion).
``--iterations 100000`` times the whole run.

Target on one GPU: a 100,000-iteration run in at most 5 minutes per configuration. The named
baseline of each configuration is its stored CPU run (seed 0, ``wall_seconds`` in
``posbias/proofs_checks/data/trained``: one single-thread process per seed, two at once on
two cores); the ratio against it is printed.

Run on demand (not collected by pytest)::

    python tests/benchmarks/bench_training.py [--device cpu|cuda|auto] [--iterations 10000]
        [--configs causal:none:res causal:rope:res ...] [--threads 1] [--json FILE]

A configuration is ``MASK:PE:res`` or ``MASK:PE:nores`` (MASK ``causal``, ``decay:0.223144``,
...). The default is the three Figure-5 configurations (residual connections on).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

#: the full run whose time the target is about
FULL_ITERATIONS = 100_000
#: target on one GPU for FULL_ITERATIONS, seconds
GPU_TARGET_S = 300.0
DEFAULT_CONFIGS = ("causal:none:res", "causal:rope:res", "decay:0.223144:none:res")


def _parse(spec: str) -> tuple[str, str, bool]:
    parts = spec.split(":")
    if len(parts) < 3 or parts[-1] not in ("res", "nores"):
        raise SystemExit(f"bench_training: --configs: {spec!r} is not MASK:PE:res|nores")
    return ":".join(parts[:-2]), parts[-2], parts[-1] == "res"


def _baseline(mask: str, pe: str, residual: bool) -> float | None:
    """The stored CPU run's wall time of this configuration, seed 0 (None if not stored)."""
    from posbias.measurements.training import TrainConfig
    from posbias.proofs_checks.data import data_path

    name = TrainConfig(mask=mask, pe=pe, residual=residual).name
    path = os.path.join(data_path("trained"), name + ".json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as fh:
        runs = json.load(fh)["runs"]
    return next((float(r["wall_seconds"]) for r in runs if r["seed"] == 0
                 and r["iterations"] == FULL_ITERATIONS), None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--iterations", type=int, default=10_000)
    ap.add_argument("--eval-every", type=int, default=2000)
    ap.add_argument("--test-size", type=int, default=10_000)
    ap.add_argument("--record-influence", type=int, default=32)
    ap.add_argument("--configs", nargs="+", default=list(DEFAULT_CONFIGS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    configs = [_parse(c) for c in args.configs]

    import torch

    from posbias.measurements.devices import resolve_device
    from posbias.measurements.training import TrainConfig, train_run

    torch.set_num_threads(args.threads)
    device, why = resolve_device(args.device)
    gpu = torch.cuda.get_device_name(device) if device.startswith("cuda") else None
    load = os.getloadavg()
    print(f"bench_training: wu2025 in-context classification, {args.iterations} iterations per "
          f"configuration, batch 128, evaluation every {args.eval_every} on {args.test_size} "
          f"sequences, influence of {args.record_influence}, seed 0, {device}"
          f"{' (' + gpu + ')' if gpu else ''} ({why}), {args.threads} thread(s), "
          f"torch {torch.__version__}")
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} cores")
    rows = []
    for mask, pe, residual in configs:
        config = TrainConfig(mask=mask, pe=pe, residual=residual, iterations=args.iterations,
                             eval_every=min(args.eval_every, args.iterations),
                             test_size=args.test_size,
                             influence_samples=args.record_influence)
        t0 = time.perf_counter()
        run = train_run(config, 0, progress=False, device=device)
        wall = time.perf_counter() - t0
        projected = wall * FULL_ITERATIONS / args.iterations
        base = _baseline(mask, pe, residual)
        met = None if gpu is None else projected <= GPU_TARGET_S
        last = run["history"][-1]
        row = {"mask": mask, "pe": pe, "residual": residual, "iterations": args.iterations,
               "wall_s": wall, "iterations_per_s": args.iterations / wall,
               "projected_100k_s": projected, "baseline_cpu_s": base,
               "ratio_to_baseline": None if base is None else base / projected,
               "target_s": GPU_TARGET_S if gpu else None, "met": met,
               "final_loss": last.get("loss"), "ic_accuracy": last.get("ic_accuracy")}
        rows.append(row)
        label = f"{mask}, PE {pe}, residual {'on' if residual else 'off'}"
        verdict = "" if met is None else (f"; target <= {GPU_TARGET_S:.0f} s: "
                                          f"{'met' if met else 'NOT met'}")
        ratio = "" if base is None else (f"; stored CPU run {base:.0f} s, this run "
                                         f"{base / projected:.2f}x its speed")
        print(f"{label}: {wall:.1f} s, {args.iterations / wall:.0f} iterations/s, 100,000 "
              f"iterations in {projected:.0f} s{verdict}{ratio}; loss {last.get('loss')}, "
              f"in-context accuracy {last.get('ic_accuracy')}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"device": device, "gpu": gpu, "threads": args.threads,
                       "torch": torch.__version__, "load_average": load, "runs": rows}, fh,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
