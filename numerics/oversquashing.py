r"""Information flow to the last token (barbero2024): path sums of attention products, the
exact Jacobian of the scalar network the over-squashing bound is derived for, the softmax
total variation of two logit sequences, and a small exactly computable transformer for the
counting argument.

* Path sum: for layers ``Ā^{(0)}, ..., Ā^{(L-1)}`` (causal, non-negative) the sum over
  non-decreasing index sequences ``i <= k_1 <= ... <= k_{L-1} <= n`` of
  ``Ā^{(L-1)}_{n,k_{L-1}} ⋯ Ā^{(1)}_{k_2,k_1} Ā^{(0)}_{k_1,i}`` (:func:`path_sum_exact`, by
  enumeration) is the entry ``(Ā^{(L-1)} ⋯ Ā^{(0)})[n, i]`` of the product.
* Scalar network (barbero2024's simplified model: attention independent of the input, the
  layer norms as constants ``β``, an MLP ``ψ`` with Lipschitz constant ``σ_ψ``):
  ``z_j = Σ_{i<=j} α_{j,i} v_i / β_1 + v_j``, ``v'_j = ψ(z_j / β_2) + z_j``, ``y_n = v^{(L)}_n / β_3``;
  :func:`scalar_network_jacobian_exact` gives ``∂y_n/∂v^{(0)}_i`` exactly by forward-mode
  differentiation with a rational ``ψ``.
* :func:`softmax_l1_precise` is the ℓ1 distance (barbero2024's "total variation") between the
  softmaxes of two logit vectors.
* :class:`TinyTransformer`: embeddings, optional positional vectors, layers of one attention
  head (full or causal mask) with a residual and a ReLU MLP; exact with the positive score
  ``T_4(s) = Σ_{m<=4} s^m/m!`` (an even Taylor polynomial of ``exp``, positive on the real line)
  and mean-centring, precise (mpmath) with ``exp`` and LayerNorm.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import mpmath

from posbias.errors import InvalidArgument
from posbias.validation import check_dps, check_integer

__all__ = [
    "TinyTransformer",
    "path_sum_exact",
    "path_sum_literal_exact",
    "product_entry_exact",
    "rational_psi",
    "scalar_network_jacobian_exact",
    "softmax_l1_precise",
]


def _check_layers(layers: Sequence[Sequence[Sequence[Any]]]) -> int:
    if not layers:
        raise InvalidArgument("layers", "[]", "at least one layer")
    n = len(layers[0])
    for t, A in enumerate(layers):
        if len(A) != n or any(len(r) != n for r in A):
            raise InvalidArgument(f"layers[{t + 1}]", f"{len(A)} rows", f"an {n} x {n} matrix")
    return n


def product_entry_exact(layers: Sequence[Sequence[Sequence[Any]]], n: int, i: int) -> Fraction:
    """``(Ā^{(L-1)} ⋯ Ā^{(0)})[n, i]`` (1-indexed ``n, i``; ``layers[0]`` is ``Ā^{(0)}``, met
    last by the row ``e_n``) by row propagation.

    >>> product_entry_exact([[[1, 0], [1, 1]]] * 2, 2, 1)
    Fraction(2, 1)
    """
    size = _check_layers(layers)
    n = check_integer("n", n, 1, size)
    i = check_integer("i", i, 1, size)
    v = [Fraction(0)] * size
    v[n - 1] = Fraction(1)
    for A in reversed(layers):
        v = [sum((v[r] * Fraction(A[r][c]) for r in range(size) if v[r] and A[r][c]), Fraction(0))
             for c in range(size)]
    return v[i - 1]


def path_sum_exact(layers: Sequence[Sequence[Sequence[Any]]], n: int, i: int) -> Fraction:
    """The sum over causal paths ``i <= k_1 <= ... <= k_{L-1} <= n`` of the products of
    attention coefficients along them, by enumerating the paths (``C(n-i+L-1, L-1)`` of them).

    >>> path_sum_exact([[[1, 0], [1, 1]]] * 2, 2, 1)   # paths 1->1->2 and 1->2->2
    Fraction(2, 1)
    """
    size = _check_layers(layers)
    n = check_integer("n", n, 1, size)
    i = check_integer("i", i, 1, size)
    L = len(layers)
    if i > n:
        return Fraction(0)
    total = Fraction(0)
    for ks in itertools.combinations_with_replacement(range(i, n + 1), L - 1):
        idx = (i, *ks, n)
        term = Fraction(1)
        for layer in range(L):
            term *= Fraction(layers[layer][idx[layer + 1] - 1][idx[layer] - 1])
            if not term:
                break
        total += term
    return total


def path_sum_literal_exact(layers: Sequence[Sequence[Sequence[Any]]], n: int, i: int) -> Fraction:
    """The over-squashing sum read literally with ``L`` nested indices ``k_1..k_L``:
    ``Σ ᾱ^{(L-1)}_{n,k_L} Π_{ℓ=2}^{L-1} ᾱ^{(ℓ-1)}_{k_ℓ,k_{ℓ-1}} ᾱ^{(0)}_{k_1,i}`` (``k_L`` and
    ``k_{L-1}`` joined by no coefficient, so the sum over ``k_L >= k_{L-1}`` is free), for
    comparison with the product's ``L - 1`` intermediate indices.

    >>> path_sum_literal_exact([[[1, 0], [1, 1]]] * 2, 2, 1)
    Fraction(3, 1)
    """
    size = _check_layers(layers)
    n = check_integer("n", n, 1, size)
    i = check_integer("i", i, 1, size)
    L = len(layers)
    if L < 2 or i > n:
        return path_sum_exact(layers, n, i)
    total = Fraction(0)
    for ks in itertools.combinations_with_replacement(range(i, n + 1), L):
        term = Fraction(layers[0][ks[0] - 1][i - 1])
        for ell in range(2, L):
            term *= Fraction(layers[ell - 1][ks[ell - 1] - 1][ks[ell - 2] - 1])
        term *= Fraction(layers[L - 1][n - 1][ks[L - 1] - 1])
        total += term
    return total


def rational_psi(x: Fraction) -> tuple[Fraction, Fraction]:
    """``ψ(x) = x / (1 + x²)`` and ``ψ'(x) = (1 - x²)/(1 + x²)²``: a rational MLP with
    Lipschitz constant ``σ_ψ = 1`` (``|ψ'| <= 1``, equality at 0).

    >>> rational_psi(Fraction(1))
    (Fraction(1, 2), Fraction(0, 1))
    """
    d = 1 + x * x
    return x / d, (1 - x * x) / (d * d)


def scalar_network_jacobian_exact(attention: Sequence[Sequence[Sequence[Any]]],
                                  inputs: Sequence[Any], betas: tuple[Any, Any, Any],
                                  psi: Callable[[Fraction], tuple[Fraction, Fraction]] = rational_psi
                                  ) -> list[Fraction]:
    """``∂y_n/∂v^{(0)}_i`` (``i = 1..n``) of the scalar network ``z_j = Σ_i α_{j,i} v_i/β_1 + v_j``,
    ``v'_j = ψ(z_j/β_2) + z_j``, ``y_n = v^{(L)}_n/β_3`` at the point ``inputs``, exactly
    (forward mode: each token carries its value and its derivative row).

    >>> scalar_network_jacobian_exact([[[1, 0], [0, 1]]], [0, 0], (1, 1, 1), lambda x: (x, Fraction(1)))
    [Fraction(0, 1), Fraction(4, 1)]
    """
    size = _check_layers(attention)
    b1, b2, b3 = (Fraction(b) for b in betas)
    if min(b1, b2, b3) <= 0:
        raise InvalidArgument("betas", betas, "three positive constants")
    v = [Fraction(x) for x in inputs]
    if len(v) != size:
        raise InvalidArgument("inputs", f"{len(v)} values", f"{size} (one per token)")
    D = [[Fraction(int(r == c)) for c in range(size)] for r in range(size)]
    for A in attention:
        z, Dz = [], []
        for j in range(size):
            zj = v[j] + sum((Fraction(A[j][i]) * v[i] for i in range(j + 1)), Fraction(0)) / b1
            row = [D[j][c] + sum((Fraction(A[j][i]) * D[i][c] for i in range(j + 1)),
                                 Fraction(0)) / b1 for c in range(size)]
            z.append(zj)
            Dz.append(row)
        v, D = [], []
        for j in range(size):
            value, slope = psi(z[j] / b2)
            v.append(value + z[j])
            D.append([(slope / b2 + 1) * d for d in Dz[j]])
    return [d / b3 for d in D[-1]]


def softmax_l1_precise(x: Sequence[Any], y: Sequence[Any], dps: int) -> Any:
    """``Σ_i |softmax(x)_i - softmax(y)_i|`` in mpmath at ``dps`` digits (barbero2024's total
    variation, without the factor 1/2).

    >>> mpmath.nstr(softmax_l1_precise([1, 0], [0, 1], 20), 12)
    '0.92423431452'
    """
    dps = check_dps("dps", dps)
    if len(x) != len(y) or not len(x):
        raise InvalidArgument("y", f"{len(y)} logits", f"as many as x ({len(x)}), at least 1")
    with mpmath.workdps(dps):
        ex = [mpmath.exp(mpmath.mpmathify(a)) for a in x]
        ey = [mpmath.exp(mpmath.mpmathify(b)) for b in y]
        zx, zy = mpmath.fsum(ex), mpmath.fsum(ey)
        return mpmath.fsum(abs(a / zx - b / zy) for a, b in zip(ex, ey))


# ----------------------------------------------------------------------------- counting
def _taylor_exp4(s: Fraction) -> Fraction:
    return 1 + s + s * s / 2 + s ** 3 / 6 + s ** 4 / 24


class TinyTransformer:
    """A small transformer with rational weights for exact experiments: token embeddings (``d``
    numbers per token type), optional positional vectors added at the input, and ``layers``
    blocks ``z = x + Attn(x)``, ``x' = z + W_2 relu(W_1 z)`` with one attention head
    (``q, k, v`` linear maps; mask ``full`` or ``causal``).

    ``forward_exact`` scores with the positive rational ``T_4(q·k)`` and centres each token
    (subtracts its mean feature); ``forward_precise`` scores with ``exp(q·k)`` and applies
    LayerNorm (mean 0, variance 1).  Both are functions of the multiset of tokens a position
    reads, except through positional vectors or the mask.
    """

    def __init__(self, rng: random.Random, vocab: int = 3, d: int = 3, layers: int = 2,
                 hidden: int = 4, max_length: int = 64) -> None:
        if not isinstance(rng, random.Random):
            raise InvalidArgument("rng", rng, "a seeded random.Random")
        self.vocab = check_integer("vocab", vocab, 1)
        self.d = check_integer("d", d, 1)
        self.layers = check_integer("layers", layers, 1)
        self.hidden = check_integer("hidden", hidden, 1)

        def mat(r: int, c: int) -> list[list[Fraction]]:
            return [[Fraction(rng.randint(-4, 4), 4) for _ in range(c)] for _ in range(r)]

        self.embed = mat(self.vocab, self.d)
        self.pos = mat(check_integer("max_length", max_length, 1), self.d)
        self.blocks = [{"q": mat(self.d, self.d), "k": mat(self.d, self.d), "v": mat(self.d, self.d),
                        "w1": mat(self.hidden, self.d), "w2": mat(self.d, self.hidden)}
                       for _ in range(self.layers)]

    @staticmethod
    def _mv(M: list[list[Any]], x: list[Any], zero: Any) -> list[Any]:
        return [sum((a * b for a, b in zip(row, x)), zero) for row in M]

    def _run(self, tokens: Sequence[int], mask: str, positions: bool, zero: Any,
             score: Callable[[Any], Any], norm: Callable[[list[Any]], list[Any]],
             cast: Callable[[Fraction], Any]) -> list[list[Any]]:
        if mask not in ("full", "causal"):
            raise InvalidArgument("mask", mask, "full or causal")
        n = len(tokens)
        if not 1 <= n <= len(self.pos):
            raise InvalidArgument("tokens", f"{n} tokens", f"1..{len(self.pos)} tokens")
        for tok in tokens:
            check_integer("token", tok, 0, self.vocab - 1)
        x = [[cast(e) + (cast(p) if positions else zero) for e, p in zip(self.embed[t], self.pos[j])]
             for j, t in enumerate(tokens)]
        for blk in self.blocks:
            B = {k: [[cast(a) for a in row] for row in M] for k, M in blk.items()}
            h = [norm(xi) for xi in x]
            q = [self._mv(B["q"], hi, zero) for hi in h]
            k = [self._mv(B["k"], hi, zero) for hi in h]
            v = [self._mv(B["v"], hi, zero) for hi in h]
            z = []
            for i in range(n):
                reads = range(n) if mask == "full" else range(i + 1)
                w = [score(sum((a * b for a, b in zip(q[i], k[j])), zero)) for j in reads]
                tot = sum(w, zero)
                att = [sum((wj * v[j][c] for wj, j in zip(w, reads)), zero) / tot
                       for c in range(self.d)]
                z.append([a + b for a, b in zip(x[i], att)])
            x = []
            for zi in z:
                hid = [max(a, zero) for a in self._mv(B["w1"], norm(zi), zero)]
                x.append([a + b for a, b in zip(zi, self._mv(B["w2"], hid, zero))])
        return x

    def forward_exact(self, tokens: Sequence[int], *, mask: str = "full",
                      positions: bool = False) -> list[list[Fraction]]:
        """Every token's final representation, exactly (rational score ``T_4``, centring).

        >>> net = TinyTransformer(random.Random(0), vocab=2)
        >>> net.forward_exact([1, 0]) == [net.forward_exact([1, 1, 0, 0])[i] for i in (0, 2)]
        True
        """
        def centre(x: list[Fraction]) -> list[Fraction]:
            m = sum(x, Fraction(0)) / len(x)
            return [a - m for a in x]

        return self._run(tokens, mask, positions, Fraction(0), _taylor_exp4, centre, Fraction)

    def forward_precise(self, tokens: Sequence[int], dps: int, *, mask: str = "full",
                        positions: bool = False) -> list[list[Any]]:
        """Every token's final representation in mpmath at ``dps`` digits (``exp`` scores,
        LayerNorm with ε = 1e-5)."""
        dps = check_dps("dps", dps)

        def layer_norm(x: list[Any]) -> list[Any]:
            m = mpmath.fsum(x) / len(x)
            var = mpmath.fsum((a - m) ** 2 for a in x) / len(x)
            s = mpmath.sqrt(var + mpmath.mpf("1e-5"))
            return [(a - m) / s for a in x]

        with mpmath.workdps(dps):
            return self._run(tokens, mask, positions, mpmath.mpf(0), mpmath.exp, layer_norm,
                             mpmath.mpmathify)

