"""posbias:alibi-linear-time (X5): the expected verdict; a wrong recurrence (perturbed, or
without the diagonal logit) refuted; the timing exponent never decides; machinery scope."""

from __future__ import annotations

import dataclasses

import numpy as np

from posbias.numerics.alibi import alibi_propagate_precise
from posbias.proofs_checks.claims.posbias import alibi_linear_time
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

CID = "posbias:alibi-linear-time"
CTX = CheckContext(max_dps=60)  # a false version is refuted after one escalation


def test_verdict_equals_expected(alibi_expected_verdict):
    alibi_expected_verdict(CID)


def test_linear_time_detects_a_wrong_recurrence(monkeypatch):
    orig = alibi_linear_time.alibi_propagate_precise

    def wrong(v, layer, *, dps, count_ops=False):
        out = orig(v, layer, dps=dps, count_ops=count_ops)
        if count_ops:
            return out
        return [x * (1 + (k == 1) * 1e-12) for k, x in enumerate(out)]

    monkeypatch.setattr(alibi_linear_time, "alibi_propagate_precise", wrong)
    assert alibi_linear_time.check(CheckContext()).verdict == "refuted"


def test_alibi_linear_time_is_machinery():
    assert get_claim(CID).card.resolve()["scope"] == "machinery"


# --- power: the rule fed a plausible false version ----------------------------------------

def test_linear_time_recurrence_without_the_diagonal_refuted_timing_never_decides():
    def no_diagonal(v, lay, dps):
        return alibi_propagate_precise(
            v, dataclasses.replace(lay, diagonal=np.zeros_like(lay.diagonal)), dps=dps)

    ev = alibi_linear_time.check(CTX, propagate=no_diagonal)
    assert ev.verdict == "refuted" and ev.figures["operations_affine_in_L"]
    # the rule ignores the timing exponent: any value gives the same verdict
    good = run_claim(get_claim(CID)).evidence
    assert good.verdict == "verified"
    for e in (0.5, 1.0, 3.0):
        assert alibi_linear_time.RULE.apply({**good.figures, "time_exponent": e}).verdict == "verified"
