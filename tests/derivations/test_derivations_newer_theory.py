"""The derivations of the newer theory (hausdorff.py, softmax.py, streaming.py, collapse.py):
their identities close, a false variant does not, and their LaTeX comes from sympy."""

from __future__ import annotations

import sympy

from posbias.derivations import get_derivation, prove_equal
from posbias.derivations.hausdorff import hausdorff_matrix, sink_continuum_density
from posbias.derivations.softmax import alternating_l1, alternating_l1_odd
from posbias.derivations.streaming import window_polynomial

NAMES = ("hausdorff-algebra", "sink-moments", "uniform-path-sum", "softmax-tv-limit",
         "streaming-profile", "collapse-rate")


def test_each_derivation_closes_and_prints():
    for name in NAMES:
        d = get_derivation(name)
        assert d.proven, (name, d.unproven())
        assert d.latex and "\\" in d.latex
        assert d.paper in ("posbias", "barbero2024", "barbero2025", "xiao2024", "wu2024")


def test_hausdorff_products_multiply_moments_and_a_false_product_does_not():
    mu, nu = sympy.symbols("m0:4"), sympy.symbols("n0:4")
    prod = hausdorff_matrix(mu) * hausdorff_matrix(nu)
    assert prove_equal("ok", prod, hausdorff_matrix([a * b for a, b in zip(mu, nu)])).proven
    assert not prove_equal("shifted", prod, hausdorff_matrix([a * b for a, b in zip(mu[1:] + mu[:1], nu)])).proven


def test_sink_density_is_the_sink_free_one_with_scaled_terms():
    lam, a, t = sympy.symbols("lambda alpha t", positive=True)
    assert sympy.simplify(sink_continuum_density(3, 0, lam, t) - sink_continuum_density(3, a, lam, t).subs(a, 0)) == 0
    wrong = sink_continuum_density(3, a, lam, t) * (1 - a)
    assert not prove_equal("scaled twice", wrong, sink_continuum_density(3, a, lam, t)).proven


def test_softmax_values():
    e = sympy.E
    assert sympy.simplify(alternating_l1(8) - 2 * (e - 1) / (e + 1)) == 0
    assert sympy.simplify(alternating_l1(7) - alternating_l1_odd(sympy.Integer(3))) == 0


def test_window_polynomial_degree_and_mass():
    poly = sympy.Poly(window_polynomial(2, 4, 3), sympy.Symbol("z"))
    assert poly.degree() == 9
    alpha = sympy.Symbol("alpha", positive=True)  # the residual weight, in the sheet's notation
    assert sympy.simplify(poly.eval(1) - (1 - alpha * sympy.Rational(2, 6)) ** 3) == 0
