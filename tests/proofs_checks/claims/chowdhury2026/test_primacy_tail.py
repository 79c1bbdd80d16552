"""chowdhury2026:primacy-tail (C4): qualified at the paper's scale, with figures matching
independent computations; the expansion against independent sums; refuted when the computation
is off (a power or the constant of the divergence) and when the claimed formula is false (a
wrong power, a wrong factorial, a power law), the false formulas' figures being those of the
rule's examples; inconclusive when the float64 route disagrees with the exact one; the card."""

import functools

import mpmath
import numpy as np
import pytest

from posbias.numerics.cesaro import cesaro_profile
from posbias.proofs_checks.claims.chowdhury2026 import primacy_tail
from posbias.proofs_checks.registry import CheckContext


@functools.cache
def _first_token(L, H):
    return L * float(cesaro_profile(L, [1.0] * H)[0])


SHORT = tuple(4**k for k in range(3, 8))  # the rule on a shorter grid of L (faster tests)


def test_asymptotic_against_an_independent_sum():
    """L·p(1) = h_{H-1}(1, 1/2, ..., 1/L) (docs/explanation/mathematics.rst X3): for H = 2 it is the harmonic number
    H_L = ln L + γ + 1/(2L) - ..., whose first two terms are A_2(L)."""
    L = 4096
    with mpmath.workdps(30):
        harmonic = mpmath.fsum(mpmath.mpf(1) / i for i in range(1, L + 1))
        assert abs(harmonic - primacy_tail.primacy_asymptotic(L, 2) - mpmath.mpf(1) / (2 * L)) < 1e-7
        # H = 3: h_2 = (p_1^2 + p_2)/2 with power sums p_k = Σ i^-k; A_3 = (ln L)^2/2 + γ ln L
        # + (γ^2 + π^2/6)/2
        p2 = mpmath.fsum(mpmath.mpf(1) / i**2 for i in range(1, L + 1))
        h2 = (harmonic**2 + p2) / 2
        a3 = mpmath.log(L) ** 2 / 2 + mpmath.euler * mpmath.log(L) + (mpmath.euler**2 + mpmath.pi**2 / 6) / 2
        assert abs(primacy_tail.primacy_asymptotic(L, 3) - a3) < mpmath.mpf(10) ** -25
        assert abs(h2 / _first_token(L, 3) - 1) < 1e-12


def test_rate_holds_and_the_paper_scale_is_qualified():
    ev = primacy_tail.check(CheckContext())
    # the expansion holds in the asymptotic regime; at the paper's H = 24, L = 2048 the first
    # token is far from the tail formula (qualified: it describes the first token for ln L >> H)
    assert ev.verdict == "qualified", ev.as_dict()
    assert ev.figures["decay_exponent"] >= 0.5
    assert "falls like (ln L)^-s with s = 1 at worst" in ev.correction and ev.rule
    assert primacy_tail.check(CheckContext(), lengths=SHORT).verdict == "qualified"
    # the reported leading-order ratio at L = 2^20, H = 8, recomputed here
    L = 2**20
    lead = mpmath.log(L) ** 7 / mpmath.factorial(7)
    assert ev.details["table"]["H=8"][str(L)]["L*p(1)/formula"] == mpmath.nstr(_first_token(L, 8) / lead, 4)
    # the paper's formula is the leading term: its gap falls like 1/ln L on both routes
    assert ev.figures["formula_exponent_discrete"] == pytest.approx(1.0, abs=0.01)
    assert ev.figures["formula_exponent_expansion"] == pytest.approx(1.0, abs=0.01)


def test_refuted_when_the_power_is_off():
    """A world where the first token's influence grows with one power of ln L less."""
    ev = primacy_tail.check(CheckContext(), rollout=lambda L, H: _first_token(L, H - 1)
                               if L != 256 else _first_token(L, H), lengths=SHORT)
    assert ev.verdict == "refuted" and ev.counterexample


def test_refuted_when_the_constant_is_off():
    ev = primacy_tail.check(CheckContext(), rollout=lambda L, H: _first_token(L, H)
                               * (1 + 1 / np.log(L)) if L != 256 else _first_token(L, H),
                               lengths=SHORT)
    assert ev.verdict == "refuted"


