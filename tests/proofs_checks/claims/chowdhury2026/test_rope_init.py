"""chowdhury2026:rope-init (C8): the verdict as computed; needs-data without a measurement; on
constructed Step-0 measurements every verdict its rule allows, never verified from the score
law alone; the score-law half (:func:`rope_law_check`, also read by posbias:rope-score-law)
refuted for a non-orthogonal map and inconclusive when an identity stays open; its Monte Carlo
seeded and its KS statistic."""

from posbias_tests_chowdhury2026_fakes import raised_ends
from posbias_tests_step0_fakes import fake_data, use_plan

from posbias.proofs_checks.claims.chowdhury2026 import rope_init
from posbias.proofs_checks.registry import CheckContext


def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:rope-init")


def test_needs_data_without_torch_or_stored_runs(no_step0_data):
    for thorough in (False, True):
        ev = rope_init.check(CheckContext(thorough=thorough))
        assert ev.verdict == "needs-data", ev.as_dict()
        assert ev.rule


# ------------------------------------------------------------ power, on constructed measurements
def _rope(rho, floor):
    return {"spearman": rho, "w1": 0.01, "noise_spearman": floor, "noise_w1": 0.005}


def test_reaches_every_verdict(monkeypatch):
    use_plan(monkeypatch)
    law = rope_init.rope_law_check(CheckContext())  # the score-law half, computed once
    monkeypatch.setattr(rope_init, "rope_law_check", lambda ctx, transform=None: law)
    flat = raised_ends(2.0, 3.0)
    cases = {(0.99, 0.998): "verified",      # the paper's figure
             (0.9635, 0.998): "qualified",   # the stored L = 256 figure
             (0.5, 0.998): "refuted",        # RoPE reorders the influence
             (0.97, 0.95): "inconclusive",   # probe noise cannot resolve 0.99
             (0.97, 0.972): "inconclusive"}
    for (rho, floor), verdict in cases.items():
        ev = rope_init.check(CheckContext(), data=fake_data(flat, rope=_rope(rho, floor)))
        assert ev.verdict == verdict, (rho, floor, ev.as_dict())
        assert ev.figures["spearman"] == rho and ev.figures["L"] == 64
    ev = rope_init.check(CheckContext(), data=fake_data(flat, rope=_rope(0.97, 0.998)))
    assert any("seed 0 vs 1" in k for k in ev.alternatives)  # the spread weights alone give
    ev = rope_init.check(CheckContext(), data=fake_data(flat, rope=None))
    assert ev.verdict == "needs-data"  # never verified from the score-law half alone


def test_refuted_when_the_rotation_is_not_orthogonal(monkeypatch):
    use_plan(monkeypatch)
    ev = rope_init.check(CheckContext(),
                         data=fake_data(raised_ends(2.0, 3.0), rope=_rope(0.999, 0.999)),
                         transform=lambda k, rng: 1.2 * k)
    assert ev.verdict == "refuted" and ev.counterexample


# ------------------------------------------------------------------------ the score-law half
def test_rope_score_law_detects_a_non_orthogonal_map():
    ev = rope_init.rope_law_check(CheckContext(), transform=lambda k, rng: 1.2 * k)
    assert ev.verdict == "refuted"
    assert ev.counterexample


def test_rope_score_law_inconclusive_when_an_identity_stays_open(monkeypatch):
    import dataclasses

    from posbias.proofs_checks.claims import _common

    orig = _common.derivation_by_name

    def open_identity(name):
        d = orig(name)
        bad = dataclasses.replace(d.identities[0], residual=1, proven=False)
        return dataclasses.replace(d, identities=(bad, *d.identities[1:]))

    monkeypatch.setattr(rope_init, "derivation_by_name", open_identity)
    ev = rope_init.rope_law_check(CheckContext())
    assert ev.verdict == "inconclusive", ev.as_dict()


def test_rope_monte_carlo_is_seeded():
    a = rope_init.rope_monte_carlo(5, samples=2000, dim=8)
    b = rope_init.rope_monte_carlo(5, samples=2000, dim=8)
    assert a == b
    assert a["ks_ok"] and a["moments_ok"]


def test_ks_statistic():
    assert rope_init.ks_two_sample([0, 1, 2, 3], [10, 11, 12, 13]) == 1.0
    assert rope_init.ks_two_sample([0, 1], [0, 1]) == 0.0
