"""Helpers shared by wu2024's claim modules: what could be read of the paper, the date the rules
were fixed, and the uniform kernels of the masks compared."""

from __future__ import annotations

import functools
from fractions import Fraction

from posbias.numerics.collapse import dobrushin_exact, matrix_powers_exact
from posbias.numerics.kernels import sliding_window_kernel_exact, uniform_causal_kernel_exact

__all__ = ["FIXED", "LENGTH", "MASKS", "PAPER", "READ", "consensus_distances", "uniform_kernel"]

PAPER = "wu2024"
#: the date the rules of these claims were fixed, before their results
FIXED = "2026-12-04"
READ = ("read: the arXiv abstract (v2 HTML page opening) and third-party summaries (NeurIPS 2024 "
        "poster notes with the captions of Figures 2 and 3); the theorem's statement, its rate "
        "C(1 - ε^r)^(t/r) with r the mask graph's radius from a centre node, and the exact form "
        "of its exponent could not be read from the paper and are as wu2025's analogous "
        "sliding-window theorem (W2) and the summaries state them; no public code was found")
#: the length of the uniform kernels compared exactly
LENGTH = 12
#: the masks compared: causal and sliding windows (the uniform kernel of each)
MASKS = ("causal", "window 2", "window 3", "window 4", "window 6")


def uniform_kernel(mask: str, length: int = LENGTH) -> list[list[Fraction]]:
    """The uniform attention kernel of a named mask (``causal`` or ``window W``)."""
    if mask == "causal":
        return uniform_causal_kernel_exact(length)
    return sliding_window_kernel_exact(length, int(mask.split()[1]))


@functools.cache
def consensus_distances(mask: str, depth: int, length: int = LENGTH) -> tuple[Fraction, ...]:
    """``τ(A^t)`` for ``t = 1..depth``, A the mask's uniform kernel, exactly (computed once per
    process)."""
    A = uniform_kernel(mask, length)
    return tuple(dobrushin_exact(P) for P in matrix_powers_exact([A] * depth))
