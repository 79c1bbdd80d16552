"""chowdhury2026:residual-density (C5): the verdict as computed; refuted for the atom with one
power too many and for a shifted density; the card."""

import mpmath

from posbias.proofs_checks.claims.chowdhury2026 import residual_density
from posbias.proofs_checks.claims.chowdhury2026._analytic import continuous_part
from posbias.proofs_checks.registry import CheckContext

FAST = CheckContext(dps=20, max_dps=40)


def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:residual-density")


def test_refuted_for_the_atom_with_one_power_too_many():
    ev = residual_density.check(FAST, atom=lambda a, h: (1 - a) ** (h + 1))
    assert ev.verdict == "refuted", ev.figures
    assert ev.figures["atom_gap"] > 1 and ev.figures["mass_digits"] < 3


def test_refuted_for_a_shifted_density():
    """The mixture evaluated at 0.9x: neither O(1/L) close to the profile nor of the right mass."""
    def shifted(h, a):
        c = continuous_part(h, a)
        return lambda x: c(mpmath.mpf(9) / 10 * x)

    ev = residual_density.check(FAST, density=shifted)
    assert ev.verdict == "refuted" and ev.figures["growth"] > 1.1, ev.figures


def test_card_states_the_setting_scope_and_proof(card_states):
    card_states("residual-density", "reduced", "range")
