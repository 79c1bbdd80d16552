"""duerinckx2026:double-well: behaviour (the public four-head mixture has two wells where its
script puts them; nonnegative two-head mixtures have two wells too; lambda = 0 mixtures none) and
power (a mixture search without distance decay gives the qualified verdict, a single U the
refuted one)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from posbias.numerics.kinetic import KineticHead, KineticModel, kinetic_values
from posbias.proofs_checks.claims.duerinckx2026 import double_well as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture(scope="module")
def result():
    return run_claim(get_claim("duerinckx2026:double-well"), CheckContext())


def test_verified_with_the_public_wells(result):
    ev = result.evidence
    assert ev.verdict == "verified" == result.expected and result.scope == "paper"
    pub = ev.details["public"]
    assert pub["wells"] == 2 and pub["digits"] >= 11
    located = [float(s) for s, _ in pub["located"]]
    assert all(abs(a - b) < 1.3e-3 for a, b in zip(located, pub["script_minima"]))
    assert pub["min_weight"] < 0 and pub["largest_value"] < 0  # signed, negative profile
    assert ev.details["lambda_0_search"]["wells"] == 0
    assert ev.details["single_heads_most_wells"] == 1
    assert ev.figures["nonneg_barrier"] > 1


def test_the_best_nonnegative_mixture_has_two_wells_on_the_fine_grid(result):
    best = result.evidence.details["nonnegative_search"]
    (l1, c1), (l2, c2) = best["heads"]
    model = KineticModel([KineticHead(l1, c=c1), KineticHead(l2, weight=Fraction(repr(best["weight"])),
                                                             c=c2)])
    n, barrier = mod.wells(kinetic_values(np.arange(20, 981) / 1000, model))
    assert n >= 2 and barrier > 1e-3


def test_without_distance_decay_no_mixture_has_two_wells():
    found = mod.search_two_wells(lams=(Fraction(0),), cs=(Fraction(1, 2), Fraction(2), Fraction(8)))
    assert found["wells"] == 0 and found["count"] == 0
    figures = {"public_wells": 2, "public_barrier": 8e-3, "public_digits": 12.0,
               "nonneg_wells": found["wells"], "nonneg_barrier": found["barrier"]}
    assert mod.RULE.apply(figures).verdict == "qualified"


def test_a_single_u_is_refuted():
    values = kinetic_values(np.arange(20, 981) / 1000, KineticModel([KineticHead(1, c=1)]))
    n, barrier = mod.wells(values)
    assert n == 1
    figures = {"public_wells": n, "public_barrier": barrier, "public_digits": 12.0,
               "nonneg_wells": 2, "nonneg_barrier": 2.0}
    assert mod.RULE.apply(figures).verdict == "refuted"


def test_rule_examples_reach_their_verdicts():
    for ex in mod.RULE.examples:
        assert mod.RULE.decide(ex.figures, mod.RULE.values()) == ex.verdict, ex.label
