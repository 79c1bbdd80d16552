"""ALiBi in the continuum: a warped Hardy operator (:ref:`X6 <math-x6>`).

With slope ``m = eta/L`` (``eta`` the slope times the length; the formula sheet keeps lambda for
a residual schedule) the normalized causal ALiBi row ``A[i, j] ∝ e^{-m (i - j)}``, ``j <= i``,
becomes as ``L -> oo`` (``x = i/L``, ``y = j/L``) the kernel

    k(x, y) = eta e^{-eta (x - y)} / (1 - e^{-eta x}),   0 < y < x.

The warp ``phi(x) = (e^{eta x} - 1)/(e^eta - 1)`` (the substitution ``u = phi(x)``,
``v = phi(y)``) maps it to the uniform kernel: ``k(x, y) dy = dv / u`` on ``0 < v < u``, i.e.
``K_eta = C^{-1} K C`` with ``(C f)(u) = f(phi^{-1}(u))``.  Hence the depth-H density of the
final token (``x = 1``, ``u = 1``) is

    rho^{ALiBi}_H(y) = phi'(y) rho_H(phi(y))
                     = eta e^{eta y}/(e^eta - 1) * ln((e^eta - 1)/(e^{eta y} - 1))^(H-1)/(H-1)!,

and with a constant residual alpha the same mixture as in the Cesàro case, in the variable
``phi(y)``.  Any map ``c (e^{eta x} - 1)`` with a constant ``c > 0`` works (the kernel
``1/u`` is scale-invariant); ``c = 1/(e^eta - 1)`` keeps ``[0, 1]`` fixed.

Method: sympy limit for the continuum kernel, symbolic substitution for the warp, the depth-H
kernel by conjugating the Hardy kernel, checked against direct integration for H = 2, 3.

Paper: posbias (X6); ALiBi forces of herasimchyk2026 (H2c).

>>> from posbias.derivations.alibi import alibi_kernel, lam, x, y
>>> alibi_kernel()
eta*exp(-eta*(x - y))/(1 - exp(-eta*x))
"""

from __future__ import annotations

from collections.abc import Callable

import sympy

from posbias.derivations.core import Derivation, Identity, Step, derivation, prove_equal

__all__ = [
    "alibi_density",
    "alibi_kernel",
    "alibi_warp_derivation",
    "lam",
    "warp",
    "warp_identity",
    "x",
    "y",
]

lam = sympy.Symbol("eta", positive=True)
x, y, z = sympy.symbols("x y z", positive=True)
v = sympy.Symbol("v", positive=True)
Lsym = sympy.Symbol("L", positive=True)
H = sympy.Symbol("H", integer=True, positive=True)


def alibi_kernel(xx: sympy.Expr = x, yy: sympy.Expr = y, ll: sympy.Expr = lam) -> sympy.Expr:
    """Continuum ALiBi kernel ``lambda e^{-lambda(x-y)} / (1 - e^{-lambda x})``."""
    return ll * sympy.exp(-ll * (xx - yy)) / (1 - sympy.exp(-ll * xx))


def warp(xx: sympy.Expr = x, ll: sympy.Expr = lam) -> sympy.Expr:
    """The warp stated in :ref:`X6 <math-x6>`: ``(e^{lambda x} - 1)/(e^lambda - 1)``."""
    return (sympy.exp(ll * xx) - 1) / (sympy.exp(ll) - 1)


def warp_identity(phi: Callable[..., sympy.Expr] = warp) -> Identity:
    """Check that ``u = phi(x)``, ``v = phi(y)`` turns ``k(x, y) dy`` into ``dv/u``:
    the residual of ``k(x, y) - phi'(y)/phi(x)``.

    >>> warp_identity().proven
    True
    >>> wrong = lambda xx, ll=lam: (1 - sympy.exp(-ll * xx)) / (1 - sympy.exp(-ll))
    >>> warp_identity(wrong).proven
    False
    """
    pulled = sympy.diff(phi(y), y) / phi(x)
    return prove_equal("k(x,y) dy = dv/u with u = phi(x), v = phi(y)", alibi_kernel(), pulled)


def alibi_density(depth: int | sympy.Expr, ll: sympy.Expr = lam, yy: sympy.Expr = y) -> sympy.Expr:
    """``phi'(y) rho_H(phi(y))`` with the warp of :ref:`X6 <math-x6>` (``depth`` symbolic or integer >= 1)."""
    ph = warp(yy, ll)
    return (sympy.diff(ph, yy) * sympy.log(1 / ph) ** (depth - 1) / sympy.factorial(depth - 1))


def _alibi_kernel_power(depth: int) -> sympy.Expr:
    """Kernel of the depth-th power of the ALiBi operator by direct integration (x = 1)."""
    # composition at the final token: k_{h+1}(1, y) = int_y^1 k_h(1, z) k(z, y) dz
    cur = alibi_kernel(sympy.Integer(1), y)
    for _ in range(depth - 1):
        integrand = sympy.simplify(cur.subs(y, z) * alibi_kernel(z, y))
        cur = sympy.simplify(sympy.integrate(integrand, (z, y, 1)))
    return cur


