"""Helpers shared by barbero2025's claim modules: what could be read of the paper, the date the
rules were fixed, the grids shared with chowdhury2026's analytic claims, and the sink layer."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["DEPTH", "FIXED", "PAPER", "READ", "RESIDUAL_WEIGHTS", "SINK_WEIGHTS", "sink_layer_exact"]

PAPER = "barbero2025"
#: the date the rules of these claims were fixed, before their results
FIXED = "2026-12-04"
READ = ("read: the arXiv and OpenReview abstracts (COLM 2025) and third-party notes on the paper "
        "(its Section 4.1 small-model runs and Figure 5; its Table 1 sink rates of the Llama 3.1 "
        "family at ε = 0.8, T = 64: 8B 45.97 %, 70B 73.49 %, 405B 78.29 %); the paper's "
        "theorems could not be read, so the sink layer (1-λ)I + λ(αJ₁ + (1-α)C) is posbias's "
        "model of its mechanism; no public code was found")
#: chowdhury2026's residual weights (its Step-0 fits) and depth: the dead zone and recency delta
#: posbias computes for that paper, here with a sink
RESIDUAL_WEIGHTS = (Fraction(7, 100), Fraction(1, 10), Fraction(13, 100))
DEPTH = 24
#: sink weights: a light sink, an even split, and 4/5 (barbero2025's sink criterion ε = 0.8)
SINK_WEIGHTS = (Fraction(1, 10), Fraction(1, 2), Fraction(4, 5))


def sink_layer_exact(length: int, alpha: Fraction, lam: Fraction) -> list[list[Fraction]]:
    """The dense sink layer ``(1-λ) I + λ (α J₁ + (1-α) C)`` (a route independent of the
    kernel's propagation code), exactly.

    >>> [str(x) for x in sink_layer_exact(2, Fraction(1, 2), Fraction(1))[1]]
    ['3/4', '1/4']
    """
    return [[(1 - lam) * (i == j) + lam * ((alpha if j == 0 else 0) + (1 - alpha) / (i + 1))
             if j <= i else Fraction(0) for j in range(length)] for i in range(length)]
