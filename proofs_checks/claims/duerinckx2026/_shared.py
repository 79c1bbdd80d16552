"""Helpers shared by duerinckx2026's claims: what could be read of the paper, its setting as far
as it could be confirmed, the figures its public code produces, and the extrema of a profile on
a grid (precise path)."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from posbias.derivations import get_derivation
from posbias.numerics.kinetic import (
    KineticHead,
    KineticModel,
    kinetic_value_precise,
    kinetic_values,
)
from posbias.proofs_checks.cards import Setting
from posbias.proofs_checks.data import data_path

__all__ = [
    "CODE",
    "FIXED",
    "PAPER",
    "READ",
    "agreement_digits",
    "golden_minimum",
    "grid_s",
    "local_extrema",
    "paper_setting",
    "precise_values",
    "public_figures",
    "public_model",
    "symbolic_open",
    "valley_scan",
]

PAPER = "duerinckx2026"
#: the date the rules of these claims were fixed, before the results they decide
FIXED = "2026-12-04"
#: the public code the formulas and parameters are read from
CODE = ("public code github.com/borjanG/2026-lost-in-the-middle, commit c7e12ba, "
        "generate_u_shape_numerology_data.py")
#: what could be read of the paper
READ = ("read: the abstract (arXiv listing; third-party summaries at scholarfeed.org, "
        "tomesphere.com, pith.science); not read: the paper's text, theorems, sections, figure "
        "numbers and its smallness condition. The formulas and parameters come from its " + CODE)


def paper_setting(source: str, *, confirmed: Sequence[str] = (), **fields: Any) -> Setting:
    """The paper's setting with every field not in ``confirmed`` marked unconfirmed (read from
    the public code or inferred, not from the paper's text).  ``source`` names what of the paper
    the statement rests on; the note says what could be read (:data:`READ`)."""
    return Setting(f"duerinckx2026 (arXiv 2605.09213), {source}",
                   unconfirmed=[f for f in fields if f not in confirmed], note=READ, **fields)


@functools.cache
def public_figures() -> dict:
    """The numbers duerinckx2026's public script wrote (stored by posbias with their origin:
    ``proofs_checks/data/kinetic/duerinckx2026-public-figures.json``)."""
    with open(data_path("kinetic", "duerinckx2026-public-figures.json"), encoding="utf-8") as fh:
        return json.load(fh)


def grid_s(j: int) -> Fraction:
    """The public script's grid point ``s_j = 0.02 + j 0.96/799`` as the exact rational it means
    (the files print it with 6 decimals)."""
    return Fraction(1, 50) + Fraction(96 * j, 79900)


def public_model(heads: Sequence[tuple[Any, Any, Any]], t: Any, M: Any = 8,
                 modes: int = 20) -> KineticModel:
    """A model of the public script's form: heads ``(weight, beta, lambda)`` as decimal text,
    each with the mode sum ``M``, ``modes``, at time ``t``."""
    return KineticModel([KineticHead(str(lam), weight=str(w), beta=str(b), M=str(M), modes=modes)
                         for w, b, lam in heads], t=str(t))


def precise_values(model: KineticModel, points: Sequence[Fraction], dps: int) -> list[Any]:
    """``S_t`` at ``points`` in mpmath at ``dps`` digits."""
    return [kinetic_value_precise(p, model, dps) for p in points]


def local_extrema(values: Sequence[Any]) -> tuple[list[int], list[int]]:
    """Indices of the strict interior local minima and maxima of a sampled profile."""
    mins = [i for i in range(1, len(values) - 1) if values[i - 1] > values[i] < values[i + 1]]
    maxs = [i for i in range(1, len(values) - 1) if values[i - 1] < values[i] > values[i + 1]]
    return mins, maxs


def valley_scan(model: KineticModel, points: int = 400) -> tuple[list[float], bool]:
    """Interior local minima of the profile on ``s = j/points`` and whether ``S(1)`` exceeds its
    left neighbour (recency), on the fast path."""
    s = np.arange(1, points + 1) / points
    v = kinetic_values(s, model)
    mins, _ = local_extrema(list(v))
    return [float(s[i]) for i in mins], bool(v[-1] > v[-2])


def golden_minimum(f: Callable[[Any], Any], lo: Any, hi: Any, dps: int,
                   steps: int = 80) -> tuple[Any, Any]:
    """A local minimum of ``f`` bracketed by ``[lo, hi]`` (golden-section search in mpmath at
    ``dps`` digits, ``steps`` reductions by 0.618): ``(s, f(s))``."""
    with mpmath.workdps(dps):
        r = (mpmath.sqrt(5) - 1) / 2
        a, b = (mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction)
                else mpmath.mpf(x) for x in (lo, hi))
        x1, x2 = b - r * (b - a), a + r * (b - a)
        f1, f2 = f(x1), f(x2)
        for _ in range(steps):
            if f1 <= f2:
                b, x2, f2 = x2, x1, f1
                x1 = b - r * (b - a)
                f1 = f(x1)
            else:
                a, x1, f1 = x1, x2, f2
                x2 = a + r * (b - a)
                f2 = f(x2)
        return (x1, f1) if f1 <= f2 else (x2, f2)


def agreement_digits(a: Any, b: Any, dps: int = 400) -> float:
    """Significant digits on which ``a`` and ``b`` agree: ``-log10(|a - b| / max(|a|, |b|))``
    (inf when equal), computed at ``dps`` digits (mpf values keep all the digits they carry;
    the default exceeds every precision the claims use)."""
    with mpmath.workdps(dps):
        x, y = mpmath.mpf(a), mpmath.mpf(b)
        scale = max(abs(x), abs(y))
        if x == y or scale == 0:
            return math.inf
        return float(-mpmath.log10(abs(x - y) / scale))


def symbolic_open(*names: str) -> tuple[int, list]:
    """The derivations ``names`` and the number of their identities that did not close."""
    ds = [get_derivation(n) for n in names]
    return sum(len(d.unproven()) for d in ds), ds
