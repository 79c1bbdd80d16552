"""Where the compiled loops pay for numba's start-up: whole ``posbias profile`` processes on the
numpy routes (``POSBIAS_NUMBA=0``, the named baseline) against the compiled ones
(``POSBIAS_NUMBA=1``), for the Cesàro layer and the ALiBi scan (run on demand, not by pytest).

    python tests/benchmarks/bench_crossover.py [--repeat N] [--quick]

For each loop it times two sizes (work = layers x positions, times heads for ALiBi), prints the
median wall time of each route and their ratio, fits ``time = start-up + work x cost`` to each
route through the two sizes, and prints the work at which the two lines cross, next to the
threshold :data:`posbias.numerics._compiled.AUTO_WORK` that ``use_compiled`` applies.  The
processes are fresh interpreters, so numba's import and the loading of its on-disk cache are
counted, as a user's ``posbias profile`` pays them.  ``--quick`` times the smaller size only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

#: (loop, [(work, profile arguments), ...]): two sizes on either side of the crossover
CASES = {
    "cesaro": [(10**8, ["--length", "1000000", "--depth", "100", "--alpha", "1"]),
               (4 * 10**8, ["--length", "4000000", "--depth", "100", "--alpha", "1"])],
    "alibi": [(32 * 10**6, ["--length", "1000000", "--depth", "32", "--kernel", "alibi:0.001",
                            "--alpha", "1/2"]),
              (128 * 10**6, ["--length", "4000000", "--depth", "32", "--kernel", "alibi:0.001",
                             "--alpha", "1/2"])],
}


def _run(args: list[str], numba: str) -> float:
    env = dict(os.environ, POSBIAS_NUMBA=numba)
    cmd = [sys.executable, "-m", "posbias", "profile", *args, "--summary"]
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    opts = parser.parse_args()
    from posbias.numerics import _compiled

    if not _compiled.HAVE_NUMBA:
        sys.exit("numba is not installed: there is no compiled route to compare")
    _run(CASES["cesaro"][0][1], "1")  # fill numba's on-disk cache once, untimed
    _run(CASES["alibi"][0][1], "1")
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    for loop, sizes in CASES.items():
        lines = {}
        for work, args in sizes[:1] if opts.quick else sizes:
            times: dict[str, list[float]] = {"0": [], "1": []}
            for _ in range(opts.repeat):  # interleaved: both routes see the same load
                for numba in ("0", "1"):
                    times[numba].append(_run(args, numba))
            med = {k: statistics.median(v) for k, v in times.items()}
            lines[work] = med
            print(f"{loop:6s} work {work:.2e}: numpy {med['0']:.2f} s, compiled {med['1']:.2f} s "
                  f"(median of {opts.repeat}); numpy/compiled = {med['0'] / med['1']:.2f}  "
                  f"[posbias profile {' '.join(args)}]")
        if len(lines) == 2:
            (w1, a), (w2, b) = sorted(lines.items())
            slope = {k: (b[k] - a[k]) / (w2 - w1) for k in a}
            start = {k: a[k] - slope[k] * w1 for k in a}
            gain = slope["0"] / slope["1"]
            cross = ((start["1"] - start["0"]) / (slope["0"] - slope["1"])
                     if slope["0"] > slope["1"] else float("inf"))
            print(f"{loop:6s} per element: numpy {slope['0']:.2e} s, compiled {slope['1']:.2e} s "
                  f"({gain:.1f}x); start-up difference {start['1'] - start['0']:+.2f} s; the routes "
                  f"cross at work {cross:.2e}; AUTO_WORK[{loop!r}] = {_compiled.AUTO_WORK[loop]:.2e}")


if __name__ == "__main__":
    main()
