"""herasimchyk2026:u-shape-mechanism: the rule on its examples, every verdict reachable, and the
check's power against worlds in which masking and residual connections alone make the U (must be
verified) or in which no stage makes it (must be refuted)."""

from __future__ import annotations

import numpy as np
import pytest
from posbias_tests_herasimchyk2026 import assert_verdict_equals_expected

from posbias.proofs_checks.claims.herasimchyk2026 import u_shape_mechanism as mech
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

#: three configs of different models, no content (cheap: the + content stage is the + ALiBi one)
FEW = ("no_content/bloom-7b1", "no_content/mpt-7b", "no_content/falcon-rw-7b")


@pytest.fixture(scope="module")
def real_few():
    return mech.check(CheckContext(), names=FEW)


def test_the_rule_gives_each_example_its_verdict():
    t = mech.RULE.values()
    for ex in mech.RULE.examples:
        assert mech.RULE.decide(ex.figures, t) == ex.verdict, ex.label
    assert {ex.verdict for ex in mech.RULE.examples} == set(mech.RULE.outcomes)


def test_the_u_is_read_without_the_final_token():
    """A profile decreasing to L-1 with a large self-influence of the final token is a U with the
    final token and none without it; the rule reads the second."""
    L = 256
    p = np.linspace(4.0, 1.0, L)
    p[-1] = 40.0
    row = mech._stage_row("x", p / p.sum())
    t = mech.RULE.values()
    assert not mech.stage_u(row, t) and row["argmin"] == L - 1
    assert mech.stage_u(row["with the final token"], t)


def test_power_a_world_where_masking_and_residual_make_the_u_is_verified(real_few):
    """The false world: the masking + residual stage already has the profile that ALiBi gives
    (two of three configs U-shaped) -> verified."""
    def world(cfg):
        pa = cfg.without_content().profile()
        return {mech.STAGES[0]: pa, mech.STAGES[1]: pa, mech.STAGES[2]: cfg.profile()}

    ev = mech.check(CheckContext(), names=FEW, stage_profiles=world)
    assert ev.verdict == "verified"
    assert ev.figures["U-shaped by stage (without the final token)"][mech.STAGES[0]] == "2 of 3"


def test_power_a_world_without_any_u_is_refuted():
    """No ALiBi at any stage (every stage is masking + residual): no U without the final token."""
    def world(cfg):
        p = cfg.without_alibi().without_content().profile()
        return dict.fromkeys(mech.STAGES, p)

    ev = mech.check(CheckContext(), names=FEW, stage_profiles=world)
    assert ev.verdict == "refuted" and "no stage is often U-shaped" in ev.counterexample


def test_three_real_configs_masking_and_residual_decrease_to_the_last_but_one_token(real_few):
    """Test-only computation on three configs: masking + residual give no U without the final
    token (the valley at L-1 = 255), ALiBi makes it for BLOOM-7b1 and MPT-7B, not Falcon-RW-7B."""
    ev = real_few
    assert ev.verdict == "qualified" and ev.correction.startswith("the U needs ALiBi")
    mr = ev.figures["stages"][mech.STAGES[0]]
    assert [r["argmin"] for r in mr] == [255, 255, 255]
    assert ev.figures["U-shaped by stage (without the final token)"] == {
        mech.STAGES[0]: "0 of 3", mech.STAGES[1]: "2 of 3", mech.STAGES[2]: "2 of 3"}
    c = ev.details["what each force contributes"]
    assert c["ALiBi makes the U"] == ["no_content/bloom-7b1", "no_content/mpt-7b"]
    # with the final token BLOOM-7b1 and MPT-7B pass the U test at masking + residual: the final
    # token's self-influence alone is the right arm
    assert c[mech.STAGES[0]]["decided by the final token alone"] == 2
    assert ev.details["summary"].startswith("masking + residual: U in 0 of 3")


def test_the_verdict_moves_with_often(real_few):
    """2 of 3 at + ALiBi: qualified at often = 0.5, refuted at often = 0.7."""
    f = real_few.figures
    assert mech.RULE.decide(f, mech.RULE.values()) == "qualified"
    assert mech.RULE.decide(f, mech.RULE.values(often=0.7)) == "refuted"


def test_verdict_equals_expected():
    assert_verdict_equals_expected("u-shape-mechanism")


def test_on_the_25_residual_configs_the_u_needs_alibi():
    """The rule (fixed before the computation) on all 25 residual configs: masking + residual give
    no U without the final token (every valley at L-1; with the final token 20 pass the U test, the
    final token's self-influence alone making their right arm), ALiBi makes the U in 14, content
    keeps 10 (it makes the U for MPT-30B's per-head content and removes it in 7)."""
    r = run_claim(get_claim("herasimchyk2026:u-shape-mechanism"), CheckContext())
    ev = r.evidence
    assert "error" not in ev.details, ev.details
    assert ev.verdict == "qualified" and r.scope == "paper"
    assert ev.figures["U-shaped by stage (without the final token)"] == {
        mech.STAGES[0]: "0 of 25", mech.STAGES[1]: "14 of 25", mech.STAGES[2]: "10 of 25"}
    assert ev.figures["U-shaped by stage (with the final token)"] == {
        mech.STAGES[0]: "20 of 25", mech.STAGES[1]: "15 of 25", mech.STAGES[2]: "10 of 25"}
    c = ev.details["what each force contributes"]
    assert c[mech.STAGES[0]]["valley at L-1 (argmin = L-1 without the final token)"] == 25
    assert len(c["ALiBi makes the U"]) == 14 and c["ALiBi removes the U"] == []
    assert c["content makes the U"] == [f"all_content/{d}/mpt-30b" for d in ("dclm", "fineweb-edu", "wikipedia")]
    assert len(c["content removes the U"]) == 7
    # 14 of 25 = 0.56 at + ALiBi against often = 0.5: the flip point is printed
    d = ev.details["decision"]
    assert d["verdict"] == "qualified" and d["threshold_sensitive"]
