"""Power of wu2025's rules at the claim level: each check, fed wu2025's own figures and
plausible false versions of its statements through the real computation, gives the verdict
that follows (docs/mathematics.rst W1-W5).

The analytic claims take the false version as a parameter of the check (t layers instead of
t + 1, a faster rate, a larger κ); the trained claims read constructed results documents from a
user data folder (``--data-dir``), made from the shipped runs with their last evaluation set to
the figures under test."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from posbias.proofs_checks.claims import wu2025 as wu
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

F = Fraction


# --- W5: trained networks, through the real checks on constructed runs --------------------

def _write(folder, key, residual, seeds, name=None):
    """A results document made from the shipped run of ``key``: residual flag set, the last
    evaluation of seed i given the figures ``seeds[i]`` (ic, fm, fl, ml)."""
    doc = copy.deepcopy(wu.stored_results(key))
    doc["config"]["residual"] = residual
    for run, (ic, fm, fl, ml) in zip(doc["runs"], seeds):
        e = run["history"][-1]
        e["ic_accuracy"] = ic
        e["difference"] = {"first-middle": fm, "first-last": fl, "middle-last": ml}
    (folder / "trained").mkdir(exist_ok=True)
    fname = name or (wu.STORED[key].replace("_res_", "_nores_") if not residual else wu.STORED[key])
    (folder / "trained" / f"{fname}.json").write_text(json.dumps(doc))
    return doc


def _verdict(cid, folder):
    r = run_claim(get_claim(cid), CheckContext(data_dir=str(folder)))
    assert not r.evidence.details.get("error"), r.evidence.details
    return r


FIG2_PRIMACY = [(0.88, 0.05, 0.08, 0.0), (0.87, 0.04, 0.08, 0.0)]  # wu2025: first-last +0.08


@pytest.mark.parametrize("seeds, verdict", [
    (FIG2_PRIMACY, "verified"),
    # docs/mathematics.rst W5: attention-only networks at 95k iterations do not match in context
    ([(0.52, 0.05, 0.08, 0.0), (0.52, 0.04, 0.07, 0.0)], "qualified"),
    ([(0.88, 0.0, 0.003, 0.0), (0.87, 0.002, -0.004, 0.0)], "refuted"),   # no primacy
    ([(0.88, -0.04, -0.06, 0.0), (0.87, -0.03, -0.05, 0.0)], "refuted"),  # recency instead
])
def test_figure2_primacy_on_attention_only_runs(tmp_path, seeds, verdict):
    _write(tmp_path, "causal-nope", False, seeds)
    r = _verdict("wu2025:trained-causal-primacy", tmp_path)
    assert r.evidence.verdict == verdict
    assert r.evidence.setting["residual"] == "off" and r.scope == "paper"
    if verdict == "qualified":
        assert "classes memorised" in r.evidence.correction


def test_figure2_claims_never_read_residual_runs(tmp_path, monkeypatch):
    empty = tmp_path / "shipped"
    empty.mkdir()
    _write(tmp_path, "causal-nope", True, FIG2_PRIMACY)
    monkeypatch.setattr(wu, "_shipped_dir", lambda: str(empty))  # no shipped Figure-2 runs
    for cid in ("wu2025:trained-causal-primacy", "wu2025:trained-rope-tradeoff",
                "wu2025:trained-decay-recency"):
        assert _verdict(cid, tmp_path).evidence.verdict == "needs-data"


@pytest.mark.parametrize("seeds, verdict", [
    ([(0.8, -0.055, -0.07, -0.003), (0.8, -0.05, -0.07, -0.003)], "verified"),  # wu2025 Fig. 2
    # the residual decay runs' figures, read as attention-only: label copying (ic 0.527)
    ([(0.5266, -0.0876, -0.0252, 0.0596), (0.5269, -0.0981, -0.0446, 0.0503)], "qualified"),
    ([(0.8, 0.05, 0.06, 0.0), (0.8, 0.06, 0.07, 0.0)], "refuted"),  # primacy instead
])
def test_figure2_decay_on_attention_only_runs(tmp_path, seeds, verdict):
    _write(tmp_path, "decay-nope", False, seeds)
    assert _verdict("wu2025:trained-decay-recency", tmp_path).evidence.verdict == verdict


@pytest.mark.parametrize("rope, nope, verdict", [
    # wu2025 Figure 2: RoPE first-last -0.00 against no PE +0.08
    ([(0.88, 0.0, 0.0, 0.0), (0.88, 0.0, -0.005, 0.0)], FIG2_PRIMACY, "verified"),
    # the residual runs' direction (RoPE above no PE) in the attention-only setting: refuted
    ([(0.90, 0.23, 0.234, 0.0), (0.91, 0.24, 0.251, 0.0)],
     [(0.89, 0.178, 0.19, 0.0), (0.88, 0.174, 0.191, 0.0)], "refuted"),
])
def test_figure2_rope_tradeoff_on_attention_only_runs(tmp_path, rope, nope, verdict):
    _write(tmp_path, "causal-rope", False, rope)
    _write(tmp_path, "causal-nope", False, nope)
    assert _verdict("wu2025:trained-rope-tradeoff", tmp_path).evidence.verdict == verdict


def test_figure5_rope_below_no_pe_is_refuted(tmp_path):
    """Figure 2's trade-off direction fed to the Figure 5 claim (residual runs)."""
    _write(tmp_path, "causal-rope", True, [(0.9, 0.10, 0.12, 0.0), (0.91, 0.11, 0.12, 0.0)])
    _write(tmp_path, "causal-nope", True, [(0.89, 0.18, 0.19, 0.0), (0.88, 0.17, 0.19, 0.0)])
    r = _verdict("wu2025:trained-rope-residual", tmp_path)
    assert r.evidence.verdict == "refuted" and r.evidence.figures["shift"][0] < 0


