"""barbero2024:simple-eigenvalue: Lemma B.6 on generated kernels; the assumption is sufficient,
not necessary; the lemma without it is refuted."""

from fractions import Fraction

from posbias.proofs_checks.claims.barbero2024 import simple_eigenvalue as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_and_the_condition_not_necessary():
    ev = run_claim(get_claim("barbero2024:simple-eigenvalue"), CheckContext()).evidence
    assert ev.verdict == "verified"
    assert ev.figures["simple_without_the_assumption"] == 6


def test_null_space_dimension():
    assert mod.null_space_dimension([[Fraction(1), 0], [0, Fraction(1)]]) == 2
    assert mod.null_space_dimension([[Fraction(1), 0], [Fraction(1, 2), Fraction(1, 2)]]) == 1


def test_without_the_assumption_refuted():
    ev = mod.check(CheckContext(), assumption=False)
    assert ev.verdict == "refuted" and ev.figures["algebraic_failures"] > 0
    assert ev.figures["geometric_failures"] == ev.figures["algebraic_failures"]
