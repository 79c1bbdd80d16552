"""numerics.shape: one definition of each profile statistic, with and without the final token.

The statistics are held to the definitions the claims have used (the chowdhury2026 claims' U
test, valley depth and peak/valley ratio, proofs_checks.measured.peak_valley) on generated
profiles, so that a claim moved onto this module keeps its figures."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from posbias.errors import InvalidArgument
from posbias.numerics.cesaro import cesaro_profile
from posbias.numerics.shape import (
    BINS,
    U_FACTOR,
    block_means,
    final_token_decides,
    profile_shape,
    shape_with_and_without_final,
)
from posbias.proofs_checks.measured import peak_valley

profiles = st.integers(min_value=BINS, max_value=300).flatmap(
    lambda n: st.lists(st.floats(min_value=1e-6, max_value=1e3), min_size=n, max_size=n))


def _blocks_reference(p, bins):
    """Block means written out with explicit block boundaries (the first L mod bins blocks hold
    one position more), independent of numpy's array_split."""
    L, q, r = len(p), len(p) // bins, len(p) % bins
    out, start = [], 0
    for k in range(bins):
        size = q + (1 if k < r else 0)
        out.append(math.fsum(p[start:start + size]) / size)
        start += size
    assert start == L
    return out


@given(profiles)
@example([1.0] * BINS)
def test_block_means_match_explicit_blocks(p):
    assert block_means(p).tolist() == pytest.approx(_blocks_reference(p, BINS), rel=1e-12)


@given(profiles)
def test_statistics_match_the_definitions_in_use(p):
    s = profile_shape(p)
    r = peak_valley(p)
    assert s.argmin == r["argmin"]
    assert s.first_over_min == r["first_over_min"] and s.last_over_min == r["last_over_min"]
    assert s.peak_valley == max(r["first_over_min"], r["last_over_min"])
    b = _blocks_reference(p, BINS)
    v = min(range(BINS), key=lambda k: (b[k], k))
    assert s.valley_block == v + 1 and s.interior_valley == (0 < v < BINS - 1)
    assert s.u_factor == pytest.approx(min(b[0], b[-1]) / b[v], rel=1e-12)
    assert s.valley_depth == pytest.approx(b[v] / (math.fsum(b) / BINS), rel=1e-12)
    assert s.u == (0 < v < BINS - 1 and min(b[0], b[-1]) / b[v] >= U_FACTOR)


@given(profiles, st.floats(min_value=1e-3, max_value=1e3))
def test_every_statistic_is_a_ratio(p, scale):
    a, b = profile_shape(p).as_dict(), profile_shape([x * scale for x in p]).as_dict()
    for key, value in a.items():
        if isinstance(value, float):
            assert b[key] == pytest.approx(value, rel=1e-9), key
        else:
            assert b[key] == value, key


def test_a_u_made_by_the_final_token_alone_is_found():
    """A profile decreasing to L - 1 (a residual Cesàro rollout: primacy tail, minimum at L - 1)
    with the recency atom on the final token: a 'U' only with the final token."""
    p = cesaro_profile(256, [0.07] * 24)  # the residual regime of chowdhury2026 at H = 24
    both = shape_with_and_without_final(p)
    assert both["with"].argmin == 255 and both["with"].last_atom > 100
    r = final_token_decides(lambda s: s.u, p)
    assert r == {"with": True, "without": False, "decided_by_final_token": True}


def test_a_real_valley_is_a_u_with_and_without_the_final_token():
    L = 160
    x = np.arange(1, L + 1) / L
    p = 1 + 40 * (x - 0.5) ** 2
    r = final_token_decides(lambda s: s.u, p / p.sum())
    assert r == {"with": True, "without": True, "decided_by_final_token": False}


@pytest.mark.parametrize("bad, what", [([1.0] * (BINS - 1), "positions"),
                                      ([1.0] * 20 + [-1.0], "negative"),
                                      ([1.0] * 20 + [float("nan")], "finite")])
def test_bad_profiles_are_refused_naming_the_parameter(bad, what):
    with pytest.raises(InvalidArgument, match="profile") as e:
        profile_shape(bad)
    assert what in str(e.value)


def test_a_zero_minimum_gives_infinite_ratios_not_an_error():
    s = profile_shape([1.0] + [0.0] * 30 + [1.0])
    assert s.peak_valley == math.inf and s.first_over_min == math.inf
