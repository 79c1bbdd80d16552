"""Numbers: exact rationals, mpmath and numpy; kernels, schedules and rollouts.

Never imports sympy (DESIGN.md: ``derivations`` and ``numerics`` are independent routes).
"""

__all__: list[str] = []
