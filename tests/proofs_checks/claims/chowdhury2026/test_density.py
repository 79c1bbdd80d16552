"""chowdhury2026:density (C3): the verdict as computed, with its method and LaTeX; refuted for
wrong densities (a wrong factorial, ρ_(H+1) offered as ρ_H); the two-route figures tied to the
precision; the card."""

import sympy

from posbias.proofs_checks import CheckContext
from posbias.proofs_checks.claims.chowdhury2026 import density

FAST = CheckContext(dps=20, max_dps=40)


def test_expected_verdict(expect_verdict_with_latex):
    expect_verdict_with_latex("chowdhury2026:density")


def test_refuted_for_a_wrong_factorial():
    def wrong(h, xx):
        return sympy.log(1 / xx) ** (h - 1) / sympy.factorial(h)
    ev = density.check(CheckContext(dps=20, max_dps=40), density=wrong)
    assert ev.verdict == "refuted"


def test_refuted_for_a_density_shifted_in_depth():
    """ρ_{H+1} offered as ρ_H: it integrates to 1 but its Mellin moments are (1+s)^-(H+1)."""
    shifted = lambda h, xx: sympy.log(1 / xx) ** h / sympy.factorial(h)  # noqa: E731
    ev = density.check(FAST, density=shifted)
    assert ev.verdict == "refuted" and ev.figures["digits"] < 2, ev.figures


def test_route_figures_tie_the_digits_to_the_precision():
    ev = density.check(FAST)
    assert ev.verdict == "verified" and ev.thresholds == {"digits": ev.figures["final_dps"] - 10}


def test_card_states_the_setting_scope_and_proof(card_states):
    card_states("density", "paper", "all")
