"""The chowdhury2026 claims as a paper: each of them registers its rule, and the stored Step-0
measurements the measured claims read are the paper's architectures at full width.  The tests
of each claim are in tests/proofs_checks/claims/chowdhury2026/, one file per claim."""

from posbias.proofs_checks.registry import CheckContext, get_claim


def test_every_chowdhury_claim_registers_a_rule():
    from posbias.proofs_checks.registry import all_claims

    claims = all_claims("chowdhury2026")
    assert len(claims) == 21 and all(c.rule for c in claims)
    assert get_claim("posbias:rope-score-law").rule


# ------------------------------------------------------------- the Step-0 measurements read
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
