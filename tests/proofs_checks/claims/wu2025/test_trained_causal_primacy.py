"""wu2025:trained-causal-primacy (Figure 2): the shipped attention-only runs give the expected
verdict; the claim reads only attention-only runs (needs-data naming the training command
without them); each verdict of its rule is reached from constructed runs; wu2025's own figures
pass the rule."""

from __future__ import annotations

import pytest

from posbias.proofs_checks.claims.wu2025 import trained_causal_primacy

CID = "wu2025:trained-causal-primacy"


def test_default_check_reads_the_shipped_results_as_expected(shipped_results_as_expected):
    shipped_results_as_expected(CID, residual=False)


def test_figure2_claim_reads_attention_only_runs_or_names_the_command(reads_attention_only_runs):
    reads_attention_only_runs(CID)


def test_a_missing_attention_only_run_is_needs_data_naming_its_command(missing_attention_only_run):
    missing_attention_only_run("causal-nope", CID)


def test_figure2_claim_never_reads_residual_runs(never_reads_residual_runs):
    never_reads_residual_runs(CID)


# --- power: through the real check on constructed runs -------------------------------------

@pytest.mark.parametrize("seeds, verdict", [
    ([(0.88, 0.05, 0.08, 0.0), (0.87, 0.04, 0.08, 0.0)], "verified"),  # wu2025: first-last +0.08
    # docs/explanation/mathematics.rst W5: attention-only networks at 95k iterations do not match in context
    ([(0.52, 0.05, 0.08, 0.0), (0.52, 0.04, 0.07, 0.0)], "qualified"),
    ([(0.88, 0.0, 0.003, 0.0), (0.87, 0.002, -0.004, 0.0)], "refuted"),   # no primacy
    ([(0.88, -0.04, -0.06, 0.0), (0.87, -0.03, -0.05, 0.0)], "refuted"),  # recency instead
])
def test_figure2_primacy_on_attention_only_runs(tmp_path, seeds, verdict, write_run, verdict_in):
    write_run(tmp_path, "causal-nope", False, seeds)
    r = verdict_in(CID, tmp_path)
    assert r.evidence.verdict == verdict
    assert r.evidence.setting["residual"] == "off" and r.scope == "paper"
    if verdict == "qualified":
        # the correction says no more than the figures: the in-context accuracy against random
        # label copying and the training accuracy, no inference about memorised classes
        corr = r.evidence.correction
        assert "at the level of copying one of the two context labels at random" in corr
        assert "training accuracy" in corr and "memoris" not in corr


def test_the_verdict_is_reported_at_every_evaluation(shipped_is_read_over_its_history):
    shipped_is_read_over_its_history(CID)


def test_wu2025_reported_figures_pass_the_rule(paper_figures_pass):
    paper_figures_pass(trained_causal_primacy.RULE, "verified")
