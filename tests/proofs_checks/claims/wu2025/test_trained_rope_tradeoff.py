"""wu2025:trained-rope-tradeoff (Figure 2): the shipped attention-only runs give the expected
verdict; the claim reads only attention-only runs (needs-data naming the training command
without them); each verdict of its rule is reached from constructed runs; wu2025's own figures
pass the rule."""

from __future__ import annotations

import pytest

from posbias.proofs_checks.claims.wu2025 import trained_rope_tradeoff

CID = "wu2025:trained-rope-tradeoff"


def test_default_check_reads_the_shipped_results_as_expected(shipped_results_as_expected):
    shipped_results_as_expected(CID, residual=False)


def test_figure2_claim_reads_attention_only_runs_or_names_the_command(reads_attention_only_runs):
    reads_attention_only_runs(CID)


def test_a_missing_attention_only_run_is_needs_data_naming_its_command(missing_attention_only_run):
    missing_attention_only_run("causal-rope", CID)


def test_figure2_claim_never_reads_residual_runs(never_reads_residual_runs):
    never_reads_residual_runs(CID)


# --- power: through the real check on constructed runs -------------------------------------

FIG2_PRIMACY = [(0.88, 0.05, 0.08, 0.0), (0.87, 0.04, 0.08, 0.0)]  # wu2025: first-last +0.08


@pytest.mark.parametrize("rope, nope, verdict", [
    # wu2025 Figure 2: RoPE first-last -0.00 against no PE +0.08
    ([(0.88, 0.0, 0.0, 0.0), (0.88, 0.0, -0.005, 0.0)], FIG2_PRIMACY, "verified"),
    # the residual runs' direction (RoPE above no PE) in the attention-only setting: refuted
    ([(0.90, 0.23, 0.234, 0.0), (0.91, 0.24, 0.251, 0.0)],
     [(0.89, 0.178, 0.19, 0.0), (0.88, 0.174, 0.191, 0.0)], "refuted"),
    # RoPE lowers first-last but moves the preference toward the middle (middle-last +0.06):
    # not a trade-off toward recency
    ([(0.88, 0.06, 0.0, 0.06), (0.88, 0.05, 0.0, 0.05)], FIG2_PRIMACY, "refuted"),
    # the stated shift in networks at label-copying level (both arms at 0.51-0.52, the size of
    # the stored attention-only runs): no positional trade-off can be shown
    ([(0.514, 0.010, 0.004, -0.003), (0.515, 0.006, 0.010, 0.008)],
     [(0.520, 0.079, 0.105, 0.026), (0.518, 0.065, 0.099, 0.030)], "inconclusive"),
    # one arm above the gate, the other at label-copying level
    ([(0.88, 0.0, 0.0, 0.0), (0.88, 0.0, -0.005, 0.0)],
     [(0.52, 0.05, 0.08, 0.0), (0.52, 0.04, 0.08, 0.0)], "inconclusive"),
])
def test_figure2_rope_tradeoff_on_attention_only_runs(tmp_path, rope, nope, verdict, write_run,
                                                      verdict_in):
    write_run(tmp_path, "causal-rope", False, rope)
    write_run(tmp_path, "causal-nope", False, nope)
    assert verdict_in(CID, tmp_path).evidence.verdict == verdict


def test_wu2025_reported_figures_pass_the_rule(paper_figures_pass):
    paper_figures_pass(trained_rope_tradeoff.RULE, "verified")


def test_the_verdict_is_reported_at_every_evaluation(shipped_is_read_over_its_history):
    shipped_is_read_over_its_history(CID, "first-last", "middle-last")
