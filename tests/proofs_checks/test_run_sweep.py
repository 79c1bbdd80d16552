"""A sweep plans itself in the library (posbias.proofs_checks.sweeps.run_sweep), as ``posbias
sweep`` does: the plan can be read without running, a sweep that cannot fit is refused before
any point runs, and the table holds every point in order."""

from __future__ import annotations

import pytest

from posbias.errors import ResourceLimit
from posbias.proofs_checks import sweeps

SPEC = {"command": "profile", "grid": {"length": [8, 16, 32]}, "fixed": {"depth": 2,
                                                                         "alpha": "1/2"}}


def test_run_sweep_gives_every_point_in_order():
    sweep = sweeps.parse_sweep(SPEC)
    seen = []
    rows = sweeps.run_sweep(sweep, progress=lambda done, total: seen.append((done, total)))
    assert [r["length"] for r in rows] == [8, 16, 32]
    for r in rows:
        point = {k: r[k] for k in ("length", "depth", "alpha")}
        assert {k: r[k] for k in sweeps.METRICS["profile"]} == sweeps.sweep_point("profile", point)
    assert seen[-1] == (3, 3)


def test_run_sweep_refuses_before_any_point(monkeypatch):
    sweep = sweeps.parse_sweep(SPEC)
    plan = sweeps.plan_sweep(sweep)
    assert plan.bytes > 2**20 and plan.seconds > 0

    def refuse(task):
        raise AssertionError("a point ran although the plan refuses the sweep")

    monkeypatch.setattr(sweeps, "sweep_batch", refuse)
    with pytest.raises(ResourceLimit, match=r"^needs about .*the sweep of 3 profile point"):
        sweeps.run_sweep(sweep, max_memory=2**20)
