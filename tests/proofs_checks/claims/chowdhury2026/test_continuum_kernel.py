"""chowdhury2026:continuum-kernel (C2): the verdict as computed, with its method and LaTeX;
refuted for wrong closed forms (a wrong factorial, a wrong power of the logarithm); the card."""

import sympy

from posbias.proofs_checks import CheckContext
from posbias.proofs_checks.claims.chowdhury2026 import continuum_kernel

FAST = CheckContext(dps=20, max_dps=40)


def test_expected_verdict(expect_verdict_with_latex):
    expect_verdict_with_latex("chowdhury2026:continuum-kernel")


def test_refuted_for_a_wrong_factorial():
    def wrong(d, a, b):
        return sympy.log(a / b) ** (d - 1) / sympy.factorial(d) / a
    ev = continuum_kernel.check(CheckContext(dps=20, max_dps=40), kernel=wrong)
    assert ev.verdict == "refuted"


def test_refuted_for_the_wrong_power_of_the_logarithm():
    wrong = lambda d, a, b: sympy.log(a / b) ** d / sympy.factorial(d - 1) / a  # noqa: E731
    ev = continuum_kernel.check(FAST, kernel=wrong)
    assert ev.verdict == "refuted" and ev.figures["digits"] < 2, ev.figures
    assert ev.figures["open_identities"] >= 1


def test_card_states_the_setting_scope_and_proof(card_states):
    card_states("continuum-kernel", "paper", "range")
