"""The kinetic retrieval profile of duerinckx2026: its Bessel form, the equation it solves, its
Poisson mixture over depth and the threshold of its recency.

duerinckx2026's retrieval profile (as its public code computes it) is, per Fourier mode of rate
``a`` and per head of ALiBi slope ``lambda``,

    g_c(s) = phi'(s) psi_c(Y(s)),   c = a t,   psi_c(y) = sum_k c^(k+1) y^k / (k! (k+1)!),

with the ALiBi warp ``phi(s) = (e^(lambda s) - 1)/(e^lambda - 1)`` of :mod:`.alibi` and
``Y(s) = ln(1/phi(s))``.  Worked out here:

* ``psi_c(y) = sqrt(c/y) I_1(2 sqrt(c y))`` (sympy sums the series; term by term it is the
  defining series of ``I_1``), ``d psi_c/dc = I_0(2 sqrt(c y)) = 1 + int_0^y psi_c``;
* hence ``g_c`` solves the linear kinetic equation of the final token's correlation,
  ``d g_c/dc = rho_1(s) + int_s^1 g_c(x) k(x, s) dx`` with ``g_0 = 0``, ``k`` the continuum ALiBi
  kernel and ``rho_1 = phi'`` its one-layer density (term by term, every power of ``Y``);
* ``e^(-c) g_c = sum_(H >= 1) e^(-c) c^H/H! rho_H^ALiBi``: a Poisson(c) mixture over depth of
  chowdhury2026's densities ``rho_H`` in the warped variable (term by term for symbolic ``H``);
  its mass is ``1 - e^(-c)``, the rest is the atom ``e^(-c)`` on the final token;
* ``dS_t/ds`` at ``s = 1`` is ``phi'(1) sum_n omega_n (lambda a_n t - phi'(1) (a_n t)^2/2)``, so
  the slope at the right end changes sign at
  ``t_crit = 2 (1 - e^(-lambda)) sum_n omega_n a_n / sum_n omega_n a_n^2`` (0 without ALiBi,
  below ``2 sum omega a / sum omega a^2`` for every slope); for one mode the end is convex at
  ``c_crit`` exactly when ``lambda < ln 4``.

Method: sympy summation, differentiation and simplification; every identity symbolic in
``c, y, lambda, s`` and in the summation index (``k`` or ``H``).  The formulas print the paper's
``c, y, t, s, omega_n, a_n, S_t`` and the ALiBi ``lambda`` as ``kappa, Y, tau, y, b(n), r(n), P`` and
``eta``: the formula sheet already gives ``c, t, s, omega, a, W, S, lambda`` other meanings, and ``y``
is the attended position of alibi-warp.

Paper: duerinckx2026 (arXiv 2605.09213; the formulas of its public code; the paper's text
could not be read beyond its abstract), with chowdhury2026's ``rho_H`` (:ref:`C3 <math-c3>`) and
the ALiBi warp (:ref:`X6 <math-x6>`).

>>> from posbias.derivations.kinetic import psi_closed
>>> psi_closed()   # printed with kappa for the paper's c and Y for its y (see below)
sqrt(kappa)*besseli(1, 2*sqrt(Y)*sqrt(kappa))/sqrt(Y)
"""

from __future__ import annotations

import sympy

from posbias.derivations import alibi
from posbias.derivations.core import Derivation, Step, derivation, prove_equal
from posbias.derivations.density import normalization_identity

__all__ = [
    "c",
    "kinetic_bessel_derivation",
    "kinetic_poisson_derivation",
    "kinetic_profile_derivation",
    "kinetic_threshold_derivation",
    "mode_profile",
    "psi_closed",
    "psi_term",
    "warp_log",
    "y",
]

