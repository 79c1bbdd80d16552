"""chowdhury2026:u-shape-step0 (C7 measured): the rule on its examples and on constructed
profiles, among them the plausible false version (a monotone primacy profile with a recency atom
on the final token only), which must not pass as a U."""

import numpy as np
import pytest
from posbias_tests_step0_fakes import fake_data, use_plan

from posbias.numerics.shape import U_FACTOR
from posbias.proofs_checks.claims.chowdhury2026 import u_shape_step0
from posbias.proofs_checks.registry import CheckContext


def test_every_example_gives_its_verdict_and_every_outcome_is_reached():
    reached = set()
    for ex in u_shape_step0.RULE.examples:
        assert u_shape_step0.RULE.apply(ex.figures).verdict == ex.verdict, ex.label
        reached.add(ex.verdict)
    assert reached == set(u_shape_step0.RULE.outcomes)
    assert u_shape_step0.RULE.thresholds["u_factor"].value == U_FACTOR


def _primacy_with_final_atom(L, atom, primacy=30.0, scale=None):
    """A monotone primacy profile (geometric fall from ``primacy`` to a flat floor 1 over the
    first ``scale`` positions) and, on the final token only, an atom ``atom`` times its
    neighbour."""
    scale = scale or L // 8
    j = np.arange(L, dtype=float)
    p = 1.0 + (primacy - 1.0) * np.exp(-j / (scale / 5))
    p[-1] = atom * p[-2]
    return p


