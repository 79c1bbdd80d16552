"""Residual mixture, Laguerre closed form, general schedules, monotonicity and dead zone."""

import random

import mpmath
import pytest
import sympy

from posbias.derivations import get_derivation
from posbias.derivations import residual as res


def test_laguerre_symbolic_termwise():
    assert res.laguerre_identity_symbolic().proven


def test_wrong_laguerre_form_fails():
    def wrong(h, a, t):
        return a * (1 - a) ** (h - 1) * sympy.assoc_laguerre(h - 1, 1, a * t / (1 - a))

    assert not res.laguerre_identity_symbolic(wrong).proven
    ident = res.laguerre_identity_explicit(4, wrong)
    assert not ident.proven and ident.residual != 0


@pytest.mark.parametrize("depth", range(1, 13))
def test_laguerre_explicit(depth):
    assert res.laguerre_identity_explicit(depth).proven


@pytest.mark.slow
@pytest.mark.parametrize("depth", range(13, 31))
def test_laguerre_explicit_up_to_30(depth):
    assert res.laguerre_identity_explicit(depth).proven


def test_laguerre_numeric_vs_mpmath_laguerre():
    rng = random.Random(11)
    with mpmath.workdps(40):
        for depth in range(1, 16):
            f = sympy.lambdify((res.alpha, res.t), res.mixture_sum(depth), "mpmath")
            a = mpmath.mpf(rng.randrange(1, 10**6)) / 10**6
            t = mpmath.mpf(rng.randrange(1, 10**6)) / 10**5
            ref = a * (1 - a) ** (depth - 1) * mpmath.laguerre(depth - 1, 1, -a * t / (1 - a))
            assert abs(f(a, t) - ref) <= mpmath.mpf(10) ** -30 * abs(ref)


def test_mixture_mass_and_mellin_numeric():
    # continuous part integrates to 1 - (1-alpha)^H; Mellin moment by quadrature in x
    a = mpmath.mpf("0.37")
    with mpmath.workdps(40):
        for depth in (1, 4, 9):
            f = sympy.lambdify((res.alpha, res.t), res.mixture_sum(depth), "mpmath")
            mass = mpmath.quad(lambda xx, f=f: f(a, -mpmath.log(xx)), [0, 1])
            assert abs(mass - (1 - (1 - a) ** depth)) < mpmath.mpf(10) ** -30
            s_ = mpmath.mpf("1.3")
            mel = mpmath.quad(lambda xx, s_=s_, f=f: xx**s_ * f(a, -mpmath.log(xx)), [0, 1])
            mel += (1 - a) ** depth
            assert abs(mel - (1 - a + a / (1 + s_)) ** depth) < mpmath.mpf(10) ** -30


def test_schedule_weights_and_constant_case():
    lams = [sympy.Rational(1, 3), sympy.Rational(1, 2), sympy.Rational(3, 4)]
    w = res.schedule_weights(lams)
    assert sum(w) == 1 and all(v >= 0 for v in w)
    # brute force over the 2^3 attend/skip patterns
    from itertools import product

    brute = [0] * 4
    for pattern in product((0, 1), repeat=3):
        p = 1
        for on, lam in zip(pattern, lams):
            p *= lam if on else 1 - lam
        brute[sum(pattern)] += p
    assert w == brute
    atom, cont = res.schedule_mixture([res.alpha] * 5)
    assert sympy.expand(atom - (1 - res.alpha) ** 5) == 0
    assert res._expand_rational(cont - res.laguerre_form(sympy.Integer(5))) == 0
    assert get_derivation("schedule-mixture").proven


def test_minimum_and_dead_zone():
    d = get_derivation("minimum-dead-zone")
    assert d.proven
    # monotone non-increasing: derivative in x of the continuous part is <= 0 on a grid
    a = sympy.Rational(2, 5)
    xs = sympy.Symbol("x", positive=True)
    for depth in (2, 5, 8):
        expr = res.mixture_sum(depth, a, sympy.log(1 / xs))
        dexpr = sympy.diff(expr, xs)
        for k in range(1, 20):
            assert dexpr.subs(xs, sympy.Rational(k, 20)).evalf(30) <= 0
        lim = sympy.limit(expr, xs, 1, "-")
        assert lim == depth * a * (1 - a) ** (depth - 1)
    # H = 24, alpha = 1/2 example (docs/explanation/mathematics.rst says ~1.16e-4, against 1/23! ~ 3.9e-23)
    v = mpmath.mpf(res.density_at_half(24, sympy.Rational(1, 2), 20))
    assert mpmath.mpf("1.15e-4") < v < mpmath.mpf("1.17e-4")
    assert v > 24 * mpmath.mpf(2) ** -24 > 1 / mpmath.factorial(23)
    # alpha = 1: exactly (ln 2)^(H-1)/(H-1)! <= 1/(H-1)!
    for depth in range(1, 9):
        assert mpmath.mpf(res.density_at_half(depth, 1, 25)) <= 1 / mpmath.factorial(depth - 1)


@pytest.mark.parametrize("bad", [0, sympy.Rational(3, 2), -1, 0.5, True, [1]])
def test_density_at_half_rejects_alpha(bad):
    from posbias.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="alpha"):
        res.density_at_half(3, bad)
