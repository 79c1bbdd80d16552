"""The posbias:* exact-structure claims together: their default run stays fast (each claim's
behaviour and power tests are in tests/proofs_checks/claims/posbias/)."""

from __future__ import annotations

from posbias.proofs_checks import CheckContext, get_claim, run_claim

IDS = ["posbias:hausdorff", "posbias:bernstein", "posbias:symmetric-polynomial",
       "posbias:schedule-products"]


def test_default_run_is_fast():
    total = sum(run_claim(get_claim(cid), CheckContext()).seconds for cid in IDS)
    assert total < 20  # budget 10 s on a quiet machine; margin for shared CI cores
