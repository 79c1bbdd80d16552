"""The kinetic retrieval profile (duerinckx2026) on its paths: exact coefficients, two precise
routes for psi, the fast log-safe profile against the precise one, the discrete semigroup, the
right-end slope and t_crit, and the refusals of bad input."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from posbias.errors import InvalidArgument
from posbias.numerics import kinetic as kin
from posbias.numerics.alibi import alibi_kernel_dense, alibi_layer
from posbias.numerics.kinetic import (
    KineticHead,
    KineticModel,
    kinetic_log_profile,
    kinetic_profile,
    kinetic_profile_precise,
    kinetic_right_slope_precise,
    kinetic_rollout,
    kinetic_rollout_precise,
    kinetic_t_crit,
    kinetic_t_crit_precise,
    kinetic_value_precise,
    kinetic_values,
    parse_kinetic,
    psi_bessel_precise,
    psi_coefficients_exact,
    psi_series_precise,
)


def test_coefficients_are_exact_and_follow_the_series():
    co = psi_coefficients_exact(Fraction(2, 3), 6)
    assert all(isinstance(x, Fraction) for x in co)
    assert co == [Fraction(2, 3) ** (k + 1) / (math.factorial(k) * math.factorial(k + 1))
                  for k in range(6)]
    with pytest.raises(InvalidArgument, match=r"c = 0\.5"):
        psi_coefficients_exact(0.5, 3)


@pytest.mark.parametrize("c, y", [("1/1000", "0"), ("1/2", "1/3"), ("3", "10"), ("40", "1000")])
def test_series_and_bessel_agree_at_two_precisions(c, y):
    for dps in (30, 60):
        a, b = psi_series_precise(c, y, dps), psi_bessel_precise(c, y, dps)
        with mpmath.workdps(dps):
            assert abs(a - b) <= abs(b) * mpmath.mpf(10) ** (-(dps - 5))


def test_psi_at_zero_is_c_and_precise_paths_refuse_floats():
    assert psi_series_precise("3/7", 0, 20) == psi_bessel_precise("3/7", 0, 20)
    with mpmath.workdps(20):
        assert psi_bessel_precise("3/7", 0, 20) == mpmath.mpf(3) / 7
    with pytest.raises(InvalidArgument, match=r"c = 0\.1"):
        psi_series_precise(0.1, 1, 20)


@pytest.mark.parametrize("spec", ["kinetic:lambda=1,beta=1,t=1.5", "kinetic:lambda=0,c=0.3",
                                  "kinetic:lambda=20,beta=3,t=5", "kinetic:lambda=1,c=2000"])
def test_fast_log_profile_matches_the_precise_one(spec):
    """Both fast routes (one Horner pass over the modes' common series; per-mode ive in log space
    for c = 2000, where the series would leave float64) against mpmath at 30 digits."""
    model = parse_kinetic(spec)
    L = 4096
    lp = kinetic_log_profile(L, model)
    for j in (1, 7, 1000, 2048, L - 1, L):
        exact = mpmath.log(kinetic_value_precise(Fraction(j, L), model, 30))
        assert abs(float(exact) - lp[j - 1]) <= 1e-13 * max(1.0, abs(float(exact)))


def test_dropped_modes_change_no_float64_sum():
    omega, a = kin.kinetic_modes(KineticHead(1, beta=1, modes=20))
    kept = kin._resolved_modes(omega, a)
    assert 0 < len(kept) < 20
    y = np.linspace(0, 20, 50)
    full = sum(om * np.exp(kin.log_psi(ak * 1.5, y)) for om, ak in zip(omega, a))
    part = sum(om * np.exp(kin.log_psi(ak * 1.5, y)) for om, ak in kept)
    assert np.allclose(full, part, rtol=4e-16, atol=0)


def test_million_positions_are_finite_and_tails_do_not_overflow():
    lp = kinetic_log_profile(10**6, parse_kinetic("kinetic:lambda=1,beta=1,t=1.5"))
    assert lp.shape == (10**6,) and np.isfinite(lp).all()
    # far beyond the float64 range of S itself (e^(2 sqrt(c y)) with c y ~ 1e6)
    big = kinetic_log_profile(1000, parse_kinetic("kinetic:lambda=0,c=100000"))
    assert np.isfinite(big).all() and big[0] > 709


def test_signed_mixture_has_values_but_no_logarithm():
    m = KineticModel([KineticHead(1, c=1), KineticHead("1/4", weight=-2, c=1)])
    v = kinetic_profile(8, m)
    assert np.isfinite(v).all() and (v < 0).any()
    with pytest.raises(InvalidArgument, match="positive weights"):
        kinetic_log_profile(8, m)
    ref = [kinetic_value_precise(Fraction(j, 8), m, 30) for j in range(1, 9)]
    assert np.allclose(v, [float(x) for x in ref], rtol=1e-13)


def test_profile_paths_agree_and_lambda_zero_is_the_hardy_case():
    m = parse_kinetic("kinetic:lambda=0,c=1")
    precise = kinetic_profile_precise(5, m, 30)
    fast = kinetic_profile(5, m)
    assert np.allclose(fast, [float(x) for x in precise], rtol=1e-14)
    # lambda = 0: phi' = 1, Y = ln(1/s): S(1/2) = psi_1(ln 2)
    assert float(precise[-1]) == 1.0
    assert abs(kinetic_values([0.5], m)[0] - float(psi_bessel_precise(1, mpmath.log(2), 30))) < 1e-14


def _dense_semigroup_row(L, lam, tau):
    """Reference: the last row of expm(tau (A - I)) from the dense ALiBi kernel (scaling and
    squaring of the Taylor series)."""
    A = alibi_kernel_dense(L, alibi_layer([lam / L])) - np.eye(L)
    M = tau * A
    k = max(0, int(np.ceil(np.log2(max(1.0, np.abs(M).sum(axis=1).max())))) + 4)
    M = M / 2**k
    E, term = np.eye(L), np.eye(L)
    for n in range(1, 30):
        term = term @ M / n
        E = E + term
    for _ in range(k):
        E = E @ E
    return E[-1]


@pytest.mark.parametrize("lam, tau", [(0.0, 1.0), (1.0, 2.5), (4.0, 0.5)])
def test_rollout_is_the_semigroup_row(lam, tau):
    p = kinetic_rollout(12, lam, tau)
    assert np.allclose(p, _dense_semigroup_row(12, lam, tau), rtol=1e-12, atol=1e-15)
    assert abs(p.sum() - 1) < 1e-14 and (p >= 0).all()


def test_rollout_precise_matches_fast_and_keeps_the_atom():
    fast = kinetic_rollout(6, 2, Fraction(3, 2))
    prec = kinetic_rollout_precise(6, 2, Fraction(3, 2), 40)
    assert np.allclose(fast, [float(x) for x in prec], rtol=1e-13)
    with mpmath.workdps(40):
        assert abs(mpmath.fsum(prec) - 1) < mpmath.mpf(10) ** -35
        # A is lower-triangular, so the diagonal entry of exp(tau (A - I)) is
        # exp(-tau (1 - A[L, L])), A[L, L] = 1/Z_L
        q = mpmath.exp(-mpmath.mpf(2) / 6)
        diag = 1 / mpmath.fsum(q**k for k in range(6))
        assert abs(prec[-1] - mpmath.exp(-mpmath.mpf(3) / 2 * (1 - diag))) < mpmath.mpf(10) ** -35


def test_right_slope_is_the_derivative_and_changes_sign_at_t_crit():
    head = KineticHead(1, beta=1)
    tc = kinetic_t_crit_precise(KineticModel([head]), 30)
    assert abs(float(tc) - kinetic_t_crit(KineticModel([head]))) < 1e-13
    for factor, sign in (("0.9", 1), ("1.1", -1)):
        model = KineticModel([head], t=Fraction(mpmath.nstr(tc, 25)) * Fraction(factor))
        slope = kinetic_right_slope_precise(model, 30)
        h = mpmath.mpf(10) ** -12
        with mpmath.workdps(50):
            f = [kinetic_value_precise(1 - k * h, model, 50) for k in range(3)]
            fd = (3 * f[0] - 4 * f[1] + f[2]) / (2 * h)
        assert mpmath.sign(slope) == sign and abs(fd - slope) < abs(slope) * mpmath.mpf(10) ** -15


def test_t_crit_without_alibi_is_none_and_one_mode_is_two_one_minus_e():
    assert kinetic_t_crit(parse_kinetic("kinetic:lambda=0,c=1")) is None
    assert kinetic_t_crit_precise(parse_kinetic("kinetic:lambda=0,c=1"), 20) is None
    with mpmath.workdps(30):
        want = 2 * (1 - mpmath.exp(-3))
        assert abs(kinetic_t_crit_precise(parse_kinetic("kinetic:lambda=3,c=1"), 30) - want) \
            < mpmath.mpf(10) ** -28


BAD_SPECS = ["kinetic:", "kinetic:lambda=1", "kinetic:lambda=1,c=0", "kinetic:lambda=-1,c=1",
             "kinetic:lambda=1,c=1,beta=1", "kinetic:lambda=1,beta=1", "kinetic:lambda=1,c=1,c=2",
             "kinetic:lambda=1,beta=1,t=1,modes=0", "kinetic:lambda=1,beta=1,t=1,modes=x",
             "kinetic:lambda=__import__('os'),c=1", "cesaro", "kinetic:lambda=1,c=1/0", 3, None]


@pytest.mark.parametrize("spec", BAD_SPECS)
def test_bad_specs_are_refused_in_one_line(spec):
    with pytest.raises(InvalidArgument) as err:
        parse_kinetic(spec)
    assert str(err.value).startswith("model = ") and "\n" not in str(err.value)


@pytest.mark.parametrize("call, parameter", [
    (lambda: KineticHead(1), "modes"),
    (lambda: KineticHead(1, c=1, beta=1), "modes"),
    (lambda: KineticHead(1, weight=0, c=1), "weight"),
    (lambda: KineticModel([]), "heads"),
    (lambda: KineticModel([KineticHead(1, c=1)], t=0), "t"),
    (lambda: kinetic_values([0.0, 1.0], parse_kinetic("kinetic:lambda=1,c=1")), "s"),
    (lambda: kinetic_values([1.5], parse_kinetic("kinetic:lambda=1,c=1")), "s"),
    (lambda: kinetic_rollout(4, 1, -1.0), "tau"),
    (lambda: kinetic_profile(0, parse_kinetic("kinetic:lambda=1,c=1")), "length"),
    (lambda: kinetic_value_precise(2, parse_kinetic("kinetic:lambda=1,c=1"), 20), "s, lambda"),
])
def test_bad_arguments_name_their_parameter(call, parameter):
    with pytest.raises(InvalidArgument) as err:
        call()
    assert err.value.parameter == parameter
