r"""Rank collapse of attention-only rollouts under masks (wu2024): the consensus distance of a
rollout, its exact rate for a fixed kernel, and the graph bound for masks with a centre.

Attention only, ``X(t) = P(t) X(0)`` with ``P(t) = A(t) ⋯ A(1)`` row-stochastic: the rows of
``P(t)`` becoming equal is rank collapse (every token's representation the same mixture).  Its
worst case over inputs is the Dobrushin coefficient

.. math::  \tau(P) = \tfrac12 \max_{i,k} \sum_j |P_{ij} - P_{kj}|
           = \sup_{X} \frac{\operatorname{osc}(P X)}{\operatorname{osc}(X)}

(``osc`` the largest difference between two rows, column by column), submultiplicative:
``τ(PQ) <= τ(P) τ(Q)``.

* Graph bound: if every row of the mask reaches a centre token in ``r`` steps (self-loops
  allowed) and every entry on the mask is at least ``ε``, each product of ``r`` layers has a
  column ``>= ε^r``, so ``τ <= 1 - ε^r`` per ``r`` layers and
  ``τ(P(t)) <= (1 - ε^r)^{⌊t/r⌋}`` (:func:`collapse_bound_exact`).
* Exact rate of a fixed causal kernel: ``A`` is lower-triangular, so its eigenvalues are its
  diagonal; with row 1 equal to ``e_1`` the eigenvalue 1 belongs to the consensus direction and
  ``lim τ(A^t)^{1/t}`` is the largest remaining diagonal entry
  (:func:`spectral_collapse_rate_exact`): ``1/2`` for the Cesàro kernel and for every uniform
  sliding window ``w >= 2`` (row 2 reads tokens 1 and 2), whatever the mask's radius.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from posbias.errors import InvalidArgument
from posbias.numerics.kernels import validate_kernel_exact
from posbias.validation import check_integer

__all__ = [
    "centre_distance",
    "collapse_bound_exact",
    "dobrushin_exact",
    "matrix_powers_exact",
    "spectral_collapse_rate_exact",
]


def dobrushin_exact(P: Sequence[Sequence[Any]]) -> Fraction:
    """The Dobrushin coefficient ``τ(P) = ½ max_{i,k} Σ_j |P_ij - P_kj|`` of a row-stochastic
    matrix, exactly (``0``: all rows equal, rank collapse; ``1``: two rows with disjoint support).

    >>> dobrushin_exact([[1, 0], [Fraction(1, 2), Fraction(1, 2)]])
    Fraction(1, 2)
    """
    rows = validate_kernel_exact(P, "P", causal=False)
    best = Fraction(0)
    for i in range(len(rows)):
        for k in range(i):
            d = sum((abs(a - b) for a, b in zip(rows[i], rows[k])), Fraction(0)) / 2
            if d > best:
                best = d
    return best


def spectral_collapse_rate_exact(A: Sequence[Sequence[Any]]) -> Fraction:
    """``lim_t τ(A^t)^{1/t}`` for a causal (lower-triangular) row-stochastic ``A``: its
    eigenvalues are its diagonal entries; removing the eigenvalue 1 of the consensus direction
    (``A[1,1] = 1``), the rate is the largest one left (``1`` when another row is ``e_i``:
    no collapse).

    >>> from posbias.numerics.kernels import uniform_causal_kernel_exact
    >>> spectral_collapse_rate_exact(uniform_causal_kernel_exact(5))
    Fraction(1, 2)
    """
    rows = validate_kernel_exact(A, "A", causal=True)
    diag = sorted((rows[i][i] for i in range(len(rows))), reverse=True)
    return diag[1] if len(diag) > 1 else Fraction(0)


def centre_distance(mask: Sequence[Sequence[bool]], centre: int = 1) -> int:
    """The radius ``r`` of a mask with respect to a centre token (1-indexed): the largest number
    of steps a row needs to reach the centre along the mask's edges (``i`` reads ``j`` when
    ``mask[i][j]``); with self-loops every row then reaches it in exactly ``r`` steps.  Causal
    mask: 1; sliding window ``w``: ``⌈(L - 1)/(w - 1)⌉``.

    >>> from posbias.numerics.cases import window_mask
    >>> centre_distance(window_mask(7, 3))
    3
    """
    n = len(mask)
    c = check_integer("centre", centre, 1, n) - 1
    # breadth-first search backwards: who reaches the centre in d steps
    dist = [-1] * n
    dist[c] = 0
    queue = deque([c])
    readers = [[i for i in range(n) if mask[i][j]] for j in range(n)]
    while queue:
        j = queue.popleft()
        for i in readers[j]:
            if dist[i] < 0:
                dist[i] = dist[j] + 1
                queue.append(i)
    if min(dist) < 0:
        raise InvalidArgument("mask", f"row {dist.index(-1) + 1}", "a mask in which every row "
                              "reaches the centre (quasi-strongly connected)")
    return max(dist)


def collapse_bound_exact(eps: Any, radius: int, depth: int) -> Fraction:
    """The graph bound ``(1 - ε^r)^{⌊t/r⌋}`` on ``τ(P(t))`` for entries ``>= ε`` on a mask of
    radius ``r`` (the discrete form of ``C (1 - ε^r)^{t/r}`` with ``C = 1/(1 - ε^r)``).

    >>> collapse_bound_exact(Fraction(1, 2), 2, 5)
    Fraction(9, 16)
    """
    eps = Fraction(eps)
    r = check_integer("radius", radius, 1)
    t = check_integer("depth", depth, 0)
    if not 0 < eps <= 1:
        raise InvalidArgument("eps", str(eps), "a lower bound in (0, 1]")
    return (1 - eps ** r) ** (t // r)


def matrix_powers_exact(layers: Sequence[Sequence[Sequence[Any]]]) -> list[list[list[Fraction]]]:
    """``[P(1), ..., P(T)]`` with ``P(t) = A(t) ⋯ A(1)`` for exact causal kernels (small ``L``:
    ``O(T L^3)``), attention only.

    >>> [[str(x) for x in r] for r in matrix_powers_exact([[[1, 0], [Fraction(1, 2), Fraction(1, 2)]]] * 2)[-1]]
    [['1', '0'], ['3/4', '1/4']]
    """
    mats = [validate_kernel_exact(A, f"layers[{t + 1}]", causal=True) for t, A in enumerate(layers)]
    out: list[list[list[Fraction]]] = []
    P: list[list[Fraction]] | None = None
    for A in mats:
        n = len(A)
        if P is None:
            P = [list(r) for r in A]
        else:
            Q: list[list[Fraction]] = P
            P = [[sum((A[i][k] * Q[k][j] for k in range(j, i + 1) if A[i][k] and Q[k][j]),
                      Fraction(0)) for j in range(n)] for i in range(n)]
        out.append(P)
    return out
