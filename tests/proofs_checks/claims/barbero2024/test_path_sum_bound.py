"""barbero2024:path-sum-bound: the bound holds on generated scalar networks with equality for a
linear MLP, and the same computation refutes the bound without the residual term or without its
constant."""

from fractions import Fraction

import pytest

from posbias.proofs_checks.claims.barbero2024 import path_sum_bound as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture(scope="module")
def result():
    return run_claim(get_claim("barbero2024:path-sum-bound"), CheckContext())


def test_verified_reduced_with_every_route_equal(result):
    ev = result.evidence
    assert ev.verdict == "verified" and result.scope == "reduced"
    assert ev.figures["bound_failures"] == ev.figures["route_mismatches"] == 0
    assert ev.figures["tightness_failures"] == 0
    assert ev.figures["literal_overcount_max"] > 1  # the sum read literally over-counts


def test_without_the_residual_or_the_constant_the_bound_fails():
    for kwargs in ({"residual": False}, {"constant": lambda betas, layers: Fraction(1)}):
        ev = mod.check(CheckContext(), **kwargs)
        assert ev.verdict == "refuted" and ev.figures["bound_failures"] > 0, kwargs
        assert ev.counterexample
        assert mod.RULE.apply(ev.figures).verdict == "refuted"
