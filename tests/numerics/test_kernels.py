"""Tests of posbias.numerics.kernels: validation, constructors, rollouts on three paths, and
property tests of herasimchyk2026 H1/H4 over generated causal kernels and schedules."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from posbias.errors import InvalidArgument
from posbias.numerics.kernels import (
    decay_kernel,
    decay_kernel_exact,
    decay_kernel_precise,
    diagonal_product_exact,
    min_entry_on_mask,
    monotonicity_margin,
    prefix_kernel,
    prefix_kernel_exact,
    prefix_mask,
    random_causal_kernel_exact,
    random_monotone_kernel_exact,
    residual_layer_exact,
    rollout_last_row,
    rollout_last_row_exact,
    rollout_last_row_precise,
    rollout_matrices_exact,
    rollout_matrix_exact,
    sliding_window_kernel,
    sliding_window_kernel_exact,
    stochastically_monotone,
    uniform_causal_kernel,
    uniform_causal_kernel_exact,
    validate_kernel,
    validate_kernel_exact,
    validate_kernel_precise,
)
from posbias.strategies import causal_kernels, layered_rollouts, monotone_kernels, unit_fractions

F = Fraction

# --------------------------------------------------------------------------------------------
# strategies: generate valid objects directly


# causal_kernels, monotone_kernels, layered_rollouts: posbias.strategies (generated valid objects)
lambdas = unit_fractions()


def arg(ks, lams):
    return ks[0] if not lams else ks


def matmul(A, B):
    n = len(A)
    return [[sum((A[i][k] * B[k][j] for k in range(n)), F(0)) for j in range(n)] for i in range(n)]


def naive_rollout(ks, lams):
    """P(T) = R(T) ... R(1) by plain matrix products, independent of the package's loops."""
    n = len(ks[0])
    P = [[F(int(i == j)) for j in range(n)] for i in range(n)]
    for A, lam in zip(ks, lams):
        R = [[(1 - lam) * (i == j) + lam * A[i][j] for j in range(n)] for i in range(n)]
        P = matmul(R, P)
    return P


CES2 = [[F(1), F(0)], [F(1, 2), F(1, 2)]]
ZERO_DIAG = [[F(1), F(0), F(0)], [F(1), F(0), F(0)], [F(0), F(1, 2), F(1, 2)]]

# --------------------------------------------------------------------------------------------
# validation: bad calls from a table


BAD_EXACT = [
    ([[1, 0], [0.5, 0.5]], "kernel[2,1]"),  # a float on the exact path
    ([[1, 0], [F(1, 2), F(1, 3)]], "sum of row 2 of kernel"),
    ([[F(1, 2), F(1, 2)], [0, 1]], "kernel[1,2]"),  # above the diagonal
    ([[1, 0], [F(3, 2), F(-1, 2)]], "kernel[2,2]"),  # negative
    ([[1, 0], [0, 1, 0]], "kernel row 2"),  # ragged
    ([], "kernel"),
    ("abc", "kernel"),
    ([[True]], "kernel[1,1]"),
]


@pytest.mark.parametrize("A,name", BAD_EXACT)
def test_validate_exact_rejects(A, name):
    with pytest.raises(InvalidArgument) as e:
        validate_kernel_exact(A)
    assert e.value.parameter == name


BAD_FAST = [
    ([[1.0, 0.0], [0.5, 0.4]], "sum of row 2 of kernel"),
    ([[0.5, 0.5], [0.0, 1.0]], "kernel[1,2]"),
    ([[1.0, 0.0], [1.5, -0.5]], "kernel[2,2]"),
    ([[1.0, 0.0], [float("nan"), 1.0]], "kernel[2,1]"),
    ([[1.0, 0.0, 0.0]], "kernel"),
    ([["a"]], "kernel"),
]


@pytest.mark.parametrize("A,name", BAD_FAST)
def test_validate_fast_rejects(A, name):
    with pytest.raises(InvalidArgument) as e:
        validate_kernel(A)
    assert e.value.parameter == name


def test_validate_fast_tolerance_in_ulps():
    third = 1.0 / 3.0
    A = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [third, third, third]]
    validate_kernel(A)  # 3 * fl(1/3) = 1 - 2^-53-ish: within the stated ulps
    with pytest.raises(InvalidArgument):
        validate_kernel([[1.0, 0.0], [0.5, 0.5 + 64 * 2.0**-52]])
    with pytest.raises(InvalidArgument):
        validate_kernel([[1.0 + 2.0**-52]], ulps=0)


