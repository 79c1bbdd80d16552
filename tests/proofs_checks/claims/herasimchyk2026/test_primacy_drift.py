"""herasimchyk2026:primacy-drift: the check's verdict and evidence, the dominance it reads (which
fails without monotone kernels and holds with them), and its power against kernels outside the
premise."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from posbias_tests_herasimchyk2026 import (
    NONMONO,
    READ2,
    assert_drift_has_strict_cases,
    assert_expected_verdict_with_evidence,
    assert_states_its_rule,
    monotone_layers,
    through_registry,
)

from posbias.numerics.kernels import stochastically_monotone
from posbias.proofs_checks.claims.herasimchyk2026 import primacy_drift
from posbias.proofs_checks.registry import CheckContext, get_claim

F = Fraction


def test_check_returns_expected_verdict_with_evidence():
    assert_expected_verdict_with_evidence("primacy-drift")


def test_check_states_its_rule():
    assert_states_its_rule("primacy-drift")


def test_checks_are_deterministic_in_the_seed():
    c = get_claim("herasimchyk2026:primacy-drift")
    a = c.check(CheckContext(seed=5)).as_dict()
    b = c.check(CheckContext(seed=5)).as_dict()
    assert a == b


def test_primacy_drift_fails_without_monotonicity():
    assert not stochastically_monotone(NONMONO)
    # P(1) = NONMONO: profile e_1; adding READ2 on top: e_3 READ2 NONMONO = e_2 (later!)
    r = primacy_drift.primacy_drift_dominance([NONMONO, READ2], [F(1), F(1)])
    assert not r.dominates and r.worst_margin < 0


@given(monotone_layers(min_T=1))
def test_primacy_drift_holds_for_monotone_kernels(case):
    ks, lam = case
    assert all(stochastically_monotone(A) for A in ks)
    assert primacy_drift.primacy_drift_dominance(ks, lam).dominates


def test_drift_check_contains_strict_cases():
    assert_drift_has_strict_cases("primacy-drift")


def test_primacy_drift_refutes_kernels_that_are_not_monotone():
    r = through_registry("primacy-drift", primacy_drift.check, family="sparse")
    ev = r.evidence
    assert ev.verdict == "refuted" and ev.counterexample
    assert ev.figures["min over cases of min_k (F_(T+1)(k) - F_T(k))"] == Fraction(-1, 8)
    assert ev.figures["failing cases"] == 7
    # the scope says the kernels are outside the claim's premise
    assert r.scope == "variant" and any("sparse" in d for d in r.card["differences"])
