"""Helpers shared by posbias' own claims: the rules of a two-route agreement (figures, decision,
examples, the rule text) and of an exact comparison, and the source of a result of the
package (:ref:`math-exact-structure`, X1-X7)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

import mpmath

from posbias.proofs_checks.cards import Example, Rule, Threshold
from posbias.proofs_checks.precision import Agreement
from posbias.proofs_checks.registry import Evidence

__all__ = [
    "AGREEMENT_THRESHOLDS",
    "AGREE_TEXT",
    "FIXED_DATE",
    "NO_FIGURES",
    "agree_examples",
    "agreement_example",
    "agreement_figures",
    "agreement_rule",
    "decide_agreement",
    "decide_exact",
    "disagreements",
    "exact_figures",
    "exact_rule",
    "mpf",
    "rounded",
    "show_schedule",
    "with_agreement",
    "x_source",
]

#: the date of the commit that fixed posbias' rules, before the results they decide
FIXED_DATE = "2026-12-01"

#: why a rule of posbias' own results has no paper figures to pass
NO_FIGURES = "a result of posbias itself: docs/explanation/mathematics.rst states formulas, no figures"


def x_source(n: int, title: str) -> str:
    """The source of a posbias result: :ref:`math-exact-structure`, item Xn, stated in the package's words."""
    return f"posbias, exact structure X{n} ({title}), docs/explanation/mathematics.rst X{n}"


def mpf(x: Fraction) -> Any:
    """An exact rational as an mpmath number at the working precision."""
    return mpmath.mpmathify(x)


def agreement_figures(agreements: Iterable[Agreement | dict], symbolic_open: int = 0,
                      **more: Any) -> dict:
    """Figures of one or more two-route agreements (:func:`agree` results, or their records
    ``{"state", "dps", "discrepancy"}``): per comparison, the largest relative discrepancy at
    the last precision tried, that precision, and whether precision ran out while the
    discrepancy was still shrinking; and the number of symbolic identities that did not close."""
    recs = []
    for ag in agreements:
        if isinstance(ag, dict):
            recs.append((ag["state"], ag["dps"], ag["discrepancy"]))
        else:
            recs.append((ag.state, ag.dps, ag.discrepancy))
    return {"discrepancy": [float(mpmath.mpf(d)) for _, _, d in recs],
            "dps": [dps for _, dps, _ in recs],
            "precision_ran_out": [st == "inconclusive" for st, _, _ in recs],
            "symbolic_open": symbolic_open, **more}


AGREEMENT_THRESHOLDS = {
    "guard_digits": Threshold(10, "two routes agree at dps d when their largest relative "
                              "discrepancy is <= 10^-(d - guard_digits)", scale="int",
                              sensitive=2, domain=(0, None)),
}


def disagreements(f, t):
    """(refuting, unresolved): comparisons beyond 10^-(dps - guard) whose discrepancy did not
    shrink with the precision, and those where precision ran out while it still shrank."""
    bad = [d > 10.0 ** -(dps - t["guard_digits"]) for d, dps in zip(f["discrepancy"], f["dps"])]
    refuting = sum(b and not r for b, r in zip(bad, f["precision_ran_out"]))
    unresolved = sum(b and r for b, r in zip(bad, f["precision_ran_out"]))
    return refuting, unresolved


def decide_agreement(f: Mapping, t: Mapping) -> str:
    """Two routes (and the symbolic identities): a disagreement that did not shrink with the
    precision -> refuted; a shrinking one when precision ran out, or an identity that did not
    close -> inconclusive; agreement with a stated correction -> qualified; else verified."""
    refuting, unresolved = disagreements(f, t)
    if refuting:
        return "refuted"
    if unresolved or f["symbolic_open"] > 0:
        return "inconclusive"
    if f.get("correction"):
        return "qualified"
    return "verified"


