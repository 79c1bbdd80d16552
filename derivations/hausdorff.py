r"""The Hausdorff algebra of causal kernels and two of its consequences: a layer with an
attention sink (barbero2025) and the uniform-layer case of the over-squashing path sum
(barbero2024).

A Hausdorff matrix of moments ``μ_0, μ_1, ...`` (0-indexed rows and columns) is

.. math::  H(\mu)_{n,k} = \binom{n}{k} \sum_{j=0}^{n-k} (-1)^j \binom{n-k}{j} \mu_{k+j}
           = (\Delta\, \operatorname{diag}(\mu)\, \Delta)_{n,k},
           \qquad \Delta_{n,k} = (-1)^k \binom{n}{k},

and ``Δ`` is an involution (``(1 - (1 - x))^n = x^n`` read coefficient by coefficient), so
``H(μ) H(ν) = H(μ ν)``: Hausdorff matrices commute and multiply by multiplying moments.
``H(1) = I``, ``H(δ_{k0}) = J₁`` (every row on token 1) and ``H(1/(k+1)) = C`` (Cesàro).

* A sink layer ``(1-λ) I + λ (α J₁ + (1-α) C)`` is ``H`` of
  ``(1-λ) + λ (α δ_{k0} + (1-α)/(k+1))`` (linearity), and ``T`` of them give the product of
  the moments, for every ``T``.  For ``k >= 1`` each factor is ``(1 - λα)`` times a residual
  Cesàro factor with ``λ_eff = λ(1-α)/(1-λα)``: the profile is ``s p_C + (1-s) e_1``,
  ``s = Π (1 - λα)``.  In the continuum (law of a product of factors 1, 0, U with weights
  ``1-λ, λα, λ(1-α)``) the recency atom is ``(1-λ)^H`` whatever ``α`` and the density is
  ``Σ_k C(H,k) (λ(1-α))^k (1-λ)^(H-k) t^(k-1)/(k-1)!``, ``t = ln(1/x)``: every term of the
  sink-free density scaled by ``(1-α)^k``.
* barbero2024's bound with equal uniform attention (its Proposition B.8 normalisation) is
  ``((I + C)/2)^L = H(((1 + 1/(k+1))/2)^L)``, the residual Cesàro rollout with ``λ = 1/2``;
  ``μ_k^L -> 0`` for ``k >= 1`` gives the limit ``J₁`` (only the first token), with
  ``1 - P[n, 0] <= n (3/4)^L``.

Paper: posbias (X1, the algebra), barbero2025 (sink), barbero2024 (path sum).

>>> from posbias.derivations.hausdorff import hausdorff_matrix
>>> hausdorff_matrix([1, sympy.Rational(1, 2)])
Matrix([
[  1,   0],
[1/2, 1/2]])
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from posbias.derivations.core import Derivation, Step, derivation, prove_equal
from posbias.validation import check_integer

__all__ = [
    "hausdorff_algebra_derivation",
    "hausdorff_matrix",
    "sink_continuum_density",
    "sink_moments_derivation",
    "uniform_path_sum_derivation",
]

n, k, m = sympy.symbols("n k m", integer=True, nonnegative=True)
j = sympy.Symbol("j", integer=True, positive=True)
N = sympy.Symbol("N", integer=True, nonnegative=True)
x = sympy.Symbol("x")
t = sympy.Symbol("t", positive=True)
s = sympy.Symbol("s", positive=True)
#: the sheet's notation: alpha the residual layers' weight of attention, beta the sink's weight
lam = sympy.Symbol("alpha", positive=True)
alpha = sympy.Symbol("beta", positive=True)
H = sympy.Symbol("H", integer=True, positive=True)
L = H  # the depth (barbero2024 writes L for the number of layers)
mu_f = sympy.Function("mu")

#: matrix sizes of the instance checks of the algebra (symbolic moments)
SIZES = (1, 2, 3, 4, 5, 6)


def hausdorff_matrix(moments: Sequence[object]) -> sympy.Matrix:
    """``H(μ)`` of size ``len(moments)`` from the entry formula (moments sympy objects).

    >>> hausdorff_matrix([1, 0, 0])   # the point mass at 0: J_1
    Matrix([
    [1, 0, 0],
    [1, 0, 0],
    [1, 0, 0]])
    """
    mu = [sympy.sympify(v) for v in moments]
    size = check_integer("moments", len(mu), 1)

    def entry(r: int, c: int) -> sympy.Expr:
        if c > r:
            return sympy.Integer(0)
        return sympy.binomial(r, c) * sympy.Add(*[(-1) ** i * sympy.binomial(r - c, i) * mu[c + i]
                                                  for i in range(r - c + 1)])

    return sympy.Matrix(size, size, entry)


def _delta(size: int) -> sympy.Matrix:
    return sympy.Matrix(size, size, lambda r, c: (-1) ** c * sympy.binomial(r, c))


def _algebra_identities() -> list:
    idents = [
        prove_equal("C(n,k+j) C(k+j,k) = C(n,k) C(n-k,j) (symbolic: H(μ) = Δ diag(μ) Δ entry by "
                    "entry, m = k + j)",
                    sympy.binomial(n, k + j) * sympy.binomial(k + j, k) / (sympy.binomial(n, k)
                                                                          * sympy.binomial(n - k, j)),
                    1),
        prove_equal("Pascal's rule (symbolic N): the induction step of Σ_j C(N,j) x^j = (1+x)^N",
                    sympy.binomial(N + 1, j), sympy.binomial(N, j) + sympy.binomial(N, j - 1)),
        prove_equal("1 - (1 - x) = x: so Σ_k (-1)^k C(n,k) (1-x)^k = x^n and Δ² = I (coefficients "
                    "of x^m by the binomial theorem)", (1 - (1 - x)) ** n, x ** n),
        prove_equal("Σ_j (-1)^j C(m,j)/(k+j+1) = k! m!/(k+m+1)! (symbolic): H(1/(k+1)) is the "
                    "Cesàro matrix, C(n,k) k!(n-k)!/(n+1)! = 1/(n+1)",
                    sympy.summation((-1) ** j * sympy.binomial(m, j) / (k + j + 1), (j, 0, m)),
                    sympy.factorial(k) * sympy.factorial(m) / sympy.factorial(k + m + 1)),
    ]
    for size in SIZES:
        mu = sympy.symbols(f"mu0:{size}")
        nu = sympy.symbols(f"nu0:{size}")
        D = _delta(size)
        idents.append(prove_equal(f"size {size}: Δ² = I and H(μ)H(ν) = H(μν) (symbolic moments)",
                                  (D * D - sympy.eye(size)).row_join(
                                      hausdorff_matrix(mu) * hausdorff_matrix(nu)
                                      - hausdorff_matrix([a * b for a, b in zip(mu, nu)])),
                                  sympy.zeros(size, 2 * size)))
    size = 6
    idents.append(prove_equal("H(1) = I, H(δ_k0) = J₁, H(1/(k+1)) = C (size 6)",
                              hausdorff_matrix([1] * size).row_join(
                                  hausdorff_matrix([1] + [0] * (size - 1))).row_join(
                                  hausdorff_matrix([sympy.Rational(1, i + 1) for i in range(size)])),
                              sympy.eye(size).row_join(sympy.Matrix(size, size, lambda r, c: int(c == 0)))
                              .row_join(sympy.Matrix(size, size,
                                                     lambda r, c: sympy.Rational(1, r + 1) if c <= r else 0))))
    return idents


@derivation("hausdorff-algebra")
def hausdorff_algebra_derivation() -> Derivation:
    """Hausdorff matrices multiply by multiplying moments; I, J₁ and C are Hausdorff."""
    mu, nu = sympy.symbols("mu nu", commutative=False)
    Hn = sympy.Function("H")
    expr = sympy.Eq(sympy.Symbol("H_{n,k}"),
                    sympy.binomial(n, k) * sympy.Sum((-1) ** m * sympy.binomial(n - k, m) * mu_f(k + m),
                                                     (m, 0, n - k)))
    entry = expr
    product = sympy.Eq(Hn(mu) * Hn(nu), Hn(mu * nu))
    steps = (
        Step("entry formula of the Hausdorff matrix of the moments μ", entry),
        Step("Δ_{n,k} = (-1)^k C(n,k): H(μ) = Δ diag(μ) Δ (entry by entry, with m = k + j)",
             sympy.Eq(Hn(mu), sympy.Symbol("Delta", commutative=False)
                      * sympy.Function("diag")(mu) * sympy.Symbol("Delta", commutative=False))),
        Step("Δ is an involution: Σ_k (-1)^k C(n,k) (1 - x)^k = (1 - (1 - x))^n = x^n, the "
             "binomial theorem (induction on n by Pascal's rule)",
             sympy.Eq((1 - (1 - x)) ** n, x ** n)),
        Step("hence H(μ) H(ν) = Δ diag(μ) Δ Δ diag(ν) Δ = H(μν), and for every T the rollout of "
             "T Hausdorff layers is the Hausdorff matrix of the product of their moments", product),
        Step("moments 1, δ_k0 and 1/(k+1) give I, J₁ = 1 e_1^T and the Cesàro matrix",
             sympy.Eq(sympy.Sum((-1) ** m * sympy.binomial(n - k, m) / (k + m + 1), (m, 0, n - k)),
                      sympy.factorial(k) * sympy.factorial(n - k) / sympy.factorial(n + 1))),
    )
    return Derivation(
        name="hausdorff-algebra",
        title="Hausdorff matrices multiply by multiplying moments",
        description="The Hausdorff matrix of the moments mu is Delta diag(mu) Delta with Delta an "
        "involution, so a product of Hausdorff matrices is the Hausdorff matrix of the products "
        "of their moments, for all sizes; the identity, the first-token matrix J_1 and the Cesàro "
        "matrix are Hausdorff (moments 1, delta_k0, 1/(k+1)).",
        expression=expr,
        assumptions=("0-indexed rows n and columns k, k <= n", "moments any numbers (symbols)"),
        steps=steps,
        identities=tuple(_algebra_identities()),
        paper="posbias",
        section="X1",
    )


def sink_continuum_density(depth: object = H, a: sympy.Expr = alpha, weight: sympy.Expr = lam,
                           tt: sympy.Expr = t) -> sympy.Expr:
    """``Σ_{k=1}^{H} C(H,k) (λ(1-α))^k (1-λ)^(H-k) t^(k-1)/(k-1)!`` (``t = ln(1/x)``): the
    continuous part of the sink rollout's law; a sum for an integer depth, a ``Sum`` otherwise.

    >>> sink_continuum_density(1)
    alpha*(1 - beta)
    """
    d = sympy.sympify(depth)
    i = sympy.Symbol("i", integer=True, positive=True)
    term = (sympy.binomial(d, i) * (weight * (1 - a)) ** i * (1 - weight) ** (d - i)
            * tt ** (i - 1) / sympy.factorial(i - 1))
    if d.is_Integer:
        return sympy.Add(*[term.subs(i, q) for q in range(1, int(d) + 1)])
    return sympy.Sum(term, (i, 1, d))


@derivation("sink-moments")
def sink_moments_derivation() -> Derivation:
    """A sink layer's moments, the mixture form, the recency atom and the sink density."""
    kk = sympy.Symbol("k", integer=True, positive=True)
    eff = lam * (1 - alpha) / (1 - lam * alpha)
    layer = (1 - lam) + lam * (alpha * sympy.KroneckerDelta(k, 0) + (1 - alpha) / (k + 1))
    mu_T = sympy.Eq(mu_f(k), layer ** H)
    idents = [
        prove_equal("k >= 1: (1-λ) + λ(1-α)/(k+1) = (1-λα)[(1-λ_eff) + λ_eff/(k+1)], "
                    "λ_eff = λ(1-α)/(1-λα) (the mixture form)",
                    (1 - lam) + lam * (1 - alpha) / (kk + 1),
                    (1 - lam * alpha) * ((1 - eff) + eff / (kk + 1))),
        prove_equal("the recency atom: (1-λα)(1-λ_eff) = 1-λ, whatever α",
                    (1 - lam * alpha) * (1 - eff), 1 - lam),
        prove_equal("the density's k-th coefficient: (1-λα)^H C(H,k) λ_eff^k (1-λ_eff)^(H-k) = "
                    "C(H,k) (λ(1-α))^k (1-λ)^(H-k) (symbolic H, k)",
                    (1 - lam * alpha) ** H * sympy.binomial(H, kk) * eff ** kk * (1 - eff) ** (H - kk),
                    sympy.binomial(H, kk) * (lam * (1 - alpha)) ** kk * (1 - lam) ** (H - kk)),
        prove_equal("the layer at α = 0 is the residual Cesàro layer (moments 1-λ+λ/(k+1))",
                    layer.subs(alpha, 0), (1 - lam) + lam / (k + 1)),
    ]
    for h in range(1, 7):  # Mellin moments of atom + density = the layer moment^H (s > 0)
        cont = sympy.Add(*[sympy.binomial(h, q) * (lam * (1 - alpha)) ** q * (1 - lam) ** (h - q)
                           * (1 + s) ** (-q) for q in range(1, h + 1)])
        idents.append(prove_equal(f"H = {h}: (1-λ)^H + Mellin moments of the density = "
                                  "((1-λ) + λ(1-α)/(1+s))^H (the atom at 0 has no moment s > 0)",
                                  (1 - lam) ** h + cont, ((1 - lam) + lam * (1 - alpha) / (1 + s)) ** h,
                                  simplify=lambda e: sympy.simplify(sympy.expand(sympy.together(e)))))
    density = sympy.Eq(sympy.Function("rho_sink")(t), sink_continuum_density())
    eff_eq = sympy.Eq(sympy.Symbol("alpha_eff"), eff)
    steps = (
        Step("linearity of H: the layer (1-λ) I + λ(α J₁ + (1-α) C) has the moments", layer),
        Step("T layers (algebra hausdorff-algebra): the product of the moments, every T", mu_T),
        Step("k >= 1: the factor is (1-αβ) times the residual Cesàro factor with α_eff", eff_eq),
        Step("law: 0 with probability 1 - (1-λα)^H (the sink), else the product of a "
             "Binomial(H, λ_eff) number of uniforms; continuous part in t = ln(1/x)", density),
        Step("recency atom (1-λ)^H for every α; the density is the sink-free one with its k-th "
             "term scaled by (1-α)^k, so it lies below it everywhere (the dead zone deepens)",
             sympy.Eq(sympy.Symbol("a_H"), (1 - lam) ** H)),
    )
    return Derivation(
        name="sink-moments",
        title="A layer with an attention sink stays Hausdorff",
        description="The layer (1-alpha)I + alpha(beta J_1 + (1-beta)C), a sink of weight beta on "
        "token 1 (the mechanism of barbero2025; its claims write lambda for alpha and alpha for "
        "beta), has the moments (1-alpha) + alpha(beta delta_k0 + (1-beta)/(k+1)); H layers "
        "multiply them; the profile is s times the Cesàro profile at alpha_eff plus (1-s) on "
        "token 1; the recency atom (1-alpha)^H does not depend on beta and the density is the "
        "sink-free one with its k-th term scaled by (1-beta)^k.",
        expression=mu_T,
        equations=(density, eff_eq),
        assumptions=("0 <= beta <= 1, 0 < alpha <= 1, alpha beta < 1", "H a positive integer "
                     "(symbolic)",
                     "continuum limit L -> oo, t = ln(1/x)"),
        steps=steps,
        identities=tuple(idents),
        paper="barbero2025",
        section="sink layer",
        notes=("The Mellin check is an instance (H = 1..6); the coefficient identity behind it "
               "is symbolic in H and k.",),
    )


