"""Seeded case generators for the property checks: families of causal, monotone and masked
kernels, stacks of layers, mixing schedules and ALiBi/content layer parameters.

The checks of the claims draw their cases from here (one generator per family, beside the
kernels it builds on in :mod:`posbias.numerics.kernels`), so that a family means the same thing
in every claim.  Every generator takes a seeded ``random.Random`` (exact families) or a
``numpy.random.Generator`` (float ALiBi families) and consumes it in a fixed order: the same
seed gives the same cases, and a claim's cases never depend on another claim's.

Exact families (``fractions.Fraction`` entries):

- ``positive``: every causal entry positive (as for softmax attention);
- ``sparse``: each off-diagonal causal entry kept with probability 1/2, zero diagonals allowed;
- ``monotone``: stochastically monotone (row CDFs ordered, herasimchyk2026 H2), a positive
  diagonal with probability 0.7;
- ``cesaro``: the uniform causal kernel.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import numpy as np

from posbias.errors import InvalidArgument
from posbias.numerics.kernels import (
    random_causal_kernel_exact,
    random_masked_kernel_exact,
    random_monotone_kernel_exact,
    uniform_causal_kernel_exact,
)
from posbias.validation import check_integer

__all__ = [
    "KERNEL_FAMILIES",
    "causal_mask",
    "random_alibi_case",
    "random_family_kernel_exact",
    "random_family_layers_exact",
    "random_masked_layers_exact",
    "random_schedule_exact",
    "window_mask",
]

#: the exact kernel families of :func:`random_family_kernel_exact`
KERNEL_FAMILIES = ("positive", "sparse", "monotone", "cesaro")


def _check_random(rng: Any) -> random.Random:
    if not isinstance(rng, random.Random):
        raise InvalidArgument("rng", rng, "a random.Random instance (seeded)")
    return rng


def causal_mask(L: int) -> list:
    """The causal mask of ``L`` tokens as rows of booleans (token ``i`` reads ``j <= i``).

    >>> causal_mask(2)
    [[True, False], [True, True]]
    """
    L = check_integer("L", L, 1)
    return [[j <= i for j in range(L)] for i in range(L)]


def window_mask(L: int, w: int) -> list:
    """The sliding-window mask (wu2025): token ``i`` reads ``{i-w+1, ..., i}``.

    >>> window_mask(3, 2)
    [[True, False, False], [True, True, False], [False, True, True]]
    """
    L = check_integer("L", L, 1)
    w = check_integer("w", w, 1)
    return [[i - w < j <= i for j in range(L)] for i in range(L)]


def random_schedule_exact(rng: random.Random, T: int, q: int = 4) -> list:
    """``λ_1..λ_T`` on the grid ``{0, 1/q, ..., 1}``: with probability 1/4 all ones, 1/4 one
    constant grid value, else independent grid values (so λ = 0 and λ = 1 are covered).

    >>> [str(x) for x in random_schedule_exact(random.Random(0), 3)]
    ['3/4', '0', '1/2']
    """
    rng = _check_random(rng)
    T = check_integer("T", T, 0)
    q = check_integer("q", q, 1)
    style = rng.randrange(4)
    if style == 0:
        return [Fraction(1)] * T
    if style == 1:
        c = Fraction(rng.randint(0, q), q)
        return [c] * T
    return [Fraction(rng.randint(0, q), q) for _ in range(T)]


def random_family_kernel_exact(rng: random.Random, L: int, family: str) -> list:
    """One exact causal kernel of a family in :data:`KERNEL_FAMILIES`.

    >>> A = random_family_kernel_exact(random.Random(1), 3, "monotone")
    >>> all(sum(row) == 1 for row in A)
    True
    """
    rng = _check_random(rng)
    L = check_integer("L", L, 1)
    if family == "positive":
        return random_causal_kernel_exact(L, rng)
    if family == "sparse":
        return random_causal_kernel_exact(L, rng, density=Fraction(1, 2))
    if family == "monotone":
        return random_monotone_kernel_exact(L, rng, positive_diagonal=rng.random() < 0.7)
    if family == "cesaro":
        return uniform_causal_kernel_exact(L)
    raise InvalidArgument("family", family, "one of " + ", ".join(KERNEL_FAMILIES))


def random_family_layers_exact(rng: random.Random, L: int, T: int, family: str) -> list:
    """``max(T, 1)`` kernels of one family: with probability 0.3 the same kernel in every
    layer, else independent draws (a depth-0 case still gets one kernel, for its size).

    >>> len(random_family_layers_exact(random.Random(2), 3, 0, "positive"))
    1
    """
    rng = _check_random(rng)
    T = check_integer("T", T, 0)
    if rng.random() < 0.3:
        A = random_family_kernel_exact(rng, L, family)
        return [A] * max(T, 1)
    return [random_family_kernel_exact(rng, L, family) for _ in range(max(T, 1))]


def random_masked_layers_exact(rng: random.Random, mask: list, T: int, uniform: list, *,
                               max_weight: int = 9) -> list:
    """``T`` kernels supported on ``mask``: the given ``uniform`` kernel in every layer, one
    random kernel repeated, or ``T`` independent random ones (each with probability 1/3).
    Random entries get integer weights ``1..max_weight`` before normalisation, so every entry
    on the mask is at least ``1/(max_weight * row support)``.

    >>> ks = random_masked_layers_exact(random.Random(0), causal_mask(2), 2, [[1, 0], [1, 1]])
    >>> len(ks)
    2
    """
    rng = _check_random(rng)
    T = check_integer("T", T, 0)
    style = rng.randrange(3)
    if style == 0:
        return [uniform] * T
    if style == 1:
        return [random_masked_kernel_exact(mask, rng, max_weight=max_weight)] * T
    return [random_masked_kernel_exact(mask, rng, max_weight=max_weight) for _ in range(T)]


def random_alibi_case(rng: np.random.Generator, T: int, H: int) -> list:
    """``T`` ALiBi/content layers as ``(slopes, diagonal logits, head weights)`` arrays of
    ``H`` heads: slopes uniform on ``[0, s)`` with a scale ``s`` in ``{0.05, 0.5, 2}`` (head 1's
    slope 0 with probability 0.2), diagonal logits normal with a scale in ``{0, 1, 4}``, head
    weights in ``[0.05, 1.05)``.

    >>> [len(x) for x in random_alibi_case(np.random.default_rng(0), 1, 2)[0]]
    [2, 2, 2]
    """
    if not isinstance(rng, np.random.Generator):
        raise InvalidArgument("rng", rng, "a numpy.random.Generator (seeded)")
    T = check_integer("T", T, 0)
    H = check_integer("H", H, 1)
    layers = []
    for _ in range(T):
        m = rng.random(H) * rng.choice([0.05, 0.5, 2.0])
        if rng.random() < 0.2:
            m[0] = 0.0
        d = rng.normal(size=H) * rng.choice([0.0, 1.0, 4.0])
        w = rng.random(H) + 0.05
        layers.append((m, d, w))
    return layers
