"""Infinite-depth diagonal products (docs/explanation/mathematics.rst X7) and the positivity criterion."""

import mpmath
import sympy

from posbias.derivations import get_derivation
from posbias.derivations import schedules as sch


def test_all_proven():
    for name in ("summable-product", "harmonic-product", "product-criterion"):
        assert get_derivation(name).proven, name


def test_sine_product_numeric_30_digits():
    with mpmath.workdps(40):
        for c_text in ("0.5", "0.9", "0.123456"):
            c = mpmath.mpf(c_text)
            direct = mpmath.nprod(lambda t, c=c: 1 - c / (t + 1) ** 2, [1, mpmath.inf])
            closed = mpmath.sin(mpmath.pi * mpmath.sqrt(c)) / (mpmath.pi * mpmath.sqrt(c) * (1 - c))
            assert abs(direct - closed) < mpmath.mpf(10) ** -30


def test_harmonic_product_exact():
    for a in (sympy.Rational(1, 2), sympy.Rational(3, 2), sympy.Rational(1, 3)):
        for T in (1, 2, 7, 20):
            direct = sympy.prod([1 - a / (t + 1) for t in range(1, T + 1)])
            closed = sch.harmonic_product_closed_form(a, sympy.Integer(T))
            assert sympy.simplify(sympy.gammasimp(direct - closed)) == 0


def test_harmonic_rate_numeric():
    with mpmath.workdps(40):
        a = mpmath.mpf("0.6")
        T = mpmath.mpf(10) ** 12
        val = mpmath.gamma(T + 2 - a) / (mpmath.gamma(2 - a) * mpmath.gamma(T + 2))
        assert abs(val * T**a * mpmath.gamma(2 - a) - 1) < mpmath.mpf(10) ** -10


def test_wrong_sine_form_not_proven():
    from posbias.derivations.core import prove_equal

    r = sch.r
    wrong = sympy.sin(sympy.pi * r) / (sympy.pi * r * (1 + r**2))
    assert not prove_equal("wrong", 1 / (sympy.gamma(2 - r) * sympy.gamma(2 + r)), wrong).proven