def test_validate_precise():
    with pytest.raises(InvalidArgument) as e:
        validate_kernel_precise([[1, 0], [0.5, 0.5]], dps=30)
    assert e.value.parameter == "kernel[2,1]"
    with pytest.raises(InvalidArgument):
        validate_kernel_precise([[1, 0], ["0.5", "0.4"]], dps=30)
    with pytest.raises(InvalidArgument):
        validate_kernel_precise([[1]], dps=3)
    rows = validate_kernel_precise([[1, 0], [F(1, 3), F(2, 3)]], dps=50)
    with mpmath.workdps(50):
        assert abs(rows[1][0] - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -49


def test_non_causal_allowed_when_asked():
    A = prefix_kernel_exact(3, 2)
    with pytest.raises(InvalidArgument):
        validate_kernel_exact(A)
    assert validate_kernel_exact(A, causal=False) == A


BAD_CALLS = [
    (lambda: uniform_causal_kernel_exact(0), "L"),
    (lambda: uniform_causal_kernel(2.0), "L"),
    (lambda: sliding_window_kernel_exact(3, 0), "w"),
    (lambda: prefix_kernel_exact(3, 4), "K"),
    (lambda: prefix_kernel(3, 0), "K"),
    (lambda: decay_kernel_exact(3, 0.5), "r"),
    (lambda: decay_kernel_exact(3, F(3, 2)), "r"),
    (lambda: decay_kernel(3, -1.0), "m"),
    (lambda: decay_kernel_precise(3, -1, dps=20), "m"),
    (lambda: rollout_last_row_exact(CES2, [F(3, 2)]), "schedule[1]"),
    (lambda: rollout_last_row_exact(CES2, [0.5]), "schedule"),
    (lambda: rollout_last_row_exact(CES2, "1/2"), "schedule"),
    (lambda: rollout_last_row_exact([CES2, CES2], [1]), "kernels"),
    (lambda: rollout_last_row_exact([CES2, [[1]]], [1, 1]), "kernels[2]"),
    (lambda: rollout_last_row_exact([], [1]), "kernels"),
    (lambda: rollout_last_row(uniform_causal_kernel(2), [1.5]), "schedule[1]"),
    (lambda: rollout_last_row_precise(CES2, [1.5], dps=30), "schedule[1]"),
    (lambda: rollout_last_row_precise(CES2, [1], dps=10), "dps"),
    (lambda: random_causal_kernel_exact(3, 5), "rng"),
]


@pytest.mark.parametrize("call,name", BAD_CALLS)
def test_bad_calls_name_the_parameter(call, name):
    with pytest.raises(InvalidArgument) as e:
        call()
    assert e.value.parameter == name


# --------------------------------------------------------------------------------------------
# constructors


@pytest.mark.parametrize("L", [1, 2, 5, 9])
def test_constructors_exact_and_fast_agree(L):
    pairs = [
        (uniform_causal_kernel_exact(L), uniform_causal_kernel(L)),
        (sliding_window_kernel_exact(L, 3), sliding_window_kernel(L, 3)),
        (prefix_kernel_exact(L, min(2, L)), prefix_kernel(L, min(2, L))),
        (decay_kernel_exact(L, 1), decay_kernel(L, 0.0)),
    ]
    for exact, fast in pairs:
        assert np.allclose(np.array([[float(x) for x in r] for r in exact]), fast, rtol=0, atol=1e-15)
        assert all(sum(r) == 1 for r in exact)


def test_constructor_special_cases():
    L = 6
    assert sliding_window_kernel_exact(L, L) == uniform_causal_kernel_exact(L)
    assert sliding_window_kernel_exact(L, 1) == [[F(int(i == j)) for j in range(L)] for i in range(L)]
    assert prefix_kernel_exact(L, 1) == uniform_causal_kernel_exact(L)  # K = 1: the causal mask
    assert decay_kernel_exact(L, 1) == uniform_causal_kernel_exact(L)
    # prefix mask of wu2025: prefix rows read the whole prefix, later rows read causally
    m = prefix_mask(5, 3)
    assert m[0] == [True, True, True, False, False] and m[4] == [True] * 5
    # decay kernel: A[i,j] ∝ r^(i-j)
    A = decay_kernel_exact(4, F(1, 3))
    assert A[3][0] / A[3][1] == F(1, 3) and A[3][2] / A[3][3] == F(1, 3)
    with mpmath.workdps(40):
        P = decay_kernel_precise(4, mpmath.log(3), dps=40)
        assert abs(P[3][0] - mpmath.mpf(A[3][0].numerator) / A[3][0].denominator) < mpmath.mpf(10) ** -38
    D = decay_kernel(5, 0.7)
    assert np.allclose(D[4, :4] / D[4, 1:], np.exp(-0.7))


# --------------------------------------------------------------------------------------------
# rollouts: orientation and three paths


def test_order_of_layers_matters_and_is_R_T_first():
    A = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(0), F(1), F(0)]]  # token 3 reads token 2
    B = [[F(1), F(0), F(0)], [F(1), F(0), F(0)], [F(0), F(0), F(1)]]  # token 2 reads token 1
    # P = R(2) R(1) with A(1) = A, A(2) = B: e_3 B A = e_3 A = e_2
    assert rollout_last_row_exact([A, B], [1, 1]) == [0, 1, 0]
    # swapped: e_3 A B = e_2 B = e_1
    assert rollout_last_row_exact([B, A], [1, 1]) == [1, 0, 0]
    assert rollout_matrix_exact([A, B], [1, 1]) == matmul(B, A)


