"""The stored run of herasimchyk2026's config claims and the command that writes it (not a claim
module: the leading underscore keeps it out of the registration)::

    python -m posbias.proofs_checks.claims.herasimchyk2026._runs

computes :func:`~posbias.proofs_checks.claims.herasimchyk2026._shared.config_figures` for all 32
shipped rollout configs in both conventions and writes
``proofs_checks/data/runs/herasimchyk2026-configs.json`` with the command, versions and wall time.
The default ``posbias check`` reads it for the configs it does not compute live; ``--thorough``
recomputes every row and requires agreement.
"""

from __future__ import annotations

import json
import os
import platform
import time

import numpy as np

from posbias import __version__
from posbias.proofs_checks.claims.herasimchyk2026._shared import config_figures, run_path
from posbias.proofs_checks.data import builtin_configs

__all__ = ["store_config_runs"]


def store_config_runs(path: str | None = None) -> dict:
    """Compute :func:`config_figures` for all 32 shipped configs in both conventions and write
    them, with the command, versions and wall time, to the stored run (JSON)."""
    start = time.perf_counter()
    rows = []
    for name in builtin_configs():
        for conv in ("reference", "corrected"):
            rows.append(config_figures(name, conv))
    record = {
        "what": "figures of the u-shape-measured-schedules and four-forces-configs claims of "
                "herasimchyk2026 on every shipped rollout config (ml-uhh/position-bias a514e09, "
                "config/rollout/alibi), both conventions",
        "command": "python -m posbias.proofs_checks.claims.herasimchyk2026._runs",
        "versions": {"posbias": __version__, "numpy": np.__version__, "python": platform.python_version()},
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "wall_s": round(time.perf_counter() - start, 1),
        "threads": 1,
        "rows": rows,
    }
    path = path or run_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1, sort_keys=False)
        fh.write("\n")
    return record


if __name__ == "__main__":  # pragma: no cover - writes package data
    rec = store_config_runs()
    print(f"{len(rec['rows'])} rows in {rec['wall_s']} s -> {run_path()}")