@derivation("alibi-warp")
def alibi_warp_derivation() -> Derivation:
    """Continuum ALiBi kernel, the warp to the uniform kernel, and the depth-H density."""
    i_, j_ = sympy.symbols("i j", positive=True)
    m = lam / Lsym
    discrete_row = sympy.exp(-m * (i_ - j_)) * (1 - sympy.exp(-m)) / (1 - sympy.exp(-m * i_))
    scaled = (Lsym * discrete_row).subs({i_: x * Lsym, j_: y * Lsym})
    limit = sympy.limit(scaled, Lsym, sympy.oo)
    idents = [prove_equal("L -> oo limit of L * normalized ALiBi row with m = lambda/L",
                          limit, alibi_kernel())]
    # sympy returns a Piecewise on e^(lambda x) != 1, which holds since lambda x > 0
    norm = sympy.integrate(alibi_kernel(), (y, 0, x))
    norm = norm.replace(sympy.Piecewise, lambda *args: args[0][0]
                        if args[0][1] == sympy.Ne(sympy.exp(lam * x), 1) else sympy.Piecewise(*args))
    idents.append(prove_equal("normalization: int_0^x k(x, y) dy = 1 (lambda x > 0)", norm, 1))
    idents.append(warp_identity())
    idents.append(prove_equal("phi(0) = 0, phi(1) = 1",
                              sympy.Matrix([warp(sympy.Integer(0)), warp(sympy.Integer(1))]),
                              sympy.Matrix([0, 1])))
    # scale invariance: c (e^{lambda x} - 1) works for any c > 0
    cc = sympy.Symbol("c", positive=True)
    idents.append(warp_identity(lambda xx, ll=lam: cc * (sympy.exp(ll * xx) - 1)))
    # depth-H density: normalization via the warp (int_0^1 phi' rho_H(phi) dy = int_0^1 rho_H)
    uu = sympy.Symbol("u", positive=True)
    subst = sympy.simplify(alibi_density(H).subs(y, sympy.log(1 + (sympy.exp(lam) - 1) * uu) / lam)
                           * sympy.diff(sympy.log(1 + (sympy.exp(lam) - 1) * uu) / lam, uu))
    idents.append(prove_equal("density in v = phi(y) is rho_H(v) (symbolic H)",
                              subst, sympy.log(1 / uu) ** (H - 1) / sympy.factorial(H - 1),
                              simplify=lambda e: sympy.simplify(sympy.expand_log(
                                  sympy.simplify(e), force=True))))
    for h in (2, 3):
        direct = _alibi_kernel_power(h)
        idents.append(prove_equal(f"H = {h}: direct composition = phi'(y) rho_H(phi(y))",
                                  direct, alibi_density(sympy.Integer(h)),
                                  simplify=lambda e: sympy.simplify(sympy.expand_log(
                                      sympy.simplify(e), force=True))))
    idents.append(prove_equal("lambda -> 0: the ALiBi density tends to rho_2 (H = 2)",
                              sympy.limit(alibi_density(sympy.Integer(2)), lam, 0, "+"),
                              sympy.log(1 / y)))
    rho_a = sympy.Function("rho^ALiBi_H")
    u_sym = sympy.Symbol("u", positive=True)
    expr = sympy.Eq(rho_a(y), alibi_density(H))
    kernel_eq = sympy.Eq(sympy.Function("k^ALiBi")(x, y), alibi_kernel())
    warp_eq = sympy.Eq(u_sym, warp())
    return Derivation(
        name="alibi-warp",
        title="ALiBi as a warped Hardy operator",
        description="With slope eta/L, the continuum ALiBi kernel becomes uniform under "
        "u = (e^(eta x) - 1)/(e^eta - 1), giving the depth-H density in closed form.",
        expression=expr,
        equations=(kernel_eq, warp_eq),
        assumptions=("ALiBi slope eta/L with eta > 0 fixed as L -> oo",
                     "0 < y < x <= 1", "H a positive integer"),
        steps=(
            Step("normalized ALiBi row, times L, with i = xL, j = yL",
                 sympy.Eq(sympy.Symbol("L A_{ij}"), scaled)),
            Step("continuum limit", sympy.Eq(sympy.Limit(scaled, Lsym, sympy.oo), limit)),
            Step("pull back the uniform kernel: phi'(y)/phi(x) = k^ALiBi(x, y)",
                 sympy.Eq(sympy.diff(warp(y), y) / warp(x), alibi_kernel())),
            Step("conjugate the Hardy kernel at the final token x = 1 (u = 1)", expr),
        ),
        identities=tuple(idents),
        paper="posbias",
        section="X6",
        notes=("The substitution u = (e^(eta x) - 1)/(e^eta - 1) is correct; any "
               "positive multiple of e^(eta x) - 1 works as well, the normalization fixes "
               "[0, 1]",
               "the scaling m = eta/L is essential: a fixed slope m makes the continuum kernel "
               "a point mass at y = x"),
    )
