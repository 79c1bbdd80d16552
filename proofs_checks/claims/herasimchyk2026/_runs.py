"""The command that writes the stored run of herasimchyk2026's config claims (not a claim module:
the leading underscore keeps it out of the automatic registration)::

    python -m posbias.proofs_checks.claims._herasimchyk_runs

computes :func:`~posbias.proofs_checks.claims.herasimchyk2026.config_figures` for all 32 shipped
rollout configs in both conventions and writes ``proofs_checks/data/runs/herasimchyk2026-configs.json``
with the command, versions and wall time.  The default ``posbias check`` reads it for the configs
it does not compute live; ``--thorough`` recomputes every row and requires agreement.
"""

from __future__ import annotations

from posbias.proofs_checks.claims.herasimchyk2026._legacy import _run_path, store_config_runs

if __name__ == "__main__":  # pragma: no cover - writes package data
    rec = store_config_runs()
    print(f"{len(rec['rows'])} rows in {rec['wall_s']} s -> {_run_path()}")
