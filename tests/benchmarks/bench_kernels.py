"""Benchmark of general-kernel rollouts (posbias.numerics.kernels); run on demand:

    python tests/benchmarks/bench_kernels.py

Prints medians of repeated runs and the ratios that matter: the fast dense path should scale
like T L^2, the exact path is compared with the fast one on the same kernel.
"""

from __future__ import annotations

import random
import statistics
import time
from fractions import Fraction

import numpy as np

from posbias.numerics.kernels import (
    decay_kernel,
    random_causal_kernel_exact,
    rollout_last_row,
    rollout_last_row_exact,
    rollout_last_row_precise,
    rollout_matrix_exact,
)


def median_seconds(f, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    half = [0.5] * 24
    A1, A2 = decay_kernel(1000, 0.01), decay_kernel(2000, 0.01)
    t1 = median_seconds(lambda: rollout_last_row(A1, half))
    t2 = median_seconds(lambda: rollout_last_row(A2, half))
    print(f"fast dense, one ALiBi kernel, T=24: L=1000 {t1:.3f} s, L=2000 {t2:.3f} s, "
          f"ratio {t2 / t1:.2f} (T L^2 scaling predicts 4; validation, also O(L^2), included)")
    stack = np.stack([decay_kernel(1000, 0.01 * k) for k in range(1, 25)])
    t3 = median_seconds(lambda: rollout_last_row(stack, half))
    print(f"fast dense, 24 different kernels, L=1000, T=24: {t3:.3f} s")
    rng = random.Random(1)
    K = random_causal_kernel_exact(64, rng)
    exact_half = [Fraction(1, 2)] * 8
    fK = np.array([[float(x) for x in r] for r in K])
    te = median_seconds(lambda: rollout_last_row_exact(K, exact_half), 3)
    tf = median_seconds(lambda: rollout_last_row(fK, [0.5] * 8), 5)
    tp = median_seconds(lambda: rollout_last_row_precise(K, exact_half, dps=50), 3)
    print(f"random kernel L=64, T=8: exact {te:.3f} s, precise (dps=50) {tp:.3f} s, fast {tf:.5f} s, "
          f"exact/fast {te / tf:.0f}x")
    K16 = random_causal_kernel_exact(16, rng)
    tm = median_seconds(lambda: rollout_matrix_exact(K16, exact_half), 3)
    tl = median_seconds(lambda: rollout_last_row_exact(K16, exact_half), 3)
    print(f"exact L=16, T=8: full matrix {tm:.4f} s, last row {tl:.4f} s, ratio {tm / tl:.1f}")


if __name__ == "__main__":
    main()
