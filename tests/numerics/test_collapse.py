"""Rank-collapse numerics (numerics/collapse.py): the Dobrushin coefficient, the exact rate of a
causal kernel, the radius of a mask and the graph bound."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from posbias.errors import InvalidArgument
from posbias.numerics.cases import causal_mask, window_mask
from posbias.numerics.collapse import (
    centre_distance,
    collapse_bound_exact,
    dobrushin_exact,
    matrix_powers_exact,
    spectral_collapse_rate_exact,
)
from posbias.numerics.kernels import (
    min_entry_on_mask,
    random_masked_kernel_exact,
    sliding_window_kernel_exact,
    uniform_causal_kernel_exact,
)


def test_dobrushin_extremes_and_submultiplicativity():
    assert dobrushin_exact([[1, 0], [0, 1]]) == 1
    assert dobrushin_exact([[1, 0], [1, 0]]) == 0
    r = random.Random(0)
    for _ in range(20):
        A = random_masked_kernel_exact(causal_mask(5), r)
        B = random_masked_kernel_exact(causal_mask(5), r)
        AB = matrix_powers_exact([B, A])[-1]  # A B: B applied first
        assert dobrushin_exact(AB) <= dobrushin_exact(A) * dobrushin_exact(B)


def test_rate_one_half_for_every_window_and_the_causal_mask():
    assert spectral_collapse_rate_exact(uniform_causal_kernel_exact(9)) == F(1, 2)
    for w in (2, 3, 5, 9):
        assert spectral_collapse_rate_exact(sliding_window_kernel_exact(9, w)) == F(1, 2)
    assert spectral_collapse_rate_exact([[1, 0], [0, 1]]) == 1  # a row e_i: no collapse
    taus = [dobrushin_exact(P) for P in matrix_powers_exact([uniform_causal_kernel_exact(6)] * 40)]
    assert abs(taus[-1] / taus[-2] - F(1, 2)) < F(1, 10**6)


def test_radius_and_bound():
    assert centre_distance(causal_mask(7)) == 1
    assert [centre_distance(window_mask(9, w)) for w in (2, 3, 5)] == [8, 4, 2]
    with pytest.raises(InvalidArgument, match="quasi-strongly"):
        centre_distance([[True, False], [False, True]])
    r = random.Random(1)
    for _ in range(15):
        mask = window_mask(6, 3)
        layers = [random_masked_kernel_exact(mask, r) for _ in range(6)]
        eps = min(min_entry_on_mask(A, mask) for A in layers)
        for t, P in enumerate(matrix_powers_exact(layers), start=1):
            assert dobrushin_exact(P) <= collapse_bound_exact(eps, centre_distance(mask), t)
    with pytest.raises(InvalidArgument):
        collapse_bound_exact(0, 1, 1)
