"""A researcher's script written against posbias's public API, as a user would write it.

tests/test_typing.py type-checks this file with mypy against the installed package: it must
find posbias's annotations (``py.typed``) and report no error.  It is never run by the tests.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from posbias import InvalidArgument
from posbias.numerics import cesaro_profile
from posbias.proofs_checks import (
    CheckContext,
    Claim,
    Evidence,
    Result,
    all_claims,
    claim,
    get_claim,
    run_claim,
    unregister,
)
from posbias.proofs_checks.registry import exit_status


def profile(length: int, lam: float, depth: int) -> npt.NDArray[np.float64]:
    """The float64 influence profile of a constant schedule."""
    return np.asarray(cesaro_profile(length, [lam] * depth), dtype=np.float64)


@claim("mylab:row-sums", statement="the influence profile sums to 1", latex=r"\sum_j p_j = 1",
       expected="verified")
def _row_sums(ctx: CheckContext) -> Evidence:
    total = float(profile(64, 0.5, 8).sum())
    gap = abs(total - 1.0)
    return Evidence("verified" if gap < 1e-12 else "refuted", method="float64 sum of p(j)",
                    discrepancy=f"{gap:.1e}", precision="float64")


def main() -> int:
    try:
        profile(0, 0.5, 8)
    except InvalidArgument as exc:
        print(exc)
    mine: Claim = get_claim("mylab:row-sums")
    results: list[Result] = [run_claim(mine, CheckContext(dps=30))]
    print(len(all_claims("mylab")), results[0].ok)
    unregister(mine.id)
    return exit_status(results)


if __name__ == "__main__":
    raise SystemExit(main())
