"""Benchmark: a Step-0 measurement of a GPT-2-small-sized model (12 blocks, hidden 768, 12 heads,
vocabulary 50257) at L = 1024 with 8 Rademacher probes: wall time, and the process's peak
resident memory (``ru_maxrss``).  Target: at most 5 minutes on 2 cores.

Run on demand (not collected by pytest)::

    python tests/benchmarks/bench_measure.py [--length 1024] [--probes 8] [--threads 1]
                                             [--repeat 1]

Prints the median time over the repeats, the seconds per probe, the peak memory, and the load
average at start (the machine may be shared), and the measured profile's summary figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="gpt2")
    ap.add_argument("--length", type=int, default=1024)
    ap.add_argument("--probes", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from posbias.measurements.measure import measure_influence, require_models_extra
    from posbias.proofs_checks.measured import compare_with_theory

    torch, transformers = require_models_extra()
    load = os.getloadavg()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = []
    m = None
    for _ in range(args.repeat):
        t = time.perf_counter()
        m = measure_influence(args.arch, length=args.length, probes=args.probes, seed=0,
                              threads=args.threads)
        times.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    c = compare_with_theory(m)
    s = m.settings
    med = statistics.median(times)
    print(f"bench_measure: {args.arch} ({s['num_hidden_layers']} blocks, hidden "
          f"{s['hidden_size']}, {s['num_attention_heads']} heads, vocab {s['vocab_size']}), "
          f"L = {args.length}, {args.probes} probes, {args.threads} thread(s), torch "
          f"{torch.__version__}, transformers {transformers.__version__}")
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"on {os.cpu_count()} cores")
    print(f"median time: {med:.1f} s over {args.repeat} run(s) "
          f"(target <= 300 s: {'met' if med <= 300 else 'NOT met'}); "
          f"{med / args.probes:.2f} s per probe including the model build")
    print(f"peak resident memory: {peak:.0f} MiB (before measuring: {rss0:.0f} MiB); "
          f"probe batch copies: {m.details['probe_chunk']}")
    print(f"profile: first/min {c.measured['first_over_min']:.3g}, last/min "
          f"{c.measured['last_over_min']:.3g}, argmin {c.measured['argmin']}; best alpha "
          f"{c.best_alpha:.3g} (Spearman {c.spearman_best_alpha:.3g}, W1 {c.w1_best_alpha:.3g}); "
          f"lambda mean {float(m.lambdas.mean()):.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
