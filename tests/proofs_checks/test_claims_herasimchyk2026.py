"""Tests of the herasimchyk2026 core claims: each check returns its expected verdict with filled
evidence, and the predicates behind them detect deliberately wrong inputs (so checks can fail)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from posbias.numerics.kernels import (
    prefix_kernel_exact,
    random_monotone_kernel_exact,
    rollout_matrices_exact,
    stochastically_monotone,
    uniform_causal_kernel_exact,
)
from posbias.proofs_checks.claims.herasimchyk2026 import _legacy as hc
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim
from posbias.strategies import unit_fractions

F = Fraction

IDS = [
    "herasimchyk2026:dichotomy",
    "herasimchyk2026:constant-residual-collapse",
]


@pytest.mark.parametrize("claim_id", IDS)
def test_check_returns_expected_verdict_with_evidence(claim_id):
    c = get_claim(claim_id)
    r = run_claim(c, CheckContext())
    ev = r.evidence
    assert ev.verdict == c.expected, ev.as_dict()
    assert ev.cases and ev.cases > 0
    assert ev.worst_margin
    assert ev.parameters and ev.method and ev.precision == "exact"
    assert c.latex_text.strip() and c.statement and c.section
    assert r.seconds < 15


# deliberately wrong inputs --------------------------------------------------------------------


# layer-dependent, non-monotone kernels on 3 tokens
NONMONO = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(1), F(0), F(0)]]  # token 3 reads token 1
READ2 = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(0), F(1), F(0)]]  # token 3 reads token 2


def test_dichotomy_margins_detect_a_wrong_rollout():
    M = uniform_causal_kernel_exact(3)
    ks, lams = [M, M], [F(1), F(1)]
    P = rollout_matrices_exact(ks, lams)[-1]
    md, mc = hc.dichotomy_margins(ks, lams, P)
    assert md >= 0 and mc >= 0
    identity = [[F(int(i == j)) for j in range(3)] for i in range(3)]
    md, mc = hc.dichotomy_margins(ks, lams, identity)  # pretends nothing moved to token 1
    assert mc < 0


def test_hausdorff_tail_is_an_independent_route():
    M = uniform_causal_kernel_exact(4)
    lam = F(1, 3)
    P = rollout_matrices_exact(M, [lam] * 5)
    for t in range(6):
        assert hc.hausdorff_tail(4, lam, t) == 1 - P[t][3][0]
    assert hc.hausdorff_tail(4, F(1, 2), 5) != 1 - P[5][3][0]


# property tests of the drift predicates over generated monotone kernels ----------------------

lams = unit_fractions(5)


@st.composite
def monotone_layers(draw, min_T=0):
    rng = draw(st.randoms(use_true_random=False))
    L = draw(st.integers(1, 5))
    T = draw(st.integers(min_T, 4))
    ks = [random_monotone_kernel_exact(L, rng, positive_diagonal=draw(st.booleans()))
          for _ in range(max(T, 1))]
    return ks, draw(st.lists(lams, min_size=T, max_size=T))


# verdict rules, the dichotomy's assumption, the shared sweep -----------------------------------


@pytest.mark.parametrize("claim_id", IDS)
def test_each_check_states_its_rule(claim_id):
    ev = run_claim(get_claim(claim_id), CheckContext()).evidence
    assert "verified when" in ev.details["rule"] and "refuted" in ev.details["rule"]


def test_dichotomy_states_the_first_column_assumption_and_its_counterexample_family():
    c = get_claim("herasimchyk2026:dichotomy")
    assert any("first column bounded below" in a and "bounded logits" in a for a in c.assumptions)
    ev = run_claim(c, CheckContext()).evidence
    fam = ev.details["without a first-column bound (unbounded logits)"]
    assert fam["collapses"] is False and fam["Σ λ_t"] == fam["depth"]
    assert float(fam["P(T)[L,L]"]) >= float(fam["limit of P(T)[L,L]: sin(π√c)/(π√c(1-c)), c = 1-1/L"]) > 0.6


def test_unbounded_logit_family_matches_its_closed_form():
    import mpmath

    fam = hc.unbounded_logit_family(3, 60)
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
    orig = hc.rollout_matrices_exact

    def dropped(ks, lams, **kw):
        Ps = orig(ks, lams, **kw)
        return [Ps[0], *Ps[:-1]]

    monkeypatch.setattr(hc, "rollout_matrices_exact", dropped)
    ev = get_claim("herasimchyk2026:dichotomy").check(CheckContext())
    assert ev.verdict == "refuted" and ev.counterexample


def test_case_sweep_keeps_the_first_counterexample_and_the_worst_margins():
    from posbias.proofs_checks.claims._common import CaseSweep

    s = CaseSweep()
    for x in (F(1, 2), F(-1, 3), F(-2, 3), F(1)):
        s.case()
        s.low("margin", x)
        s.high("constant", x)
        if x < 0:
            s.fail(lambda x=x: f"x = {x}")
    assert (s.cases, s.failures, s.counterexample) == (4, 2, "x = -1/3")
    assert s.worst["margin"] == F(-2, 3) and s.most["constant"] == 1
    ev = s.evidence(method="m", worst_margin="w", rule="r", parameters={"p": 1})
    assert ev.verdict == "refuted" and ev.discrepancy is None and ev.details["rule"] == "r"
    ok = CaseSweep()
    ok.case()
    assert ok.evidence(method="m", worst_margin="w").verdict == "verified"
    assert ok.evidence(method="m", worst_margin="w", ok=False).verdict == "refuted"
    assert ok.evidence(method="m", worst_margin="w").discrepancy == "0 (exact)"


def test_stored_and_live_rows_agree_to_1e9_except_round_off_figures():
    """Live figures must match the stored run to 1e-9 relative; the layers' monotonicity defect
    is float64 round-off (zero exactly), so two values at that level agree whatever their
    ratio (it depends on the machine's summation order), and a real defect does not."""
    from posbias.proofs_checks.claims.herasimchyk2026 import _legacy as hz

    key = "monotonicity defect (L = 64)"
    assert hz._close({"a": 0.25, key: 6.7e-16}, {"a": 0.25, key: 7.8e-16})
    assert not hz._close({"a": 0.25, key: 6.7e-16}, {"a": 0.25 * (1 + 1e-8), key: 6.7e-16})
    assert not hz._close({"a": 0.25, key: 1e-9}, {"a": 0.25, key: 7.8e-16})
    assert not hz._close({"a": 6.7e-16}, {"a": 7.8e-16})   # other keys stay relative
