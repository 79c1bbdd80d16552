"""Symbolic derivations of the continuum theory with sympy; LaTeX from sympy's printer.

Each derivation is a :class:`Derivation` record (expression, steps, assumptions, the symbolic
identities checked and whether they all closed), built once per process and looked up by name:

>>> from posbias.derivations import get_derivation
>>> d = get_derivation("hardy-kernel")
>>> d.proven, d.paper
(True, 'chowdhury2026')

Never imports :mod:`posbias.numerics` (:ref:`claims-routes`: the routes stay independent).
"""

from posbias.derivations.core import (
    Derivation,
    Identity,
    Step,
    all_derivations,
    derivation_names,
    get_derivation,
    prove_equal,
    to_latex,
)

__all__ = [
    "Derivation",
    "Identity",
    "Step",
    "all_derivations",
    "derivation_names",
    "get_derivation",
    "prove_equal",
    "to_latex",
]
