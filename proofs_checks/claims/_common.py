"""Helpers shared by the claim modules (not a claim module: the leading underscore keeps it out
of the automatic registration): seeded case generators, value printing, and the combination of a
symbolic route (sympy derivations) with a numeric one (mpmath agreement) into Evidence."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath

from posbias.proofs_checks.registry import CheckContext, Evidence

__all__ = [
    "case_rng",
    "show_value",
    "derivation_by_name",
    "latex_of_derivation",
    "symbolic_summary",
    "combine_routes",
    "sample_points",
    "lambdify_mpmath",
    "with_identities",
    "nstr_or_zero",
    "sympy_latex",
]


def case_rng(ctx: CheckContext, paper: str, slug: str) -> random.Random:
    """The seeded generator of one claim's cases: reproducible from ``ctx.seed`` and distinct
    per claim, so adding a claim never changes another claim's cases."""
    return random.Random(f"{ctx.seed}:{paper}:{slug}")


def show_value(x) -> str:
    """An exact value as ``p/q`` when short, else 6 correct significant digits.

    >>> show_value(Fraction(1, 3)), show_value(Fraction(10**30 + 1, 3 * 10**30))
    ('1/3', '0.333333')
    """
    if isinstance(x, Fraction):
        s = str(x)
        if len(s) <= 24:
            return s
        with mpmath.workdps(30):
            return mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, 6)
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 6)
    return str(x)


def derivation_by_name(name):
    from posbias.derivations import get_derivation

    return get_derivation(name)

def latex_of_derivation(name):
    return lambda: derivation_by_name(name).latex

def symbolic_summary(derivations) -> dict:
    return {
        d.name: {"proven": d.proven, "identities": len(d.identities), "open": d.unproven()}
        for d in derivations
    }

def combine_routes(derivations, agreement, method, parameters, details=None, correction=None):
    """Verdict from the symbolic route (all proven?) and the numeric agreement."""
    details = dict(details or {})
    details["symbolic"] = symbolic_summary(derivations)
    details["precision_history"] = [list(h) for h in agreement.history]
    proven = all(d.proven for d in derivations)
    if agreement.state == "disagree":
        verdict = "refuted"
    elif agreement.state == "inconclusive" or not proven:
        verdict = "inconclusive"
        if not proven:
            details["reason"] = "symbolic identities did not close: " + "; ".join(
                label for d in derivations for label in d.unproven())
        else:
            details["reason"] = "precision ran out: raise --max-dps"
    else:
        verdict = "qualified" if correction else "verified"
    return Evidence(
        verdict,
        method=method,
        discrepancy=agreement.discrepancy,
        precision=f"dps={agreement.dps}",
        tolerance=agreement.tolerance(),
        correction=correction if verdict == "qualified" else None,
        counterexample=None,
        parameters=parameters,
        details=details,
    )

def sample_points(ctx: CheckContext, count: int, salt: str):
    """Reproducible pseudo-random rationals in (0, 1) as strings (exact decimal inputs)."""
    rng = random.Random(f"{ctx.seed}:{salt}")
    return [f"0.{rng.randrange(10**6, 10**7 - 1):07d}" for _ in range(count)]

def lambdify_mpmath(args, expr):
    import sympy

    return sympy.lambdify(args, expr, modules="mpmath")

def with_identities(d, identities):
    import dataclasses

    return dataclasses.replace(d, identities=tuple(identities))

def nstr_or_zero(x, n=3):
    return mpmath.nstr(x, n) if x != 0 else "0"

def sympy_latex(build):
    def latex():
        import sympy

        return build(sympy)

    return latex
