"""barbero2024:simple-eigenvalue: a row-stochastic triangular (causal) matrix has 1 as its largest
eigenvalue, and that eigenvalue has multiplicity 1 if every row except the first has at least two
non-zero entries (Lemma B.6).

A causal matrix is lower-triangular, so its eigenvalues are its diagonal entries, all in [0, 1].
The check generates causal kernels meeting the assumption (random positive weights on random
masks with >= 2 entries per row after the first) and, exactly: the largest eigenvalue (the
largest diagonal entry) is 1; its algebraic multiplicity (diagonal entries equal to 1) is 1; its
geometric multiplicity (the dimension of the null space of A - I, by exact rank) is 1.  Kernels
whose rows after the first have a single non-zero entry off the diagonal (a row on token 1, like
a sink) are counted apart: the assumption fails there yet 1 stays simple, so the condition is
sufficient, not necessary (the exact condition is A_ii < 1 for every i >= 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from posbias.numerics.kernels import random_masked_kernel_exact
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.barbero2024._shared import FIXED, READ, rng
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "null_space_dimension"]

CASES = 60


def decide(f: Mapping, t: Mapping) -> str:
    """refuted when a kernel meeting the assumption has an eigenvalue above 1 or an eigenvalue 1
    of multiplicity other than 1; verified otherwise."""
    bad = f["largest_failures"] + f["algebraic_failures"] + f["geometric_failures"]
    return "refuted" if bad > t["allowed"] else "verified"


RULE = Rule(
    text=(f"{CASES} generated causal kernels meeting the assumption (n = 1..7, weights 1..9 on "
          "random masks with >= 2 entries in every row after the first), exact Fractions: "
          "largest_failures counts kernels whose largest eigenvalue (diagonal entry) is not 1, "
          "algebraic_failures those with a number of diagonal entries equal to 1 other than one, "
          "geometric_failures those with dim null(A - I) != 1. verified: all 0; refuted: any "
          "positive (the kernel is printed)."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons: no failure is allowed", scale="fixed")},
    examples=(
        Example("the assumption met: 1 is the largest and a simple eigenvalue",
                {"largest_failures": 0, "algebraic_failures": 0, "geometric_failures": 0},
                "verified"),
        Example("false: the lemma without its assumption (rows equal to e_i allowed): 1 repeats",
                {"largest_failures": 0, "algebraic_failures": 43, "geometric_failures": 43},
                "refuted", "false"),
    ),
    fixed=FIXED,
    deciding=("largest_failures", "algebraic_failures", "geometric_failures"),
    no_paper_figures="a lemma, with no figures",
)

CARD = Card(
    paper=Setting("barbero2024 Lemma B.6 (Appendix B.2, 'connection to the spectral theory of "
                  "Markov chains'); " + READ, architecture="causal attention matrix",
                  mask="causal", L="any"),
    test=Setting("exact Fractions: diagonal entries and the rank of A - I on generated kernels",
                 architecture="causal attention matrix", mask="causal", L="1..7", cases=CASES),
    proof=ProofStatus("all", note="the eigenvalues of a triangular matrix are its diagonal; "
                      "A_ii < 1 for i >= 2 when row i has two non-zero entries (they sum to 1); "
                      "the generated cases check the statement, including the geometric "
                      "multiplicity"),
)


def null_space_dimension(A: list[list[Fraction]]) -> int:
    """``dim null(A - I)`` by exact Gaussian elimination."""
    n = len(A)
    M = [[A[i][j] - (1 if i == j else 0) for j in range(n)] for i in range(n)]
    rank, row = 0, 0
    for col in range(n):
        pivot = next((r for r in range(row, n) if M[r][col] != 0), None)
        if pivot is None:
            continue
        M[row], M[pivot] = M[pivot], M[row]
        for r in range(n):
            if r != row and M[r][col] != 0:
                factor = M[r][col] / M[row][col]
                M[r] = [a - factor * b for a, b in zip(M[r], M[row])]
        row += 1
        rank += 1
    return n - rank


def _mask(r: Any, n: int, mode: str) -> list[list[bool]]:
    rows = [[j == 0 for j in range(n)]]
    for i in range(1, n):
        if mode == "single":  # one entry, off the diagonal (token 1, a sink row)
            keep = {0}
        elif mode == "identity" and r.random() < 0.4:
            keep = {i}
        else:
            keep = set(r.sample(range(i + 1), r.randint(2, i + 1)))
        rows.append([j in keep for j in range(n)])
    return rows


@claim(
    "barbero2024:simple-eigenvalue",
    statement="A row-stochastic triangular (causal) matrix has 1 as its largest eigenvalue, of "
    "multiplicity 1 when every row except the first has at least two non-zero entries.",
    latex=r"\lambda_{\max}(A) = 1,\qquad \#\{i : A_{ii} = 1\} = 1 = \dim\ker(A - I)"
    r"\quad\text{if } |\{j : A_{ij} \ne 0\}| \ge 2\ (i \ge 2)",
    expected="verified",
    section="Lemma B.6",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, assumption: bool = True) -> Evidence:
    """Lemma B.6 on generated kernels; ``assumption=False`` lets rows equal e_i (the lemma without
    its assumption, a false version for the tests)."""
    r = rng(ctx, "simple-eigenvalue")
    counts = {"largest_failures": 0, "algebraic_failures": 0, "geometric_failures": 0}
    first: str | None = None
    for case in range(CASES):
        n = r.randint(1, 7)
        A = random_masked_kernel_exact(_mask(r, n, "pairs" if assumption else "identity"), r)
        diag = [A[i][i] for i in range(n)]
        fails = {"largest_failures": max(diag) != 1,
                 "algebraic_failures": diag.count(Fraction(1)) != 1,
                 "geometric_failures": null_space_dimension(A) != 1}
        for key, bad in fails.items():
            counts[key] += int(bad)
            if bad and first is None:
                first = f"case {case}, n = {n}: diagonal {[str(x) for x in diag]} ({key})"
    sinks = 0  # the condition fails (one entry per row), yet 1 stays simple
    for n in range(2, 8):
        A = random_masked_kernel_exact(_mask(r, n, "single"), r)
        sinks += int(null_space_dimension(A) == 1 and [A[i][i] for i in range(n)].count(1) == 1)
    figures: dict[str, Any] = {**counts, "simple_without_the_assumption": sinks}
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, method="exact Fractions: diagonal of the triangular kernel (its eigenvalues) and "
        "the rank of A - I by Gaussian elimination",
        discrepancy="0 (exact)" if verdict == "verified" else None, precision="exact",
        tolerance="exact equality", cases=CASES, counterexample=first if verdict == "refuted" else None,
        parameters={"cases": CASES, "n": "1..7", "assumption": assumption},
        details={"sufficient, not necessary": f"{sinks} of 6 kernels whose rows after the first "
                 "read token 1 only (one non-zero entry, the assumption fails) still have 1 as a "
                 "simple eigenvalue: the exact condition is A_ii < 1 for every i >= 2"},
        figures=figures)
