"""Theory numbers on three paths: exact rationals, mpmath at a stated precision, numpy float64.

Kernels, schedules and last-row rollouts (Cesàro, dense, sliding window, prefix, decay, ALiBi),
their closed forms, measured rollout configs, the distances between profiles and the seeded case
generators of the property checks.  Never imports
sympy, torch or matplotlib (:ref:`claims-routes`: ``derivations``, ``numerics`` and ``measurements`` are
independent routes).  The public names are the union of the submodules' ``__all__``.
"""

from posbias.numerics import (
    alibi,
    cases,
    cesaro,
    closed_forms,
    compare,
    configs,
    kernels,
    rollout,
    schedules,
)

#: the public modules, in the order their names are re-exported
MODULES = (alibi, cases, cesaro, closed_forms, compare, configs, kernels, rollout, schedules)

for _module in MODULES:
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
del _module, _name

__all__ = sorted({name for module in MODULES for name in module.__all__})