# printed names differ from the paper's where the formula sheet already gives a letter another
# meaning: kappa for the rate times time c, Y for psi's argument y, tau for the time t, y for the
# position s (the attended position of alibi-warp), b(n) and r(n) for omega_n and a_n
c = sympy.Symbol("kappa", positive=True)
y = sympy.Symbol("Y", positive=True)
t = sympy.Symbol("tau", positive=True)
s = alibi.y
k = sympy.Symbol("k", integer=True, nonnegative=True)
m = sympy.Symbol("m", integer=True, nonnegative=True)
H = sympy.Symbol("H", integer=True, positive=True)
n = sympy.Symbol("n", integer=True, positive=True)
N = sympy.Symbol("N", integer=True, positive=True)
z = sympy.Symbol("z", positive=True)
lam = alibi.lam
b = sympy.Function("b")  # b(n): the paper's omega_n
r = sympy.Function("r")  # r(n): the paper's a_n
psi = sympy.Function("psi")  # psi(c, y): the paper's psi_c(y)
S_t = sympy.Function("P")  # P(t, s): the paper's S_t(t, s)
g = sympy.Function("g")  # g(c, s) = phi'(s) psi(c, Y(s)): one mode of the profile
mu1, mu2 = sympy.symbols("mu_1 mu_2", positive=True)  # mu_j = sum_n omega_n a_n^j


def psi_term(kk: sympy.Expr = k, cc: sympy.Expr = c, yy: sympy.Expr = y) -> sympy.Expr:
    """The ``k``-th term ``c^(k+1) y^k / (k! (k+1)!)`` of ``psi_c(y)``."""
    return cc ** (kk + 1) * yy**kk / (sympy.factorial(kk) * sympy.factorial(kk + 1))


def psi_closed(cc: sympy.Expr = c, yy: sympy.Expr = y) -> sympy.Expr:
    """``sqrt(c/y) I_1(2 sqrt(c y))``."""
    return sympy.sqrt(cc) * sympy.besseli(1, 2 * sympy.sqrt(cc) * sympy.sqrt(yy)) / sympy.sqrt(yy)


def warp_log(ss: sympy.Expr = s, ll: sympy.Expr = lam) -> sympy.Expr:
    """``Y(s) = ln((e^lambda - 1)/(e^(lambda s) - 1))``, the log-warp of the public code."""
    return sympy.log((sympy.exp(ll) - 1) / (sympy.exp(ll * ss) - 1))


def mode_profile(kk: sympy.Expr = k, cc: sympy.Expr = c) -> sympy.Expr:
    """The ``k``-th term ``phi'(s) c^(k+1) Y(s)^k/(k! (k+1)!)`` of one mode's profile ``g_c(s)``."""
    return sympy.diff(alibi.warp(s), s) * psi_term(kk, cc, warp_log())


def _series() -> sympy.Expr:
    return sympy.Sum(psi_term(), (k, 0, sympy.oo))


@derivation("kinetic-bessel")
def kinetic_bessel_derivation() -> Derivation:
    """psi_c(y) as a Bessel function, its c-derivative and the Volterra equation it solves."""
    summed = sympy.summation(psi_term(), (k, 0, sympy.oo))
    i1_term = (z / 2) ** (2 * k + 1) / (sympy.factorial(k) * sympy.factorial(k + 1))
    closed = psi_closed()
    dc = sympy.diff(closed, c)
    idents = [
        prove_equal("sympy's sum of the series is sqrt(c/y) I_1(2 sqrt(c y))", summed, closed),
        prove_equal("term by term: sqrt(c/y) (z/2)^(2k+1)/(k!(k+1)!) at z = 2 sqrt(c y) is the "
                    "k-th term (symbolic k)",
                    sympy.sqrt(c / y) * i1_term.subs(z, 2 * sympy.sqrt(c * y)), psi_term()),
        prove_equal("d psi_c/dc = I_0(2 sqrt(c y))", dc, sympy.besseli(0, 2 * sympy.sqrt(c * y))),
        prove_equal("Volterra, term 0: d/dc of the first term is 1", sympy.diff(psi_term(0), c), 1),
        prove_equal("Volterra, term k+1: d/dc of term k+1 = int_0^y term k (symbolic k)",
                    sympy.diff(psi_term(k + 1), c), sympy.integrate(psi_term(), (y, 0, y))),
        prove_equal("Volterra in closed form: d psi_c/dc = 1 + int_0^y psi_c",
                    dc, 1 + sympy.integrate(closed, (y, 0, y))),
        prove_equal("psi_c(0) = c", sympy.limit(closed, y, 0, "+"), c),
        prove_equal("psi_c'(0) = c^2/2", sympy.limit(sympy.diff(closed, y), y, 0, "+"), c**2 / 2),
    ]
    yp = sympy.Symbol("y'", positive=True)
    expr = sympy.Eq(psi(c, y), _series())
    volterra = sympy.Eq(sympy.Derivative(psi(c, y), c), 1 + sympy.Integral(psi(c, yp), (yp, 0, y)))
    return Derivation(
        name="kinetic-bessel",
        title="The kinetic series psi as a Bessel function",
        description="psi(kappa, Y), kappa^(k+1) Y^k/(k! (k+1)!) added over k >= 0, equals "
        "sqrt(kappa/Y) I_1(2 sqrt(kappa Y)); its derivative in kappa, I_0(2 sqrt(kappa Y)), is 1 "
        "plus its integral over 0 < Y' < Y (a Volterra equation).",
        expression=expr,
        equations=(sympy.Eq(psi(c, y), closed), volterra),
        assumptions=("kappa > 0, Y >= 0", "k a non-negative integer (symbolic)"),
        steps=(
            Step("the series of the public code", expr),
            Step("the defining series of I_1 at z = 2 sqrt(c y)",
                 sympy.Eq(sympy.besseli(1, z), sympy.Sum(i1_term, (k, 0, sympy.oo)))),
            Step("sum the series", sympy.Eq(_series(), closed)),
            Step("differentiate in c", sympy.Eq(sympy.Derivative(psi(c, y), c), dc)),
            Step("term by term: d/dc of term k+1 is the integral of term k", volterra),
        ),
        identities=tuple(idents),
        paper="duerinckx2026",
        section="retrieval profile",
        notes=("the series converges absolutely for every c, y (ratio c y/((k+1)(k+2)) -> 0), so "
               "the term-by-term derivative and integral are those of the sum",),
    )


