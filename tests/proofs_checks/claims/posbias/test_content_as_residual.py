"""posbias:content-as-residual (X4): the expected verdict, and the check detects a perturbed
A(d) and the first-order γ."""

from __future__ import annotations

from posbias.proofs_checks.claims.posbias import content_as_residual
from posbias.proofs_checks.registry import CheckContext

CID = "posbias:content-as-residual"
CTX = CheckContext(max_dps=60)  # a false version is refuted after one escalation


def test_verdict_equals_expected(alibi_expected_verdict):
    alibi_expected_verdict(CID)


def test_content_as_residual_detects_a_wrong_gamma(monkeypatch):
    orig = content_as_residual.alibi_kernel_dense_precise

    def shifted(L, layer, *, dps, base=0):
        A = orig(L, layer, dps=dps, base=base)
        if layer.diagonal[0] != 0:  # perturb A(d) only
            A[-1][-1] *= 1 + 1e-9
        return A

    monkeypatch.setattr(content_as_residual, "alibi_kernel_dense_precise", shifted)
    assert content_as_residual.check(CheckContext()).verdict == "refuted"


def test_posbias_card_states_posbias_own_result(states_posbias_own_result):
    states_posbias_own_result(CID)


# --- power: the rule fed a plausible false version ----------------------------------------

def test_content_first_order_gamma_refuted():
    ev = content_as_residual.check(CTX, gamma=lambda e, a: e * a)
    assert ev.verdict == "refuted"
    assert content_as_residual.check(CheckContext()).verdict == "verified"
