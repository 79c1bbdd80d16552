"""chowdhury2026:u-shape (C7): the verdict as computed, qualified for the Cesàro model with its
correction recomputed; verified for a profile with an interior valley (an ALiBi rollout),
refuted for a uniform and for the monotone attention-only profile; the card."""

from fractions import Fraction

import numpy as np
import pytest

from posbias.numerics.alibi import alibi_layer, alibi_rollout, alibi_slopes
from posbias.numerics.cesaro import cesaro_profile
from posbias.proofs_checks.claims.chowdhury2026 import u_shape
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:u-shape")


def test_correction_matches_the_profiles():
    ev = run_claim(get_claim("chowdhury2026:u-shape"), CheckContext()).evidence
    assert ev.verdict == "qualified" and "no interior valley" in ev.correction
    from posbias.numerics.cesaro import cesaro_profile_exact

    p = cesaro_profile_exact(8, [Fraction(9, 10)] * 2)
    assert min(p) == p[-1] and all(p[j] > p[j + 1] for j in range(6))


def test_check_can_say_verified():
    """A profile with an interior valley and both ends raised (a stand-in for an ALiBi one)
    flips the verdict."""
    def valley(L, H, alpha):
        p = [Fraction(1, L)] * L
        p[L // 2] -= Fraction(1, 2 * L)
        p[0] = p[-1] = Fraction(3, L)
        return p

    assert u_shape.check(CheckContext(), profile=valley).verdict == "verified"


def _alibi(L, H, a):
    """A residual-aware ALiBi rollout (16 heads, BLOOM slopes / 10, λ = 0.1 whatever α)."""
    return alibi_rollout(L, [alibi_layer(alibi_slopes(16) / 10)] * H, 0.1).tolist()


def test_verified_for_an_alibi_profile_with_an_interior_valley():
    ev = u_shape.check(CheckContext(), profile=_alibi)
    assert ev.verdict == "verified", ev.figures
    assert ev.figures["end_ratio"] > 2 and ev.figures["valley_offset"] > 0.1


def test_refuted_for_a_uniform_profile():
    ev = u_shape.check(CheckContext(), profile=lambda L, H, a: [1.0 / L] * L)
    assert ev.verdict == "refuted" and ev.figures["end_ratio"] == pytest.approx(1.0)


def test_refuted_for_the_monotone_attention_only_profile():
    ev = u_shape.check(CheckContext(), profile=lambda L, H, a: cesaro_profile(L, [1.0] * H).tolist())
    assert ev.verdict == "refuted" and ev.figures["end_ratio"] < 1e-40


def test_cesaro_model_is_qualified_and_flips_with_the_end_factor():
    """The Cesàro model at the residual α: both ends far above the middle, the minimum at L-1;
    the verdict flips to refuted only at an end factor of about 35 (17.5 times the rule's 2)."""
    r = run_claim(get_claim("chowdhury2026:u-shape"), CheckContext())
    ev = r.evidence
    assert ev.verdict == "qualified" and "no interior valley" in ev.correction
    assert ev.details["interior_minima_count"] == 0
    assert ev.figures["valley_offset"] == pytest.approx(1 / 2047, rel=1e-3)
    flip = ev.details["decision"]["flip"]
    assert flip["threshold"] == "end_factor" and flip["to"] == "refuted"
    assert 30 < flip["flips_at"] < 40 and not flip["sensitive"]
    # independent recomputation of the deciding end ratio (float64 rollout, α = 7/100)
    p = cesaro_profile(2048, [0.07] * 24)
    x = np.arange(2048) / 2047
    middle = p[(x >= 0.25) & (x <= 0.75)].mean()
    assert ev.figures["end_ratio"] == pytest.approx(p[0] / middle, rel=1e-3)


def test_card_states_the_setting_scope_and_proof(card_states):
    card_states("u-shape", "paper", "numeric")


def test_the_right_arm_is_the_final_token_alone():
    """The Cesàro profiles at the paper's scale, read again without the final token's
    self-influence: the last position L - 1 stands below the middle (0.33..0.55 times it) and is
    the minimum, so the same rule on those figures refutes; the evidence says the final token
    alone decides.  A profile whose U does not rest on its final token (an interior valley) is
    not decided by it."""
    ev = run_claim(get_claim("chowdhury2026:u-shape"), CheckContext()).evidence
    final = ev.details["final_token"]
    assert final["verdict_with_final"] == "qualified"
    assert final["verdict_without_final"] == "refuted" and final["decided_by_final_token"]
    for f in ev.figures["profiles"].values():
        assert f["without_final"]["last_over_middle"] < 1 < f["last_over_middle"]
        assert f["without_final"]["argmin"] == f["argmin"] == 2047
    assert "the right arm of that 'U' is the final token alone" in ev.correction
    assert "(the rule on the figures without it: refuted)" in ev.correction

    def valley(L, H, alpha):
        p = [Fraction(1, L)] * L
        p[L // 2] -= Fraction(1, 2 * L)
        p[0] = p[-2] = p[-1] = Fraction(3, L)
        return p

    ev = u_shape.check(CheckContext(), profile=valley)
    assert ev.verdict == "verified" and not ev.details["final_token"]["decided_by_final_token"]
