"""wu2025:trained-rope-residual (Figure 5): the shipped runs with residual connections give the
expected verdict, compared with Figure 5 and with the gate reported; Figure 2's trade-off
direction fed to it is refuted; wu2025's own figures pass the rule; its thresholds are data and
the flip point is reported."""

from __future__ import annotations

from posbias.proofs_checks.claims.wu2025 import trained_rope_residual
from posbias.proofs_checks.registry import get_claim, run_claim

CID = "wu2025:trained-rope-residual"


def test_default_check_reads_the_shipped_results_as_expected(shipped_results_as_expected):
    shipped_results_as_expected(CID, residual=True)


def test_residual_claim_is_compared_with_figure5_and_reports_the_gate(compared_with_figure5):
    compared_with_figure5(CID)


# --- power: through the real check on constructed runs -------------------------------------

def test_figure5_rope_below_no_pe_is_refuted(tmp_path, write_run, verdict_in):
    """Figure 2's trade-off direction fed to the Figure 5 claim (residual runs)."""
    write_run(tmp_path, "causal-rope", True, [(0.9, 0.10, 0.12, 0.0), (0.91, 0.11, 0.12, 0.0)])
    write_run(tmp_path, "causal-nope", True, [(0.89, 0.18, 0.19, 0.0), (0.88, 0.17, 0.19, 0.0)])
    r = verdict_in(CID, tmp_path)
    assert r.evidence.verdict == "refuted" and r.evidence.figures["shift"][0] < 0


def test_both_arms_are_gated(tmp_path, write_run, verdict_in):
    """The stated shift with one arm at label-copying level (in-context accuracy 0.52) is no
    positional trade-off: inconclusive, and the evidence prints both arms' accuracies."""
    write_run(tmp_path, "causal-rope", True, [(0.9, 0.24, 0.25, 0.0), (0.91, 0.24, 0.25, 0.0)])
    write_run(tmp_path, "causal-nope", True, [(0.52, 0.18, 0.19, 0.0), (0.52, 0.17, 0.19, 0.0)])
    r = verdict_in(CID, tmp_path)
    assert r.evidence.verdict == "inconclusive"
    assert "0.5200" in r.evidence.discrepancy and "0.9000" in r.evidence.discrepancy
    write_run(tmp_path, "causal-nope", True, [(0.89, 0.18, 0.19, 0.0), (0.88, 0.17, 0.19, 0.0)])
    assert verdict_in(CID, tmp_path).evidence.verdict == "verified"


def test_wu2025_reported_figures_pass_the_rule(paper_figures_pass):
    paper_figures_pass(trained_rope_residual.RULE, "verified")


def test_thresholds_are_data_and_the_flip_point_is_reported():
    r = run_claim(get_claim(CID))
    flip = r.decision["flip"]
    assert flip and flip["threshold"] in trained_rope_residual.RULE.thresholds
    assert not r.threshold_sensitive
    assert set(r.decision["thresholds"]) == {"noise_multiple", "floor", "gate"}


def test_the_verdict_is_reported_at_every_evaluation(shipped_is_read_over_its_history):
    shipped_is_read_over_its_history(CID, "first-middle")
