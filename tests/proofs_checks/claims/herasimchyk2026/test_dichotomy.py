"""herasimchyk2026:dichotomy: the check's verdict and evidence, the margins it reads (which detect
a wrong rollout), the unbounded-logit family against its closed form, and the check's power
against bounds with the wrong product, an off-by-one rollout and a divergent schedule claimed
summable."""

from __future__ import annotations

from fractions import Fraction

from posbias_tests_herasimchyk2026 import (
    CTX,
    assert_expected_verdict_with_evidence,
    assert_states_its_rule,
    through_registry,
)

from posbias.numerics.kernels import rollout_matrices_exact, uniform_causal_kernel_exact
from posbias.proofs_checks.claims.herasimchyk2026 import dichotomy
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

F = Fraction


def test_check_returns_expected_verdict_with_evidence():
    assert_expected_verdict_with_evidence("dichotomy")


def test_check_states_its_rule():
    assert_states_its_rule("dichotomy")


def test_dichotomy_margins_detect_a_wrong_rollout():
    M = uniform_causal_kernel_exact(3)
    ks, lams = [M, M], [F(1), F(1)]
    P = rollout_matrices_exact(ks, lams)[-1]
    md, mc = dichotomy.dichotomy_margins(ks, lams, P)
    assert md >= 0 and mc >= 0
    identity = [[F(int(i == j)) for j in range(3)] for i in range(3)]
    md, mc = dichotomy.dichotomy_margins(ks, lams, identity)  # pretends nothing moved to token 1
    assert mc < 0


def test_dichotomy_states_the_first_column_assumption_and_its_counterexample_family():
    c = get_claim("herasimchyk2026:dichotomy")
    assert any("first column bounded below" in a and "bounded logits" in a for a in c.assumptions)
    ev = run_claim(c, CheckContext()).evidence
    fam = ev.details["without a first-column bound (unbounded logits)"]
    assert fam["collapses"] is False and fam["Σ λ_t"] == fam["depth"]
    assert float(fam["P(T)[L,L]"]) >= float(fam["limit of P(T)[L,L]: sin(π√c)/(π√c(1-c)), c = 1-1/L"]) > 0.6


def test_unbounded_logit_family_matches_its_closed_form():
    import mpmath

    fam = dichotomy.unbounded_logit_family(3, 60)
    with mpmath.workdps(30):
        c = mpmath.mpf(2) / 3
        exact = mpmath.nprod(lambda t: 1 - c / (t + 1) ** 2, [1, mpmath.inf])
        assert abs(fam["limit"] - exact) < mpmath.mpf(10) ** -20
        diag = mpmath.mpf(fam["diagonal"].numerator) / fam["diagonal"].denominator
        # P(60)[L,L] = Π_{t<=60} (1 - c/(t+1)^2) sits above its limit by the tail product
        assert fam["limit"] < diag < fam["limit"] * (1 + c / 60)
    assert fam["first_column_min"] == F(1, 3 * 61 ** 2)
    assert 1 - fam["first"] >= fam["diagonal"] and fam["collapse_bound"] > F(1, 2)


def test_dichotomy_is_refuted_by_an_off_by_one_rollout(monkeypatch):
    """A rollout that drops its top layer breaks the collapse bound (one factor too many)."""
    orig = dichotomy.rollout_matrices_exact

    def dropped(ks, lams, **kw):
        Ps = orig(ks, lams, **kw)
        return [Ps[0], *Ps[:-1]]

    monkeypatch.setattr(dichotomy, "rollout_matrices_exact", dropped)
    ev = get_claim("herasimchyk2026:dichotomy").check(CheckContext())
    assert ev.verdict == "refuted" and ev.counterexample


def _wrong_dichotomy_margins(use_max_first_column=True, delta_min=False):
    def margins(ks, lams, P):
        L = len(P)
        low = up = Fraction(1)
        for A, lam in zip(ks, lams):
            defects = [1 - A[i][i] for i in range(L)]
            low *= 1 - lam * (min(defects) if delta_min else max(defects))
            if L >= 2:
                col = [A[i][0] for i in range(1, L)]
                up *= 1 - lam * (max(col) if use_max_first_column else min(col))
        return min(P[i][i] for i in range(L)) - low, up - max(1 - P[i][0] for i in range(L))

    return margins


def test_dichotomy_refutes_bounds_with_the_wrong_product():
    r = through_registry("dichotomy", dichotomy.check, margins=_wrong_dichotomy_margins())
    f = r.evidence.figures
    assert r.evidence.verdict == "refuted"
    assert f["min Π(1 - λ min A_i1) - max_i(1 - P_i1)"] < 0 and f["min diagonal - Π(1-λδ)"] >= 0
    ev = dichotomy.check(CTX, margins=_wrong_dichotomy_margins(False, delta_min=True))
    assert ev.verdict == "refuted" and ev.figures["min diagonal - Π(1-λδ)"] < 0
    # the true bounds through the same injection point
    assert dichotomy.check(CTX, margins=dichotomy.dichotomy_margins).verdict == "verified"


def test_dichotomy_refutes_a_divergent_schedule_claimed_not_to_collapse():
    # Σ λ_t = ∞ (harmonic λ_t = 1/(t+1)) in place of the summable schedule: the diagonal does not
    # settle (it keeps 0.355 from depth 120 to 480, against 0.995 for 1/(t+1)^2)
    r = through_registry("dichotomy", dichotomy.check, summable=lambda t: Fraction(1, t + 1))
    ev = r.evidence
    assert ev.verdict == "refuted" and "does not settle" in ev.counterexample
    assert abs(ev.figures["summable: P(4T)[L,L] / P(T)[L,L]"] - 0.355412) < 1e-6
    ok = dichotomy.check(CTX, summable=lambda t: Fraction(1, (t + 1) ** 3))
    assert ok.verdict == "verified" and ok.figures["summable: P(4T)[L,L] / P(T)[L,L]"] > 0.99
