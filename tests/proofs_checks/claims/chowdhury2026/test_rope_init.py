"""chowdhury2026:rope-init (C8): the verdict as computed; needs-data without a measurement; on
constructed Step-0 measurements every verdict its rule allows (RoPE's W1 against the noise floor
of other inputs and seeds), the false version that differs as the Cesàro rollouts at α = 0.07 and
0.13 refuted though its Spearman is above 0.999, never verified from the score law alone; the score-law half (:func:`rope_law_check`, also read by posbias:rope-score-law)
refuted for a non-orthogonal map and inconclusive when an identity stays open; its Monte Carlo
seeded and its KS statistic."""

import numpy as np
import pytest
from posbias_tests_step0_fakes import fake_data, use_plan

from posbias.numerics.cesaro import cesaro_profile
from posbias.numerics.compare import spearman, wasserstein1
from posbias.proofs_checks.claims.chowdhury2026 import rope_init
from posbias.proofs_checks.claims.chowdhury2026._step0 import rope_floor_pairs
from posbias.proofs_checks.registry import CheckContext


def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:rope-init")


def test_needs_data_without_torch_or_stored_runs(no_step0_data):
    for thorough in (False, True):
        ev = rope_init.check(CheckContext(thorough=thorough))
        assert ev.verdict == "needs-data", ev.as_dict()
        assert ev.rule


# ------------------------------------------------------------ power, on constructed measurements
def _noisy(base, amplitude=0.02):
    """Step-0 samples: ``base`` times a seeded multiplicative noise of ``amplitude`` per input
    (seed and input index), so that other inputs and seeds give a known, small spread."""
    def prof(arch, L, seed, s):
        rng = np.random.default_rng(1000 * seed + s)
        b = base(L) if callable(base) else np.ones(L)
        return b * (1 + amplitude * rng.standard_normal(L))
    return prof


def _rope(w1, rho=0.97, probe_w1=1e-5, off=None):
    r = {"spearman": rho, "w1": w1, "noise_spearman": 0.9999, "noise_w1": probe_w1}
    if off is not None:
        r["profile_off"] = list(off)
    return r


@pytest.fixture
def law(monkeypatch):
    """The score-law half, computed once for the constructed runs."""
    computed = rope_init.rope_law_check(CheckContext())
    monkeypatch.setattr(rope_init, "rope_law_check", lambda ctx, transform=None: computed)
    return computed


def _floor(data):
    return min(p["w1"] for p in rope_floor_pairs(data, "arch-a"))


def test_reaches_every_verdict(monkeypatch, law):
    use_plan(monkeypatch)
    prof = _noisy(None)
    floor = _floor(fake_data(prof))
    assert floor > 0
    cases = {0.5 * floor: "verified",       # RoPE moves the profile less than another input
             2.0 * floor: "qualified",       # between the floor and three times it
             10.0 * floor: "refuted"}        # far beyond what another input or seed does
    for w1, verdict in cases.items():
        ev = rope_init.check(CheckContext(), data=fake_data(prof, rope=_rope(w1)))
        assert ev.verdict == verdict, (w1, floor, ev.as_dict())
        assert ev.figures["floor_w1"] == pytest.approx(floor, rel=1e-3) and ev.figures["L"] == 64
    # probe noise as large as the floor cannot resolve it
    ev = rope_init.check(CheckContext(), data=fake_data(prof, rope=_rope(0.5 * floor,
                                                                        probe_w1=2 * floor)))
    assert ev.verdict == "inconclusive"
    ev = rope_init.check(CheckContext(), data=fake_data(prof, rope=_rope(0.5 * floor)))
    assert {p["what"] for p in ev.details["noise_floor"]["arch-a"]} == {
        "same weights, other inputs", "other weights and inputs"}
    pair = next(p for p in ev.details["noise_floor"]["arch-a"] if p["what"].startswith("same"))
    assert pair["runs"] == ["arch-a-L64-seed0-inputs4"] and pair["inputs"] == [[1, 2], [3, 4]]
    ev = rope_init.check(CheckContext(), data=fake_data(prof, rope=None))
    assert ev.verdict == "needs-data"  # never verified from the score-law half alone


def test_needs_data_without_the_input_floor(monkeypatch, law):
    use_plan(monkeypatch)
    data = fake_data(_noisy(None), rope=_rope(1e-4))
    data.pop("arch-a-L64-seed0-inputs4")
    assert rope_init.check(CheckContext(), data=data).verdict == "needs-data"


def test_false_version_cesaro_at_two_alphas_is_refuted(monkeypatch, law):
    """The plausible false version: RoPE on and off differ as the Cesàro rollouts at α = 0.07 and
    0.13 do (H = 24).  Their Spearman is above 0.999 (0.999996 at L = 256), so a rank rule (Spearman >= 0.985) would
    verify; W1 against the noise floor refutes."""
    use_plan(monkeypatch)

    def cesaro(a):
        return lambda L: np.asarray(cesaro_profile(L, [a] * 24), dtype=float)

    on, off = cesaro(0.07)(64), cesaro(0.13)(64)
    rho, w1 = float(spearman(on, off)), float(wasserstein1(on, off))
    assert rho > 0.999
    data = fake_data(_noisy(cesaro(0.07)), rope=_rope(w1, rho, off=off))
    ev = rope_init.check(CheckContext(), data=data)
    assert ev.verdict == "refuted", ev.as_dict()
    assert ev.figures["spearman"] >= 0.985 and ev.figures["w1"] > 3 * ev.figures["floor_w1"]
    assert "RoPE off" in ev.counterexample  # the shapes of both profiles are printed


def test_refuted_when_the_rotation_is_not_orthogonal(monkeypatch):
    use_plan(monkeypatch)
    ev = rope_init.check(CheckContext(),
                         data=fake_data(_noisy(None), rope=_rope(1e-4)),
                         transform=lambda k, rng: 1.2 * k)
    assert ev.verdict == "refuted" and ev.counterexample


def test_every_example_gives_its_verdict():
    for ex in rope_init.RULE.examples:
        assert rope_init.RULE.apply(ex.figures).verdict == ex.verdict, ex.label


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