@given(layered_rollouts(5, 4))
@example(([[[F(1)]]], []))  # L = 1, T = 0
@example(([CES2], [F(0)]))  # λ = 0
@example(([ZERO_DIAG, ZERO_DIAG], [F(1), F(1)]))  # λ = 1, zero diagonal
def test_routes_agree(case):
    ks, lams = case
    a = arg(ks, lams)
    v = rollout_last_row_exact(a, lams)
    P = naive_rollout(ks, lams)
    assert v == P[-1]
    assert rollout_matrix_exact(a, lams) == P
    fast = rollout_last_row(
        [np.array([[float(x) for x in r] for r in A]) for A in ks] if lams else np.array([[float(x) for x in r] for r in ks[0]]),
        [float(x) for x in lams],
    )
    assert np.allclose(fast, [float(x) for x in v], rtol=0, atol=len(v) * (len(lams) + 1) * 2.0**-52)
    with mpmath.workdps(40):
        pr = rollout_last_row_precise(a, lams, dps=40)
        assert all(abs(x - mpmath.mpf(y.numerator) / y.denominator) <= mpmath.mpf(10) ** -36 for x, y in zip(pr, v))


def test_residual_layer_and_T_zero():
    R = residual_layer_exact(CES2, F(1, 4))
    assert [[F(1), F(0)], [F(1, 8), F(7, 8)]] == R
    assert rollout_last_row_exact(uniform_causal_kernel_exact(4), []) == [0, 0, 0, 1]
    assert rollout_last_row(uniform_causal_kernel(4), []).tolist() == [0.0, 0.0, 0.0, 1.0]


def test_cesaro_known_values():
    # (M^2)[3,:] = (11/18, 5/18, 1/9): M^2[3,j] = (1/3) Σ_{k=j}^{3} 1/k
    assert rollout_last_row_exact(uniform_causal_kernel_exact(3), [1, 1]) == [F(11, 18), F(5, 18), F(1, 9)]


def test_fast_path_large_and_tails():
    L = 300
    p = rollout_last_row(uniform_causal_kernel(L), [0.5] * 24)
    assert abs(p.sum() - 1.0) < 1e-12 and (p > 0).all()


# --------------------------------------------------------------------------------------------
# H1: stochasticity (exact)


@given(layered_rollouts(5, 4))
@example(([[[F(1)]]], []))
@example(([CES2], [F(1)]))
@example(([CES2], [F(0)]))
def test_layers_and_rollouts_are_stochastic_and_causal(case):
    ks, lams = case
    L = len(ks[0])
    for A, lam in zip(ks, lams):
        R = residual_layer_exact(A, lam)
        assert all(sum(r) == 1 for r in R)
        assert all(R[i][j] == 0 for i in range(L) for j in range(i + 1, L))
        assert all(x >= 0 for r in R for x in r)
    for P in rollout_matrices_exact(arg(ks, lams), lams):
        assert all(sum(r) == 1 for r in P)
        assert all(P[i][j] == 0 for i in range(L) for j in range(i + 1, L))
        assert all(x >= 0 for r in P for x in r)


