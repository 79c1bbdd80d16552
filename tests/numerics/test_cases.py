"""The seeded case generators of the property checks: each family is what it says, draws are
reproducible from the seed, and bad arguments name the parameter."""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest

import posbias.numerics as numerics
from posbias.errors import InvalidArgument
from posbias.numerics.cases import (
    KERNEL_FAMILIES,
    causal_mask,
    random_alibi_case,
    random_family_kernel_exact,
    random_family_layers_exact,
    random_masked_layers_exact,
    random_schedule_exact,
    window_mask,
)
from posbias.numerics.kernels import (
    min_entry_on_mask,
    stochastically_monotone,
    uniform_causal_kernel_exact,
    validate_kernel_exact,
)


def test_reexported_by_numerics():
    for name in ("random_schedule_exact", "random_family_layers_exact", "window_mask", "KERNEL_FAMILIES"):
        assert name in numerics.__all__ and getattr(numerics, name) is not None


@pytest.mark.parametrize("family", KERNEL_FAMILIES)
def test_families_are_causal_stochastic_kernels(family):
    rng = random.Random(7)
    for L in range(1, 7):
        A = random_family_kernel_exact(rng, L, family)
        assert validate_kernel_exact(A) == A
        if family == "monotone":
            assert stochastically_monotone(A)
        if family == "positive":
            assert min_entry_on_mask(A) > 0
        if family == "cesaro":
            assert uniform_causal_kernel_exact(L) == A


def test_draws_are_reproducible_and_cover_both_layer_styles():
    a = [random_family_layers_exact(random.Random(s), 4, 3, "positive") for s in range(20)]
    b = [random_family_layers_exact(random.Random(s), 4, 3, "positive") for s in range(20)]
    assert a == b
    shared = [ks[0] is ks[1] for ks in a]
    assert any(shared) and not all(shared)
    assert len(random_family_layers_exact(random.Random(0), 4, 0, "sparse")) == 1


def test_schedules_stay_on_the_grid_and_reach_both_ends():
    seen = set()
    for s in range(200):
        lams = random_schedule_exact(random.Random(s), 5, q=4)
        assert len(lams) == 5 and all(0 <= x <= 1 and (4 * x).denominator == 1 for x in lams)
        seen.update(lams)
    assert F(0) in seen and F(1) in seen


def test_masked_layers_respect_the_mask():
    mask = window_mask(5, 2)
    for s in range(10):
        ks = random_masked_layers_exact(random.Random(s), mask, 3, uniform_causal_kernel_exact(5), max_weight=2)
        assert len(ks) == 3
        for A in ks:
            if uniform_causal_kernel_exact(5) == A:
                continue
            assert all((A[i][j] > 0) == mask[i][j] for i in range(5) for j in range(5))
            assert min_entry_on_mask(A, mask) >= F(1, 3)  # weights 1..2 on two entries
    assert causal_mask(3) == [[True, False, False], [True, True, False], [True, True, True]]


def test_alibi_cases():
    layers = random_alibi_case(np.random.default_rng(3), 4, 3)
    assert len(layers) == 4
    for m, d, w in layers:
        assert m.shape == d.shape == w.shape == (3,) and (m >= 0).all() and (w > 0).all()


@pytest.mark.parametrize("call, parameter", [
    (lambda: random_schedule_exact(random.Random(0), -1), "T"),
    (lambda: random_schedule_exact(3, 2), "rng"),
    (lambda: random_family_kernel_exact(random.Random(0), 3, "dense"), "family"),
    (lambda: random_family_kernel_exact(random.Random(0), 0, "positive"), "L"),
    (lambda: window_mask(3, 0), "w"),
    (lambda: random_alibi_case(random.Random(0), 2, 2), "rng"),
    (lambda: random_alibi_case(np.random.default_rng(0), 2, 0), "H"),
])
def test_bad_arguments_name_the_parameter(call, parameter):
    with pytest.raises(InvalidArgument) as e:
        call()
    assert e.value.parameter == parameter
