"""Benchmark of the Cesàro influence profile on its three paths (run on demand, not by pytest).

    python tests/benchmarks/bench_cesaro.py [--repeat N] [--skip-4096] [--with-8192]

Prints the median wall time (and CPU time) of:

- exact profile (reduced Fractions), L = 1024, T = 24, λ = 1/2      (target <= 0.5 s)
- L = 4096, T = 24, λ = 1/2: the numerators over the final denominator
  (``cesaro_profile_numerators``) against the common-denominator route
  (``cesaro_profile_scaled``, the named baseline, which the previous version used), the reduced
  Fractions, and ``posbias profile --exact --summary`` as a whole process (target <= 2 s)
- the same at L = 8192 (--with-8192; whole process target <= 15 s)
- the same L = 64, T = 24 profile via sympy.Matrix power vs ours   (target ratio >= 100)
- fast float64 path, L = 1,000,000, T = 100, λ = 1 and λ = 1/2     (target <= 0.3 s, memory O(L))
  on the compiled route (numba) against the numpy route (POSBIAS_NUMBA=0) as the named
  baseline, the two log profiles compared; and the peak of traced allocations (tracemalloc, a
  separate run) against the 8 MB of one float64 array of length L.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from fractions import Fraction

_CPU = {}


def _median_time(fn, repeat):
    """Median wall time of ``repeat`` calls (and, in _CPU, the median CPU time of the process:
    on a machine shared with other jobs the wall time can exceed the CPU time)."""
    times, cpu = [], []
    out = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    _CPU["last"] = statistics.median(cpu)
    return statistics.median(times), out


def _child_cpu(cmd) -> float:
    """User + system CPU seconds of one run of ``cmd`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-4096", action="store_true", help="leave out the L = 4096 case")
    ap.add_argument("--with-8192", action="store_true", help="add the L = 8192 case (tens of seconds)")
    args = ap.parse_args(argv)

    import sympy

    from posbias.numerics._arith import HAVE_GMPY2
    from posbias.numerics.cesaro import (
        cesaro_log_profile,
        cesaro_profile_exact,
        cesaro_profile_numerators,
        cesaro_profile_scaled,
    )

    half = Fraction(1, 2)
    rows = []

    def row(name, seconds, target, note=""):
        rows.append((name, seconds, _CPU["last"], target, note))
        print(f"  {name}: {seconds:.3f} s {note}", file=sys.stderr)

    t, p = _median_time(lambda: cesaro_profile_exact(1024, [half] * 24), args.repeat)
    assert sum(p) == 1
    row("exact L=1024 T=24 (reduced)", t, "<= 0.5 s")
    sizes = ([] if args.skip_4096 else [4096]) + ([8192] if args.with_8192 else [])
    for L in sizes:
        lams = [half] * 24
        t, (N, D) = _median_time(lambda L=L, lams=lams: cesaro_profile_numerators(L, lams),
                                   args.repeat)
        row(f"numerators L={L} T=24", t, "", f"(D has {D.bit_length()} bits)")
        if L == 4096:
            # the named baseline: the common-denominator route (multiplications by lcm(1..L)/i)
            tb, (Nb, Db) = _median_time(lambda L=L, lams=lams: cesaro_profile_scaled(L, lams), 1)
            assert all(n * Db == m * D for n, m in zip(N, Nb)), "the two exact routes disagree"
            rows.append((f"  scaled route L={L} (baseline)", tb, _CPU["last"], "baseline",
                         f"(ratio {tb / t:.1f}x)"))
        t, p = _median_time(lambda L=L, lams=lams: cesaro_profile_exact(L, lams), 1)
        assert all(x * D == n for x, n in zip(p[:64], N))
        row(f"exact L={L} T=24 (reduced Fractions)", t, "")
        # the measure: a whole process printing the summary
        cmd = [sys.executable, "-m", "posbias", "profile", "--length", str(L), "--depth", "24",
               "--alpha", "1/2", "--exact", "--summary", "-q"]
        t, out = _median_time(lambda cmd=cmd: subprocess.run(cmd, capture_output=True, text=True,
                                                     check=True), args.repeat)
        _CPU["last"] = _child_cpu(cmd)
        row(f"posbias profile --exact --summary L={L}", t,
            "<= 2 s" if L == 4096 else "<= 15 s", "(whole process)")

    # sympy.Matrix power route, L = 64, T = 24
    L, T = 64, 24

    def sympy_route():
        M = sympy.Matrix(L, L, lambda i, j: sympy.Rational(1, i + 1) if j <= i else 0)
        N = sympy.Rational(1, 2) * sympy.eye(L) + sympy.Rational(1, 2) * M
        P = N**T
        return [P[L - 1, j] for j in range(L)]

    t_sym, ref = _median_time(sympy_route, 1)
    cpu_sym = _CPU["last"]
    t_ours, ours = _median_time(lambda: cesaro_profile_exact(L, [half] * T), max(5, args.repeat))
    assert [Fraction(int(x.p), int(x.q)) for x in ref] == ours, "sympy and posbias disagree"
    rows.append(("sympy.Matrix power L=64 T=24", t_sym, cpu_sym, "reference", ""))
    row("ours L=64 T=24", t_ours, "ratio >= 100", f"(ratio {t_sym / t_ours:.0f}x)")

    import os

    import numpy as np

    from posbias.numerics import _compiled

    routes = (["numba"] if _compiled.HAVE_NUMBA else []) + ["numpy"]
    for lam in (1.0, 0.5):
        out = {}
        for route in routes:
            os.environ["POSBIAS_NUMBA"] = "1" if route == "numba" else "0"
            cesaro_log_profile(1000, [lam] * 2)  # compile or load the cached loop
            t, lp = _median_time(lambda lam=lam: cesaro_log_profile(10**6, [lam] * 100),
                                 args.repeat)
            out[route] = (t, lp)
            target = "<= 0.3 s" if route == routes[0] else "baseline"
            row(f"fast L=1e6 T=100 lambda={lam:g} ({route})", t, target, f"(ln p(L) = {lp[-1]:.10g})")
        if len(out) == 2:
            (tc, lc), (tn, ln) = out["numba"], out["numpy"]
            rel = float(np.max(np.abs(lc - ln) / np.maximum(1.0, np.abs(ln))))
            rows.append((f"  numpy / numba, lambda={lam:g}", tn / tc, float("nan"), "ratio",
                         f"(ln p differs by <= {rel:.1e} relative)"))
    os.environ.pop("POSBIAS_NUMBA", None)
    tracemalloc.start()
    cesaro_log_profile(10**6, [0.5] * 100)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    mem_note = f"peak traced {peak / 2**20:.1f} MiB = {peak / (8 * 10**6):.1f} float64 arrays of L"

    print(f"posbias Cesàro benchmark (gmpy2: {HAVE_GMPY2}; median of {args.repeat})")
    print(f"{'case':<40} {'wall s':>9} {'cpu s':>9}  {'target':<14} note")
    for name, seconds, cpu, target, note in rows:
        if target == "ratio":
            print(f"{name:<40} {seconds:>8.1f}x {'':>9}  {'':<14} {note}")
        else:
            print(f"{name:<40} {seconds:>9.3f} {cpu:>9.3f}  {target:<14} {note}")
    print(f"{'fast L=1e6 T=100 memory':<40} {'':>9} {'':>9}  {'O(L)':<14} {mem_note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