# --------------------------------------------------------------------------------------------
# H4: diagonal


@given(layered_rollouts(5, 4))
@example(([[[F(1)]]], []))
@example(([ZERO_DIAG], [F(1)]))  # vanishes: λ = 1 and A[2,2] = 0
@example(([ZERO_DIAG], [F(1, 2)]))  # λ < 1 keeps it positive
def test_diagonal_product_formula_and_positivity(case):
    ks, lams = case
    L = len(ks[0])
    a = arg(ks, lams)
    P = rollout_matrix_exact(a, lams)
    d = diagonal_product_exact(a, lams)
    assert d == [P[i][i] for i in range(L)]
    for i in range(L):
        vanishing_factor = any(lam == 1 and A[i][i] == 0 for A, lam in zip(ks, lams))
        # the exact domain: P[i,i] > 0 iff no layer has λ_t = 1 and A(t)[i,i] = 0
        assert (P[i][i] > 0) == (not vanishing_factor)


@given(layered_rollouts(5, 4, positive=True))
@example(([CES2, CES2], [F(1), F(1)]))
def test_diagonal_positive_for_softmax_like_kernels(case):
    ks, lams = case
    assert all(x > 0 for x in diagonal_product_exact(arg(ks, lams), lams))


# --------------------------------------------------------------------------------------------
# H4: summability dichotomy


@st.composite
def summable_case(draw):
    L = draw(st.integers(1, 5))
    T = draw(st.integers(0, 8))
    c = draw(lambdas)
    ks = [draw(causal_kernels(L)) for _ in range(max(T, 1))]
    lams = [c / (t + 1) ** 2 for t in range(1, T + 1)]  # Σ λ_t <= c (π²/6 - 1) < 2c/3
    return ks, lams, c


@given(summable_case())
@example(([[[F(1)]]], [], F(1)))
@example(([ZERO_DIAG] * 3, [F(1, 4), F(1, 9), F(1, 16)], F(1)))
def test_summable_schedule_keeps_the_diagonal(case):
    ks, lams, c = case
    L = len(ks[0])
    Ps = rollout_matrices_exact(arg(ks, lams), lams)
    prod = F(1)
    for t, P in enumerate(Ps):
        if t:
            A, lam = ks[t - 1], lams[t - 1]
            prod *= 1 - lam * max(1 - A[i][i] for i in range(L))
        assert all(P[i][i] >= prod for i in range(L))
        # depth-uniform bound: Π(1 - x_t) >= 1 - Σ x_t >= 1 - 2c/3 >= 1/3 > 0 (no collapse)
        assert all(P[i][i] >= 1 - F(2, 3) * c for i in range(L))


@st.composite
def collapsing_case(draw):
    L = draw(st.integers(1, 5))
    T = draw(st.integers(0, 6))
    ks = [draw(causal_kernels(L, positive=True)) for _ in range(max(T, 1))]
    if draw(st.booleans()):
        c = draw(lambdas)
        lams = [c] * T  # constant: non-summable when c > 0
    else:
        lams = [F(1, t + 1) for t in range(1, T + 1)]  # harmonic
    return ks, lams


@given(collapsing_case())
@example(([[[F(1)]]], []))
@example(([CES2] * 2, [F(1), F(1)]))
@example(([CES2] * 2, [F(0), F(0)]))
def test_non_summable_product_bound(case):
    ks, lams = case
    L = len(ks[0])
    Ps = rollout_matrices_exact(arg(ks, lams), lams)
    bound = F(1)
    prev = None
    for t, P in enumerate(Ps):
        if t and L >= 2:
            A, lam = ks[t - 1], lams[t - 1]
            bound *= 1 - lam * min(A[i][0] for i in range(1, L))
        off = max(1 - P[i][0] for i in range(L))
        assert off <= bound
        if prev is not None:
            assert off <= prev  # non-increasing in depth
        prev = off


