"""Validation of the derivations' arguments that may be symbols: a depth is either a SymPy
symbol (the general case, e.g. ``H``) or an integer in range, checked by
:mod:`posbias.validation` (the package's one validation layer)."""

from __future__ import annotations

import sympy

from posbias.errors import InvalidArgument
from posbias.validation import check_integer

__all__ = ["check_depth", "check_lambdas"]


def check_depth(parameter: str, depth: object, low: int = 1) -> int | sympy.Expr:
    """``depth`` unchanged when symbolic (a SymPy expression with free symbols), else as an
    ``int >= low``.

    >>> check_depth("depth", sympy.Symbol("H")), check_depth("depth", sympy.Integer(3))
    (H, 3)
    """
    if isinstance(depth, sympy.Basic) and depth.free_symbols:
        return depth
    if isinstance(depth, sympy.Integer):
        depth = int(depth)
    return check_integer(parameter, depth, low)


def check_lambdas(parameter: str, lambdas: object) -> list[sympy.Expr]:
    """A schedule for the symbolic route: each ``λ_t`` a SymPy symbol/expression with free
    symbols, or an exact number in ``[0, 1]`` (int, Fraction or SymPy rational); binary floats
    are refused (a symbolic identity would silently become a float computation).

    >>> check_lambdas("lambdas", [sympy.Rational(1, 2), sympy.Symbol("a")])
    [1/2, a]
    """
    if isinstance(lambdas, (str, bytes)) or not hasattr(lambdas, "__iter__"):
        raise InvalidArgument(parameter, lambdas, "a sequence of λ_t (symbols or exact numbers "
                              "in [0, 1])")
    out = []
    for k, lam in enumerate(lambdas):
        name = f"{parameter}[{k + 1}]"
        if isinstance(lam, sympy.Basic) and lam.free_symbols:
            out.append(lam)
            continue
        if isinstance(lam, (bool, float, sympy.Float)):
            raise InvalidArgument(name, lam, "a symbol or an exact number in [0, 1] (no floats)")
        exact = lam
        if not isinstance(lam, (int, sympy.Basic)) and hasattr(lam, "denominator"):
            exact = sympy.Rational(int(lam.numerator), int(lam.denominator))  # e.g. a Fraction
        try:
            value = (sympy.nsimplify(exact) if isinstance(exact, sympy.Basic)
                     else sympy.Integer(exact))
        except (TypeError, ValueError):
            raise InvalidArgument(name, exact, "a symbol or an exact number in [0, 1]") from None
        if not (value.is_rational and 0 <= value <= 1):
            raise InvalidArgument(name, exact, "a symbol or an exact number in [0, 1]")
        out.append(value)
    return out
