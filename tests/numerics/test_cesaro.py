"""Tests of posbias.numerics.cesaro: the three paths of the Cesàro influence profile.

Reference values come from independent routes in posbias.numerics.closed_forms (Hausdorff
formula, explicit dense products) or from hand computation (stated where used).
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from posbias.errors import InvalidArgument
from posbias.numerics._arith import mpz
from posbias.numerics.cesaro import (
    cesaro_diagonal_exact,
    cesaro_diagonal_precise,
    cesaro_log_profile,
    cesaro_profile,
    cesaro_profile_blocks,
    cesaro_profile_exact,
    cesaro_profile_numerators,
    cesaro_profile_precise,
    cesaro_profile_scaled,
)
from posbias.numerics.closed_forms import cesaro_rollout_matrix_exact, hausdorff_profile_exact
from posbias.numerics.schedules import parse_schedule, power_schedule

F = Fraction
EPS = 2.0**-53  # unit roundoff of float64

rationals = st.tuples(st.integers(1, 12), st.integers(0, 12)).map(lambda t: F(min(t[1], t[0]), t[0]))
schedules = st.lists(rationals, min_size=0, max_size=6)


def _mp(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


# ---------------------------------------------------------------------------- exact path
def test_hand_computed_values():
    # L = 3, λ = 1: row 3 of M is (1/3, 1/3, 1/3); times M: (1/3)(1 + 1/2 + 1/3), ... by hand
    assert cesaro_profile_exact(3, [1]) == [F(1, 3)] * 3
    assert cesaro_profile_exact(3, [1, 1]) == [F(11, 18), F(5, 18), F(1, 9)]
    # one layer λ = 1/2: (1/2) e_3 + (1/2)(1/3, 1/3, 1/3)
    assert cesaro_profile_exact(3, [F(1, 2)]) == [F(1, 6), F(1, 6), F(2, 3)]


@given(st.integers(1, 12), schedules)
@example(1, [])
@example(5, [])
@example(4, [F(0)] * 3)
@example(4, [F(1)] * 3)
@example(1, [F(1), F(1, 2)])
def test_propagation_equals_hausdorff_and_dense(L, lams):
    p = cesaro_profile_exact(L, lams)
    assert p == hausdorff_profile_exact(L, lams)
    if L <= 6:
        assert p == cesaro_rollout_matrix_exact(L, lams)[-1]
    assert sum(p) == 1 and all(x >= 0 for x in p)
    if any(lams):
        assert all(x > 0 for x in p)
    # reduced fractions, identical to the naive reduction of the scaled integers
    N, D = cesaro_profile_scaled(L, lams)
    assert [(x.numerator, x.denominator) for x in p] == [
        (F(int(n), int(D)).numerator, F(int(n), int(D)).denominator) for n in N
    ]
    assert all(type(x.numerator) is int and type(x.denominator) is int for x in p)


big_rationals = st.tuples(st.integers(1, 10**30), st.integers(0, 10**30)).map(
    lambda t: F(min(t[1], t[0]), t[0]))


@given(st.integers(1, 40), st.lists(st.one_of(rationals, big_rationals), max_size=7))
@example(1, [])
@example(7, [F(0)] * 3)
@example(7, [F(1)] * 5)
@example(64, [F(1, 2)] * 6)
@example(30, [F(10**30 - 1, 10**30)] * 3)
def test_numerators_route_equals_scaled_route(L, lams):
    # exact divisions at the final denominator against multiplications at a growing one
    N, D = cesaro_profile_numerators(L, lams)
    Ns, Ds = cesaro_profile_scaled(L, lams)
    assert all(n * Ds == m * D for n, m in zip(N, Ns))
    assert sum(N) == D
    # D is the smallest known common denominator: Π b_t L lcm(1..L)^(T-1) over nonzero λ
    nonzero = [lam for lam in lams if lam]
    expected = math.prod(lam.denominator for lam in nonzero) * L * math.lcm(*range(1, L + 1)) ** (
        len(nonzero) - 1) if nonzero else 1
    assert expected == D


def test_the_denominator_premise_is_what_makes_the_divisions_exact():
    # D p_t(j) and D p_(t-1)(i)/i are integers for D = Π b L lcm(1..L)^(T-1) (docs/explanation/mathematics.rst X3); at a
    # denominator missing one factor the exact divisions give wrong integers, and the
    # certificates catch them: the premise is used, not decoration
    import posbias.numerics.cesaro as ces

    L, lams = 40, [F(1, 3)] * 5
    N, D = cesaro_profile_numerators(L, lams)
    assert ces._divided_rollout(L, lams, D) == N
    short = D // 37  # 37 <= L divides lcm(1..L) once
    with pytest.raises(ArithmeticError, match="Cesàro profile numerators"):
        ces._certify(L, lams, ces._divided_rollout(L, lams, short), short)


@pytest.mark.parametrize("lams", [[F(1, 2)] * 3, [F(0), F(1), F(0), F(2, 5)], [F(0)] * 2, []])
def test_progress_counts_every_layer(lams):
    for route in (lambda cb: cesaro_profile_numerators(9, lams, progress=cb),
                  lambda cb: cesaro_profile_precise(9, lams, 20, progress=cb)):
        calls = []
        route(calls.append)
        assert sum(calls) == len(lams) and all(n >= 1 for n in calls)


def test_certificates_catch_a_wrong_numerator():
    import posbias.numerics.cesaro as ces

    L, lams = 12, [F(1, 2), F(2, 3)]
    N, D = cesaro_profile_numerators(L, lams)
    ces._certify(L, lams, N, D)  # the genuine numerators pass
    moved = list(N)
    moved[0] += 1  # the sum still matches: only the modular rollout can see this
    moved[1] -= 1
    with pytest.raises(ArithmeticError, match="position 1 fails the check modulo"):
        ces._certify(L, lams, moved, D)
    with pytest.raises(ArithmeticError, match="do not sum to D"):
        ces._certify(L, lams, [*N[:-1], N[-1] + 1], D)


@given(st.integers(1, 10), schedules)
@example(1, [])
@example(3, [F(0)])
@example(3, [F(1)] * 4)
def test_diagonal_positive_and_product_formula(L, lams):
    diag = cesaro_diagonal_exact(L, lams)
    assert all(d > 0 for d in diag)
    dense = cesaro_rollout_matrix_exact(L, lams) if L <= 6 else None
    for i in range(1, L + 1):
        expected = F(1)
        for lam in lams:
            expected *= 1 - lam + lam / i
        assert diag[i - 1] == expected
        # rows of the rollout are nested: row i is the last row of the length-i rollout
        assert cesaro_profile_exact(i, lams)[-1] == expected
        if dense is not None:
            assert dense[i - 1][i - 1] == expected


@given(st.integers(2, 9), st.lists(st.integers(1, 6), min_size=1, max_size=8))
@example(2, [1])
def test_summable_schedule_keeps_diagonal_above_product(L, denominators):
    # summable schedule λ_t = 1/(d_t (t+1)^2); Cesàro: δ = max_i (1 - A[i,i]) = 1 - 1/L
    lams = [F(1, d * (t + 2) ** 2) for t, d in enumerate(denominators)]
    delta = 1 - F(1, L)
    bound = F(1)
    for lam in lams:
        bound *= 1 - lam * delta
    for d in cesaro_diagonal_exact(L, lams):
        assert d >= bound


@given(st.integers(2, 8), st.lists(rationals.filter(lambda x: x > 0), min_size=1, max_size=6))
@example(2, [F(1)])
def test_collapse_product_bound(L, lams):
    # herasimchyk2026 H4: max_i (1 - P[i,1]) <= Π_t (1 - λ_t min_{i>=2} A[i,1]), A[i,1] = 1/i
    bound = F(1)
    for lam in lams:
        bound *= 1 - lam * F(1, L)
    worst = max(1 - cesaro_profile_exact(i, lams)[0] for i in range(1, L + 1))
    assert worst <= bound


def test_non_summable_constant_schedule_collapses():
    # λ ≡ 1/2 (not summable): 1 - p(1) decreases to 0 with depth
    gaps = [1 - cesaro_profile_exact(6, [F(1, 2)] * T)[0] for T in (5, 20, 80)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < F(1, 10**3)


@pytest.mark.parametrize("bad", [[0.5], [np.float64(0.5)], [mpmath.mpf(1) / 2], [True], 0.5,
                                 [F(3, 2)], [F(-1, 2)]])
def test_exact_rejects_inexact_or_out_of_range(bad):
    with pytest.raises(InvalidArgument) as err:
        cesaro_profile_exact(3, bad)
    # the parameter is named, with the layer index when one value is at fault
    assert err.value.parameter in ("schedule", "schedule[1]")


@pytest.mark.parametrize("length", [0, -1, 1.0, True, "3"])
def test_length_validation(length):
    for f in (cesaro_profile_exact, cesaro_profile):
        with pytest.raises(InvalidArgument) as err:
            f(length, [F(1, 2)])
        assert str(err.value).startswith("length = ")
    with pytest.raises(InvalidArgument):
        cesaro_profile_precise(length, [F(1, 2)], 20)


def test_exact_accepts_decimal_and_schedule_objects():
    assert cesaro_profile_exact(4, [Decimal("0.5")]) == cesaro_profile_exact(4, [F(1, 2)])
    assert cesaro_profile_exact(4, parse_schedule("const:1/2", 1)) == cesaro_profile_exact(4, [F(1, 2)])
    with pytest.raises(InvalidArgument):
        cesaro_profile_exact(4, power_schedule(F(1, 2), F(1, 2), 2))


def test_large_exact_entry_size():
    # L = 512, T = 24, λ = 1/2: first entry near 0.89 (docs/explanation/mathematics.rst (chowdhury2026)), sum exactly 1
    p = cesaro_profile_exact(512, [F(1, 2)] * 24)
    assert sum(p) == 1
    assert F(88, 100) < p[0] < F(90, 100)
    assert len(str(mpz(p[0].denominator))) > 3000


# ---------------------------------------------------------------------------- precise path
@given(st.integers(1, 15), schedules, st.sampled_from([20, 50]))
@example(1, [], 20)
@example(3, [F(0)], 20)
@example(4, [F(1)] * 3, 20)
def test_precise_matches_exact_to_dps(L, lams, dps):
    exact = cesaro_profile_exact(L, lams)
    prec = cesaro_profile_precise(L, lams, dps)
    with mpmath.workdps(dps + 5):
        for e, p in zip(exact, prec):
            ev = _mp(e)
            # rounding to dps digits: relative error at most one unit in the dps-th digit
            assert abs(p - ev) <= abs(ev) * mpmath.mpf(10) ** (1 - dps)


def test_precise_irrational_schedule_and_diagonal():
    s = power_schedule(F(1, 2), F(1, 2), 5)
    p = cesaro_profile_precise(7, s, 40)
    with mpmath.workdps(40):
        assert abs(mpmath.fsum(p) - 1) < mpmath.mpf(10) ** -38
        d = cesaro_diagonal_precise(7, s, 40)
        assert abs(p[-1] - d[-1]) < mpmath.mpf(10) ** -38
    assert mpmath.mp.dps == 15  # global precision untouched


# ---------------------------------------------------------------------------- fast path
def _ulps_vs_exact(L, lams):
    a, k = cesaro_profile_blocks(L, [float(x) for x in lams])
    exact = cesaro_profile_exact(L, lams)
    worst = 0.0
    with mpmath.workdps(40):
        for ai, ki, e in zip(a, k, exact):
            ev = _mp(e)
            if ev == 0:
                assert ai == 0
                continue
            worst = max(worst, float(abs(mpmath.ldexp(mpmath.mpf(float(ai)), int(ki)) - ev) / ev))
    return worst / EPS


@given(st.integers(1, 40), schedules)
@example(1, [])
@example(7, [F(0)] * 3)
@example(7, [F(1)] * 6)
@example(1, [F(1)])
def test_fast_matches_exact_in_ulps(L, lams):
    # float64 forward error: a few roundings per layer, relative error <= (8T + 16) u
    assert _ulps_vs_exact(L, lams) <= 8 * len(lams) + 16


@pytest.mark.parametrize("L, T, lam", [(800, 110, F(1)), (400, 40, F(1, 2)), (400, 40, F(9, 10))])
def test_fast_deep_tail_not_flushed(L, T, lam):
    # attention-only T = 110 at L = 800: p(L) = 800^-110 ~ 4e-320, below the normal float64 range
    prec = cesaro_profile_precise(L, [lam] * T, 30)
    a, k = cesaro_profile_blocks(L, [float(lam)] * T)
    logp = cesaro_log_profile(L, [lam] * T)
    with mpmath.workdps(30):
        for j in (0, 1, L // 2, L - 2, L - 1):
            ref = prec[j]
            got = mpmath.ldexp(mpmath.mpf(float(a[j])), int(k[j]))
            assert abs(got - ref) / ref <= (8 * T + 16) * EPS
            # the log profile holds ln p to float64 representation accuracy
            assert abs(logp[j] - float(mpmath.log(ref))) <= 4 * EPS * max(1.0, abs(logp[j])) + 1e-15


def test_fast_extreme_underflow_in_log_space():
    # λ ≡ 1, T = 100, L = 10^4: p(L) = L^-100 = 1e-400 exactly (below the float64 range)
    lp = cesaro_log_profile(10**4, [1] * 100)
    assert abs(lp[-1] - (-400 * math.log(10))) <= 1e-12 * 400 * math.log(10)
    p = cesaro_profile(10**4, [1] * 100)
    assert p[-1] == 0.0 and p[0] > 0.99  # below 2^-1074: zero in float64, not in log space
    assert np.isfinite(lp).all()
    # subnormal range kept: entries between 2^-1074 and 2^-1022 are nonzero subnormals
    sub = p[(p > 0) & (p < 2.0**-1022)]
    np.testing.assert_allclose(np.log(sub), lp[(p > 0) & (p < 2.0**-1022)], rtol=1e-2)


def test_fast_small_block_fallback_agrees():
    # attention-only with T >> L: near the end p(j)/p(j+1) ~ (L/(L-1))^T ~ 2^180 per position,
    # so blocks of 8 positions exceed the float64 range and the rollout falls back to B = 1
    from posbias.numerics.cesaro import _blocked_rollout

    L, T = 40, 5000
    lams = np.ones(T)
    assert _blocked_rollout(L, lams, 8) is None
    lp = cesaro_log_profile(L, lams)
    with mpmath.workdps(40):
        # closed forms (docs/explanation/mathematics.rst X3): p(L) = L^-T, p(L-1) = L^-T (L-1) ((L/(L-1))^T - 1)
        ref_last = -T * mpmath.log(L)
        ref_prev = ref_last + mpmath.log(L - 1) + mpmath.log((mpmath.mpf(L) / (L - 1)) ** T - 1)
        for got, ref in ((lp[-1], ref_last), (lp[-2], ref_prev)):
            # relative error (8T + 16) u in p, plus the float64 representation of ln p
            assert abs(got - float(ref)) <= (8 * T + 16) * EPS + 4 * EPS * abs(float(ref))
    assert abs(lp[0]) < 1e-12  # p(1) = 1 - (tiny)


def test_fast_sum_and_shape():
    p = cesaro_profile(1000, [0.3] * 12)
    assert p.shape == (1000,) and p.dtype == np.float64
    assert abs(math.fsum(p.tolist()) - 1) < 1e-13
    with pytest.raises(InvalidArgument):
        cesaro_profile(10, [1.5])
    with pytest.raises(InvalidArgument):
        cesaro_profile(10, [float("nan")])


# ------------------------------------------------------------- compiled route vs numpy route
# With numba installed the fast path runs one compiled pass per layer
# (numerics._compiled.cesaro_layer_blocked); POSBIAS_NUMBA=0 forces the numpy route.  The
# fast-path tests above run on whichever route is active; here both routes face the same checks.

from posbias.numerics import _compiled  # noqa: E402


@pytest.fixture(params=["numba", "numpy"])
def fast_route(request, monkeypatch):
    if request.param == "numba" and not _compiled.HAVE_NUMBA:
        pytest.skip("numba not installed")
    monkeypatch.setenv("POSBIAS_NUMBA", "1" if request.param == "numba" else "0")
    assert _compiled.numba_enabled() == (request.param == "numba")
    return request.param


def test_fast_routes_pass_the_fast_path_checks(fast_route):
    for L, T, lam in [(800, 110, F(1)), (400, 40, F(1, 2)), (400, 40, F(9, 10))]:
        test_fast_deep_tail_not_flushed(L, T, lam)
    test_fast_extreme_underflow_in_log_space()
    test_fast_small_block_fallback_agrees()
    test_fast_sum_and_shape()


@given(st.integers(1, 40), schedules)
@example(1, [])
@example(7, [F(1)] * 6)
def test_fast_routes_match_exact_in_ulps(L, lams):
    with pytest.MonkeyPatch.context() as mp:
        for flag in ("1", "0"):
            mp.setenv("POSBIAS_NUMBA", flag)
            assert _ulps_vs_exact(L, lams) <= 8 * len(lams) + 16, flag


@pytest.mark.skipif(not _compiled.HAVE_NUMBA, reason="numba not installed")
def test_compiled_cesaro_layer_equals_its_python_source():
    from posbias.numerics.cesaro import _compiled_rollout

    lams = np.array([0.3, 1.0, 0.75, 0.0, 0.5] * 4)
    for L, B in ((1, 1), (7, 8), (130, 8), (200, 64)):
        a, k = _compiled_rollout(L, lams, B)
        b, kb = _compiled_rollout(L, lams, B, compiled=False)
        assert (k == kb).all() and (a == b).all()  # the same operations in the same order
    # a block range beyond 2^960 is reported, so that the caller retries with smaller blocks
    assert _compiled_rollout(40, np.ones(5000), 8) is None
