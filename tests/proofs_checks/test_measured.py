"""Tests of the measured Step-0 claims (chowdhury2026 C9, and the helpers for C8 and C7).

The claim check runs at its default size once per test session (measurements are memoized in
the process); without torch/transformers the verdict must be needs-data and the helpers None.
"""

import math
import sys

import pytest

from posbias.proofs_checks import measured as mm
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def ctx():
    return CheckContext()


def test_claim_is_registered_with_sympy_latex():
    c = get_claim("chowdhury2026:step0-fit")
    assert c.paper == "chowdhury2026" and c.section == "C9" and "models" in c.needs
    text = c.latex_text
    assert r"\frac{99}{100}" in text and r"\frac{1}{50}" in text and r"\alpha" in text


def test_step0_fit_verdict_comes_from_the_numbers(ctx):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    result = run_claim(get_claim("chowdhury2026:step0-fit"), ctx)
    ev = result.evidence
    assert ev.verdict in ("verified", "qualified", "refuted"), ev.details
    assert ev.verdict == result.claim.expected
    per = ev.details["per_architecture"]
    assert len(per) == 2
    # recompute the verdict from the reported figures and the stated tolerance
    s_min = mm.CLAIMED_SPEARMAN - 0.01
    w_max = mm.CLAIMED_W1 + 0.01
    ok = [v["spearman_best_alpha"] >= s_min and v["w1_best_alpha"] <= w_max for v in per.values()]
    far = [v["spearman_best_alpha"] < 0.9 and v["w1_best_alpha"] > 0.1 for v in per.values()]
    expected = "verified" if all(ok) else "refuted" if all(far) else "qualified"
    assert ev.verdict == expected
    for v in per.values():
        assert 0 < v["best_alpha"] < 1
        # the best constant alpha is at least as close (W1) as the measured schedule
        assert v["w1_best_alpha"] <= v["w1_measured_lambda"] * (1 + 1e-3)
        assert v["attention_tv_from_uniform_max"] < 0.1  # C1: attention at init is near uniform
    assert result.seconds < 120


@pytest.mark.slow  # three 24-block measurements (RoPE on, off, noise floor): ~10-20 s
def test_rope_and_peak_valley_helpers(ctx):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    rc = mm.measured_rope_comparison(ctx)
    assert rc["settings"]["num_hidden_layers"] == 24
    for key in ("spearman", "noise_spearman"):
        assert -1 <= rc[key] <= 1
    assert 0 <= rc["w1"] <= 1 and 0 <= rc["noise_w1"] <= 1
    # patching RoPE leaves the attention outputs' scale alone: lambda barely moves
    assert abs(rc["lambda_mean_on"] - rc["lambda_mean_off"]) < 0.05
    pv = mm.measured_peak_valley(ctx)
    assert set(pv["architectures"]) == {label for label, _, _ in mm._DEFAULT}
    assert "first/min" in pv["summary"]
    for v in pv["architectures"].values():
        assert v["first_over_min"] >= 1 and v["last_over_min"] >= 1
        assert 1 <= v["argmin"] <= v["length"] and math.isfinite(v["first_over_min"])
        # Cesàro rollouts are monotone before the final token: the minimum is at L - 1
        assert v["theory_best_alpha"]["argmin"] == v["length"] - 1


def test_needs_data_without_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    ctx = CheckContext(seed=1)  # a context not measured in this session
    ev = run_claim(get_claim("chowdhury2026:step0-fit"), ctx).evidence
    assert ev.verdict == "needs-data" and "models" in ev.method
    assert mm.measured_rope_comparison(ctx) is None
    assert mm.measured_peak_valley(ctx) is None