def test_inconclusive_when_float_route_disagrees():
    ev = primacy_tail.check(CheckContext(), rollout=lambda L, H: _first_token(L, H) * (1 + 1e-9),
                               lengths=SHORT)
    assert ev.verdict == "inconclusive"


def test_at_the_paper_depth_is_qualified():
    ev = primacy_tail.check(CheckContext(), lengths=SHORT)
    assert ev.verdict == "qualified" and "holds only for ln L >> H" in ev.correction
    pp = ev.figures["paper_point"]
    assert pp["L*p(1)"] == pytest.approx(2047.76, abs=0.01)
    assert pp["formula F_24(L)"] == pytest.approx(0.00756, rel=1e-2)
    assert 2e5 < ev.figures["paper_ratio"] < 3e5
    # independent: (ln 2048)^23/23! and the first token of the float64 rollout
    lead = float(mpmath.log(2048) ** 23 / mpmath.factorial(23))
    assert ev.figures["paper_ratio"] == pytest.approx(_first_token(2048, 24) / lead, rel=1e-3)
    # where the formula starts to describe the first token at H = 24: ln L ≈ 39
    assert 35 < ev.figures["lnL_within_factor_at_H24"] < 45


def test_refuted_for_one_power_of_the_logarithm_less():
    ev = primacy_tail.check(CheckContext(), lengths=SHORT,
                               rollout=lambda L, H: _first_token(L, H - 1) if L != 256
                               else _first_token(L, H))
    assert ev.verdict == "refuted" and ev.figures["decay_exponent"] < 0.5


@pytest.mark.parametrize("name", sorted(primacy_tail.FALSE_FORMULAS))
def test_a_false_formula_is_refuted(name):
    """Each plausible false formula, fed to the check in place of the paper's: the computation
    is the same (it follows the expansion), the formula is not its leading term."""
    ev = primacy_tail.check(CheckContext(), rollout=_first_token, lengths=SHORT,
                            formula=primacy_tail.FALSE_FORMULAS[name], formula_name=name)
    assert ev.verdict == "refuted", ev.figures
    assert ev.figures["decay_exponent"] >= 0.5
    assert min(ev.figures["formula_exponent_discrete"],
               ev.figures["formula_exponent_expansion"]) < 0.5
    assert ev.counterexample.startswith(f"{name} is not the leading term")


def test_the_rules_false_formulas_are_what_the_check_computes():
    """The rule's examples of false formulas carry the figures the check computes for them on
    its default grid (and the paper's formula those of its own example): the rule is fed what
    the check would feed it."""
    examples = {e.label: e for e in primacy_tail.RULE.examples}
    cases = {f"false formula: {name}": (f, name) for name, f in primacy_tail.FALSE_FORMULAS.items()}
    cases["the paper's formula"] = (primacy_tail.paper_formula, "(ln L)^(H-1)/(H-1)!")
    seen = 0
    for label, e in examples.items():
        hit = [k for k in cases if label.startswith(k)]
        if not hit:
            continue
        formula, name = cases[hit[0]]
        ev = primacy_tail.check(CheckContext(), rollout=_first_token, formula=formula,
                                formula_name=name)
        assert ev.verdict == e.verdict, label
        for key in primacy_tail.RULE.deciding:
            assert ev.figures[key] == pytest.approx(e.figures[key], rel=2e-3, abs=1e-3), (label, key)
        seen += 1
    assert seen == len(primacy_tail.FALSE_FORMULAS) + 1


def test_a_false_computation_example_is_what_the_check_computes():
    ev = primacy_tail.check(CheckContext(), rollout=lambda L, H: _first_token(L, H - 1)
                            if L != 256 else _first_token(L, H))
    e = next(x for x in primacy_tail.RULE.examples if x.label.startswith("false computation"))
    assert ev.verdict == e.verdict == "refuted"
    for key in primacy_tail.RULE.deciding:
        assert ev.figures[key] == pytest.approx(e.figures[key], rel=2e-3, abs=1e-3), key


def test_card_states_the_setting_scope_and_proof(card_states):
    card_states("primacy-tail", "paper", "numeric")
