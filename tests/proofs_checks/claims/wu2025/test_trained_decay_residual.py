"""wu2025:trained-decay-residual (Figure 2's statement in Figure 5's setting): the shipped runs
give the expected verdict, refuted because middle-last lies beyond noise above 0 (a middle
preference, not recency); compared with Figure 5 (scope variant) and with the gate reported;
verified, qualified and refuted are reached from constructed runs."""

from __future__ import annotations

from posbias.proofs_checks import registry
from posbias.proofs_checks.claims.wu2025 import _trained as trained

CID = "wu2025:trained-decay-residual"


def test_default_check_reads_the_shipped_results_as_expected(shipped_results_as_expected):
    shipped_results_as_expected(CID, residual=True)


def test_residual_claim_is_compared_with_figure5_and_reports_the_gate(compared_with_figure5):
    compared_with_figure5(CID)


def test_decay_residual_is_a_middle_preference_not_recency():
    """The stored residual decay runs prefer the middle over the first position and over the
    last: middle-last beyond noise above 0 in both seeds refutes the recency; the evidence
    prints it and the in-context accuracy beside it."""
    ev = registry.run_claim(registry.get_claim(CID)).evidence
    assert ev.verdict == "refuted"
    f, t = ev.figures, registry.get_claim(CID).rule.values()
    for ml, se, fm in zip(f["middle-last"], f["se middle-last"], f["first-middle"]):
        assert ml > max(t["noise_multiple"] * se, t["floor"]) and fm < 0
    assert "middle-last +0.0596" in ev.counterexample and "in-context acc 0.5266" in ev.counterexample
    assert trained.THOROUGH_SCALE["iterations"] == max(r["iterations"] for r in
                                                       trained.stored_results("decay-nope")["runs"])


# --- power: through the real check on constructed runs -------------------------------------

def test_figure5_decay_with_matching_verified_with_primacy_refuted(tmp_path, write_run, verdict_in):
    write_run(tmp_path, "decay-nope", True, [(0.8, -0.05, -0.06, 0.0), (0.8, -0.06, -0.05, 0.0)])
    assert verdict_in(CID, tmp_path).evidence.verdict == "verified"
    write_run(tmp_path, "decay-nope", True, [(0.8, 0.05, 0.04, 0.0), (0.8, 0.06, 0.05, 0.0)])
    assert verdict_in(CID, tmp_path).evidence.verdict == "refuted"


def test_recency_reads_middle_last(tmp_path, write_run, verdict_in):
    """first-middle < 0 with middle-last beyond noise above 0 is a preference for the middle,
    not recency: refuted with in-context matching and without it; recency without matching
    (middle-last within noise) is qualified."""
    write_run(tmp_path, "decay-nope", True, [(0.8, -0.05, 0.0, 0.05), (0.8, -0.06, -0.02, 0.04)])
    assert verdict_in(CID, tmp_path).evidence.verdict == "refuted"
    write_run(tmp_path, "decay-nope", True, [(0.52, -0.088, -0.025, 0.06),
                                             (0.52, -0.098, -0.045, 0.05)])
    assert verdict_in(CID, tmp_path).evidence.verdict == "refuted"
    write_run(tmp_path, "decay-nope", True, [(0.52, -0.06, -0.06, -0.01), (0.52, -0.05, -0.05, 0.0)])
    assert verdict_in(CID, tmp_path).evidence.verdict == "qualified"


def test_the_verdict_is_reported_at_every_evaluation(shipped_is_read_over_its_history):
    shipped_is_read_over_its_history(CID)
