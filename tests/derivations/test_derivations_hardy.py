"""Kernel of the H-th power of the Hardy operator: symbolic, explicit, numeric."""

import random

import mpmath
import pytest
import sympy

from posbias.derivations import hardy
from posbias.errors import InvalidArgument


def test_induction_step_symbolic():
    ident, steps = hardy.hardy_induction_step()
    assert ident.proven
    assert len(steps) == 4


@pytest.mark.parametrize(
    "wrong",
    [
        lambda d, a, b: sympy.log(a / b) ** (d - 1) / sympy.factorial(d) / a,   # wrong factorial
        lambda d, a, b: sympy.log(a / b) ** d / sympy.factorial(d - 1) / a,     # wrong power
        lambda d, a, b: sympy.log(a / b) ** (d - 1) / sympy.factorial(d - 1) / b,  # wrong 1/x
    ],
)
def test_wrong_kernel_gives_nonzero_residual(wrong):
    ident, _ = hardy.hardy_induction_step(wrong)
    assert not ident.proven
    assert ident.residual != 0


@pytest.mark.parametrize("depth", range(1, 9))
def test_closed_form_equals_direct_integration(depth):
    direct = hardy.hardy_kernel_by_integration(depth)
    diff = sympy.expand(sympy.expand_log(direct - hardy.hardy_kernel(depth), force=True))
    assert diff == 0


def test_explicit_derivation_lists_six_kernels():
    from posbias.derivations import get_derivation

    d = get_derivation("hardy-kernels-explicit")
    assert len(d.identities) == 6 and d.proven
    assert len(d.equations) == 5


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_depth(bad):
    with pytest.raises(InvalidArgument, match=r"^depth = "):
        hardy.hardy_kernel(bad)


def test_numeric_closed_form_vs_quadrature_30_digits():
    rng = random.Random(3)
    with mpmath.workdps(40):
        for depth in range(2, 9):
            closed = sympy.lambdify((hardy.x, hardy.y), hardy.hardy_kernel(depth), "mpmath")
            prev = sympy.lambdify((hardy.x, hardy.y), hardy.hardy_kernel(depth - 1), "mpmath")
            a, b = sorted(mpmath.mpf(rng.randrange(1, 10**6)) / 10**6 for _ in range(2))
            xx, yy = b, a
            quad = mpmath.quad(lambda z, prev=prev, yy=yy: prev(z, yy), [yy, xx]) / xx
            assert abs(closed(xx, yy) - quad) <= mpmath.mpf(10) ** -30 * abs(quad)


def test_hardy_operator_on_monomials_numeric():
    # (K y^s)(x) = x^s/(1+s): compare with quadrature at dps 40
    with mpmath.workdps(40):
        for s_text, x_text in (("0.3", "0.7"), ("2.5", "0.2")):
            s_, x_ = mpmath.mpf(s_text), mpmath.mpf(x_text)
            quad = mpmath.quad(lambda y, s_=s_: y**s_, [0, x_]) / x_
            assert abs(quad - x_**s_ / (1 + s_)) <= mpmath.mpf(10) ** -30 * quad
