"""chowdhury2026:discrete-limit (C2, C3): the verdict as computed, qualified at the paper's scale;
refuted for a profile off by a constant and for the wrong power of the logarithm; the rate
criterion; the card."""

from fractions import Fraction

import mpmath

from posbias.proofs_checks.claims.chowdhury2026 import discrete_limit
from posbias.proofs_checks.claims.chowdhury2026._analytic import error_growth
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

FAST = CheckContext(dps=20, max_dps=40)


def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:discrete-limit")


def test_can_be_refuted(monkeypatch):
    """A profile off by a constant (no O(1/L) convergence) is caught by the rate fit."""
    import posbias.numerics.cesaro as ces

    orig = ces.cesaro_profile_exact
    monkeypatch.setattr(ces, "cesaro_profile_exact",
                        lambda L, s: [x + Fraction(1, 20 * L) for x in orig(L, s)])
    assert run_claim(get_claim("chowdhury2026:discrete-limit"), CheckContext()).evidence.verdict == "refuted"


def test_rate_criterion_accepts_faster_and_rejects_slower_decay():
    lengths = [64, 128, 256, 512]
    assert error_growth(lengths, [mpmath.mpf(L) ** -1.3 for L in lengths]) < 1
    assert abs(error_growth(lengths, [mpmath.mpf(3) / L for L in lengths]) - 1) < 1e-12
    assert error_growth(lengths, [mpmath.mpf(L) ** -0.5 for L in lengths]) > 1.4


def test_refuted_for_the_wrong_power_of_the_logarithm():
    """ρ with (ln 1/x)^H instead of (ln 1/x)^(H-1): the interior error stays O(1)."""
    def wrong(h):
        return lambda x: mpmath.log(1 / x) ** h / mpmath.factorial(h - 1)

    ev = discrete_limit.check(FAST, density=wrong)
    assert ev.verdict == "refuted" and ev.figures["growth"] > 1.5, ev.figures
    assert "no O(1/L) convergence" in ev.counterexample


def test_at_the_paper_scale_is_qualified():
    """The stated density: the rate holds at every depth, but at H = 24, L = 2048 the limit is
    off by more than the 10% the rule allows (about 2.7 relative near j/L = 0.1)."""
    r = run_claim(get_claim("chowdhury2026:discrete-limit"), FAST)
    f = r.evidence.figures
    assert r.evidence.verdict == "qualified", r.evidence.details
    assert f["growth"] <= 1.1 and 2.0 < f["paper_error"] < 3.5
    # the relative error shrinks with L at the paper's depth (an asymptotic statement)
    rel = f["rel_error_at_H24"]
    assert rel["512"] > rel["1024"] > rel["2048"]
    flip = r.evidence.details["decision"]["flip"]
    assert flip["threshold"] == "growth_max" and flip["to"] == "refuted"
    assert r.scope == "paper"


def test_card_states_the_setting_scope_and_proof(card_states):
    card_states("discrete-limit", "paper", "numeric")
