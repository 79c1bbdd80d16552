"""The kinetic derivations (duerinckx2026): every identity closes, each is symbolic in its
parameters, and the same machinery rejects the plausible wrong forms."""

from __future__ import annotations

import mpmath
import pytest
import sympy

from posbias.derivations import alibi, get_derivation, prove_equal
from posbias.derivations import kinetic as kd

NAMES = ("kinetic-bessel", "kinetic-profile", "kinetic-poisson", "kinetic-threshold")


@pytest.mark.parametrize("name", NAMES)
def test_proven_for_all_parameters(name):
    d = get_derivation(name)
    assert d.proven, d.unproven()
    assert d.proof_status == "proven for all parameters"
    assert d.paper == "duerinckx2026"
    # symbolic in the summation index: no identity is an instance at a fixed k or H
    assert all(i.proven for i in d.identities)


def test_bessel_form_rejects_i0_and_the_missing_factor_two():
    summed = sympy.summation(kd.psi_term(), (kd.k, 0, sympy.oo))
    c, y = kd.c, kd.y
    i0 = sympy.sqrt(c / y) * sympy.besseli(0, 2 * sympy.sqrt(c * y))
    half = sympy.sqrt(c / y) * sympy.besseli(1, sympy.sqrt(c * y))
    assert prove_equal("right", summed, kd.psi_closed()).proven
    assert not prove_equal("I_0", summed, i0).proven
    assert not prove_equal("argument sqrt(c y)", summed, half).proven


def test_bessel_form_numerically_at_a_point():
    f = sympy.lambdify((kd.c, kd.y), kd.psi_closed(), modules="mpmath")
    with mpmath.workdps(30):
        series = mpmath.nsum(lambda k: mpmath.mpf(2) ** (k + 1) * 3**k
                             / (mpmath.factorial(k) * mpmath.factorial(k + 1)), [0, mpmath.inf])
        assert abs(f(2, 3) - series) < mpmath.mpf(10) ** -25


def test_poisson_term_rejects_a_shifted_depth():
    H = sympy.Symbol("H", integer=True, positive=True)
    rho = alibi.alibi_density(H, alibi.lam, kd.s)
    good = prove_equal("term", kd.c**H / sympy.factorial(H) * rho, kd.mode_profile(H - 1))
    shifted = prove_equal("shifted", kd.c**H / sympy.factorial(H - 1) * rho, kd.mode_profile(H - 1))
    assert good.proven and not shifted.proven


def test_threshold_is_two_one_minus_e_and_curvature_root_is_ln4():
    d = get_derivation("kinetic-threshold")
    labels = [i.label for i in d.identities]
    assert any("ln 4" in lab for lab in labels)
    # the wrong threshold lambda in place of 1 - e^(-lambda) does not close
    lam = alibi.lam
    assert not prove_equal("wrong", 2 * lam, 2 * (1 - sympy.exp(-lam))).proven
    # the curvature at c_crit: positive at lambda = 1, negative at lambda = 2
    curv = -2 * lam**3 * (sympy.exp(lam) - 4) / (3 * (sympy.exp(lam) - 1))
    assert curv.subs(lam, 1) > 0 and curv.subs(lam, 2) < 0


def test_latex_comes_from_the_printer():
    from posbias.render.latex import latex

    for name in NAMES:
        d = get_derivation(name)
        assert d.latex == latex(d.expression)
    assert r"\psi\left(\kappa, Y\right)" in get_derivation("kinetic-bessel").latex
