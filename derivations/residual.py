"""Residual-aware densities: the binomial mixture, its Laguerre closed form, general schedules,
monotonicity, the value next to the final token and the "factorial dead zone".

With a residual layer ``N = (1-alpha) I + alpha K`` the final-token density after H layers is::

    rho(x) = (1-alpha)^H delta(1-x) + rho_c(x),
    rho_c(x) = sum_{k=1}^{H} C(H,k) alpha^k (1-alpha)^(H-k) t^(k-1)/(k-1)!,   t = ln(1/x),
             = alpha (1-alpha)^(H-1) L_{H-1}^{(1)}(-alpha t/(1-alpha)),

the law of ``X = U_1 ... U_K`` with ``K ~ Binomial(H, alpha)`` (Mellin moments
``(1 - alpha + alpha/(1+s))^H``).  For a schedule ``lambda_1..lambda_T`` the weights are the
Poisson-binomial probabilities, the coefficients of ``prod_t (1 - lambda_t + lambda_t z)``.

Every term ``t^(k-1)`` is non-increasing in ``x``, so ``rho_c`` is non-increasing: its infimum is
at ``x -> 1^-``, equal to ``H alpha (1-alpha)^(H-1)``.  The factorial dead zone
``rho(1/2) = O(1/(H-1)!)`` holds only for ``alpha = 1``, where ``rho(1/2) = (ln 2)^(H-1)/(H-1)!``;
for ``0 < alpha < 1``, ``rho_c(1/2) >= H alpha (1-alpha)^(H-1)`` and
``(H-1)! rho_c(1/2) -> oo``.

Paper: chowdhury2026 (:ref:`C5, C6, C7 <math-c5>`) and posbias (Laguerre form).

>>> from posbias.derivations.residual import mixture_sum
>>> mixture_sum(2)
alpha**2*t + 2*alpha*(1 - alpha)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import mpmath
import sympy

from posbias.derivations._checks import check_depth, check_lambdas
from posbias.derivations.core import Derivation, Identity, Step, derivation, prove_equal
from posbias.errors import InvalidArgument
from posbias.numbers import mp_text
from posbias.validation import check_dps, check_integer

__all__ = [
    "density_at_half",
    "laguerre_derivation",
    "laguerre_form",
    "laguerre_identity_explicit",
    "laguerre_identity_symbolic",
    "minimum_dead_zone_derivation",
    "mixture_sum",
    "residual_mixture_derivation",
    "schedule_mixture",
    "schedule_mixture_derivation",
    "schedule_weights",
]

x = sympy.Symbol("x", positive=True)
t = sympy.Symbol("t", positive=True)
s = sympy.Symbol("s", positive=True)
zz = sympy.Symbol("z")
alpha = sympy.Symbol("alpha", positive=True)
H = sympy.Symbol("H", integer=True, positive=True)
k = sympy.Symbol("k", integer=True, positive=True)
j = sympy.Symbol("j", integer=True, nonnegative=True)
rho_c = sympy.Function("rho_c")
_beta = sympy.Symbol("beta", positive=True)


def _check_int(value, parameter, low=1):
    check_integer(parameter, value, low)


def mixture_term(kk: sympy.Expr, depth: sympy.Expr = H, a: sympy.Expr = alpha, tt: sympy.Expr = t) -> sympy.Expr:
    """The ``k``-th term ``C(H,k) a^k (1-a)^(H-k) t^(k-1)/(k-1)!`` of the continuous part."""
    depth = check_depth("depth", depth)
    return (sympy.binomial(depth, kk) * a**kk * (1 - a) ** (depth - kk) * tt ** (kk - 1)
            / sympy.factorial(kk - 1))


def mixture_sum(depth: int, a: sympy.Expr = alpha, tt: sympy.Expr = t) -> sympy.Expr:
    """Continuous part of the residual mixture for an integer ``depth >= 1``, in ``t = ln(1/x)``."""
    _check_int(depth, "depth")
    return sympy.Add(*[mixture_term(sympy.Integer(kk), sympy.Integer(depth), a, tt)
                       for kk in range(1, depth + 1)])


def laguerre_form(depth: sympy.Expr = H, a: sympy.Expr = alpha, tt: sympy.Expr = t) -> sympy.Expr:
    """``a (1-a)^(H-1) L_{H-1}^{(1)}(-a t/(1-a))`` (``depth`` symbolic or an integer)."""
    depth = check_depth("depth", depth)
    return a * (1 - a) ** (depth - 1) * sympy.assoc_laguerre(depth - 1, 1, -a * tt / (1 - a))


def laguerre_identity_symbolic(closed: Callable[[sympy.Expr, sympy.Expr, sympy.Expr], sympy.Expr] = laguerre_form) -> Identity:
    """Prove ``sum = closed(H)`` for symbolic H term by term.

    The Laguerre polynomial is expanded with ``rewrite(Sum)``; after the shift ``k = j + 1`` both
    sides are sums over ``j = 0..H-1`` and the ratio of their summands must simplify to 1.
    Returns an :class:`Identity` whose residual is ``ratio - 1`` (or a note when the closed form
    is not a single sum of the expected shape).
    """
    lag = closed(H, alpha, t).rewrite(sympy.Sum)
    sums = [e for e in sympy.preorder_traversal(lag) if isinstance(e, sympy.Sum)]
    ours = mixture_term(j + 1)
    if len(sums) != 1:
        return prove_equal("Laguerre form = binomial sum (symbolic H, termwise)",
                           lag, sympy.Sum(ours, (j, 0, H - 1)))
    S = sums[0]
    kk, lo, hi = S.limits[0]
    prefactor = sympy.simplify(lag / S)
    theirs = (prefactor * S.function).subs(kk, j)
    ratio = theirs / ours
    ratio = ratio.replace(sympy.RisingFactorial,
                          lambda base, n: (-1) ** n * sympy.FallingFactorial(-base, n))
    ratio = sympy.combsimp(sympy.simplify(ratio.rewrite(sympy.factorial)))
    same_range = sympy.simplify(lo) == 0 and sympy.simplify(hi - (H - 1)) == 0
    ident = prove_equal("Laguerre form = binomial sum (symbolic H, ratio of summands)",
                        ratio if same_range else sympy.nan, 1)
    return ident


def _expand_rational(e):
    """Exact expansion for identities in ``alpha`` and ``t``: with ``alpha = 1 - beta`` every
    ``(1 - alpha)`` is the symbol ``beta``, so the expression expands to a Laurent polynomial in
    ``beta`` (and the residual is zero exactly when the identity holds)."""
    return sympy.expand(e.subs(alpha, 1 - _beta))


def laguerre_identity_explicit(depth: int,
                               closed: Callable[[sympy.Expr, sympy.Expr, sympy.Expr], sympy.Expr] = laguerre_form) -> Identity:
    """Exact polynomial identity ``sum = closed`` for one integer depth (expanded in t, alpha)."""
    _check_int(depth, "depth")
    lhs = mixture_sum(depth)
    rhs = closed(sympy.Integer(depth), alpha, t)
    return prove_equal(f"H = {depth}: Laguerre form = binomial sum", lhs, rhs,
                       simplify=_expand_rational)


def schedule_weights(lambdas: Sequence[object]) -> list[sympy.Expr]:
    """Poisson-binomial weights ``w_0..w_T``: coefficients of ``prod (1 - l_t + l_t z)``.

    >>> schedule_weights([sympy.Rational(1, 2), sympy.Rational(1, 3)])
    [1/3, 1/2, 1/6]
    """
    lambdas = check_lambdas("lambdas", lambdas)
    g = sympy.Poly(sympy.Mul(*[(1 - lam + lam * zz) for lam in lambdas]), zz)
    coeffs = g.all_coeffs()[::-1]
    return [sympy.expand(c) for c in coeffs] + [0] * (len(lambdas) + 1 - len(coeffs))


def schedule_mixture(lambdas: Sequence[object], tt: sympy.Expr = t) -> tuple[sympy.Expr, sympy.Expr]:
    """``(atom, continuous part in t)`` of the density for a schedule ``lambdas``."""
    w = schedule_weights(lambdas)
    cont = sympy.Add(*[w[kk] * tt ** (kk - 1) / sympy.factorial(kk - 1)
                       for kk in range(1, len(w))])
    return w[0], cont


def density_at_half(depth: int, a: int | str | sympy.Rational, dps: int = 30) -> str:
    """``rho_c(1/2)`` for integer ``depth`` and rational ``a`` in (0, 1] (mpmath string with
    ``dps`` significant digits).

    >>> density_at_half(2, sympy.Integer(1), 15)   # ln 2
    '0.693147180559945'
    """
    _check_int(depth, "depth")
    dps = check_dps("dps", dps)
    if isinstance(a, float) or not isinstance(a, (int, str, sympy.Rational)) or isinstance(a, bool):
        raise InvalidArgument("alpha", a, "an exact rational (int, str like '1/2', or sympy "
                                          "Rational) in (0, 1]")
    alpha_exact = sympy.Rational(a)
    if not 0 < alpha_exact <= 1:
        raise InvalidArgument("alpha", alpha_exact, "a rational number in (0, 1]")
    expr = mixture_sum(depth, alpha_exact, sympy.log(2))
    with mpmath.workdps(dps + 10):
        value = sympy.lambdify((), expr, modules="mpmath")()
        return mp_text(value, dps)


@functools.cache
def _rho_mellin_moments(top: int) -> dict:
    """``int_0^1 x^s rho_k(x) dx`` for k = 1..top, by integration in ``t = ln(1/x)``."""
    out = {}
    for kk in range(1, top + 1):
        out[kk] = sympy.integrate(t ** (kk - 1) / sympy.factorial(kk - 1) * sympy.exp(-(1 + s) * t),
                                  (t, 0, sympy.oo))
    return out


@derivation("residual-mixture")
def residual_mixture_derivation() -> Derivation:
    """The residual mixture: atom, binomial sum, law of a product of Binomial(H, alpha) uniforms."""
    idents = []
    # Mellin moments of rho_k are (1+s)^(-k) (proven for symbolic H in the "density"
    # derivation); here the k-th moment is recomputed from rho_k by integration in t once per k.
    moments = _rho_mellin_moments(12)
    for h in range(1, 13):
        hh = sympy.Integer(h)
        cont_mellin = sympy.Add(*[mixture_term(sympy.Integer(kk), hh) / t ** (kk - 1)
                                  * sympy.factorial(kk - 1) * moments[kk]
                                  for kk in range(1, h + 1)])
        idents.append(prove_equal(
            f"H = {h}: Mellin moments of the mixture = (1 - alpha + alpha/(1+s))^H",
            (1 - alpha) ** h + cont_mellin, (1 - alpha + alpha / (1 + s)) ** h,
            simplify=lambda e: sympy.expand(sympy.cancel(sympy.together(e)))))
    atom = sympy.Symbol("a_H")
    expr = sympy.Eq(rho_c(x), sympy.Sum(mixture_term(k).subs(t, sympy.log(1 / x)), (k, 1, H)))
    steps = (
        Step("N^H = sum_k C(H,k) alpha^k (1-alpha)^(H-k) K^k; K^0 = identity gives the atom",
             sympy.Eq(atom, (1 - alpha) ** H)),
        Step("K^k at the final token has density rho_k(x) = ln(1/x)^(k-1)/(k-1)!", expr),
        Step("Mellin moments: binomial theorem with E[U^s] = 1/(1+s)",
             sympy.Eq(sympy.Function("E")(sympy.Symbol("X") ** s), (1 - alpha + alpha / (1 + s)) ** H)),
    )
    return Derivation(
        name="residual-mixture",
        title="Residual mixture for constant alpha",
        description="With residuals the final-token law is an atom (1-alpha)^H at x = 1 plus a "
        "binomial mixture of rho_k: the law of U_1...U_K, K ~ Binomial(H, alpha).",
        expression=expr,
        equations=(sympy.Eq(atom, (1 - alpha) ** H),
                   sympy.Eq(sympy.Integral(x**s * rho_c(x), (x, 0, 1)) + (1 - alpha) ** H,
                            (1 - alpha + alpha / (1 + s)) ** H)),
        assumptions=("0 < alpha <= 1 constant", "H a positive integer", "0 < x < 1"),
        steps=steps,
        identities=tuple(idents),
        paper="chowdhury2026",
        section="C5",
        proven_for="H = 1..12",
        notes=("Mellin identity (hence also the mass 1 - (1-alpha)^H of the continuous part, "
               "s = 0) proven exactly for H = 1..12; the binomial theorem for symbolic H is not "
               "closed by sympy without a convergence condition",),
    )


LAGUERRE_DEPTHS_DEFAULT = tuple(range(1, 13))
LAGUERRE_DEPTHS_FULL = tuple(range(1, 31))


@functools.cache
def laguerre_explicit_range(top: int) -> tuple[Identity, ...]:
    """Identities for H = 1..top (memoized)."""
    return tuple(laguerre_identity_explicit(h) for h in range(1, top + 1))


@derivation("laguerre")
def laguerre_derivation() -> Derivation:
    """Generalized-Laguerre closed form of the continuous part of the residual mixture."""
    sym = laguerre_identity_symbolic()
    explicit = laguerre_explicit_range(max(LAGUERRE_DEPTHS_DEFAULT))
    expr = sympy.Eq(sympy.Sum(mixture_term(k), (k, 1, H)), laguerre_form())
    steps = (
        Step("shift k = j + 1 in the binomial sum",
             sympy.Eq(sympy.Sum(mixture_term(k), (k, 1, H)),
                      sympy.Sum(mixture_term(j + 1), (j, 0, H - 1)))),
        Step("generalized Laguerre polynomial as a sum",
             sympy.Eq(sympy.assoc_laguerre(H - 1, 1, sympy.Symbol("y")),
                      sympy.assoc_laguerre(H - 1, 1, sympy.Symbol("y")).rewrite(sympy.Sum))),
        Step("the ratio of the summands simplifies to 1",
             sympy.Eq(sympy.Symbol("r_j"), sym.lhs, evaluate=False)),
    )
    return Derivation(
        name="laguerre",
        title="Generalized-Laguerre closed form of the residual density",
        description="The continuous part of the residual mixture equals "
        "alpha (1-alpha)^(H-1) L_{H-1}^{(1)}(-alpha t/(1-alpha)), t = ln(1/x).",
        expression=expr,
        assumptions=("0 < alpha < 1", "H a positive integer (symbolic)", "t = ln(1/x) > 0"),
        steps=steps,
        identities=(sym, *explicit),
        paper="posbias",
        section="C5",
        notes=("proven for symbolic H (termwise) and exactly for H = 1..12; H up to 30 in the "
               "slow tests",),
    )


@derivation("schedule-mixture")
def schedule_mixture_derivation() -> Derivation:
    """General schedule: Poisson-binomial weights from the generating function."""
    idents = []
    for T in range(1, 5):
        lams = sympy.symbols(f"lambda_1:{T + 1}", positive=True)
        atom, cont = schedule_mixture(lams)
        moments = _rho_mellin_moments(T)
        # replace t^(k-1)/(k-1)! by its Laplace transform at 1+s: the Mellin moment of rho_k
        poly = sympy.Poly(cont, t)
        mellin = atom + sympy.Add(*[coef * sympy.factorial(deg[0]) * moments[deg[0] + 1]
                                    for deg, coef in poly.terms()])
        target = sympy.Mul(*[(1 - lam + lam / (1 + s)) for lam in lams])
        idents.append(prove_equal(
            f"T = {T}: Mellin moments = prod_t (1 - lambda_t + lambda_t/(1+s))", mellin, target,
            simplify=lambda e: sympy.expand(sympy.cancel(sympy.together(e)))))
    for h in (1, 2, 3, 5, 8):
        atom, cont = schedule_mixture([alpha] * h)
        idents.append(prove_equal(f"constant lambda = alpha, T = {h}: Laguerre form",
                                  cont, laguerre_form(sympy.Integer(h)),
                                  simplify=_expand_rational))
    Tsym = sympy.Symbol("T", integer=True, positive=True)
    tt_ = sympy.Symbol("tau", integer=True, positive=True)
    lam = sympy.Function("lambda")
    w = sympy.Function("w")
    gen = sympy.Eq(sympy.Sum(w(k) * zz**k, (k, 0, Tsym)),
                   sympy.Product(1 - lam(tt_) + lam(tt_) * zz, (tt_, 1, Tsym)))
    expr = sympy.Eq(rho_c(x), sympy.Sum(w(k) * sympy.log(1 / x) ** (k - 1)
                                        / sympy.factorial(k - 1), (k, 1, Tsym)))
    return Derivation(
        name="schedule-mixture",
        title="Residual density for a general schedule",
        description="For a schedule lambda_t the weights of rho_k are Poisson-binomial, the "
        "coefficients of prod_t (1 - lambda_t + lambda_t z); the atom at x = 1 is w_0.",
        expression=expr,
        equations=(gen,),
        assumptions=("0 <= lambda_t <= 1", "T a positive integer"),
        steps=(Step("generating function of K ~ Poisson-binomial(lambda_1..lambda_T)", gen),
               Step("K layers attend, each multiplies the position by a uniform", expr)),
        identities=tuple(idents),
        paper="herasimchyk2026",
        section="X2",
        proven_for=("the Mellin moments for T = 1..4 with symbolic λ_t, the Laguerre form of a "
                    "constant λ for T = 1, 2, 3, 5, 8"),
    )


@derivation("minimum-dead-zone")
def minimum_dead_zone_derivation() -> Derivation:
    """Monotonicity of rho_c, its value at x -> 1^-, and when the factorial dead zone holds."""
    idents = []
    # termwise derivative in x for symbolic k >= 2
    kk = sympy.Symbol("k", integer=True, positive=True)
    term = sympy.log(1 / x) ** (kk - 1) / sympy.factorial(kk - 1)
    dterm = -sympy.log(1 / x) ** (kk - 2) / (sympy.factorial(kk - 2) * x)
    idents.append(prove_equal(
        "d/dx ln(1/x)^(k-1)/(k-1)! = -ln(1/x)^(k-2)/((k-2)! x) <= 0 (symbolic k >= 2)",
        sympy.diff(term, x), dterm,
        simplify=lambda e: sympy.simplify(sympy.combsimp(sympy.gammasimp(e)))))
    # value at x -> 1^- (t -> 0): only k = 1 survives; Laguerre at 0 gives H
    idents.append(prove_equal("Laguerre form at t = 0 equals H alpha (1-alpha)^(H-1) (symbolic H)",
                              laguerre_form().subs(t, 0), H * alpha * (1 - alpha) ** (H - 1)))
    for h in range(1, 9):
        idents.append(prove_equal(
            f"H = {h}: lim_(x->1-) rho_c = H alpha (1-alpha)^(H-1)",
            sympy.limit(mixture_sum(h).subs(t, sympy.log(1 / x)), x, 1, "-"),
            h * alpha * (1 - alpha) ** (h - 1)))
        # alpha = 1: only the k = H term
        idents.append(prove_equal(
            f"H = {h}, alpha = 1: rho(1/2) = (ln 2)^(H-1)/(H-1)!",
            mixture_sum(h, sympy.Integer(1), sympy.log(2)),
            sympy.log(2) ** (h - 1) / sympy.factorial(h - 1)))
    # (H-1)! * H alpha (1-alpha)^(H-1) -> oo for any fixed 0 < alpha < 1 (checked at alpha = 1/2
    # and 9/10 by sympy limits)
    for a in (sympy.Rational(1, 2), sympy.Rational(9, 10)):
        lim = sympy.limit(sympy.factorial(H) * a * (1 - a) ** (H - 1), H, sympy.oo)
        idents.append(prove_equal(f"alpha = {a}: (H-1)! H alpha (1-alpha)^(H-1) -> oo", lim,
                                  sympy.oo, simplify=lambda e: e))
    rho24 = density_at_half(24, sympy.Rational(1, 2), 20)
    lower24 = mp_text(mpmath.mpf(24) / 2**24, 20)
    inv_fact = mp_text(1 / mpmath.factorial(23), 20)
    expr = sympy.Eq(sympy.Derivative(rho_c(x), x),
                    -sympy.Sum(sympy.binomial(H, k) * alpha**k * (1 - alpha) ** (H - k)
                               * sympy.log(1 / x) ** (k - 2) / sympy.factorial(k - 2),
                               (k, 2, H)) / x)
    bound = sympy.GreaterThan(rho_c(sympy.Rational(1, 2)), H * alpha * (1 - alpha) ** (H - 1))
    limit_eq = sympy.Eq(sympy.Limit(rho_c(x), x, 1, "-"), H * alpha * (1 - alpha) ** (H - 1))
    # valid at alpha = 1 only: printed with its condition, rho_c(1/2) evaluated at alpha = 1
    alpha1 = sympy.Eq(sympy.Subs(rho_c(sympy.Rational(1, 2)), alpha, 1),
                      sympy.log(2) ** (H - 1) / sympy.factorial(H - 1))
    return Derivation(
        name="minimum-dead-zone",
        title="Monotone continuous part and the factorial dead zone",
        description="rho_c is non-increasing in x, so its infimum H alpha (1-alpha)^(H-1) is at "
        "x -> 1^-; rho(1/2) = O(1/(H-1)!) holds only for alpha = 1.",
        expression=expr,
        equations=(limit_eq, bound, alpha1),
        assumptions=("0 < alpha <= 1 constant", "H a positive integer", "0 < x < 1"),
        steps=(Step("each term is non-increasing in x", sympy.Eq(sympy.Derivative(term, x), dterm)),
               Step("at t = 0 only k = 1 survives", limit_eq),
               Step("all terms are >= 0, keep the k = 1 term at x = 1/2", bound),
               Step("alpha = 1: only k = H survives", alpha1)),
        identities=tuple(idents),
        paper="chowdhury2026",
        section="C6, C7",
        proven_for=("the monotonicity and the value at t = 0 for every k and H, the limit at "
                    "x -> 1^- and the alpha = 1 value for H = 1..8, and (H-1)! H alpha "
                    "(1-alpha)^(H-1) -> oo for alpha = 1/2, 9/10"),
        notes=(
            "the minimum of the continuous part is not interior: rho_c is monotone "
            "non-increasing, its infimum is the limit at x -> 1^-",
            "factorial dead zone: rho(1/2) <= 1/(H-1)! for every H only when alpha = 1; for fixed "
            "0 < alpha < 1, (H-1)! rho_c(1/2) >= H! alpha (1-alpha)^(H-1) -> oo",
            f"H = 24, alpha = 1/2: rho_c(1/2) = {rho24} (>= H alpha (1-alpha)^(H-1) = {lower24}); "
            f"1/23! = {inv_fact}",
        ),
        data={"rho_half_H24_alpha_half": rho24, "lower_bound_H24_alpha_half": lower24,
              "inverse_factorial_23": inv_fact},
    )
