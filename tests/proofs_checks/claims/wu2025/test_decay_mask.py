"""wu2025:decay-mask (W4): the expected verdict with t + 1 layers, an independent dense rollout
of the bulk value, and the check refuting the off-by-one reading (t layers) and a wrong critical
point, through its parameters and through a perturbed rollout."""

from __future__ import annotations

import mpmath

from posbias.proofs_checks.claims.wu2025 import decay_mask
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verdict_equals_expected():
    c = get_claim("wu2025:decay-mask")
    r = run_claim(c, CheckContext())
    ev = r.evidence
    assert "error" not in ev.details, ev.details
    assert ev.verdict == c.expected, ev.as_dict()
    assert c.latex_text and "\\" in c.latex_text
    assert ev.details.get("rule")  # the claims of wu2025 state their rule


def test_decay_mask_is_verified_with_t_plus_one_layers():
    ev = run_claim(get_claim("wu2025:decay-mask"), CheckContext()).evidence
    assert ev.verdict == "verified" and "rule" in ev.details and ev.correction is None
    for row in ev.details["critical points"]:
        assert row["k* measured"] == row["floor(t/(e^m-1))"]
    for row in ev.details["cases"]:
        assert row["layers"] == row["t"] + 1
    assert ev.details["k* = floor(t/(e^m-1)) in every case"] is True


def test_decay_mask_bulk_value_by_an_independent_dense_rollout():
    """wu2025's P(t) = A(t)...A(0) has t + 1 layers: a dense mpmath rollout of one decay head
    (m = 1, t = 12, L = 40) gives (1-e^{-m})^{t+1} C(t+k,k) e^{-km} in the bulk, the maximiser
    floor(t/(e^m-1)) = 6, and k-free bounds [(1-e^{-m})^{t+1}, 1] at every k."""
    with mpmath.workdps(30):
        m, t, L = mpmath.mpf(1), 12, 40
        q = mpmath.exp(-m)
        Z = [sum(q ** k for k in range(i + 1)) for i in range(L)]
        u = [mpmath.mpf(0)] * L
        u[-1] = mpmath.mpf(1)
        for _ in range(t + 1):
            new = [mpmath.mpf(0)] * L
            for i in range(L):
                for j in range(i + 1):
                    new[j] += u[i] * q ** (i - j) / Z[i]
            u = new
        lo = (1 - q) ** (t + 1)
        for k in range(L):
            ratio = u[L - 1 - k] / (mpmath.binomial(t + k, k) * q ** k)
            assert lo * (1 - mpmath.mpf(10) ** -25) <= ratio <= 1
            if k in (0, 5, 15):
                assert abs(ratio / lo - 1) < mpmath.mpf(10) ** -8  # e^{-m(L-k)} corrections
        assert max(range(20), key=lambda k: u[L - 1 - k]) == 6  # floor(12 / (e - 1)) = floor(6.98)
        # the same numbers from the package's X5 route
        p = decay_mask.decay_mask_profile(L, 1.0, t, 30)
        assert max(abs(a - b) for a, b in zip(p, u)) < mpmath.mpf(10) ** -25


def test_decay_mask_is_refuted_with_t_layers(monkeypatch):
    """The off-by-one reading (t layers) has ratio t/(t+k) (1-e^{-m})^t: no k-free lower bound."""
    orig = decay_mask.alibi_rollout_precise
    monkeypatch.setattr(decay_mask, "alibi_rollout_precise",
                        lambda L, layers, lam, *, dps: orig(L, layers[1:], lam, dps=dps))
    ev = decay_mask.check(CheckContext())
    assert ev.verdict == "refuted" and "outside [(1-e^-m)^(t+1), 1]" in ev.counterexample


def test_decay_mask_is_refuted_with_a_wrong_critical_point(monkeypatch):
    orig = decay_mask.alibi_rollout_precise

    def shifted(L, layers, lam, *, dps):
        p = orig(L, layers, lam, dps=dps)
        return p[3:] + p[-3:]  # moves every bulk entry by three positions

    monkeypatch.setattr(decay_mask, "alibi_rollout_precise", shifted)
    assert decay_mask.check(CheckContext()).verdict == "refuted"


def test_decay_mask_is_inconclusive_when_the_bulk_misses_its_constant(monkeypatch):
    orig = decay_mask.alibi_rollout_precise

    def perturbed(L, layers, lam, *, dps):
        p = orig(L, layers, lam, dps=dps)
        p[L - 3] *= 1 + mpmath.mpf(10) ** -15  # inside the Θ bounds, outside the bulk tolerance
        return p

    monkeypatch.setattr(decay_mask, "alibi_rollout_precise", perturbed)
    ev = decay_mask.check(CheckContext())
    assert ev.verdict == "inconclusive" and "raise --dps" in ev.details["reason"]


# --- power: the rule fed the stated version and plausible false ones -----------------------

def test_decay_mask_t_plus_one_layers_verified_t_layers_refuted():
    good = decay_mask.check(CheckContext())
    assert good.verdict == "verified" and good.figures["lower_margin"] >= 0
    # the off-by-one reading: C(t-1+k, k) in place of C(t+k, k), ratio t/(t+k) -> 0 in k
    bad = decay_mask.check(CheckContext(), layers=lambda t: t)
    assert bad.verdict == "refuted"
    assert bad.figures["lower_margin"] < -0.5
    assert decay_mask.RULE.apply(bad.figures, **bad.thresholds).verdict == "refuted"


def test_decay_mask_wrong_critical_point_refuted():
    ev = decay_mask.check(CheckContext(), critical=lambda t, m: t / m)
    assert ev.verdict == "refuted" and ev.figures["critical_offset"] > 1
    assert ev.figures["lower_margin"] >= 0  # the Θ bounds still hold: only the critical point fails