@derivation("kinetic-profile")
def kinetic_profile_derivation() -> Derivation:
    """The retrieval profile under the ALiBi warp solves the kinetic equation of the final
    token's correlation with the continuum ALiBi kernel."""
    phi = alibi.warp(s)
    dphi = sympy.diff(phi, s)
    Y = warp_log()
    F = Y ** (k + 1) / (k + 1)
    idents = [
        alibi.warp_identity(),
        prove_equal("Y(s) = ln(1/phi(s))", Y, sympy.log(1 / phi)),
        prove_equal("Y(1) = 0", Y.subs(s, 1), 0),
        prove_equal("d/ds Y^(k+1)/(k+1) = -phi'(s) Y^k/phi(s) (symbolic k): with Y(1) = 0, "
                    "int_s^1 phi'(x) Y(x)^k k(x, s) dx = phi'(s) Y(s)^(k+1)/(k+1)",
                    sympy.diff(F, s), -dphi * Y**k / phi),
        prove_equal("one term: d/dc of term k+1 of g_c = phi'(s) int_0^Y term k (symbolic k)",
                    sympy.diff(mode_profile(k + 1), c),
                    dphi * sympy.integrate(psi_term(), (y, 0, y)).subs(y, Y)),
        prove_equal("term 0: d/dc of phi'(s) c is phi'(s) = rho_1(s), the one-layer density",
                    sympy.diff(mode_profile(0), c), alibi.alibi_density(1, lam, s)),
        prove_equal("lambda -> 0: phi'(s) -> 1", sympy.limit(dphi, lam, 0, "+"), 1),
        prove_equal("lambda -> 0: Y(s) -> ln(1/s)", sympy.limit(Y, lam, 0, "+"), sympy.log(1 / s)),
    ]
    x_ = sympy.Symbol("x", positive=True)
    profile = sympy.Sum(b(n) * dphi * psi(r(n) * t, Y), (n, 1, N))
    expr = sympy.Eq(S_t(t, s), sympy.Sum(b(n) * g(r(n) * t, s), (n, 1, N)))
    kinetic = sympy.Eq(sympy.Derivative(g(c, s), c),
                       alibi.alibi_density(1, lam, s)
                       + sympy.Integral(g(c, x_) * alibi.alibi_kernel(x_, s), (x_, s, 1)))
    mode = sympy.Eq(g(c, s), dphi * psi(c, Y))
    return Derivation(
        name="kinetic-profile",
        title="The retrieval profile under the ALiBi warp",
        description="With the ALiBi warp u(y) and Y = ln(1/u), one mode g(kappa, y) = u'(y) "
        "psi(kappa, Y) solves d g/d kappa = rho^ALiBi_1(y) plus the integral of g(kappa, x) "
        "k^ALiBi(x, y) over y < x < 1 (g = 0 at kappa = 0), k^ALiBi the continuum ALiBi kernel; P(tau, y) "
        "adds the modes kappa = r(n) tau with weights b(n).",
        expression=expr,
        equations=(mode, kinetic, sympy.Eq(S_t(t, s), profile)),
        assumptions=("ALiBi slope eta/L, L -> oo (the continuum kernel of alibi-warp)",
                     "0 < y <= 1, kappa > 0, eta > 0 (eta -> 0: the Hardy kernel)",
                     "k a non-negative integer (symbolic)"),
        steps=(
            Step("one mode of the public code's profile", mode),
            Step("the warp pulls the uniform kernel back: k(x, s) = phi'(s)/phi(x)",
                 sympy.Eq(alibi.alibi_kernel(x_, s), sympy.diff(alibi.warp(s), s) / alibi.warp(x_))),
            Step("substitute Y = ln(1/phi(x)) in the integral of each power",
                 sympy.Eq(sympy.Derivative(F, s), -dphi * Y**k / phi)),
            Step("with the Volterra equation of psi_c, term by term", kinetic),
        ),
        identities=tuple(idents),
        paper="duerinckx2026",
        section="retrieval profile",
        notes=("the equation is the one the series solves (derived here); the paper's own "
               "correlation equation could not be read",
               "the atom e^(-c) delta(1 - s) of exp(c (K - I)) on the final token is not part "
               "of g_c: g_c is the continuous part of exp(c K) applied to it"),
    )


