"""Tests of posbias.numerics.closed_forms: independent exact routes agree with each other and
with the last-row propagation; the Bernstein quadrature agrees with exact values to its dps."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from posbias.errors import InvalidArgument
from posbias.numerics.cesaro import cesaro_profile_exact
from posbias.numerics.closed_forms import (
    bernstein_entry_precise,
    bernstein_profile_precise,
    cesaro_matrix_exact,
    cesaro_rollout_matrix_exact,
    complete_homogeneous_exact,
    hausdorff_entry_exact,
    hausdorff_matrix_exact,
    hausdorff_moments,
    hausdorff_profile_exact,
    poisson_binomial_exact,
    poisson_binomial_precise,
    symmetric_polynomial_profile_exact,
)
from posbias.numerics.schedules import power_schedule

F = Fraction
rationals = st.tuples(st.integers(1, 9), st.integers(0, 9)).map(lambda t: F(min(t[1], t[0]), t[0]))
schedules = st.lists(rationals, min_size=0, max_size=5)


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator


@given(st.integers(1, 9), schedules)
@example(1, [])
@example(4, [])
@example(4, [F(0)] * 2)
@example(4, [F(1)] * 3)
@example(1, [F(1)])
def test_four_exact_routes_agree(L, lams):
    prop = cesaro_profile_exact(L, lams)
    dense = cesaro_rollout_matrix_exact(L, lams) if L <= 6 else None
    haus = hausdorff_matrix_exact(L, lams)
    assert prop == haus[-1] == hausdorff_profile_exact(L, lams)
    if dense is not None:
        assert dense == haus
    if all(x == 1 for x in lams):
        assert prop == symmetric_polynomial_profile_exact(L, len(lams))
    mu = hausdorff_moments(L, lams)
    assert [haus[i][i] for i in range(L)] == mu
    for n in range(L):
        for k in range(n + 1):
            assert hausdorff_entry_exact(n, k, lams) == haus[n][k]
    assert hausdorff_entry_exact(1, 3, lams) == 0


@given(st.integers(1, 25), st.integers(0, 8))
@example(1, 0)
@example(1, 1)
@example(7, 0)
def test_symmetric_polynomial_form(L, H):
    assert symmetric_polynomial_profile_exact(L, H) == cesaro_profile_exact(L, [1] * H)


def test_complete_homogeneous_known_values():
    # h_2(x, y) = x^2 + xy + y^2; h_3(1, 1, 1) = C(5, 3) = 10
    assert complete_homogeneous_exact(2, [F(1, 2), F(1, 3)]) == F(1, 4) + F(1, 6) + F(1, 9)
    assert complete_homogeneous_exact(3, [1, 1, 1]) == 10
    assert complete_homogeneous_exact(0, []) == 1
    with pytest.raises(InvalidArgument):
        complete_homogeneous_exact(2, [0.5])


def test_cesaro_matrix_rows_stochastic():
    M = cesaro_matrix_exact(5)
    assert all(sum(r) == 1 for r in M)
    assert M[3][0] == F(1, 4) and M[1][3] == 0


@given(schedules)
def test_poisson_binomial(lams):
    w = poisson_binomial_exact(lams)
    assert sum(w) == 1 and len(w) == len(lams) + 1 and all(x >= 0 for x in w)
    assert w[0] == _prod(1 - x for x in lams)
    pw = poisson_binomial_precise(lams, 30)
    with mpmath.workdps(30):
        assert all(abs(a - _mp(b)) <= mpmath.mpf(10) ** -28 for a, b in zip(pw, w))


def _prod(xs):
    out = F(1)
    for x in xs:
        out *= x
    return out


@pytest.mark.parametrize(
    "L, lams",
    [(1, []), (3, [0]), (4, [1, 1]), (6, [F(1, 2)] * 3), (7, [F(1, 3), 1, F(2, 5), 0, F(7, 8)]),
     (9, [F(9, 10)] * 5)],
)
def test_bernstein_quadrature_matches_exact(L, lams):
    dps = 30
    exact = cesaro_profile_exact(L, lams)
    quad = bernstein_profile_precise(L, lams, dps)
    with mpmath.workdps(dps):
        for e, q in zip(exact, quad):
            assert abs(q - _mp(e)) <= mpmath.mpf(10) ** (2 - dps) * max(_mp(e), mpmath.mpf(10) ** -dps)


def test_bernstein_detects_a_wrong_schedule():
    # the quadrature depends on the schedule: a different schedule gives different entries
    a = bernstein_entry_precise(5, 1, [F(1, 2)] * 3, 30)
    b = bernstein_entry_precise(5, 1, [F(1, 2)] * 2 + [F(1, 3)], 30)
    assert abs(a - b) > mpmath.mpf(10) ** -5
    with mpmath.workdps(30):
        assert abs(a - _mp(hausdorff_entry_exact(5, 1, [F(1, 2)] * 3))) < mpmath.mpf(10) ** -28


def test_bernstein_irrational_schedule_matches_precise_propagation():
    from posbias.numerics.cesaro import cesaro_profile_precise

    s = power_schedule(F(1, 2), F(1, 2), 4)
    q = bernstein_profile_precise(5, s, 30)
    p = cesaro_profile_precise(5, s, 30)
    with mpmath.workdps(30):
        assert max(abs(x - y) / y for x, y in zip(q, p)) < mpmath.mpf(10) ** -27


@pytest.mark.parametrize("bad", [(-1, 0), (1, -1), (1.0, 0)])
def test_index_validation(bad):
    with pytest.raises(InvalidArgument):
        hausdorff_entry_exact(bad[0], bad[1], [1])


@pytest.mark.parametrize("args", [
    (0.5, 3, 5), (1, 0.5, 5), (mpmath.mpf(1), 3, 5), (True, 3, 5), (Fraction(1, 2), 3, 5),
    (1, 3, 1.5), (1, 3, True), (1, 3, 0),
])
def test_round_significant_rejects_non_integers(args):
    """A float must not be silently truncated to an integer on the exact printing path."""
    from posbias.numerics._arith import round_significant

    with pytest.raises(InvalidArgument):
        round_significant(*args)


def test_binomial_rejects_non_integers():
    from posbias.numerics._arith import binomial, mpz

    assert binomial(5, 2) == binomial(mpz(5), 2) == 10
    for n, k in ((0.5, 1), (True, 1), (5, 2.0), (5, mpmath.mpf(2))):
        with pytest.raises(InvalidArgument):
            binomial(n, k)


@pytest.mark.parametrize("call", [
    lambda: cesaro_profile_exact(10**400, [1]),
    lambda: complete_homogeneous_exact(10**400, [1]),
    lambda: symmetric_polynomial_profile_exact(3, 10**400),
    lambda: hausdorff_entry_exact(10**11, 0, [1]),
])
def test_huge_sizes_are_invalid_arguments(call):
    with pytest.raises(InvalidArgument):
        call()


def test_huge_dense_kernel_is_rejected():
    from posbias.numerics.kernels import uniform_causal_kernel_exact

    with pytest.raises(InvalidArgument) as e:
        uniform_causal_kernel_exact(10**11)
    assert e.value.parameter == "L"
