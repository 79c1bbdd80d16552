"""The chowdhury2026 claims: verdicts as computed, corrections that match independent
recomputations, and every verdict each rule allows reached by a mutated or constructed input."""


import pytest

from posbias.proofs_checks.claims.chowdhury2026 import _legacy as cd
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

IDS = [
    "chowdhury2026:step0-fit",
]


@pytest.mark.parametrize("cid", IDS)
def test_verdict_equals_expected(cid):
    """Default run (the measured claims read the stored full-width measurements)."""
    c = get_claim(cid)
    ev = run_claim(c, CheckContext()).evidence
    assert "error" not in ev.details, ev.details
    assert ev.verdict == c.expected, ev.as_dict()
    assert ev.rule, cid  # every chowdhury2026 check states its verdict rule
    if ev.verdict == "qualified":
        assert ev.correction


def test_every_chowdhury_claim_registers_a_rule():
    from posbias.proofs_checks.registry import all_claims

    claims = all_claims("chowdhury2026")
    assert len(claims) == 20 and all(c.rule for c in claims)
    assert get_claim("posbias:rope-score-law").rule


# ------------------------------------------------------------------------------ exact claims


# ------------------------------------------------------------- claims decided on measurements
# (their power tests, on constructed measurements: test_power_chowdhury2026_measured.py)


def test_measured_claims_need_data_without_torch_or_stored_runs(monkeypatch):
    import sys

    from posbias.proofs_checks import measured, stored

    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setattr(stored, "load_record", lambda stem, folder=None: None)
    monkeypatch.setattr(measured, "_STEP0_CACHE", {})
    for thorough in (False, True):
        ctx = CheckContext(thorough=thorough)
        for fn in (cd.check_step0_fit,):
            ev = fn(ctx)
            assert ev.verdict == "needs-data", (fn.__name__, ev.as_dict())
            assert ev.rule


def test_thorough_without_torch_ignores_stored_runs(monkeypatch):
    import sys

    from posbias.proofs_checks import measured

    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setattr(measured, "_STEP0_CACHE", {})
    assert measured.step0_data(CheckContext(thorough=True)) is None
    assert measured.step0_data(CheckContext()) is not None  # the stored runs


def test_stored_measurements_are_the_paper_architectures_at_full_width():
    from posbias.proofs_checks import measured

    data = measured.step0_data(CheckContext())
    assert data is not None
    qwen = measured.primary_runs(data, "qwen2-0.5b")
    gpt2 = measured.primary_runs(data, "gpt2")
    assert [r.seed for r in qwen] == [0, 1] and all(r.length == 256 for r in qwen + gpt2)
    s = qwen[0].settings
    assert (s["num_hidden_layers"], s["hidden_size"], s["num_attention_heads"],
            s["num_key_value_heads"], s["vocab_size"]) == (24, 896, 14, 2, 151936)
    s = gpt2[0].settings
    assert (s["num_hidden_layers"], s["hidden_size"], s["num_attention_heads"]) == (12, 768, 12)
    for r in qwen + gpt2:
        assert r.estimator == "8 rademacher probes" and r.sample_profiles.shape == (2, 256)
        p = r.provenance
        assert p["command"].startswith("posbias measure --arch") and p["versions"]["torch"]
        assert p["date"] and p["wall_seconds"] > 0
