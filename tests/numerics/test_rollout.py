"""The kernel protocol and its drivers against the independent dense rollouts of kernels.py and
the dedicated Cesàro routes."""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from posbias.errors import InvalidArgument
from posbias.numerics.cesaro import cesaro_profile, cesaro_profile_exact, cesaro_profile_precise
from posbias.numerics.kernels import (
    decay_kernel,
    decay_kernel_precise,
    prefix_kernel_exact,
    rollout_last_row,
    rollout_last_row_exact,
    rollout_last_row_precise,
    sliding_window_kernel_exact,
)
from posbias.numerics.rollout import (
    DenseKernel,
    kernel_profile,
    kernel_profile_exact,
    kernel_profile_precise,
    parse_kernel,
)


def _schedule(rng, T):
    return [F(rng.randint(0, 6), 6) for _ in range(T)]


@pytest.mark.parametrize("seed", range(4))
def test_cesaro_kernel_equals_the_dedicated_routes(seed):
    rng = random.Random(seed)
    L, lams = rng.randint(1, 12), _schedule(rng, rng.randint(0, 5))
    assert kernel_profile_exact(L, "cesaro", lams) == cesaro_profile_exact(L, lams)
    with mpmath.workdps(40):
        a = kernel_profile_precise(L, "cesaro", lams, dps=40)
        b = cesaro_profile_precise(L, lams, 40)
        assert all(abs(x - y) <= mpmath.mpf(10) ** -35 for x, y in zip(a, b))
    fast = kernel_profile(L, "cesaro", [float(x) for x in lams])
    assert np.allclose(fast, cesaro_profile(L, lams), rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("seed", range(4))
def test_window_and_prefix_kernels_equal_their_dense_matrices(seed):
    rng = random.Random(100 + seed)
    L = rng.randint(2, 10)
    lams = _schedule(rng, rng.randint(1, 4))
    w, K = rng.randint(1, L), rng.randint(1, L)
    assert kernel_profile_exact(L, f"window:{w}", lams) == rollout_last_row_exact(
        sliding_window_kernel_exact(L, w), lams)
    assert kernel_profile_exact(L, f"prefix:{K}", lams) == rollout_last_row_exact(
        prefix_kernel_exact(L, K), lams, causal=False)
    dense = DenseKernel(sliding_window_kernel_exact(L, w))
    assert kernel_profile_exact(L, dense, lams) == kernel_profile_exact(L, f"window:{w}", lams)


def test_decay_kernel_equals_the_dense_softmax_kernel():
    # the kernel holds its slope as a float64 (as ALiBi layers do): compare at that exact value
    L, m, lams = 9, mpmath.mpf(0.7), [F(1, 2), F(1), F(3, 4)]
    with mpmath.workdps(40):
        dense = rollout_last_row_precise(decay_kernel_precise(L, m, 40), lams, dps=40)
        rec = kernel_profile_precise(L, "decay:0.7", lams, dps=40)
        assert max(abs(x - y) for x, y in zip(dense, rec)) < mpmath.mpf(10) ** -30
    fast = kernel_profile(L, "alibi:0.7", [0.5, 1.0, 0.75])
    assert np.allclose(fast, rollout_last_row(decay_kernel(L, 0.7), [0.5, 1.0, 0.75]), rtol=1e-12)


def test_one_kernel_per_layer_and_probability_rows():
    p = kernel_profile_exact(6, ["cesaro", "window:2", "prefix:3"], [F(1), F(1, 2), F(1, 3)])
    assert sum(p) == 1 and all(x >= 0 for x in p)


@pytest.mark.parametrize("spec", ["", "window:0", "prefix:0", "window:x", "decay:-1", "decay:nan",
                                  "alibi:inf", "cesaro;import os", 3, None, "prefix:99"])
def test_bad_kernels_name_the_parameter(spec):
    with pytest.raises(InvalidArgument) as err:
        kernel_profile_exact(4, spec, [F(1)]) if spec != "prefix:99" else kernel_profile(
            4, spec, [1.0])
    assert err.value.parameter in ("kernel", "kernels", "K")


def test_irrational_kernel_has_no_exact_path():
    with pytest.raises(InvalidArgument) as err:
        kernel_profile_exact(4, "decay:0.5", [F(1)])
    assert err.value.parameter == "kernel" and "precise" in str(err.value)
    assert kernel_profile_exact(4, "decay:0", [F(1)]) == cesaro_profile_exact(4, [F(1)])


def test_parse_kernel_round_trips_its_specs():
    for spec in ("cesaro", "window:3", "prefix:2", "decay:0.5", "alibi:0.25"):
        assert parse_kernel(spec).spec == spec
