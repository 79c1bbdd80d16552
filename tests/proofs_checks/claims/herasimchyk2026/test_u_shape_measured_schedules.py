"""herasimchyk2026:u-shape-measured-schedules: the verdict on every shipped config as computed, the
U rule on synthetic profiles, every verdict reachable, the dependence on the thresholds, and the
check's power against profiles with no valley and attention-only rollouts that do not collapse."""

from __future__ import annotations

import numpy as np
from posbias_tests_herasimchyk2026 import CTX, assert_verdict_equals_expected, through_registry

from posbias.proofs_checks.claims.herasimchyk2026 import _shared, u_shape_measured_schedules
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

check = u_shape_measured_schedules.check


def test_verdict_equals_expected():
    assert_verdict_equals_expected("u-shape-measured-schedules")


def test_u_shape_decides_on_every_residual_config_of_the_paper():
    """The U rule (valley in w < j*/L <= 1 - w, w = 0.1; ends >= 2x the valley; 'often' = a
    fraction >= 0.5) was fixed before computing; it decides on the 25 residual configs of the
    reference code (reference convention) and the 7 attention-only ones."""
    r = run_claim(get_claim("herasimchyk2026:u-shape-measured-schedules"), CheckContext())
    ev = r.evidence
    assert "error" not in ev.details, ev.details
    assert ev.verdict == "qualified" and r.scope == "paper"
    f = ev.figures
    assert len(f["configs"]) == 25 and len(f["attention-only"]) == 7
    assert f["U-shaped (reference)"] == "15 of 25" and f["attention-only collapsed"] == "7 of 7"
    not_u = " ".join(ev.details["not U-shaped (reference)"])
    # BLOOM-7b1 with per-head content has its valley at 24-25/256, just inside L/10, on every data set
    for ds in ("dclm", "fineweb-edu", "wikipedia"):
        assert f"all_content/{ds}/bloom-7b1 (valley at 2" in not_u
        assert f"all_content/{ds}/falcon-rw-7b" in not_u
    assert "no_content/bloom-7b1" not in not_u and "no_content/mpt-7b" not in not_u
    # the verdict flips with the depth of the valley (end_factor 2.94: MPT-7B's per-head content
    # ends at 2.94-3.05 times their valleys): threshold-sensitive
    d = ev.details["decision"]
    assert d["threshold_sensitive"] and d["flip"]["threshold"] == "end_factor" and d["flip"]["to"] == "refuted"
    assert abs(d["flip"]["flips_at"] - 2.93621) < 1e-4
    table = ev.details["threshold table (reference): verdict by end_factor and interior window"]
    assert table["end_factor 2, interior 0.1"] == "15/25 U-shaped -> qualified"
    assert table["end_factor 10, interior 0.1"].endswith("refuted")
    assert table["end_factor 1.5, interior 0.05"] == "22/25 U-shaped -> qualified"
    assert table["end_factor 3, interior 0.1"] == "12/25 U-shaped -> refuted"
    # the paper's attention-only comparison: p(1) = 0.991 (BLOOM-7b1), 0.996 (MPT-7B), tails shrinking
    p1 = {a["config"]: a["p(1)"] for a in f["attention-only"]}
    assert round(p1["no_content/bloom-7b1-noresidual"], 3) == 0.991
    assert round(p1["no_content/mpt-7b-noresidual"], 3) == 0.996
    assert all(a["tail at 4T"] < a["tail"] for a in f["attention-only"])


def test_u_shape_rule_on_synthetic_profiles():
    t = get_claim("herasimchyk2026:u-shape-measured-schedules").rule.values()
    u_figures, u_shaped = _shared.u_figures, u_shape_measured_schedules.u_shaped
    L = 100
    j = np.arange(1, L + 1)
    u = 1 + 3 * ((j - 50) / 50.0) ** 2
    r = u_figures(u / u.sum())
    assert u_shaped(r, t) and r["argmin"] == 50
    skewed = np.where(j < 5, 10.0, 1 + 3 * ((j - 5) / 95.0) ** 2)  # valley at 5 <= L/10
    assert not u_shaped(u_figures(skewed), t)
    assert u_shaped(u_figures(skewed), {**t, "interior": 0.04})
    shallow = 1 + 0.5 * ((j - 50) / 50.0) ** 2  # ends only 1.5x the valley
    assert not u_shaped(u_figures(shallow), t)
    assert u_shaped(u_figures(shallow), {**t, "end_factor": 1.4})


def test_u_shape_verdicts_are_reachable():
    # verified: a subset of configs that are all U-shaped (reduced scope: fewer configs)
    names = ["no_content/bloom-7b1", "no_content/mpt-7b", "no_content/bloom", "no_content/mpt-7b-noresidual"]
    c = get_claim("herasimchyk2026:u-shape-measured-schedules")
    ev = check(CheckContext(), names=names)
    assert ev.verdict == "verified" and ev.setting == {"configs": 4}
    assert c.card.resolve(ev.setting)["scope"] == "reduced"
    # refuted: the same configs with every profile turned monotone (no valley)
    def mono(name, r):
        return {**r, "argmin/L": 1.0, "p(L)/min": 1.0, "argmin": 256}
    ev = check(CheckContext(), names=names, profile_transform=mono)
    assert ev.verdict == "refuted" and "valley at 256/256" in ev.counterexample


