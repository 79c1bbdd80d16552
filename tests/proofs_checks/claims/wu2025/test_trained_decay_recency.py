"""wu2025:trained-decay-recency (Figure 2): the shipped attention-only runs give the expected
verdict; the claim reads only attention-only runs (needs-data naming the training command
without them); each verdict of its rule is reached from constructed runs; wu2025's own figures
pass the rule, which the former rule (middle-last < 0) would not; middle-last beyond noise above 0
(the middle preferred over the last position) refutes the recency."""

from __future__ import annotations

import pytest

from posbias.proofs_checks.claims.wu2025 import _trained as trained
from posbias.proofs_checks.claims.wu2025 import trained_decay_recency

CID = "wu2025:trained-decay-recency"


def test_default_check_reads_the_shipped_results_as_expected(shipped_results_as_expected):
    shipped_results_as_expected(CID, residual=False)


def test_figure2_claim_reads_attention_only_runs_or_names_the_command(reads_attention_only_runs):
    reads_attention_only_runs(CID)


def test_a_missing_attention_only_run_is_needs_data_naming_its_command(missing_attention_only_run):
    missing_attention_only_run("decay-nope", CID)


def test_figure2_claim_never_reads_residual_runs(never_reads_residual_runs):
    never_reads_residual_runs(CID)


# --- power: through the real check on constructed runs -------------------------------------

@pytest.mark.parametrize("seeds, verdict", [
    ([(0.8, -0.055, -0.07, -0.003), (0.8, -0.05, -0.07, -0.003)], "verified"),  # wu2025 Fig. 2
    # recency without in-context matching (ic 0.52): qualified
    ([(0.52, -0.05, -0.06, -0.01), (0.52, -0.06, -0.05, 0.0)], "qualified"),
    # the residual decay runs' figures, read as attention-only: first-middle < 0 but middle-last
    # +0.060, +0.050, a preference for the middle over the last position, not recency
    ([(0.5266, -0.0876, -0.0252, 0.0596), (0.5269, -0.0981, -0.0446, 0.0503)], "refuted"),
    # the same middle preference in a network that matches in context
    ([(0.8, -0.05, -0.005, 0.05), (0.8, -0.06, -0.02, 0.04)], "refuted"),
    ([(0.8, 0.05, 0.06, 0.0), (0.8, 0.06, 0.07, 0.0)], "refuted"),  # primacy instead
])
def test_figure2_decay_on_attention_only_runs(tmp_path, seeds, verdict, write_run, verdict_in):
    write_run(tmp_path, "decay-nope", False, seeds)
    assert verdict_in(CID, tmp_path).evidence.verdict == verdict


def test_wu2025_reported_figures_pass_the_rule(paper_figures_pass):
    paper_figures_pass(trained_decay_recency.RULE, "verified")


def test_old_decay_rule_would_have_failed_wu2025s_own_figures():
    """The former rule needed middle-last < 0 beyond noise; wu2025's middle-last -0.003 is within
    any noise threshold, so its own figures could not pass it. The new rule decides on
    first-middle, the difference wu2025 states."""
    figs = {"first-middle": [-0.055], "first-last": [-0.07], "middle-last": [-0.003],
            "ic_accuracy": [None]}
    rule = trained_decay_recency.RULE
    assert rule.decide(figs, rule.values()) == "verified"
    assert abs(figs["middle-last"][0]) < trained.MIN_THRESHOLD


def test_the_verdict_is_reported_at_every_evaluation(shipped_is_read_over_its_history):
    shipped_is_read_over_its_history(CID)