def test_figure5_primacy_without_gate_is_qualified_and_recency_refuted(tmp_path):
    _write(tmp_path, "causal-nope", True, [(0.54, 0.05, 0.06, 0.0), (0.52, 0.04, 0.05, 0.0)])
    assert _verdict("wu2025:trained-causal-primacy-residual", tmp_path).evidence.verdict == "qualified"
    _write(tmp_path, "causal-nope", True, [(0.88, -0.05, -0.06, 0.0), (0.88, -0.04, -0.05, 0.0)])
    assert _verdict("wu2025:trained-causal-primacy-residual", tmp_path).evidence.verdict == "refuted"


def test_figure5_decay_with_matching_verified_with_primacy_refuted(tmp_path):
    _write(tmp_path, "decay-nope", True, [(0.8, -0.05, -0.06, 0.0), (0.8, -0.06, -0.05, 0.0)])
    assert _verdict("wu2025:trained-decay-residual", tmp_path).evidence.verdict == "verified"
    _write(tmp_path, "decay-nope", True, [(0.8, 0.05, 0.04, 0.0), (0.8, 0.06, 0.05, 0.0)])
    assert _verdict("wu2025:trained-decay-residual", tmp_path).evidence.verdict == "refuted"


@pytest.mark.parametrize("rule, example_verdict", [
    (wu.PRIMACY_RULE, "verified"), (wu.ROPE_TRADEOFF_RULE, "verified"),
    (wu.DECAY_RULE, "verified"), (wu.PRIMACY_RESIDUAL_RULE, "verified"),
    (wu.ROPE_RESIDUAL_RULE, "verified"),
])
def test_wu2025_reported_figures_pass_their_rules(rule, example_verdict):
    papers = [ex for ex in rule.examples if ex.kind == "paper"]
    assert papers
    for ex in papers:
        assert rule.decide(ex.figures, rule.values()) == example_verdict, ex.label


def test_old_decay_rule_would_have_failed_wu2025s_own_figures():
    """The former rule needed middle-last < 0 beyond noise; wu2025's middle-last -0.003 is within
    any noise threshold, so its own figures could not pass it. The new rule decides on
    first-middle, the difference wu2025 states."""
    figs = {"first-middle": [-0.055], "first-last": [-0.07], "middle-last": [-0.003],
            "ic_accuracy": [None]}
    assert wu.DECAY_RULE.decide(figs, wu.DECAY_RULE.values()) == "verified"
    assert abs(figs["middle-last"][0]) < wu.MIN_THRESHOLD


def test_full_control_refutes_a_leaking_test_set(tmp_path):
    doc = copy.deepcopy(wu.stored_results("full-nope"))
    for run in doc["runs"]:
        run["history"][-1]["difference"]["first-last"] = 0.05
    (tmp_path / "trained").mkdir()
    (tmp_path / "trained" / f"{wu.STORED['full-nope']}.json").write_text(json.dumps(doc))
    r = _verdict("posbias:trained-full-control", tmp_path)
    assert r.evidence.verdict == "refuted" and r.scope == "machinery"


def test_thresholds_are_data_and_the_flip_point_is_reported():
    r = run_claim(get_claim("wu2025:trained-rope-residual"))
    flip = r.decision["flip"]
    assert flip and flip["threshold"] in wu.ROPE_RESIDUAL_RULE.thresholds
    assert not r.threshold_sensitive
    assert set(r.decision["thresholds"]) == {"noise_multiple", "floor", "gate"}
