"""barbero2024's numerics (numerics/oversquashing.py): path sums, the scalar network's exact
Jacobian, softmax ℓ1 distances and the small transformer of the counting argument."""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest

from posbias.errors import InvalidArgument
from posbias.numerics.kernels import random_causal_kernel_exact
from posbias.numerics.oversquashing import (
    TinyTransformer,
    path_sum_exact,
    path_sum_literal_exact,
    product_entry_exact,
    scalar_network_jacobian_exact,
    softmax_l1_precise,
)


def test_path_enumeration_is_the_product_and_the_literal_reading_overcounts():
    r = random.Random(2)
    over = False
    for _ in range(20):
        n, L = r.randint(2, 5), r.randint(2, 4)
        layers = [random_causal_kernel_exact(n, r) for _ in range(L)]
        for i in range(1, n + 1):
            p = path_sum_exact(layers, n, i)
            assert p == product_entry_exact(layers, n, i)
            assert path_sum_literal_exact(layers, n, i) >= p
            over |= path_sum_literal_exact(layers, n, i) > p
    assert over


def test_linear_network_jacobian_is_the_scaled_path_sum():
    r = random.Random(3)
    att = [random_causal_kernel_exact(4, r) for _ in range(3)]
    J = scalar_network_jacobian_exact(att, [F(1, 3)] * 4, (1, 2, 1), lambda x: (x, F(1)))
    bar = [[[A[i][j] + (i == j) for j in range(4)] for i in range(4)] for A in att]
    assert [(F(1, 2) + 1) ** 3 * path_sum_exact(bar, 4, i) for i in range(1, 5)] == J
    with pytest.raises(InvalidArgument):
        scalar_network_jacobian_exact(att, [0] * 4, (1, 0, 1))


def test_softmax_l1_of_the_alternating_sequences():
    with mpmath.workdps(30):
        c = 2 * (mpmath.e - 1) / (mpmath.e + 1)
        assert abs(softmax_l1_precise([1, 0] * 8, [0, 1] * 8, 30) - c) < mpmath.mpf(10) ** -28
    with pytest.raises(InvalidArgument):
        softmax_l1_precise([1], [1, 2], 20)


def test_tiny_transformer_keeps_ratios_only_without_mask_and_positions():
    net = TinyTransformer(random.Random(4), vocab=2)
    a, b = net.forward_exact([1, 0]), net.forward_exact([1, 1, 0, 0])
    assert a[-1] == b[-1] and a[0] == b[0] == b[1]
    assert net.forward_exact([1, 0], mask="causal")[-1] != net.forward_exact([1, 1, 0, 0], mask="causal")[-1]
    assert net.forward_exact([1, 0], positions=True)[-1] != net.forward_exact([1, 1, 0, 0], positions=True)[-1]
    for bad in ({"mask": "diagonal"},):
        with pytest.raises(InvalidArgument):
            net.forward_exact([1, 0], **bad)
    with pytest.raises(InvalidArgument):
        net.forward_exact([5])
