"""The ALiBi/content claims: verdicts as computed, and that each check can fail."""

import pytest

from posbias.proofs_checks.claims import posbias as pb
from posbias.proofs_checks.claims import wu2025 as wu
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

IDS = [
    "posbias:content-as-residual",
    "posbias:alibi-linear-time",
    "wu2025:decay-mask",
]


@pytest.mark.parametrize("cid", IDS)
def test_verdict_equals_expected(cid):
    c = get_claim(cid)
    r = run_claim(c, CheckContext())
    ev = r.evidence
    assert "error" not in ev.details, ev.details
    assert ev.verdict == c.expected, ev.as_dict()
    assert c.latex_text and "\\" in c.latex_text
    if not cid.startswith("posbias:"):  # the claims of wu2025 state their rule
        assert ev.details.get("rule")


def test_decay_mask_is_verified_with_t_plus_one_layers():
    ev = run_claim(get_claim("wu2025:decay-mask"), CheckContext()).evidence
    assert ev.verdict == "verified" and "rule" in ev.details and ev.correction is None
    for row in ev.details["critical points"]:
        assert row["k* measured"] == row["floor(t/(e^m-1))"]
    for row in ev.details["cases"]:
        assert row["layers"] == row["t"] + 1
    assert ev.details["k* = floor(t/(e^m-1)) in every case"] is True


def test_linear_time_detects_a_wrong_recurrence(monkeypatch):
    orig = pb.alibi_propagate_precise

    def wrong(v, layer, *, dps, count_ops=False):
        out = orig(v, layer, dps=dps, count_ops=count_ops)
        if count_ops:
            return out
        return [x * (1 + (k == 1) * 1e-12) for k, x in enumerate(out)]

    monkeypatch.setattr(pb, "alibi_propagate_precise", wrong)
    assert pb.check_alibi_linear_time(CheckContext()).verdict == "refuted"


def test_content_as_residual_detects_a_wrong_gamma(monkeypatch):
    orig = pb.alibi_kernel_dense_precise

    def shifted(L, layer, *, dps, base=0):
        A = orig(L, layer, dps=dps, base=base)
        if layer.diagonal[0] != 0:  # perturb A(d) only
            A[-1][-1] *= 1 + 1e-9
        return A

    monkeypatch.setattr(pb, "alibi_kernel_dense_precise", shifted)
    assert pb.check_content_as_residual(CheckContext()).verdict == "refuted"


def test_decay_mask_bulk_value_by_an_independent_dense_rollout():
    """wu2025's P(t) = A(t)...A(0) has t + 1 layers: a dense mpmath rollout of one decay head
    (m = 1, t = 12, L = 40) gives (1-e^{-m})^{t+1} C(t+k,k) e^{-km} in the bulk, the maximiser
    floor(t/(e^m-1)) = 6, and k-free bounds [(1-e^{-m})^{t+1}, 1] at every k."""
    import mpmath

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
        p = wu.decay_mask_profile(L, 1.0, t, 30)
        assert max(abs(a - b) for a, b in zip(p, u)) < mpmath.mpf(10) ** -25


def test_decay_mask_is_refuted_with_t_layers(monkeypatch):
    """The off-by-one reading (t layers) has ratio t/(t+k) (1-e^{-m})^t: no k-free lower bound."""
    orig = wu.alibi_rollout_precise
    monkeypatch.setattr(wu, "alibi_rollout_precise", lambda L, layers, lam, *, dps: orig(L, layers[1:], lam, dps=dps))
    ev = wu.check_decay_mask(CheckContext())
    assert ev.verdict == "refuted" and "outside [(1-e^-m)^(t+1), 1]" in ev.counterexample


def test_decay_mask_is_refuted_with_a_wrong_critical_point(monkeypatch):
    orig = wu.alibi_rollout_precise

    def shifted(L, layers, lam, *, dps):
        p = orig(L, layers, lam, dps=dps)
        return p[3:] + p[-3:]  # moves every bulk entry by three positions

    monkeypatch.setattr(wu, "alibi_rollout_precise", shifted)
    assert wu.check_decay_mask(CheckContext()).verdict == "refuted"


def test_decay_mask_is_inconclusive_when_the_bulk_misses_its_constant(monkeypatch):
    import mpmath

    orig = wu.alibi_rollout_precise

    def perturbed(L, layers, lam, *, dps):
        p = orig(L, layers, lam, dps=dps)
        p[L - 3] *= 1 + mpmath.mpf(10) ** -15  # inside the Θ bounds, outside the bulk tolerance
        return p

    monkeypatch.setattr(wu, "alibi_rollout_precise", perturbed)
    ev = wu.check_decay_mask(CheckContext())
    assert ev.verdict == "inconclusive" and "raise --dps" in ev.details["reason"]
