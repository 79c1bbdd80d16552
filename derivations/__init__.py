"""Symbolic derivations of the continuum theory with sympy; LaTeX from ``sympy.latex``.

Never imports :mod:`posbias.numerics` (DESIGN.md: the two routes stay independent).
"""

__all__: list[str] = []
