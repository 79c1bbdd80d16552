"""The density rho_H: normalization, Mellin moments, Gamma law, median, mode, primacy tail."""

import random

import mpmath
import pytest
import sympy

from posbias.derivations import density as dens
from posbias.derivations import get_derivation

x = dens.x


def test_symbolic_identities():
    d = get_derivation("density")
    labels = [i.label for i in d.identities]
    assert any("normalization" in l for l in labels)
    assert any("Mellin" in l for l in labels)
    assert any("Gamma(H,1)" in l for l in labels)
    assert d.proven


def test_wrong_density_fails_normalization_and_mellin():
    def wrong(h, xx):
        return sympy.log(1 / xx) ** (h - 1) / sympy.factorial(h)

    norm, _ = dens.normalization_identity(wrong)
    mell, _ = dens.mellin_identity(wrong)
    assert not norm.proven and norm.residual != 0
    assert not mell.proven


@pytest.mark.parametrize("depth", range(1, 9))
def test_symbolic_closed_forms_by_direct_integration(depth):
    # explicit H: integrate rho_H(e^-t) e^-t (1 + ...) over t in (0, oo) without the symbolic-H
    # result; normalization, mean 2^-H and the Mellin moment at s = 3/7
    t = sympy.Symbol("t", positive=True)
    r = dens.rho(depth).subs(x, sympy.exp(-t))
    r = sympy.expand_log(r, force=True)
    for s_, target in ((0, 1), (1, sympy.Rational(1, 2**depth)),
                       (sympy.Rational(3, 7), sympy.Rational(7, 10) ** depth)):
        value = sympy.integrate(r * sympy.exp(-(1 + s_) * t), (t, 0, sympy.oo))
        assert sympy.simplify(value - target) == 0


def test_numeric_mellin_vs_quadrature_30_digits():
    rng = random.Random(7)
    with mpmath.workdps(40):
        for depth in range(1, 9):
            f = sympy.lambdify((x,), dens.rho(depth), "mpmath")
            s_ = mpmath.mpf(rng.randrange(1, 10**6)) / 10**5
            quad = mpmath.quad(lambda xx, s_=s_, f=f: xx**s_ * f(xx), [0, 1])
            assert abs(quad - (1 + s_) ** (-depth)) <= mpmath.mpf(10) ** -30 * quad


def test_gamma_law_numeric():
    # P(ln(1/X) > t) = Q(H, t): quadrature of rho_H on (0, e^-t) vs mpmath's gammainc
    with mpmath.workdps(40):
        for depth in (1, 3, 6):
            f = sympy.lambdify((x,), dens.rho(depth), "mpmath")
            t0 = mpmath.mpf("1.75")
            quad = mpmath.quad(f, [0, mpmath.exp(-t0)])
            ref = mpmath.gammainc(depth, t0, mpmath.inf, regularized=True)
            assert abs(quad - ref) <= mpmath.mpf(10) ** -30 * ref


@pytest.mark.parametrize("depth", range(1, 9))
def test_median_is_half_mass(depth):
    f = sympy.lambdify((x,), dens.rho(depth), "mpmath")
    with mpmath.workdps(40):
        med = mpmath.mpf(dens.density_median(depth, 35))
        mass = mpmath.quad(f, [0, med])
    assert abs(mass - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -25


def test_median_reference_values():
    # H = 1: median of the uniform law; H = 2: t solves (1 + t) e^-t = 1/2
    assert dens.density_median(1, 20) == "0.5"
    t2 = mpmath.mpf(dens.gamma_median(2, 25))
    assert abs((1 + t2) * mpmath.exp(-t2) - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -22


def test_mode_and_monotonicity():
    d = get_derivation("density")
    assert any("mode of ln(1/X) is H - 1" in i.label and i.proven for i in d.identities)
    for depth in range(2, 7):
        deriv = sympy.diff(dens.rho(depth), x)
        # strictly negative on (0, 1): check at a few rational points
        for p in (sympy.Rational(1, 10), sympy.Rational(1, 2), sympy.Rational(9, 10)):
            assert deriv.subs(x, p).evalf(30) < 0


def test_primacy_tail():
    d = get_derivation("primacy-tail")
    assert d.proven
    assert sympy.limit(dens.rho(1), x, 0, "+") == 1
    assert sympy.limit(dens.rho(3), x, 0, "+") == sympy.oo
    # slower than any power, numerically at a tiny x
    with mpmath.workdps(30):
        f = sympy.lambdify((x,), dens.rho(5), "mpmath")
        tiny = mpmath.mpf(10) ** -4000
        assert f(tiny) > 10**9 and tiny ** mpmath.mpf("0.01") * f(tiny) < 1
