"""Produce tests/data/golden/cesaro_profiles.json: exact rational Cesàro influence profiles.

Each profile is the last row of Π_t((1-λ_t)I + λ_t M), M the Cesàro matrix, computed by two
independent exact routes that must agree before anything is written: posbias's O(T·L) suffix-sum
propagation (numerics.cesaro) and the dense O(T·L^2) last-row propagation over explicit kernel
matrices (numerics.kernels).  Run from the repository root:

    python tests/data/golden/make_golden.py

The file is a regression anchor: tests/numerics/test_golden.py recomputes every profile and
requires equality of the fractions.
"""

import json
import os
from fractions import Fraction

from posbias.numerics.cesaro import cesaro_profile_exact
from posbias.numerics.kernels import rollout_last_row_exact, uniform_causal_kernel_exact

SCHEDULES = {
    "const:1": lambda T: [Fraction(1)] * T,
    "const:1/2": lambda T: [Fraction(1, 2)] * T,
    "power:1,2": lambda T: [Fraction(1, (t + 1) ** 2) for t in range(T)],
    "list:1/3,2/3,1/7,...": lambda T: [[Fraction(1, 3), Fraction(2, 3), Fraction(1, 7)][t % 3]
                                       for t in range(T)],
}
LENGTHS = (1, 2, 5, 12, 31)
DEPTHS = (0, 1, 3, 8)


def main():
    cases = []
    for name, make in SCHEDULES.items():
        for L in LENGTHS:
            for T in DEPTHS:
                lams = make(T)
                p = cesaro_profile_exact(L, lams)
                q = rollout_last_row_exact(uniform_causal_kernel_exact(L), lams)
                if p != [Fraction(x) for x in q]:
                    raise SystemExit(f"routes disagree at {name}, L={L}, T={T}")
                cases.append({
                    "schedule": name, "length": L, "depth": T,
                    "lambdas": [str(x) for x in lams],
                    "profile": [f"{x.numerator}/{x.denominator}" for x in p],
                })
    out = {
        "description": "exact last rows of the residual-aware Cesàro rollout",
        "produced_by": "tests/data/golden/make_golden.py (two exact routes, required equal)",
        "cases": cases,
    }
    path = os.path.join(os.path.dirname(__file__), "cesaro_profiles.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
    print(f"wrote {len(cases)} profiles to {path}")


if __name__ == "__main__":
    main()