def agreement_rule(text: str, examples: Iterable[Example],
                   decide: Callable[[Mapping, Mapping], str],
                   outcomes: tuple[str, ...] = ("verified", "refuted", "inconclusive"),
                   extra: Mapping[str, Threshold] | None = None,
                   deciding: tuple[str, ...] = ("discrepancy", "dps", "symbolic_open")) -> Rule:
    """The rule of a two-route agreement: :data:`AGREEMENT_THRESHOLDS` (and ``extra``), decided
    by ``decide`` (:func:`decide_agreement`, or a claim's refinement of it)."""
    return Rule(text=text, decide=decide,
                thresholds={**AGREEMENT_THRESHOLDS, **(extra or {})}, outcomes=outcomes,
                examples=tuple(examples), fixed=FIXED_DATE, deciding=deciding,
                no_paper_figures=NO_FIGURES)


def agreement_example(disc, ran_out=False, open_=0, dps=30, **more):
    """The figures of an agreement rule's example: one comparison."""
    return {"discrepancy": [disc], "dps": [dps], "precision_ran_out": [ran_out],
            "symbolic_open": open_, **more}


def agree_examples(wrong: str, wrong_disc: float = 1e-3) -> tuple[Example, ...]:
    """The examples every agreement rule states: agreement, the false version ``wrong``
    (discrepancy ``wrong_disc`` at dps 240), precision run out, an identity left open."""
    return (
        Example("the two routes agree at dps 30", agreement_example(1e-29), "verified"),
        Example(wrong, agreement_example(wrong_disc, dps=240), "refuted", "false"),
        Example("precision ran out while the discrepancy was still shrinking",
                agreement_example(1e-15, ran_out=True, dps=240), "inconclusive"),
        Example("the numbers agree but a symbolic identity did not close",
                agreement_example(1e-29, open_=1), "inconclusive"),
    )


AGREE_TEXT = ("Two routes agree at dps d when their largest relative discrepancy is <= "
              "10^-(d - guard_digits), guard_digits = 10; on disagreement both are recomputed at "
              "twice the precision up to max_dps. refuted: a comparison still beyond the tolerance "
              "at the last precision with a discrepancy that did not shrink tenfold; "
              "inconclusive: precision ran out while it shrank, or a symbolic identity did not "
              "close; ")


def with_agreement(ev: Evidence, agreements: Iterable[Agreement | dict], symbolic_open: int,
                   rule: Rule, **more: Any) -> Evidence:
    """Attach the agreement figures to ``ev`` and take its verdict from ``rule``."""
    ev.figures = agreement_figures(agreements, symbolic_open, **more)
    ev.verdict = rule.apply(ev.figures).verdict
    return ev


def rounded(discrepancy: str, dps: int) -> str:
    """A numerical (quadrature, Gamma) discrepancy: "0" only says the two routes agree once
    both are rounded to ``dps`` digits."""
    if mpmath.mpf(discrepancy) == 0:
        return f"0 (both routes equal after rounding to {dps} digits: below 1e-{dps - 1} relative)"
    return discrepancy


def show_schedule(lams: Iterable[object]) -> str:
    """A schedule as ``[λ_1, ..., λ_T]``, each value exact."""
    return "[" + ", ".join(str(x) for x in lams) + "]"


def exact_figures(mismatches: int, ev: Evidence, setting: dict | None = None) -> Evidence:
    """Attach the figures of an exact comparison: the mismatches found (the check stops at the
    first one and prints it) and the cases compared; ``setting`` refines the card's test
    setting (a thorough run's larger grid)."""
    ev.figures = {"mismatches": mismatches, "cases": ev.cases}
    ev.setting = dict(setting or {})
    return ev


def decide_exact(f: Mapping, t: Mapping) -> str:
    """An exact comparison: a mismatch beyond the allowed none -> refuted, else verified."""
    return "refuted" if f["mismatches"] > t["mismatches_allowed"] else "verified"


def exact_rule(text: str, false_label: str, decide: Callable[[Mapping, Mapping], str]) -> Rule:
    """The rule of an exact comparison (no mismatch allowed), with the false version
    ``false_label`` as an example."""
    return Rule(
        text=text, decide=decide,
        thresholds={"mismatches_allowed": Threshold(0, "exact equality: no mismatch is allowed",
                                                    scale="fixed")},
        examples=(Example("every case equal (exact)", {"mismatches": 0, "cases": 100}, "verified"),
                  Example(false_label, {"mismatches": 1, "cases": 3}, "refuted", "false")),
        fixed=FIXED_DATE, deciding=("mismatches", "cases"), no_paper_figures=NO_FIGURES)
