"""ALiBi/content kernels: slopes, the O(L) propagation (docs/explanation/mathematics.rst X5) against dense products and the
precise path, the content identities (X4, H2d constant cancels), tails, bad input.

Identities verified here: X5 (u = vA by the O(L) recurrence == dense product, float64 and mpmath),
X4 (diagonal logit d == residual step with gamma_i), the cancellation of a constant content score,
the closed form of delta = max_i (1 - A[i,i]), and the Cesaro special case m = 0 (X3 for T = 2).
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from posbias.errors import InvalidArgument
from posbias.numerics.alibi import (
    alibi_diagonal_defect,
    alibi_kernel_dense,
    alibi_kernel_dense_precise,
    alibi_layer,
    alibi_propagate,
    alibi_propagate_precise,
    alibi_rollout,
    alibi_rollout_dense,
    alibi_rollout_dense_precise,
    alibi_rollout_precise,
    alibi_slopes,
)
from posbias.strategies import alibi_layers

EPS = 2.0 ** -52


# ---------------------------------------------------------------------------------- slopes


def test_power_of_two_slopes_match_the_config_values():
    # the shipped configs list 2^(-8h/32) (herasimchyk2026 code, formula-derived)
    given = [0.8408964152537145, 0.7071067811865476, 0.5946035575013605, 0.5, 0.00390625]
    s = alibi_slopes(32, "power-of-two")
    assert s[:4].tolist() == given[:4] and s[-1] == given[-1]


def test_bloom_rule_for_112_heads():
    s = alibi_slopes(112, "bloom")
    assert s.size == 112
    # the first 64 are the power-of-two rule for 64 heads, exactly
    assert (s[:64] == alibi_slopes(64, "power-of-two")).all()
    # the extra 48 are the odd-indexed slopes of the 128-head rule, h = 1, 3, ..., 95
    s128 = alibi_slopes(128, "power-of-two")
    assert (s[64:] == s128[0:96:2]).all()
    # they interleave in value with the first 64, and differ from the naive 2^(-8h/112)
    assert len(set(s.tolist())) == 112
    assert not np.allclose(s, alibi_slopes(112, "power-of-two"))


@pytest.mark.parametrize("H", [1, 2, 3, 5, 6, 12, 71, 112])
def test_bloom_rule_counts_and_range(H):
    s = alibi_slopes(H, "bloom")
    assert s.size == H and (s > 0).all() and (s < 1).all()
    n = 1 << (H.bit_length() - 1)
    assert np.array_equal(s[:n], alibi_slopes(n, "power-of-two"))


@pytest.mark.parametrize(
    "args, parameter",
    [((0,), "num_heads"), ((-3,), "num_heads"), ((2.0,), "num_heads"), ((True,), "num_heads"),
     ((8, "geometric"), "rule")],
)
def test_slopes_bad_input(args, parameter):
    with pytest.raises(InvalidArgument) as e:
        alibi_slopes(*args)
    assert e.value.parameter == parameter


# ---------------------------------------------------------------------------------- layers


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        (dict(slopes=[-0.1]), "slopes"),
        (dict(slopes=[float("nan")]), "slopes"),
        (dict(slopes=[]), "slopes"),
        (dict(slopes=[0.1, 0.2], diagonal=[1.0, 2.0, 3.0]), "diagonal"),
        (dict(slopes=[0.1], diagonal=[float("inf")]), "diagonal"),
        (dict(slopes=[0.1, 0.2], weights=[0.0, 0.0]), "weights"),
        (dict(slopes=[0.1, 0.2], weights=[1.0, -1.0]), "weights"),
        (dict(slopes=[0.1], temperature=0.0), "temperature"),
        (dict(slopes=[0.1], temperature=float("inf")), "temperature"),
        (dict(slopes=["a"]), "slopes"),
    ],
)
def test_layer_bad_input(kwargs, parameter):
    with pytest.raises(InvalidArgument) as e:
        alibi_layer(**kwargs)
    assert e.value.parameter == parameter


def test_rollout_bad_input():
    lay = alibi_layer([0.5])
    with pytest.raises(InvalidArgument) as e:
        alibi_rollout(0, [lay], 1.0)
    assert e.value.parameter == "length"
    with pytest.raises(InvalidArgument) as e:
        alibi_rollout(4, [lay], [1.5])
    assert e.value.parameter == "lambdas[1]"
    with pytest.raises(InvalidArgument) as e:
        alibi_rollout(4, [lay, lay], [0.5])
    assert e.value.parameter == "lambdas"
    with pytest.raises(InvalidArgument) as e:
        alibi_rollout(4, [object()], [0.5])
    assert e.value.parameter == "layers[0]"
    with pytest.raises(InvalidArgument):
        alibi_propagate([1.0, -1.0], lay)


# ---------------------------------------------------------------------------------- dense kernel


def test_dense_kernel_is_causal_row_stochastic_softmax():
    lay = alibi_layer([0.7, 0.05], diagonal=[1.5, -2.0], weights=[3.0, 1.0], temperature=0.6)
    A = alibi_kernel_dense(12, lay)
    assert np.allclose(A.sum(axis=1), 1, rtol=0, atol=4 * EPS)
    assert (np.triu(A, 1) == 0).all() and (A[np.tril_indices(12)] > 0).all()
    # entry by entry from the definition, row 6 (1-indexed), head average
    i = 6
    out = np.zeros(i)
    for m, d, w in ((0.7, 1.5, 0.75), (0.05, -2.0, 0.25)):
        logit = np.array([-m * (i - j) for j in range(1, i)] + [d]) / 0.6
        out += w * np.exp(logit) / np.exp(logit).sum()
    assert np.allclose(A[i - 1, :i], out, rtol=1e-14, atol=0)


def test_constant_content_score_cancels():
    lay = alibi_layer([0.4, 1.3], diagonal=[2.0, -1.0])
    assert np.allclose(alibi_kernel_dense(9, lay, base=123.25), alibi_kernel_dense(9, lay), rtol=1e-13, atol=0)
    with mpmath.workdps(40):
        a = alibi_kernel_dense_precise(6, lay, dps=40, base=mpmath.mpf(7) / 3)
        b = alibi_kernel_dense_precise(6, lay, dps=40)
        assert max(abs(x - y) for r1, r2 in zip(a, b) for x, y in zip(r1, r2)) < mpmath.mpf(10) ** -35


@pytest.mark.parametrize("m, d", [(0.3, 1.2), (1.7, -2.5), (0.0, 3.0), (0.9, 0.0)])
def test_x4_diagonal_content_is_a_residual_step(m, d):
    L = 8
    with mpmath.workdps(40):
        Ad = alibi_kernel_dense_precise(L, alibi_layer([m], diagonal=d), dps=40)
        A0 = alibi_kernel_dense_precise(L, alibi_layer([m]), dps=40)
        e = mpmath.exp(mpmath.mpf(d)) - 1
        for i in range(L):
            g = e * A0[i][i] / (1 + e * A0[i][i])
            for c in range(L):
                rhs = (1 - g) * A0[i][c] + (g if c == i else 0)
                assert abs(Ad[i][c] - rhs) < mpmath.mpf(10) ** -35


def test_diagonal_defect_closed_form_matches_dense():
    lay = alibi_layer([0.9, 0.02, 0.0], diagonal=[-1.0, 4.0, 0.5], weights=[1.0, 2.0, 0.5])
    for L in (1, 2, 7, 50):
        A = alibi_kernel_dense(L, lay)
        assert abs(alibi_diagonal_defect(L, lay) - np.max(1 - np.diag(A))) < 1e-14


# ---------------------------------------------------------------------------------- X5: propagation


def test_cesaro_special_case_is_exact():
    # m = 0, d = 0 is the Cesaro matrix: e_L M^2 = (1/L) sum_{i>=j} 1/i (docs/explanation/mathematics.rst X3, H = 2)
    L = 10
    p = alibi_rollout(L, [alibi_layer([0.0])] * 2, 1.0)
    exact = [sum(Fraction(1, i) for i in range(j, L + 1)) / L for j in range(1, L + 1)]
    assert np.allclose(p, [float(x) for x in exact], rtol=4 * EPS, atol=0)


@st.composite
def alibi_cases(draw):
    L = draw(st.integers(1, 40))
    T = draw(st.integers(1, 4))
    H = draw(st.integers(1, 3))
    layers = [draw(alibi_layers(heads=H)) for _ in range(T)]
    lam = draw(st.lists(st.sampled_from([0.0, 0.25, 0.6, 1.0]), min_size=T, max_size=T))
    return L, layers, lam


def _logit_size(L, layers):
    return max(float(np.max(np.abs(l.diagonal)) + np.max(l.slopes) * L) / l.temperature for l in layers)


@given(alibi_cases())
@example((1, [alibi_layer([0.5])], [1.0]))
@example((13, [alibi_layer([0.9], diagonal=[120.0], weights=[0.5], temperature=0.5), alibi_layer([0.0])],
          [0.25, 0.0]))
@example((5, [alibi_layer([0.5], diagonal=2.0)], [0.0]))
def test_fast_path_equals_dense_propagation(case):
    L, layers, lam = case
    fast = alibi_rollout(L, layers, lam)
    dense = alibi_rollout_dense(L, layers, lam)
    assert abs(fast.sum() - 1) < 8 * L * EPS
    assert (fast >= 0).all()
    big = dense > 1e-290
    # the dense softmax evaluates exp(logit - max) with |logit - max| up to ``size``: its own
    # relative error grows like size * eps (the fast path's does not: see the precise test)
    assert np.allclose(fast[big], dense[big], rtol=8 * EPS * (8 + _logit_size(L, layers)), atol=0)
    assert np.allclose(fast[~big], dense[~big], rtol=0, atol=1e-290)


@given(alibi_cases())
def test_fast_path_equals_precise_path(case):
    L, layers, lam = case
    if L > 25:
        L = 25
    fast = alibi_rollout(L, layers, lam)
    with mpmath.workdps(40):
        prec = alibi_rollout_precise(L, layers, lam, dps=40)
        for a, b in zip(fast, prec):
            if b > mpmath.mpf(10) ** -290:
                assert abs(mpmath.mpf(a) - b) <= 64 * EPS * b


def test_precise_paths_agree_to_working_precision():
    lay = [alibi_layer([0.35, 1.6], diagonal=[2.5, -0.5], weights=[1.0, 2.0], temperature=0.75),
           alibi_layer([0.05, 0.0], diagonal=[0.0, 1.0])]
    for dps in (30, 60):
        with mpmath.workdps(dps):
            a = alibi_rollout_precise(9, lay, ["0.3", "0.9"], dps=dps)
            b = alibi_rollout_dense_precise(9, lay, ["0.3", "0.9"], dps=dps)
            assert max(abs(x - y) / y for x, y in zip(a, b)) < mpmath.mpf(10) ** -(dps - 5)


def test_propagation_is_linear_in_operations():
    lay = alibi_layer([0.5, 0.1, 0.0])
    ops = {L: alibi_propagate_precise([1] * L, lay, dps=15, count_ops=True)[1] for L in (10, 20, 40, 80)}
    per = (ops[80] - ops[40]) / 40
    assert all(ops[L] == per * L + (ops[10] - per * 10) for L in ops)


def test_tails_far_below_1e60_keep_relative_accuracy():
    # attention-only, steep slopes: the first positions have influence ~1e-125
    L, T = 400, 12
    layers = [alibi_layer([1.5, 0.8], diagonal=[-1.0, 0.5])] * T
    fast = alibi_rollout(L, layers, 1.0)
    with mpmath.workdps(30):
        prec = alibi_rollout_precise(L, layers, 1, dps=30)
        assert min(prec) < mpmath.mpf(10) ** -120
        worst = max(abs(mpmath.mpf(a) - b) / b for a, b in zip(fast, prec))
    assert worst < 1e-13  # measured 1.5e-15 (every entry, including the 1e-125 ones)
    assert fast.min() > 1e-126


def test_large_content_logits_neither_overflow_nor_flush():
    layers = [alibi_layer([0.5, 0.01], diagonal=[650.0, -680.0])] * 3
    fast = alibi_rollout(30, layers, 0.5)
    dense = alibi_rollout_dense(30, layers, 0.5)
    assert np.isfinite(fast).all() and abs(fast.sum() - 1) < 1e-13
    assert np.allclose(fast, dense, rtol=1e-13, atol=1e-300)


def test_long_context_fast_path_is_normalised_and_positive():
    L = 1 << 15
    lay = alibi_layer(alibi_slopes(8, "bloom").tolist(), diagonal=[3.0, -2.0, 0, 0, 1, 1, 5, -8])
    p = alibi_rollout(L, [lay] * 3, [0.3, 0.2, 0.1])
    assert abs(p.sum() - 1) < 1e-12 and (p > 0).all()


def test_blocked_reverse_scan_relative_accuracy():
    # several recursion levels (n >> block), ratios from 0.4 to 1, values spanning 1e-130..1
    from posbias.numerics.alibi import _reverse_scan

    rng = np.random.default_rng(7)
    n = 5000
    logq = np.array([-0.9, -0.01, -1e-4, 0.0])
    y = rng.random((4, n)) * np.exp(-rng.random((4, n)) * 300)
    C = _reverse_scan(y, logq)
    worst = 0.0
    with mpmath.workdps(30):
        for h in range(4):
            q = mpmath.exp(mpmath.mpf(logq[h]))
            acc = mpmath.mpf(0)
            for j in range(n - 1, -1, -1):
                acc = mpmath.mpf(y[h, j]) + q * acc
                worst = max(worst, float(abs((mpmath.mpf(C[h, j]) - acc) / acc)))
    assert worst < 1e-14  # measured ~2e-15


@given(alibi_cases(), st.integers(1, 45))
@example((6, [alibi_layer([0.5])], [1.0]), 1)
@example((6, [alibi_layer([0.5])], [1.0]), 6)
def test_sliding_window_fast_equals_dense_and_precise(case, window):
    import dataclasses

    L, layers, lam = case
    layers = [dataclasses.replace(l, window=window) for l in layers]
    fast = alibi_rollout(L, layers, lam)
    dense = alibi_rollout_dense(L, layers, lam)
    big = dense > 1e-290
    assert np.allclose(fast[big], dense[big], rtol=8 * EPS * (8 + _logit_size(L, layers)), atol=0)
    Ls = min(L, 20)
    with mpmath.workdps(30):
        prec = alibi_rollout_precise(Ls, layers, lam, dps=30)
        fs = alibi_rollout(Ls, layers, lam)
        for a, b in zip(fs, prec):
            if b > mpmath.mpf(10) ** -290:
                assert abs(mpmath.mpf(a) - b) <= 64 * EPS * b


def test_window_sum_relative_accuracy():
    from posbias.numerics.alibi import _window_sum

    rng = np.random.default_rng(11)
    L = 700
    y = rng.random((3, L)) * np.exp(-rng.random((3, L)) * 200)
    logq = np.array([-1.2, -0.02, 0.0])
    for b in (1, 2, 7, 16, 33, 699, 900):
        S = _window_sum(y, logq, b)
        with mpmath.workdps(30):
            for h in range(3):
                q = mpmath.exp(mpmath.mpf(logq[h]))
                for j in range(0, L, 37):
                    ref = mpmath.fsum(q ** k * mpmath.mpf(y[h, j + k]) for k in range(1, min(b, L - 1 - j) + 1))
                    if ref == 0:
                        assert S[h, j] == 0
                    else:
                        assert abs(mpmath.mpf(S[h, j]) - ref) <= 1e-14 * ref


# ------------------------------------------------------------- compiled scan vs numpy fallback
# The fast path runs the compiled reverse scan (numerics._compiled, numba) for causal layers when
# numba is installed, the blocked numpy scan otherwise (or with POSBIAS_NUMBA=0).  Both must give
# the same profiles; the compiled loop is also checked against its own Python source (with an
# exactly rounded fma), so that the numba translation cannot drift from the reference loop.

from posbias.numerics import _compiled  # noqa: E402
from posbias.numerics import alibi as _alibi_mod  # noqa: E402

needs_numba = pytest.mark.skipif(not _compiled.HAVE_NUMBA, reason="numba not installed")


@pytest.fixture(params=["numba", "numpy"])
def fast_route(request, monkeypatch):
    """Run a test on each route of the fast path (the numba one only where numba is present)."""
    if request.param == "numba" and not _compiled.HAVE_NUMBA:
        pytest.skip("numba not installed")
    monkeypatch.setenv("POSBIAS_NUMBA", "1" if request.param == "numba" else "0")
    assert _compiled.numba_enabled() == (request.param == "numba")
    return request.param


@given(alibi_cases())
@example((1, [alibi_layer([0.5])], [1.0]))
@example((13, [alibi_layer([0.9], diagonal=[120.0], weights=[0.5], temperature=0.5), alibi_layer([0.0])],
          [1.0, 0.5]))
def test_both_fast_routes_equal_the_precise_path(case):
    # the same rule as test_fast_path_equals_precise_path, on the compiled and the numpy route
    L, layers, lam = case
    L = min(L, 25)
    with mpmath.workdps(40):
        prec = alibi_rollout_precise(L, layers, lam, dps=40)
    with pytest.MonkeyPatch.context() as mp:
        for flag in ("1", "0"):
            mp.setenv("POSBIAS_NUMBA", flag)
            fast = alibi_rollout(L, layers, lam)
            with mpmath.workdps(40):
                for a, b in zip(fast, prec):
                    if b > mpmath.mpf(10) ** -290:
                        assert abs(mpmath.mpf(a) - b) <= 64 * EPS * b, flag


@needs_numba
def test_compiled_and_numpy_routes_agree_on_a_bloom_shaped_rollout(monkeypatch):
    # 112 BLOOM slopes, 4 layers with content logits and a schedule, L = 3000 (beyond the flat
    # point of the steep heads, before that of the shallow ones): the two routes of the fast path
    slopes = alibi_slopes(112, "bloom").tolist()
    layers = [alibi_layer(slopes, diagonal=d) for d in (0.0, 1.5, -2.0, 0.0)]
    lam = [0.3, 0.9, 0.6, 1.0]
    monkeypatch.setenv("POSBIAS_NUMBA", "1")
    p = alibi_rollout(3000, layers, lam)
    monkeypatch.setenv("POSBIAS_NUMBA", "0")
    q = alibi_rollout(3000, layers, lam)
    assert abs(p.sum() - 1) < 1e-13
    assert np.max(np.abs(p - q) / q) < 1e-13  # measured: 2e-15


def test_fast_routes_keep_tails_of_131071_positions(fast_route):
    # one head, one layer, v = e_L: u_j = q^(L-j) / Z_L exactly; at L = 131072 and m = 2^-8 the
    # first entry is ~1e-222; a rounded q alone would put 3e-12 on it (the compiled scan carries
    # the remainder of q inside an fma)
    L, m = 131072, 2.0**-8
    v = np.zeros(L)
    v[-1] = 1.0
    u = alibi_propagate(v, alibi_layer([m]))
    with mpmath.workdps(40):
        q = mpmath.exp(-mpmath.mpf(m))
        Z = 1 + q * (1 - q ** (L - 1)) / (1 - q)
        for j in (1, 1000, 65536, L - 1, L):
            exact = q ** (L - j) / Z if j < L else 1 / Z
            assert abs(mpmath.mpf(u[j - 1]) / exact - 1) < 1e-13  # measured: <= 8e-15


@needs_numba
def test_compiled_scan_equals_its_python_source():
    # the compiled loop and the very same Python loop (with an exactly rounded fma) on random data
    rng = np.random.default_rng(7)
    L, H, n = 40, 5, 17
    v = rng.random(L)
    cT = rng.random((n, H)) + 0.1
    cflat = rng.random(H) + 0.1
    m = np.array([0.0, 0.01, 0.3, 2.0, 40.0])
    q, qlo = _alibi_mod._split_ratio(m)
    wa, wbq = rng.random(H), rng.random(H)
    a = _compiled.alibi_causal_scan(v, cT, cflat, q, qlo, wa, wbq, np.zeros(L))
    b = _compiled.alibi_causal_scan(v, cT, cflat, q, qlo, wa, wbq, np.zeros(L), compiled=False)
    assert np.allclose(a, b, rtol=8 * H * EPS, atol=0)


def test_split_ratio_carries_q_beyond_float64():
    q, qlo = _alibi_mod._split_ratio(np.array([2.0**-8, 0.5, 0.0]))
    with mpmath.workdps(50):
        for m, hi, lo in zip((2.0**-8, 0.5, 0.0), q, qlo):
            err = abs(mpmath.mpf(hi) + mpmath.mpf(lo) - mpmath.exp(-mpmath.mpf(m)))
            assert err <= mpmath.mpf(2) ** -100
    assert qlo[2] == 0.0


def test_route_choice_rule(monkeypatch):
    # POSBIAS_NUMBA=0: never; =1: always (with numba); auto: by the work alone (the same route,
    # hence the same bits, in a serial run and in a worker process, whatever ran before)
    monkeypatch.setenv("POSBIAS_NUMBA", "0")
    assert not _compiled.use_compiled(10**12)
    monkeypatch.setenv("POSBIAS_NUMBA", "1")
    assert _compiled.use_compiled(1) == _compiled.HAVE_NUMBA
    for loaded in ({}, {"alibi": object()}):
        monkeypatch.setattr(_compiled, "_KERNELS", loaded)
        for env in ("auto", None):
            if env is None:
                monkeypatch.delenv("POSBIAS_NUMBA")
            else:
                monkeypatch.setenv("POSBIAS_NUMBA", env)
            for loop, threshold in _compiled.AUTO_WORK.items():
                assert not _compiled.use_compiled(threshold - 1, loop)
                assert _compiled.use_compiled(threshold, loop) == _compiled.HAVE_NUMBA
            assert _compiled.use_compiled(_compiled.AUTO_WORK["alibi"]) == _compiled.HAVE_NUMBA
    # the Cesàro layer gains less per element than the ALiBi scan: its threshold is higher, and
    # profile --length 1000000 --depth 100 (10^8 steps) stays on numpy, an ALiBi rollout of the
    # same size does not
    assert _compiled.AUTO_WORK["cesaro"] > 10**8 >= _compiled.AUTO_WORK["alibi"]
    with pytest.raises(KeyError):
        _compiled.use_compiled(1, "dense")
