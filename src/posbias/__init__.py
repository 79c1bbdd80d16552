"""posbias: derive, compute and check the theory of position bias in causal transformers.

Subpackages (imported on demand):

- :mod:`posbias.numerics`: exact, precise (mpmath) and fast (numpy) influence profiles;
- :mod:`posbias.derivations`: symbolic derivations of the continuum theory (sympy) and LaTeX;
- :mod:`posbias.proofs_checks`: the claim registry, verdicts, reports, CLI and pytest plugin.
"""

from posbias.errors import InvalidArgument, NeedsExtra

__version__ = "0.2.0"
__all__ = ["InvalidArgument", "NeedsExtra", "__version__"]
