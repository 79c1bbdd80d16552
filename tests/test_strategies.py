"""posbias.strategies: every strategy's values satisfy the invariant its docstring states, the
edge cases (0, 1, T = 0, L = 1, flat heads) are reached, posbias's own functions accept the
values, and importing the module without Hypothesis is one ImportError naming the extra."""

import math
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import find, given
from hypothesis import strategies as st

from posbias import strategies as ps
from posbias.numerics import (
    alibi_rollout,
    cesaro_profile_exact,
    list_schedule,
    rollout_last_row_exact,
    validate_kernel_exact,
)


def _cdf(row):
    out, acc = [], Fraction(0)
    for x in row:
        acc += x
        out.append(acc)
    return out


@given(ps.unit_fractions(), ps.unit_fractions(3, allow_zero=False))
def test_unit_fractions(x, y):
    assert type(x) is Fraction and 0 <= x <= 1 and x.denominator <= 6
    assert type(y) is Fraction and 0 < y <= 1 and y.denominator <= 3


def test_unit_fractions_reach_both_ends():
    assert find(ps.unit_fractions(), lambda x: x == 0) == 0
    assert find(ps.unit_fractions(), lambda x: x == 1) == 1
    assert find(ps.unit_fractions(allow_zero=False), lambda x: x < Fraction(1, 5)) == Fraction(1, 6)


@given(ps.alphas(), ps.alphas(exact=False), ps.alphas(exact=False, allow_zero=False))
def test_alphas(a, x, y):
    assert type(a) is Fraction and 0 <= a <= 1
    assert type(x) is float and 0 <= x <= 1 and type(y) is float and 0 < y <= 1


@given(ps.lambda_schedules(), ps.lambda_schedules(min_depth=1, exact=False),
       ps.lambda_schedules(2, 3, allow_zero=True))
def test_lambda_schedules(exact, floats, with_zero):
    assert len(exact) <= 4 and all(type(x) is Fraction and 0 < x <= 1 for x in exact)
    assert 1 <= len(floats) <= 4 and all(type(x) is float and 0 < x <= 1 for x in floats)
    assert 2 <= len(with_zero) <= 3 and all(0 <= x <= 1 for x in with_zero)
    if exact:  # the package's own constructors accept them, and the exact path gives a distribution
        assert list(list_schedule(exact).exact()) == exact
    assert sum(cesaro_profile_exact(4, exact)) == 1


def test_schedules_reach_depth_zero_and_the_maximum():
    assert find(ps.lambda_schedules(), lambda s: len(s) == 0) == []
    assert len(find(ps.lambda_schedules(), lambda s: len(s) == 4)) == 4


@given(ps.depths(), ps.lengths(), ps.depths(2, 3), ps.lengths(5, 6))
def test_depths_and_lengths(T, L, T2, L2):
    assert type(T) is int and 0 <= T <= 8 and type(L) is int and 1 <= L <= 40
    assert 2 <= T2 <= 3 and 5 <= L2 <= 6


@given(ps.profiles(), ps.profiles(5, exact=False), ps.profiles(4, positive=True))
def test_profiles(p, q, r):
    assert 1 <= len(p) <= 8 and all(type(x) is Fraction and x >= 0 for x in p) and sum(p) == 1
    assert len(q) == 5 and all(type(x) is float and x >= 0 for x in q)
    assert abs(math.fsum(q) - 1) <= 5 * 2.0**-52
    assert len(r) == 4 and min(r) > 0 and sum(r) == 1


def test_profiles_reach_zero_entries():
    p = find(ps.profiles(3), lambda p: p[1] == 0)
    assert sum(p) == 1 and p[1] == 0


@given(st.integers(1, 5).flatmap(lambda L: st.tuples(st.just(L), ps.causal_kernels(L))),
       st.integers(1, 4).flatmap(lambda L: ps.causal_kernels(L, positive=True)))
def test_causal_kernels(case, positive):
    L, A = case
    assert len(A) == L and all(len(row) == L for row in A)
    for i, row in enumerate(A):
        assert sum(row) == 1 and min(row) >= 0 and all(x == 0 for x in row[i + 1:])
    validate_kernel_exact(A)
    assert all(x > 0 for i, row in enumerate(positive) for x in row[: i + 1])


@given(st.integers(1, 6).flatmap(ps.monotone_kernels))
def test_monotone_kernels(A):
    validate_kernel_exact(A)
    cdfs = [_cdf(row) for row in A]
    L = len(A)
    # later rows put their mass later: row i+1's CDF lies below row i's everywhere
    assert all(cdfs[i + 1][k] <= cdfs[i][k] for i in range(L - 1) for k in range(L))
    assert all(max(x.denominator for x in row) <= 8 for row in A)


@given(ps.layered_rollouts(), ps.layered_rollouts(3, 2, positive=True))
def test_layered_rollouts(case, positive_case):
    ks, lams = case
    L = len(ks[0])
    assert 1 <= L <= 5 and len(lams) <= 4 and len(ks) == max(len(lams), 1)
    assert all(len(A) == L for A in ks) and all(0 <= x <= 1 for x in lams)
    assert sum(rollout_last_row_exact(ks if lams else ks[0], lams)) == 1
    ks2, _ = positive_case
    assert all(x > 0 for A in ks2 for i, row in enumerate(A) for x in row[: i + 1])


@given(ps.alibi_slopes(), ps.alibi_slopes(3, max_slope=1.0))
def test_alibi_slopes(m, m3):
    assert 1 <= len(m) <= 8 and all(type(x) is float and math.isfinite(x) and 0 <= x <= 40 for x in m)
    assert len(m3) == 3 and all(0 <= x <= 1 for x in m3)


@given(ps.alibi_layers(), ps.lengths(1, 12))
def test_alibi_layers_are_valid_and_roll_out_to_a_distribution(layer, L):
    assert 1 <= layer.num_heads <= 3
    assert set(layer.slopes.tolist()) <= set(ps.ALIBI_SLOPES)
    assert set(layer.diagonal.tolist()) <= set(ps.ALIBI_DIAGONALS)
    assert layer.temperature in ps.ALIBI_TEMPERATURES
    p = alibi_rollout(L, [layer], [1.0])
    assert p.shape == (L,) and (p >= 0).all() and abs(p.sum() - 1) < 1e-12


def test_alibi_layers_reach_flat_heads():
    # slope 0 and diagonal 0 in every head: the Cesàro layer, whose last row is uniform 1/L
    flat = find(ps.alibi_layers(heads=2), lambda lay: not lay.slopes.any() and not lay.diagonal.any())
    assert alibi_rollout(4, [flat], [1.0]) == pytest.approx([0.25] * 4, rel=1e-14)


def test_import_without_hypothesis_names_the_extra():
    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "try:\n    import posbias.strategies\n"
            "except ImportError as e:\n    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip()
    assert line.startswith("ImportError posbias.strategies needs Hypothesis")
    assert 'pip install "posbias[test]"' in line and "\n" not in line
