"""Benchmark: building the symbolic derivations and rendering ``posbias latex``.

Run with ``python tests/benchmarks/bench_derivations.py``; each measurement runs in a fresh
interpreter (derivations are memoized per process), and the medians of three runs are printed.
"""

import statistics
import subprocess
import sys
import time

from posbias.derivations import derivation_names

BUILD_ONE = (
    "import time; t = time.perf_counter(); from posbias.derivations import get_derivation; "
    "get_derivation({name!r}); print(time.perf_counter() - t)"
)
BUILD_ALL = (
    "import time; t = time.perf_counter(); from posbias.derivations import all_derivations; "
    "all_derivations(); a = time.perf_counter(); "
    "from posbias.cli.latex import render_tex; "
    "render_tex(list(all_derivations().values())); print(a - t, time.perf_counter() - a)"
)


def _run(code: str) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [float(v) for v in out.stdout.split()]


def main(repeats: int = 3) -> None:
    print(f"{'derivation':28s} median seconds (fresh process, {repeats} runs)")
    for name in derivation_names():
        times = [_run(BUILD_ONE.format(name=name))[0] for _ in range(repeats)]
        print(f"{name:28s} {statistics.median(times):8.2f}")
    runs = [_run(BUILD_ALL) for _ in range(repeats)]
    build = statistics.median(r[0] for r in runs)
    render = statistics.median(r[1] for r in runs)
    print(f"{'all derivations':28s} {build:8.2f}")
    print(f"{'render standalone LaTeX':28s} {render:8.3f}  (ratio render/build {render / build:.3g})")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.1f} s", file=sys.stderr)