def _macroscopic_u(L, first=5.0, last=3.0):
    """Raised ends over an eighth of the context each, a flat valley between."""
    p = np.ones(L)
    p[: L // 8] = first
    p[-(L // 8):] = last
    return p


def _figures(profiles):
    out = {}
    for arch, p in profiles.items():
        s = u_shape_step0.shape_figures(p)
        out[arch] = {"L": len(p),
                     **{k: {"u_factor": s[k]["u_factor"], "interior_valley": s[k]["interior_valley"]}
                        for k in ("with", "without")}}
    return {"architectures": out}


@pytest.mark.parametrize("L, atom", [(1024, 373.0), (2048, 400.0), (256, 95.0)])
def test_false_version_primacy_plus_final_atom_is_not_a_u(L, atom):
    """The final token's atom lifts the last block to a 'U' only with the final token; the rule
    says the final token alone decides (qualified), never verified."""
    p = _primacy_with_final_atom(L, atom)
    s = u_shape_step0.shape_figures(p)
    assert s["with"]["u"] and not s["without"]["u"] and s["final_token_decides"]
    assert s["without"]["valley_block"] == s["without"]["bins"]  # the valley is the last block
    verdict = u_shape_step0.RULE.apply(_figures({"a": p, "b": p})).verdict
    assert verdict == "qualified"


def test_false_version_with_a_small_atom_is_refuted():
    """At L = 2048 an atom 98 times its neighbour, spread over a block of 128 positions, lifts
    the last block to 1.76 times the floor: no U in either reading."""
    p = _primacy_with_final_atom(2048, 98.0)
    s = u_shape_step0.shape_figures(p)
    assert not s["with"]["u"] and not s["without"]["u"] and not s["final_token_decides"]
    assert s["with"]["u_factor"] == pytest.approx(1 + 97 / 128, rel=1e-3)
    assert u_shape_step0.RULE.apply(_figures({"a": p, "b": p})).verdict == "refuted"


def test_a_macroscopic_u_is_verified_with_and_without_the_final_token():
    p = _macroscopic_u(1024)
    s = u_shape_step0.shape_figures(p)
    assert s["with"]["u"] and s["without"]["u"] and not s["final_token_decides"]
    assert u_shape_step0.RULE.apply(_figures({"a": p, "b": _macroscopic_u(2048)})).verdict \
        == "verified"


def test_a_flat_or_monotone_profile_is_refuted():
    flat = np.ones(512)
    monotone = np.geomspace(30.0, 1.0, 512)
    assert u_shape_step0.RULE.apply(_figures({"a": flat, "b": monotone})).verdict == "refuted"
    assert u_shape_step0.RULE.apply(_figures({"a": _macroscopic_u(512),
                                              "b": monotone})).verdict == "refuted"


def test_the_flip_point_is_the_u_factor_of_the_failing_reading():
    f = _figures({"a": _primacy_with_final_atom(2048, 98.0), "b": _macroscopic_u(1024)})
    d = u_shape_step0.RULE.apply(f)
    assert d.verdict == "refuted"
    assert d.flip["threshold"] == "u_factor" and d.flip["to"] == "qualified"
    assert d.flip["flips_at"] == pytest.approx(f["architectures"]["a"]["with"]["u_factor"],
                                               rel=1e-5)


# ------------------------------------------------------------------ the registered check
def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:u-shape-step0")


def test_needs_data_without_torch_or_stored_runs(no_step0_data):
    ev = u_shape_step0.check(CheckContext())
    assert ev.verdict == "needs-data" and ev.rule


def test_the_check_decides_constructed_measurements(monkeypatch):
    """On constructed Step-0 runs (length 128 at the fake paper length): a macroscopic U in both
    architectures verifies; a primacy profile whose only recency is the final token's atom is
    qualified and named as resting on the final token; a profile with neither refutes."""
    use_plan(monkeypatch)
    ev = u_shape_step0.check(CheckContext(), data=fake_data(lambda a, L, seed, s: _macroscopic_u(L)))
    assert ev.verdict == "verified", ev.as_dict()
    assert ev.figures["architectures"]["arch-a"]["L"] == 128
    ev = u_shape_step0.check(CheckContext(), data=fake_data(
        lambda a, L, seed, s: _primacy_with_final_atom(L, 95.0)))
    assert ev.verdict == "qualified", ev.as_dict()
    assert "final token's self-influence alone for arch-a, arch-b" in ev.correction
    ev = u_shape_step0.check(CheckContext(), data=fake_data(
        lambda a, L, seed, s: _macroscopic_u(L) if a == "arch-a" else np.geomspace(30.0, 1.0, L)))
    assert ev.verdict == "refuted" and "no U at Step 0 for arch-b," in ev.counterexample


def test_the_ablations_are_read_off_their_figures():
    """A tail that falls as much as its fitted rollout is called falling, one that falls a
    tenth as much flat; runs that disagree are said to."""
    def run(part, ablated, cesaro):
        return {"ablate": [part], "ablated": {"tail_over_valley": [ablated, 1, 1, 1]},
                "cesaro": {"tail_over_valley": [cesaro, 1, 1, 1]}}

    read = u_shape_step0._ablation_reading
    assert "exactly the Cesàro matrix the tail is falling in every run" in read(
        {"a": run("uniform-attention", 1.2, 1.2)})
    assert "exactly the Cesàro matrix the tail is flat in every run" in read(
        {"a": run("uniform-attention", 1.02, 1.2)})
    assert "without MLPs the tail is not flat in every run" in read(
        {"a": run("no-mlp", 1.02, 1.2), "b": run("no-mlp", 1.2, 1.2)})
    assert read({}) == ""
    both = read({"a": run("uniform-attention", 1.2, 1.2)} | {"b": dict(
        run("no-mlp", 1.02, 1.2), ablate=["uniform-attention", "no-mlp"])})
    assert "matrix and without MLPs the tail is flat in every run" in both


def test_the_default_run_reports_the_stored_ablations():
    from posbias.proofs_checks import ablations
    from posbias.proofs_checks.registry import get_claim, run_claim

    ev = run_claim(get_claim("chowdhury2026:u-shape-step0"), CheckContext()).evidence
    stored = set(ablations.summary())
    assert stored and set(ev.details["ablations"]) == stored
    assert "Read: with attention exactly the Cesàro matrix" in ev.counterexample