@derivation("kinetic-poisson")
def kinetic_poisson_derivation() -> Derivation:
    """The retrieval profile is a Poisson mixture over depth of chowdhury2026's rho_H."""
    rho_alibi = alibi.alibi_density(H, lam, s)
    poisson = sympy.exp(-c) * c**H / sympy.factorial(H)
    rho_y = y ** (H - 1) / sympy.factorial(H - 1)  # rho_H(e^(-y)) in the warped variable
    summed = sympy.summation(c**H / sympy.factorial(H) * rho_y, (H, 1, sympy.oo))
    mass = sympy.summation(c**H / sympy.factorial(H), (H, 1, sympy.oo))
    norm, _ = normalization_identity()
    idents = [
        prove_equal("term H: c^H/H! rho_H^ALiBi(s) = term H-1 of g_c(s) (symbolic H)",
                    c**H / sympy.factorial(H) * rho_alibi, mode_profile(H - 1)),
        prove_equal("sum over H of c^H/H! rho_H(e^(-y)) is sqrt(c/y) I_1(2 sqrt(c y))",
                    summed, psi_closed()),
        norm,
        prove_equal("mass: sum_(H >= 1) c^H/H! = e^c - 1, so int_0^1 e^(-c) g_c = 1 - e^(-c)",
                    mass, sympy.exp(c) - 1),
        prove_equal("with the atom e^(-c) on the final token the Poisson weights sum to 1",
                    sympy.exp(-c) + sympy.exp(-c) * mass, 1),
    ]
    expr = sympy.Eq(sympy.exp(-c) * g(c, s),
                    sympy.Sum(poisson * sympy.Function("rho^ALiBi_H")(s), (H, 1, sympy.oo)))
    return Derivation(
        name="kinetic-poisson",
        title="The retrieval profile as a Poisson mixture over depth",
        description="e^(-kappa) g(kappa, y) is the mixture of the depth-H densities "
        "rho^ALiBi_H(y), H >= 1, with Poisson weights e^(-kappa) kappa^H/H!: the densities "
        "rho_H of chowdhury2026 in the warped variable; mass 1 - e^(-kappa), the atom e^(-kappa) on the final "
        "token.",
        expression=expr,
        equations=(sympy.Eq(sympy.Function("rho^ALiBi_H")(s), rho_alibi),
                   sympy.Eq(sympy.Integral(sympy.exp(-c) * g(c, s), (s, 0, 1)), 1 - sympy.exp(-c))),
        assumptions=("H a positive integer (symbolic)", "kappa > 0", "0 < y <= 1, eta > 0"),
        steps=(
            Step("chowdhury2026's density in the warped variable (alibi-warp)",
                 sympy.Eq(sympy.Function("rho^ALiBi_H")(s), rho_alibi)),
            Step("weight H with c^H/H!: term H-1 of the series", sympy.Eq(
                c**H / sympy.factorial(H) * rho_alibi, mode_profile(H - 1))),
            Step("sum over H (y = Y(s))", sympy.Eq(
                sympy.Sum(c**H / sympy.factorial(H) * rho_y, (H, 1, sympy.oo)), psi_closed())),
            Step("mass of the mixture", sympy.Eq(mass, sympy.exp(c) - 1)),
        ),
        identities=tuple(idents),
        paper="duerinckx2026",
        section="retrieval profile",
        notes=("the Poisson(c) depth is the limit T -> oo of the Binomial(T, c/T) depth of "
               "chowdhury2026's residual mixture with alpha = c/T: the kinetic profile is an "
               "infinitely deep residual network with steps c/T",),
    )