@derivation("uniform-path-sum")
def uniform_path_sum_derivation() -> Derivation:
    """barbero2024's path sum with equal uniform attention: the λ = 1/2 Cesàro rollout."""
    mu = ((1 + 1 / (k + 1)) / 2) ** L
    expr = sympy.Eq(mu_f(k), mu)
    idents = [
        prove_equal("(I + C)/2 has the moments (1 + 1/(k+1))/2 = 1 - λ + λ/(k+1) at λ = 1/2",
                    (1 + 1 / (k + 1)) / 2, 1 - sympy.Rational(1, 2) + sympy.Rational(1, 2) / (k + 1)),
        prove_equal("μ_1 = 3/4: the rate of 1 - P[n,0] <= n μ_1^L", mu.subs(k, 1), sympy.Rational(3, 4) ** L),
        prove_equal("μ_0 = 1 (rows sum to 1)", mu.subs(k, 0), 1),
    ]
    steps = (
        Step("Proposition B.8's normalisation: each layer is (Λ + I)/2 with Λ the attention; "
             "uniform causal attention Λ = C is H(1/(k+1))", sympy.Eq(sympy.Symbol("Lambda"), sympy.Symbol("C"))),
        Step("L layers (algebra hausdorff-algebra): the Hausdorff matrix of", expr),
        Step("for k >= 1, μ_k^L -> 0, so the limit is H(δ_k0) = J₁ = 1 e_1^T: the last token "
             "depends on the first only; 1 - P[n,0] = E[1 - (1-X)^n] <= n E[X] = n (3/4)^L",
             sympy.Eq(mu_f(1), sympy.Rational(3, 4) ** L)),
    )
    return Derivation(
        name="uniform-path-sum",
        title="The over-squashing path sum with equal uniform attention",
        description="((I + C)/2)^H (H layers, the L of barbero2024) is the Hausdorff matrix of "
        "((1 + 1/(k+1))/2)^H, the residual Cesàro rollout with alpha = 1/2; it tends to J_1 (only "
        "the first token) at the rate (3/4)^H.",
        expression=expr,
        assumptions=("uniform causal attention at every layer, layer-norm constants 1 (4 per "
                     "layer for the output norm), an MLP with Lipschitz constant 1",
                     "H a positive integer (symbolic)"),
        steps=steps,
        identities=tuple(idents),
        paper="barbero2024",
        section="Theorem B.5, Proposition B.8",
    )
