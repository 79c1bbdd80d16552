"""The sink:ALPHA and streaming:S,W kernels (numerics/sinks.py): their propagation against the
dense matrices on every path, the log-safe fast routes where float64 underflows, the closed
forms, the support, and the refusal of bad parameters."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from posbias.errors import InvalidArgument
from posbias.numerics.closed_forms import hausdorff_row_from_moments
from posbias.numerics.kernels import rollout_last_row_exact
from posbias.numerics.rollout import (
    kernel_profile,
    kernel_profile_blocks,
    kernel_profile_exact,
    kernel_profile_precise,
    parse_kernel,
)
from posbias.numerics.sinks import (
    SinkKernel,
    StreamingKernel,
    sink_moments_exact,
    sink_profile_hausdorff_exact,
    sink_profile_mixture_exact,
    streaming_profile_closed_exact,
    streaming_sink_mass_exact,
    streaming_support,
)


def dense_sink(L, a):
    return [[(a if j == 0 else 0) + (1 - a) * F(1, i + 1) if j <= i else F(0) for j in range(L)]
            for i in range(L)]


def dense_streaming(L, S, W):
    rows = []
    for i in range(L):
        U = set(range(min(S, i + 1))) | set(range(max(0, i - W + 1), i + 1))
        rows.append([F(1, len(U)) if j in U else F(0) for j in range(L)])
    return rows


def cases(seed, n=40):
    r = random.Random(seed)
    for _ in range(n):
        L, T = r.randint(1, 12), r.randint(1, 4)
        yield L, [F(r.randint(0, 4), 4) for _ in range(T)], r


def test_sink_kernel_matches_the_dense_layers_on_every_path():
    for L, lams, r in cases(1):
        a = F(r.randint(0, 4), 4)
        exact = kernel_profile_exact(L, SinkKernel(a), lams)
        assert exact == rollout_last_row_exact(dense_sink(L, a), lams)
        with mpmath.workdps(40):
            precise = kernel_profile_precise(L, SinkKernel(a), lams, 40)
            assert max(abs(p - mpmath.mpmathify(q)) for p, q in zip(precise, exact)) < mpmath.mpf(10) ** -35
        fast = kernel_profile(L, SinkKernel(a), [float(x) for x in lams])
        assert np.allclose(fast, [float(x) for x in exact], rtol=1e-13, atol=1e-15)


def test_sink_closed_forms_equal_the_propagation():
    for L, lams, r in cases(2):
        a = F(r.randint(0, 5), 5)
        p = kernel_profile_exact(L, SinkKernel(a), lams)
        assert sink_profile_hausdorff_exact(L, a, lams) == p == sink_profile_mixture_exact(L, a, lams)
    assert sink_moments_exact(2, F(1, 2), [F(1)]) == [F(1), F(1, 4)]


def test_sink_log_blocks_keep_what_float64_flushes():
    # attention only with α = 0 is Cesàro: p(L) = L^-T = 4^-600 ~ 1e-361, below float64's range
    a, k = SinkKernel(0).log_blocks(4, [1.0] * 600)
    assert kernel_profile(4, SinkKernel(0), [1.0] * 600)[-1] == 0.0
    assert math.log(a[-1]) + k[-1] * math.log(2) == pytest.approx(-600 * math.log(4), rel=1e-12)
    exact = sink_profile_mixture_exact(6, F(1, 3), [F(1, 2)] * 5)
    a, k = SinkKernel(F(1, 3)).log_blocks(6, [0.5] * 5)
    assert np.allclose(np.ldexp(a, k), [float(x) for x in exact], rtol=1e-13)
    a, k = SinkKernel(1).log_blocks(3, [1.0])  # λ = α = 1: everything on token 1
    assert np.ldexp(a, k).tolist() == [1.0, 0.0, 0.0]


def test_streaming_kernel_matches_the_dense_layers_on_every_path():
    for L, lams, r in cases(3):
        S, W = r.randint(0, 3), r.randint(1, 5)
        exact = kernel_profile_exact(L, StreamingKernel(S, W), lams)
        assert exact == rollout_last_row_exact(dense_streaming(L, S, W), lams)
        with mpmath.workdps(40):
            precise = kernel_profile_precise(L, StreamingKernel(S, W), lams, 40)
            assert max(abs(p - mpmath.mpmathify(q)) for p, q in zip(precise, exact)) < mpmath.mpf(10) ** -35
        floats = [float(x) for x in lams]
        assert np.allclose(kernel_profile(L, StreamingKernel(S, W), floats),
                           [float(x) for x in exact], atol=1e-15)
        lp = StreamingKernel(S, W).log_profile(L, floats)
        assert [x == 0 for x in exact] == np.isneginf(lp).tolist()  # exact zeros stay exact
        assert np.allclose(np.exp(lp), [float(x) for x in exact], atol=1e-15)


def test_streaming_log_profile_far_below_float64():
    L, S, W, T = 460, 2, 4, 150  # entries down to 6^-150 and their window sums
    exact = streaming_profile_closed_exact(L, S, W, [F(1)] * T)
    lp = StreamingKernel(S, W).log_profile(L, [1.0] * T)
    with mpmath.workdps(30):
        worst = max(abs(float(mpmath.log(mpmath.mpmathify(x))) - y) for x, y in zip(exact, lp) if x)
    assert worst < 1e-10
    lp = StreamingKernel(1, 2).log_profile(10, [1.0] * 1200)  # 3^-1200 ~ 1e-573 at the last token
    assert lp[-1] == pytest.approx(-1200 * math.log(3), rel=1e-12)


def test_streaming_support_and_closed_form():
    for L, lams, r in cases(4, 60):
        S, W = r.randint(0, 3), r.randint(1, 4)
        p = kernel_profile_exact(L, StreamingKernel(S, W), lams)
        T = sum(1 for x in lams if x)
        support = {j for lo, hi in streaming_support(L, S, W, T) for j in range(lo, hi + 1)}
        assert support == {j + 1 for j, x in enumerate(p) if x}
        if L - (W - 1) * T > S:
            assert streaming_profile_closed_exact(L, S, W, lams) == p
    with pytest.raises(InvalidArgument, match="clear of the sinks"):
        streaming_profile_closed_exact(5, 2, 3, [F(1)] * 2)
    assert streaming_sink_mass_exact(4, 1020, [1, 1]) == 1 - F(255, 256) ** 2


def test_streaming_zero_sinks_is_the_window_kernel():
    assert kernel_profile_exact(9, "streaming:0,3", [F(1, 2)] * 3) == kernel_profile_exact(
        9, "window:3", [F(1, 2)] * 3)


@pytest.mark.parametrize("spec", ["sink:1.5", "sink:nan", "sink:-0.1", "sink:", "sink:1/0",
                                  "streaming:0,0", "streaming:1", "streaming:-1,2", "streaming:a,b",
                                  "sink:1e999"])
def test_bad_sink_specs_name_the_kernel(spec):
    with pytest.raises(InvalidArgument) as err:
        parse_kernel(spec)
    assert err.value.parameter == "kernel" and spec in str(err.value)


def test_specs_round_trip_and_parameters_are_checked():
    assert parse_kernel("sink:1/2").spec == "sink:1/2" and parse_kernel("sink:0.5").alpha == F(1, 2)
    assert parse_kernel("streaming:4,1020").spec == "streaming:4,1020"
    for bad in (F(3, 2), -1, float("nan"), "x"):
        with pytest.raises(InvalidArgument):
            SinkKernel(bad)
    with pytest.raises(InvalidArgument):
        StreamingKernel(1, 0)
    with pytest.raises(InvalidArgument):
        hausdorff_row_from_moments(3, [F(1)])


def test_kernel_profile_blocks_on_each_kind_of_kernel():
    for spec in ("cesaro", "sink:1/4", "streaming:2,3", "window:3", "decay:0.5"):
        a, k = kernel_profile_blocks(12, spec, [0.5] * 3)
        assert np.allclose(np.ldexp(a, k), kernel_profile(12, spec, [0.5] * 3), atol=1e-15), spec


@pytest.mark.slow
def test_the_fast_routes_at_a_million_positions():
    a, k = kernel_profile_blocks(10**6, "sink:1/2", [0.1] * 24)
    assert math.fsum(np.ldexp(a, k).tolist()) == pytest.approx(1.0, abs=1e-12)
    lp = StreamingKernel(4, 1020).log_profile(10**6, [0.1] * 24)
    assert math.fsum(np.exp(lp).tolist()) == pytest.approx(1.0, abs=1e-12)
    assert np.isneginf(lp[4:10**6 - 1 - 1019 * 24]).all()