@derivation("kinetic-threshold")
def kinetic_threshold_derivation() -> Derivation:
    """The slope of the retrieval profile at the final token and the time it changes sign."""
    phi = alibi.warp(s)
    dphi = sympy.diff(phi, s)
    Y = warp_log()
    w1 = sympy.simplify(dphi.subs(s, 1))
    two_terms = dphi * (c + c**2 * Y / 2)  # psi_c(0) = c, psi_c'(0) = c^2/2
    slope = sympy.diff(two_terms, s).subs(s, 1)
    sum_a = sympy.Sum(b(n) * r(n), (n, 1, N))
    sum_a2 = sympy.Sum(b(n) * r(n) ** 2, (n, 1, N))
    A = w1 * lam * sum_a
    B = w1**2 * sum_a2 / 2
    roots = [r for r in sympy.solve(sympy.Eq(A * t - B * t**2, 0), t) if r != 0]
    t_crit = 2 * (1 - sympy.exp(-lam)) * sum_a / sum_a2
    c_crit = 2 * (1 - sympy.exp(-lam))
    higher = sympy.diff(dphi * Y ** (m + 2), s)
    t_crit_sym, kappa_crit = sympy.symbols("tau_crit kappa_crit", positive=True)
    idents = [
        prove_equal("phi''(s) = lambda phi'(s)", sympy.diff(dphi, s), lam * dphi),
        prove_equal("Y'(1) = -phi'(1)", sympy.diff(Y, s).subs(s, 1), -w1),
        prove_equal("terms k >= 2: d/ds phi' Y^k = Y^(k-1) (lambda phi' Y + k phi' Y'), 0 at s = 1 "
                    "where Y = 0 (symbolic k = m + 2)", higher,
                    Y ** (m + 1) * (lam * dphi * Y + (m + 2) * dphi * sympy.diff(Y, s))),
        prove_equal("slope of one mode at s = 1: phi'(1) (lambda c - phi'(1) c^2/2)",
                    slope, w1 * (lam * c - w1 * c**2 / 2)),
        prove_equal("the nonzero root of A t - B t^2 is 2 (1 - e^(-lambda)) sum omega a / sum "
                    "omega a^2", roots[0] if len(roots) == 1 else sympy.nan, t_crit),
        prove_equal("one mode: c_crit = 2 (1 - e^(-lambda))", (t_crit * r(1)).subs(N, 1).doit(),
                    c_crit),
        prove_equal("lambda -> 0: c_crit -> 0 (no recency without ALiBi)",
                    sympy.limit(c_crit, lam, 0, "+"), 0),
        prove_equal("lambda -> oo: c_crit -> 2", sympy.limit(c_crit, lam, sympy.oo), 2),
        *_curvature_identities(dphi, Y, c_crit),
    ]
    slope_eq = sympy.Eq(sympy.Subs(sympy.Derivative(S_t(t, s), s), s, 1),
                        w1 * sympy.Sum(b(n) * (lam * r(n) * t - w1 * (r(n) * t) ** 2 / 2),
                                       (n, 1, N)))
    expr = sympy.Eq(t_crit_sym, kappa_crit * mu1 / mu2)
    moments = (sympy.Eq(mu1, sum_a), sympy.Eq(mu2, sum_a2))
    return Derivation(
        name="kinetic-threshold",
        title="Threshold of recency in the retrieval profile",
        description="The slope of P(tau, y) at y = 1 is u'(1) times b(n) (eta r(n) tau - "
        "u'(1) (r(n) tau)^2/2) added over n: it changes sign at tau_crit = kappa_crit mu_1/mu_2, "
        "kappa_crit = 2 (1 - e^(-eta)); recency at the end before, none after; 0 without "
        "ALiBi.",
        expression=expr,
        equations=(*moments, slope_eq, sympy.Eq(kappa_crit, c_crit),
                   sympy.Eq(sympy.Subs(sympy.Derivative(g(c, s), (s, 2)), (s, c),
                                       (1, kappa_crit)),
                            -2 * lam**3 * (sympy.exp(lam) - 4) / (3 * (sympy.exp(lam) - 1)))),
        assumptions=("eta > 0 (tau_crit -> 0 as eta -> 0)", "r(n), b(n) > 0",
                     "k a non-negative integer (symbolic)"),
        steps=(
            Step("only the terms k = 0, 1 of psi_c contribute at s = 1 (Y(1) = 0)",
                 sympy.Eq(sympy.Derivative(dphi * Y ** (m + 2), s), higher)),
            Step("slope of one mode", sympy.Eq(sympy.Subs(sympy.Derivative(g(c, s), s), s, 1),
                                               w1 * (lam * c - w1 * c**2 / 2))),
            Step("sum over the modes, c = a_n t", slope_eq),
            Step("solve for t", sympy.Eq(t_crit_sym, t_crit)),
            Step("with the moments mu_j of the modes", expr),
        ),
        identities=tuple(idents),
        paper="duerinckx2026",
        section="t_crit",
        notes=("t_crit marks the sign change of the right-end slope. For one mode the "
               "curvature at the end at c = c_crit is -2 eta^3 (e^eta - 4)/(3 (e^eta - "
               "1)): for eta < ln 4 the end is convex there and the interior minimum leaves "
               "through it at t_crit; for eta > ln 4 it is concave, and the interior minimum "
               "outlives t_crit beside a local maximum next to the end (claims "
               "duerinckx2026:t-crit, duerinckx2026:valley-past-t-crit)",),
    )