@given(st.integers(2, 6), st.integers(1, 4), st.integers(0, 10**6))
def test_non_summable_tends_to_zero_fast_path(L, k, seed):
    """Constant λ = k/4 > 0 and a first column >= a > 0: 1 - P[L,1] <= (1-λa)^T -> 0."""
    rng = random.Random(seed)
    A = random_causal_kernel_exact(L, rng)
    a = min(A[i][0] for i in range(1, L))
    lam = k / 4
    T = 3000
    p = rollout_last_row(np.array([[float(x) for x in r] for r in A]), [lam] * T)
    bound = (1 - lam * float(a)) ** T
    assert 1 - p[0] <= bound + 1e-12
    assert bound < 1e-3


def test_collapse_limit_closed_form_harmonic():
    # Π_{t=1}^{T} (1 - a/(t+1)) = Γ(T+2-a)/(Γ(2-a)Γ(T+2)) (docs/explanation/mathematics.rst X7), a = 1/3, exact vs mpmath
    a, T = F(1, 3), 50
    prod = math.prod((1 - a / (t + 1) for t in range(1, T + 1)), start=F(1))
    with mpmath.workdps(30):
        am = mpmath.mpf(1) / 3
        closed = mpmath.gamma(T + 2 - am) / (mpmath.gamma(2 - am) * mpmath.gamma(T + 2))
        assert abs(closed - mpmath.mpf(prod.numerator) / prod.denominator) < mpmath.mpf(10) ** -25


# --------------------------------------------------------------------------------------------
# stochastic monotonicity and generators


@given(st.integers(1, 6).flatmap(monotone_kernels))
def test_generated_monotone_kernels_are_monotone(A):
    assert stochastically_monotone(A)
    assert monotonicity_margin(A)[0] >= 0


def test_monotonicity_examples():
    for L in (1, 2, 6):
        assert stochastically_monotone(uniform_causal_kernel_exact(L))
        assert stochastically_monotone(sliding_window_kernel_exact(L, 2))
        assert stochastically_monotone(decay_kernel_exact(L, F(1, 5)))
        assert stochastically_monotone(uniform_causal_kernel(L))
        assert stochastically_monotone(decay_kernel(L, 0.9))
    bad = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(1), F(0), F(0)]]
    m, i, k = monotonicity_margin(bad)
    assert not stochastically_monotone(bad) and m == -1 and (i, k) == (2, 1)
    assert not stochastically_monotone(np.array([[1.0, 0, 0], [0, 1.0, 0], [1.0, 0, 0]]))


def test_seeded_generators():
    rng = random.Random(7)
    for L in range(1, 8):
        A = random_causal_kernel_exact(L, rng)
        assert validate_kernel_exact(A) == A and min_entry_on_mask(A) > 0
        B = random_causal_kernel_exact(L, rng, density=F(1, 3))
        assert validate_kernel_exact(B) == B
        C = random_monotone_kernel_exact(L, rng)
        assert stochastically_monotone(C) and all(C[i][i] > 0 for i in range(L))
    assert random_causal_kernel_exact(4, random.Random(1)) == random_causal_kernel_exact(4, random.Random(1))


def test_schedule_objects_are_accepted_on_all_paths():
    schedules = pytest.importorskip("posbias.numerics.schedules")
    s = schedules.parse_schedule("list:1/2,1/3,1", depth=3)
    M = uniform_causal_kernel_exact(4)
    exact = rollout_last_row_exact(M, s)
    assert exact == rollout_last_row_exact(M, [F(1, 2), F(1, 3), F(1)])
    fast = rollout_last_row(uniform_causal_kernel(4), s)
    assert np.allclose(fast, [float(x) for x in exact], rtol=0, atol=1e-15)
    with mpmath.workdps(30):
        pr = rollout_last_row_precise(M, s, dps=30)
        assert all(abs(a - mpmath.mpf(b.numerator) / b.denominator) < mpmath.mpf(10) ** -28
                   for a, b in zip(pr, exact))
    assert diagonal_product_exact(M, s) == [rollout_matrix_exact(M, s)[i][i] for i in range(4)]


def test_precise_path_takes_a_float_schedule_as_its_binary_value():
    """One rule for every precise route: a binary float enters as the exact number it holds."""
    third = 1 / 3  # the double nearest 1/3, not 1/3
    p = rollout_last_row_precise(CES2, [third], dps=40)
    q = rollout_last_row_precise(CES2, [mpmath.mpf(third)], dps=40)
    assert p == q and p != rollout_last_row_precise(CES2, [F(1, 3)], dps=40)
