"""Helpers shared by the claim modules (not a claim module: the leading underscore keeps it out
of the automatic registration): seeded case generators, value printing, the sweep over generated
cases (worst margins, first counterexample, Evidence), and the combination of a symbolic route
(sympy derivations) with a numeric one (mpmath agreement) into Evidence."""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Literal

import mpmath
import sympy

from posbias.derivations import get_derivation
from posbias.proofs_checks.registry import CheckContext, Evidence

if TYPE_CHECKING:
    from posbias.derivations.core import Derivation

__all__ = [
    "EXACT",
    "CaseSweep",
    "case_rng",
    "combine_routes",
    "derivation_by_name",
    "format_matrix",
    "lambdify_mpmath",
    "latex_of_derivation",
    "nstr_or_zero",
    "sample_points",
    "show_value",
    "symbolic_summary",
    "sympy_latex",
    "with_identities",
]


def case_rng(ctx: CheckContext, paper: str, slug: str) -> random.Random:
    """The seeded generator of one claim's cases: reproducible from ``ctx.seed`` and distinct
    per claim, so adding a claim never changes another claim's cases."""
    return random.Random(f"{ctx.seed}:{paper}:{slug}")


class _Sentinel(enum.Enum):
    EXACT = "the discrepancy follows the verdict"


#: sentinel of :meth:`CaseSweep.evidence`: the discrepancy follows the verdict
EXACT: Final = _Sentinel.EXACT


class CaseSweep:
    """The recurring shape of a property check: generate cases, track the worst margin of each
    quantity, keep the first counterexample, and build the Evidence.

    >>> s = CaseSweep()
    >>> for x in (3, -1, 2):
    ...     s.case()
    ...     if s.low("margin", x) < 0:
    ...         s.fail(lambda: f"margin {x}")
    >>> s.cases, s.worst["margin"], s.counterexample, s.clean
    (3, -1, 'margin -1', False)
    >>> s.evidence(method="m", worst_margin="w", rule="r").verdict
    'refuted'
    """

    def __init__(self):
        self.cases = 0
        self.failures = 0
        self.counterexample = None
        self.worst: dict = {}  # smallest value seen of each quantity (a margin: >= 0 holds)
        self.most: dict = {}  # largest value seen of each quantity (a constant, a count)

    def case(self, count: int = 1) -> None:
        """Count generated cases."""
        self.cases += count

    def low(self, name: str, value: Any) -> Any:
        """Track the smallest ``value`` of ``name`` (None is ignored); returns ``value``."""
        if value is not None:
            cur = self.worst.get(name)
            if cur is None or value < cur:
                self.worst[name] = value
        return value

    def high(self, name: str, value: Any) -> Any:
        """Track the largest ``value`` of ``name`` (None is ignored); returns ``value``."""
        if value is not None:
            cur = self.most.get(name)
            if cur is None or value > cur:
                self.most[name] = value
        return value

    def fail(self, describe: str | Callable[..., str]) -> None:
        """Record a failing case; the first one's description (a string, or a callable that
        builds it only when needed) is the counterexample."""
        self.failures += 1
        if self.counterexample is None:
            self.counterexample = describe() if callable(describe) else describe

    @property
    def clean(self) -> bool:
        return self.failures == 0

    def evidence(self, *, method: str, worst_margin: str, rule: str | None = None, ok: bool = True,
                 discrepancy: str | Literal[_Sentinel.EXACT] | None = EXACT,
                 precision: str = "exact",
                 tolerance: str = "0 (exact comparison)", cases: int | None = None,
                 parameters: dict | None = None, details: dict | None = None) -> Evidence:
        """``verified`` when no case failed and ``ok`` (the check's further conditions), else
        ``refuted`` with the first counterexample.  ``rule`` (the map from numbers to verdict,
        fixed before computing) goes into the details under ``"rule"``."""
        verdict = "verified" if ok and self.clean else "refuted"
        if discrepancy is EXACT:
            discrepancy = "0 (exact)" if verdict == "verified" else None
        details = dict(details or {})
        if rule is not None:
            details["rule"] = rule
        return Evidence(
            verdict,
            method=method,
            discrepancy=discrepancy,
            precision=precision,
            tolerance=tolerance,
            counterexample=self.counterexample,
            cases=self.cases if cases is None else cases,
            worst_margin=worst_margin,
            parameters=dict(parameters or {}),
            details=details,
        )


def show_value(x: object) -> str:
    """An exact value as ``p/q`` when short, else 6 correct significant digits.

    >>> show_value(Fraction(1, 3)), show_value(Fraction(10**30 + 1, 3 * 10**30))
    ('1/3', '0.333333')
    """
    if isinstance(x, Fraction):
        s = str(x)
        if len(s) <= 24:
            return s
        with mpmath.workdps(30):
            return mpmath.nstr(mpmath.mpmathify(x), 6)
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 6)
    return str(x)


def format_matrix(A: Iterable[Iterable[object]]) -> str:
    """A small exact matrix on one line, rows separated by ``;``.

    >>> format_matrix([[Fraction(1), Fraction(0)], [Fraction(1, 2), Fraction(1, 2)]])
    '[1 0; 1/2 1/2]'
    """
    return "[" + "; ".join(" ".join(str(x) for x in row) for row in A) + "]"


def derivation_by_name(name):
    return get_derivation(name)

def latex_of_derivation(name):
    return lambda: derivation_by_name(name).latex

def symbolic_summary(derivations: Iterable[Derivation]) -> dict:
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

def sample_points(ctx: CheckContext, count: int, salt: str) -> list[str]:
    """Reproducible pseudo-random rationals in (0, 1) as strings (exact decimal inputs)."""
    rng = random.Random(f"{ctx.seed}:{salt}")
    return [f"0.{rng.randrange(10**6, 10**7 - 1):07d}" for _ in range(count)]

def lambdify_mpmath(args, expr):
    return sympy.lambdify(args, expr, modules="mpmath")

def with_identities(d, identities):
    return dataclasses.replace(d, identities=tuple(identities))

def nstr_or_zero(x, n=3):
    return mpmath.nstr(x, n) if x != 0 else "0"

def sympy_latex(build):
    def latex():
        return build(sympy)

    return latex
