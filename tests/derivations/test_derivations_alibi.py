"""ALiBi warp (docs/explanation/mathematics.rst X6)."""

import mpmath
import pytest
import sympy

from posbias.derivations import alibi, get_derivation


def test_proven():
    d = get_derivation("alibi-warp")
    assert d.proven, d.unproven()


def test_theory_warp_and_wrong_warps():
    assert alibi.warp_identity().proven
    for wrong in (
        lambda xx, ll=alibi.lam: (1 - sympy.exp(-ll * xx)) / (1 - sympy.exp(-ll)),
        lambda xx, ll=alibi.lam: xx,
        lambda xx, ll=alibi.lam: sympy.exp(ll * xx),
    ):
        ident = alibi.warp_identity(wrong)
        assert not ident.proven and ident.residual != 0


def test_discrete_rows_converge_to_kernel():
    # L * A[i, j] for ALiBi with slope lambda/L against k(i/L, j/L): error O(1/L)
    lam = mpmath.mpf("2.5")
    x_, y_ = mpmath.mpf("0.75"), mpmath.mpf("0.5")
    k = sympy.lambdify((alibi.x, alibi.y, alibi.lam), alibi.alibi_kernel(), "mpmath")
    errs = []
    with mpmath.workdps(30):
        for L in (400, 4000):
            m = lam / L
            i, j = int(x_ * L), int(y_ * L)
            Z = (1 - mpmath.exp(-m * i)) / (1 - mpmath.exp(-m))
            errs.append(abs(L * mpmath.exp(-m * (i - j)) / Z - k(x_, y_, lam)))
    assert errs[1] < errs[0] / 5


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_density_normalized_and_matches_composition(depth):
    lam = mpmath.mpf("1.7")
    dens = sympy.lambdify((alibi.y, alibi.lam), alibi.alibi_density(sympy.Integer(depth)), "mpmath")
    prev = sympy.lambdify((alibi.y, alibi.lam), alibi.alibi_density(sympy.Integer(depth - 1)),
                          "mpmath")
    k = sympy.lambdify((alibi.x, alibi.y, alibi.lam), alibi.alibi_kernel(), "mpmath")
    with mpmath.workdps(40):
        total = mpmath.quad(lambda yy: dens(yy, lam), [0, 1])
        assert abs(total - 1) < mpmath.mpf(10) ** -30
        yy = mpmath.mpf("0.3141")
        comp = mpmath.quad(lambda zz: prev(zz, lam) * k(zz, yy, lam), [yy, 1])
        assert abs(comp - dens(yy, lam)) < mpmath.mpf(10) ** -30 * dens(yy, lam)


def test_small_slope_limit_is_cesaro():
    lam = mpmath.mpf(10) ** -20
    dens = sympy.lambdify((alibi.y, alibi.lam), alibi.alibi_density(sympy.Integer(3)), "mpmath")
    with mpmath.workdps(60):
        yy = mpmath.mpf("0.2")
        assert abs(dens(yy, lam) - mpmath.log(1 / yy) ** 2 / 2) < mpmath.mpf(10) ** -15