def test_the_claim_needs_the_yaml_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ruamel.yaml", None)
    monkeypatch.setitem(sys.modules, "ruamel", None)
    ev = check(CheckContext())
    assert ev.verdict == "needs-data" and "yaml" in ev.details["missing"]


def test_u_shape_power_and_its_dependence_on_the_thresholds():
    # no valley: every residual profile turned monotone (minimum at the last token)
    def monotone(name, r):
        return {**r, "argmin/L": 1.0, "argmin": 256, "p(L)/min": 1.0}

    r = through_registry("u-shape-measured-schedules", check, profile_transform=monotone)
    assert r.evidence.verdict == "refuted" and "0 of 25" not in r.evidence.counterexample
    assert r.evidence.figures["U-shaped (reference)"] == "0 of 25"
    # v1's wording ("U-shaped": every config) is refuted, v2's ("often") holds
    ev = through_registry("u-shape-measured-schedules", check, often=1.0).evidence
    assert ev.verdict == "refuted" and ev.thresholds == {"often": 1.0}
    assert check(CTX).verdict == "qualified"
    # how deep a valley: end factor 3 leaves 12 of 25 (refuted); how far from the ends: a
    # window of 0.05 L admits BLOOM-7b1's valleys at 24-25/256 (18 of 25)
    ev = check(CTX, end_factor=3.0)
    assert ev.verdict == "refuted" and ev.figures["U-shaped (reference)"] == "12 of 25"
    ev = check(CTX, interior=0.05)
    assert ev.verdict == "qualified" and ev.figures["U-shaped (reference)"] == "18 of 25"


def test_u_shape_refutes_attention_only_rollouts_that_do_not_collapse(monkeypatch):
    # a world in which the -noresidual configs kept their measured λ: the "attention-only"
    # profiles are then U-shaped, not collapsed
    orig = _shared.config_figures

    def keeps_residual(name, conv, **kw):
        row = orig(name, conv, **kw)
        if name.endswith("-noresidual"):
            cfg = _shared.load_shipped(name.replace("-noresidual", ""), conv)
            p = cfg.profile()
            row["attention-only"] = {"p(1)": float(p[0]), "tail": float(p[1:].sum()),
                                     "tail at 4T": float(p[1:].sum()), "non-increasing": False}
        return row

    monkeypatch.setattr(_shared, "config_figures", keeps_residual)
    monkeypatch.setattr(_shared, "stored_rows", dict)
    names = ["no_content/bloom-7b1", "no_content/bloom-7b1-noresidual"]
    ev = check(CTX, names=names)
    assert ev.verdict == "refuted" and "attention-only does not collapse" in ev.counterexample


def test_the_final_token_alone_decides_no_configs_u():
    """Every residual profile is decided on again without the final token's self-influence (the
    rule's p(L)/min reads that token alone): the same 15 of 25 are U-shaped, and the verdict text
    says so; the shape statistics of numerics.shape are reported with and without it."""
    ev = run_claim(get_claim("herasimchyk2026:u-shape-measured-schedules"), CheckContext()).evidence
    assert ev.figures["U-shaped without the final token (reference)"] == "15 of 25"
    assert ev.figures["U decided by the final token alone"] == []
    assert "decides no config's U: without it the same 15 of 25 are U-shaped (rule: qualified)" in ev.correction
    rows = ev.details["final token"]["configs"]
    assert len(rows) == 25 and all(r["U-shaped"] == r["U-shaped without the final token"] for r in rows)
    row = next(r for r in rows if r["config"] == "no_content/bloom-7b1")
    assert row["without the final token"]["argmin"] == 62
    assert row["shape without the final token"]["last atom"] < row["shape with the final token"]["last atom"]


def test_power_a_u_made_by_the_final_token_alone_is_named(monkeypatch):
    """A profile with its valley at L/2 that rises only to 1.5x the valley at L-1 and whose right
    arm is the final token's self-influence (30x) passes the U rule with the final token and fails
    it without: the report names the config and says what the rule gives without it."""
    L = 256
    p = np.concatenate([np.linspace(3.0, 1.0, L // 2), np.linspace(1.0, 1.5, L // 2)])
    p[-1] = 30.0
    p /= p.sum()
    monkeypatch.setattr(u_shape_measured_schedules, "reference_profile", lambda name: p)
    names = ["no_content/bloom-7b1", "no_content/bloom-7b1-noresidual"]
    ev = check(CTX, names=names)
    assert ev.figures["U decided by the final token alone"] == ["no_content/bloom-7b1"]
    words = ev.details["final token"]["in words"]
    assert words.startswith("the final token's self-influence alone decides the U of 1 config(s)")
    assert words.endswith("without it 0 of 1 are U-shaped and the rule gives refuted")