def _curvature_identities(dphi: sympy.Expr, Y: sympy.Expr, c_crit: sympy.Expr) -> list:
    """The curvature of one mode at the final token when its slope vanishes, and the slope
    ``lambda = ln 4`` where it changes sign: only the terms k <= 2 of psi_c reach the second
    derivative at s = 1 (``psi_c''(0) = c^3/6``)."""
    dY = sympy.diff(Y, s)
    higher = sympy.diff(dphi * Y ** (m + 3), s, 2)
    factored = Y ** (m + 1) * (sympy.diff(dphi, s, 2) * Y**2
                               + 2 * sympy.diff(dphi, s) * (m + 3) * Y * dY
                               + dphi * (m + 3) * ((m + 2) * dY**2 + Y * sympy.diff(Y, s, 2)))
    three = dphi * (c + c**2 * Y / 2 + c**3 * Y**2 / 12)
    curvature = sympy.diff(three, s, 2).subs(s, 1).subs(c, c_crit)
    closed = -2 * lam**3 * (sympy.exp(lam) - 4) / (3 * (sympy.exp(lam) - 1))
    roots = sympy.solve(sympy.exp(lam) - 4, lam)
    return [
        prove_equal("terms k >= 3: d^2/ds^2 phi' Y^k carries Y^(k-2), 0 at s = 1 (symbolic k = "
                    "m + 3)", higher, factored),
        prove_equal("curvature of one mode at s = 1 at c = c_crit: -2 lambda^3 (e^lambda - 4)/"
                    "(3 (e^lambda - 1))", curvature, closed),
        prove_equal("it changes sign at lambda = ln 4 only", roots[0] if len(roots) == 1
                    else sympy.nan, sympy.log(4)),
    ]
