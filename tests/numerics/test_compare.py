"""Tests of posbias.numerics.compare: Wasserstein-1 on positions, Spearman, dominance."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from posbias.errors import InvalidArgument
from posbias.numerics.compare import Dominance, spearman, stochastically_dominates, wasserstein1
from posbias.numerics.kernels import rollout_last_row_exact, uniform_causal_kernel_exact
from posbias.strategies import profiles  # exact probability vectors on 1..L, never all zero

F = Fraction


pairs = st.integers(1, 8).flatmap(lambda L: st.tuples(profiles(L), profiles(L)))


def cdf(p):
    out, acc = [], F(0)
    for x in p:
        acc += x
        out.append(acc)
    return out


# --------------------------------------------------------------------------------------------
# Wasserstein-1


def test_wasserstein_known_values():
    assert wasserstein1([1], [1]) == 0
    assert wasserstein1([1, 0, 0], [0, 0, 1]) == 1  # the whole range, normalized
    assert wasserstein1([1, 0, 0], [0, 1, 0]) == F(1, 2)
    assert wasserstein1([F(1, 3)] * 3, [1, 0, 0]) == F(1, 2)  # (2/3 + 1/3) / 2
    assert isinstance(wasserstein1([F(1, 2), F(1, 2)], [1, 0]), Fraction)
    assert wasserstein1([0.5, 0.5], [1.0, 0.0]) == 0.5
    assert isinstance(wasserstein1([0.5, 0.5], [F(1), F(0)]), float)  # mixed: float64


@given(pairs)
@example(([F(1)], [F(1)]))
def test_wasserstein_is_a_metric_on_profiles(pq):
    p, q = pq
    d = wasserstein1(p, q)
    assert isinstance(d, Fraction)
    assert d == wasserstein1(q, p) and 0 <= d <= 1
    assert (d == 0) == (p == q)
    # float path agrees with the exact one within rounding
    assert abs(wasserstein1([float(x) for x in p], [float(x) for x in q]) - float(d)) < 1e-14
    # direct formula: Σ |F_p - F_q| / (L - 1)
    L = len(p)
    if L > 1:
        assert d == sum(abs(a - b) for a, b in zip(cdf(p)[:-1], cdf(q)[:-1])) / (L - 1)


@given(st.integers(1, 6).flatmap(lambda L: st.tuples(profiles(L), profiles(L), profiles(L))))
def test_wasserstein_triangle_inequality(pqr):
    p, q, r = pqr
    assert wasserstein1(p, r) <= wasserstein1(p, q) + wasserstein1(q, r)


BAD = [
    (lambda: wasserstein1([1, 0], [1]), "q"),
    (lambda: wasserstein1([], []), "p"),
    (lambda: wasserstein1([F(1, 2), F(1, 3)], [1, 0]), "sum of p"),
    (lambda: wasserstein1([1, 0], [F(3, 2), F(-1, 2)]), "q[2]"),
    (lambda: wasserstein1([0.5, 0.6], [1.0, 0.0]), "sum of p"),
    (lambda: wasserstein1([float("nan"), 1.0], [1.0, 0.0]), "p[1]"),
    (lambda: wasserstein1(["a"], [1]), "p[1]"),
    (lambda: wasserstein1(5, [1]), "p"),
    (lambda: spearman([1], [1]), "p"),
    (lambda: spearman([1, 1, 1], [1, 2, 3]), "p"),
    (lambda: spearman([1, 2, 3], [F(1, 2)] * 3), "q"),
    (lambda: spearman([1, 2], [1, 2, 3]), "q"),
    (lambda: stochastically_dominates([1, 0], [1, 0], tol=-1.0), "tol"),
    (lambda: stochastically_dominates([1, 0], [0.5, 0.6]), "sum of q"),
]


@pytest.mark.parametrize("call,name", BAD)
def test_bad_calls(call, name):
    with pytest.raises(InvalidArgument) as e:
        call()
    assert e.value.parameter == name


# --------------------------------------------------------------------------------------------
# Spearman


def _pearson(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    a, b = a - a.mean(), b - b.mean()
    return float(a @ b / np.sqrt((a @ a) * (b @ b)))


def test_spearman_values():
    assert spearman([1, 2, 3, 4], [1, 4, 9, 16]) == 1.0  # monotone transform
    assert spearman(np.array([3.0, 2.0, 1.0]), [1, 2, 3]) == -1.0
    # ties take average ranks: ranks (1, 2.5, 2.5, 4) and (1, 3, 2, 4)
    assert spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(_pearson([1, 2.5, 2.5, 4], [1, 3, 2, 4]), abs=1e-15)
    # exact inputs rank exactly even when float64 would merge them
    tiny = F(1, 10**30)
    assert spearman([F(1), 1 + tiny, 1 + 2 * tiny], [1, 2, 3]) == 1.0


@given(st.lists(st.integers(-5, 5), min_size=2, max_size=10).flatmap(
    lambda a: st.tuples(st.just(a), st.permutations(a))))
def test_spearman_symmetry_and_bounds(ab):
    a, b = ab
    if len(set(a)) < 2:
        with pytest.raises(InvalidArgument):
            spearman(a, b)
        return
    r = spearman(a, b)
    assert -1.0 <= r <= 1.0
    assert r == pytest.approx(spearman(b, a), abs=1e-15)
    assert spearman(a, a) == pytest.approx(1.0, abs=1e-15)
    assert spearman(a, [-x for x in a]) == pytest.approx(-1.0, abs=1e-15)


# --------------------------------------------------------------------------------------------
# stochastic dominance


def test_dominance_values():
    r = stochastically_dominates([0, 0, 1], [1, 0, 0])
    assert r == Dominance(True, F(1), 1, True) and bool(r)
    r = stochastically_dominates([1, 0, 0], [0, 0, 1])
    assert not r and r.worst_margin == -1 and r.position == 1
    r = stochastically_dominates([1], [1])
    assert r.dominates and r.worst_margin == 0 and r.position == 1
    r = stochastically_dominates([0.25, 0.75], [0.5, 0.5])
    assert r.dominates and r.worst_margin == 0.25 and not r.exact
    r = stochastically_dominates([0.5, 0.5], [0.5 + 1e-17, 0.5 - 1e-17], tol=1e-15)
    assert r.dominates
    # the attention-only Cesàro profile drifts earlier with depth (primacy drift, exact)
    M = uniform_causal_kernel_exact(5)
    assert stochastically_dominates(rollout_last_row_exact(M, [1]), rollout_last_row_exact(M, [1, 1]))


@given(pairs)
@example(([F(1)], [F(1)]))
@example(([F(0), F(1)], [F(1), F(0)]))
def test_dominance_matches_cdf_definition(pq):
    p, q = pq
    r = stochastically_dominates(p, q)
    assert r.exact
    Fp, Fq = cdf(p), cdf(q)
    assert r.dominates == all(a <= b for a, b in zip(Fp, Fq))
    if len(p) > 1:
        assert r.worst_margin == min(b - a for a, b in zip(Fp[:-1], Fq[:-1]))
        k = r.position - 1
        assert Fq[k] - Fp[k] == r.worst_margin
    # both ways only when equal
    assert (r.dominates and stochastically_dominates(q, p).dominates) == (p == q)
    # float path agrees on clear-cut cases
    rf = stochastically_dominates([float(x) for x in p], [float(x) for x in q], tol=1e-12)
    if abs(r.worst_margin) > 1e-9:
        assert rf.dominates == r.dominates


def test_float32_profiles_are_checked_at_float32_precision():
    rng = np.random.default_rng(3)
    w = rng.random(500).astype(np.float32)
    p = w / w.sum()  # sums to 1 only within float32 rounding
    q = np.full(500, 1 / 500, dtype=np.float32)
    d = wasserstein1(p, q)
    assert 0 <= d < 0.1
    assert stochastically_dominates(q, q).dominates
    with pytest.raises(InvalidArgument):
        wasserstein1(p.astype(np.float64) * (1 + 1e-4), q.astype(np.float64))
