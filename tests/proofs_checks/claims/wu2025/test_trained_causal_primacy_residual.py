"""wu2025:trained-causal-primacy-residual (Figure 5): the shipped runs with residual connections
give the expected verdict, compared with Figure 5 and with the gate reported; missing results
are needs-data; qualified and refuted are reached from constructed runs; wu2025's own figures
pass the rule."""

from __future__ import annotations

from posbias.proofs_checks import registry
from posbias.proofs_checks.claims.wu2025 import _trained as trained
from posbias.proofs_checks.claims.wu2025 import trained_causal_primacy_residual

CID = "wu2025:trained-causal-primacy-residual"


def test_default_check_reads_the_shipped_results_as_expected(shipped_results_as_expected):
    shipped_results_as_expected(CID, residual=True)


def test_residual_claim_is_compared_with_figure5_and_reports_the_gate(compared_with_figure5):
    compared_with_figure5(CID)


def test_missing_results_are_needs_data(monkeypatch):
    monkeypatch.setattr(trained, "STORED", dict.fromkeys(trained.STORED, "absent"))
    r = registry.run_claim(registry.get_claim(CID))
    assert r.evidence.verdict == "needs-data" and r.ok


# --- power: through the real check on constructed runs -------------------------------------

def test_figure5_primacy_without_gate_is_qualified_and_recency_refuted(tmp_path, write_run,
                                                                        verdict_in):
    write_run(tmp_path, "causal-nope", True, [(0.54, 0.05, 0.06, 0.0), (0.52, 0.04, 0.05, 0.0)])
    assert verdict_in(CID, tmp_path).evidence.verdict == "qualified"
    write_run(tmp_path, "causal-nope", True, [(0.88, -0.05, -0.06, 0.0), (0.88, -0.04, -0.05, 0.0)])
    assert verdict_in(CID, tmp_path).evidence.verdict == "refuted"


def test_wu2025_reported_figures_pass_the_rule(paper_figures_pass):
    paper_figures_pass(trained_causal_primacy_residual.RULE, "verified")


def test_the_verdict_is_reported_at_every_evaluation(shipped_is_read_over_its_history):
    shipped_is_read_over_its_history(CID)
