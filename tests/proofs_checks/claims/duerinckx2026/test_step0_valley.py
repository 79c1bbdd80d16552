"""duerinckx2026:step0-valley (a proxy): behaviour on the stored Step-0 runs (refuted: the kinetic
theory has no interior minimum where Qwen2-0.5B and GPT-2 are measured) and power on constructed
runs (a kinetic valley where the measured one is verifies; a kernel without distance decay
refutes; no valley leaves it inconclusive)."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from posbias.numerics.kinetic import kinetic_rollout
from posbias.proofs_checks import measured
from posbias.proofs_checks.claims.duerinckx2026 import step0_valley as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

fakes = sys.modules["posbias_tests_step0_fakes"]


@pytest.fixture(scope="module")
def result():
    return run_claim(get_claim("duerinckx2026:step0-valley"), CheckContext())


def test_refuted_on_the_stored_runs(result):
    ev = result.evidence
    if ev.verdict == "needs-data":
        pytest.skip("no stored Step-0 runs in this installation")
    assert ev.verdict == "refuted" == result.expected and result.scope == "proxy"
    f = ev.figures
    assert all(m > 2 for m in f["margin"].values())  # tau >= 1.6 against c_crit <= 0.55
    assert f["measured_depth"]["qwen2-0.5b"] > 0.02 > f["measured_depth"]["gpt2"]
    per = ev.details["per_architecture"]
    assert all(0.25 < v["kinetic"]["lambda_max"] < 0.4 for v in per.values())
    assert result.threshold_sensitive  # the Qwen2 valley is 1.8x the depth threshold


def _brute_tv(L, lam):
    q = math.exp(-lam / L)
    total = 0.0
    for i in range(1, L + 1):
        w = q ** np.arange(i)
        total += 0.5 * np.abs(w / w.sum() - 1 / i).sum()
    return total / L


@pytest.mark.parametrize("L, lam", [(1, 3.0), (9, 0.5), (200, 2.0), (300, 40.0)])
def test_alibi_tv_closed_form(L, lam):
    assert abs(mod.alibi_tv(L, lam) - _brute_tv(L, lam)) < 1e-12
    assert mod.alibi_tv(L, 0.0) == 0.0


def test_lambda_for_tv_inverts_it():
    lam = mod.lambda_for_tv(256, 0.05)
    assert abs(mod.alibi_tv(256, lam) - 0.05) < 1e-6


def _with(monkeypatch, profile, kernel_tv):
    fakes.use_plan(monkeypatch)
    data = fakes.fake_data(profile, kernel_tv=kernel_tv)
    monkeypatch.setattr(measured, "step0_data", lambda ctx, plan=None: data)
    return mod.check(CheckContext())


def _kinetic_valley(arch, L, seed, sample):
    return kinetic_rollout(L, mod.lambda_for_tv(128, 0.25), 1.0)


def test_a_kinetic_valley_where_it_is_measured_is_verified(monkeypatch):
    ev = _with(monkeypatch, _kinetic_valley, 0.25)
    assert ev.verdict == "verified"
    assert all(m < 1 for m in ev.figures["margin"].values())


def test_the_same_valley_with_a_cesaro_like_kernel_is_refuted(monkeypatch):
    ev = _with(monkeypatch, _kinetic_valley, 0.001)
    assert ev.verdict == "refuted"
    assert all(m > 1 for m in ev.figures["margin"].values())


def test_no_measured_valley_is_inconclusive(monkeypatch):
    ev = _with(monkeypatch, lambda arch, L, seed, sample: np.linspace(2, 1, L), 0.25)
    assert ev.verdict == "inconclusive"


def test_needs_data_without_runs(monkeypatch):
    monkeypatch.setattr(measured, "step0_data", lambda ctx, plan=None: None)
    assert mod.check(CheckContext()).verdict == "needs-data"


def test_rule_examples_reach_their_verdicts():
    for ex in mod.RULE.examples:
        assert mod.RULE.decide(ex.figures, mod.RULE.values()) == ex.verdict, ex.label
