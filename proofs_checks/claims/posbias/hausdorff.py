"""posbias:hausdorff (X1): the residual-aware Cesàro rollout ``prod_t((1-λ_t)I + λ_t M)`` is the
Hausdorff matrix of the moments ``μ_n = prod_t(1 - λ_t + λ_t/(n+1))``: its entries are
``C(n,k) Σ_j (-1)^j C(n-k,j) μ_{k+j}`` and its eigenvalues (diagonal) are the ``μ_n``.

posbias' own result (docs/explanation/mathematics.rst X1, 'Hausdorff form'): the uniform causal kernel
``M[i,j] = 1/i`` and any schedule ``λ_t`` in [0, 1].

The check compares exactly (Fractions) on 7 rational schedules (edge cases T = 0, λ = 0,
λ = 1, constant, mixed, power; 12 random ones more with ``--thorough``) at L = 1, 2, 3, 5, 8, 13
(21, 34 with ``--thorough``): the Hausdorff entry formula's last row against the last-row
propagation, the diagonal product formula against the moments, and for small L the dense
product of the ``R(t)`` against the Hausdorff matrix and its diagonal.  It stops at the first
mismatch and prints it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from fractions import Fraction

from posbias.numerics.cesaro import cesaro_diagonal_exact, cesaro_profile_exact
from posbias.numerics.closed_forms import (
    cesaro_rollout_matrix_exact,
    hausdorff_matrix_exact,
    hausdorff_moments,
    hausdorff_profile_exact,
)
from posbias.numerics.schedules import power_schedule
from posbias.proofs_checks.cards import Card, ProofStatus, Setting
from posbias.proofs_checks.claims.posbias._shared import (
    decide_exact,
    exact_figures,
    exact_rule,
    show_schedule,
    x_source,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]

F = Fraction


def decide(f: Mapping, t: Mapping) -> str:
    """Exact equality on every case (:func:`decide_exact`)."""
    return decide_exact(f, t)


RULE = exact_rule(
    "Exact Fractions on 7 rational schedules (empty, λ = 0, λ = 1, constant, mixed, power) at "
    "L = 1, 2, 3, 5, 8, 13 (21, 34 thorough): the Hausdorff entry formula's last row equals the "
    "last-row propagation, the diagonal product formula equals μ_n, and for L <= 6 (10) the "
    "dense product of the R(t) equals the Hausdorff matrix with diagonal μ_n. verified: no "
    "mismatch; refuted: the first mismatch (printed).",
    "moments with a shifted index, μ_n = Π_t (1 - λ_t + λ_t/(n+2))",
    decide)

CARD = Card(
    paper=Setting(x_source(1, "Hausdorff form"), kernel="Cesàro", L="any",
                  configs="any schedule λ_t in [0, 1]"),
    test=Setting("exact Fraction comparisons", kernel="Cesàro", L="1, 2, 3, 5, 8, 13",
                 configs="7 rational schedules"),
    proof=ProofStatus("range", "L in {1, 2, 3, 5, 8, 13} on 7 rational schedules (exact "
                      "equality)"))


def _rational_schedules(ctx: CheckContext) -> list:
    """Named rational schedules: edge cases (T = 0, λ = 0, λ = 1) and mixed ones; 12 random
    ones more (seeded by ``ctx.seed``) with ``--thorough``."""
    out = [
        ("empty", []),
        ("lambda=0", [F(0)] * 2),
        ("lambda=1", [F(1)] * 4),
        ("const 1/2", [F(1, 2)] * 3),
        ("mixed", [F(1, 3), F(1), F(2, 5), F(0), F(7, 8)]),
        ("power 1/2,1", list(power_schedule(F(1, 2), 1, 4).exact())),
        ("const 1/7", [F(1, 7)] * 6),
    ]
    if ctx.thorough:
        rng = random.Random(ctx.seed)
        for n in range(12):
            T = rng.randint(1, 9)
            lams = [F(rng.randint(0, q), q) for q in (rng.randint(1, 12) for _ in range(T))]
            out.append((f"random #{n}", lams))
    return out


def _dense_mismatch(L: int, name: str, lams: list, mu: list, cases: int) -> Evidence | None:
    """The dense product of the R(t) against the Hausdorff matrix and its diagonal (the
    eigenvalues of a triangular matrix) against μ_n: the refuting evidence, or None."""
    dense = cesaro_rollout_matrix_exact(L, lams)
    hm = hausdorff_matrix_exact(L, lams)
    if dense != hm:
        return Evidence(
            "refuted", method="dense matrix product vs Hausdorff matrix (exact)",
            precision="exact",
            counterexample=f"L={L}, schedule {name} {show_schedule(lams)}: matrices differ",
            cases=cases)
    diag = [dense[i][i] for i in range(L)]
    upper_zero = all(dense[i][j] == 0 for i in range(L) for j in range(i + 1, L))
    if diag != mu or not upper_zero:
        return Evidence(
            "refuted", method="eigenvalues (diagonal of the triangular product) vs μ_n",
            precision="exact",
            counterexample=f"L={L}, schedule {name}: diagonal {diag} vs moments {mu}",
            cases=cases)
    return None


@claim(
    "posbias:hausdorff",
    statement=(
        "The residual-aware Cesàro rollout prod_t((1-λ_t)I + λ_t M) is the Hausdorff matrix of "
        "the moments μ_n = prod_t(1 - λ_t + λ_t/(n+1)): its entries are "
        "C(n,k) Σ_j (-1)^j C(n-k,j) μ_{k+j} and its eigenvalues (diagonal) are the μ_n."
    ),
    latex=(
        r"P[n,k] = \binom{n}{k} \sum_{j=0}^{n-k} (-1)^{j} \binom{n-k}{j} \mu_{k+j}, \qquad "
        r"\mu_{n} = \prod_{t=1}^{T} \left(1 - \lambda_{t} + \frac{\lambda_{t}}{n+1}\right)"
    ),
    expected="verified",
    assumptions=("M[i,j] = 1/i for j <= i (uniform causal attention)", "λ_t rational in [0, 1]",
                 "0-indexed n, k"),
    section="docs/explanation/mathematics.rst X1",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, profile: Callable[[int, list], list] | None = None) -> Evidence:
    """X1 exactly; ``profile(L, lams)`` replaces the Hausdorff entry formula's last row (tests
    pass false versions, e.g. moments with a shifted index)."""
    profile = profile or hausdorff_profile_exact
    lengths = [1, 2, 3, 5, 8, 13] + ([21, 34] if ctx.thorough else [])
    matrix_max = 10 if ctx.thorough else 6
    cases = 0
    for name, lams in _rational_schedules(ctx):
        for L in lengths:
            prop = cesaro_profile_exact(L, lams)
            haus = profile(L, lams)
            cases += 1
            if prop != haus:
                j = next(i for i, (x, y) in enumerate(zip(prop, haus)) if x != y)
                return exact_figures(1, Evidence(
                    "refuted", method="last-row propagation vs Hausdorff entry formula (exact)",
                    precision="exact",
                    counterexample=f"L={L}, schedule {name} {show_schedule(lams)}: p({j + 1}) = "
                                   f"{prop[j]} by propagation, {haus[j]} by the Hausdorff formula",
                    cases=cases))
            mu = hausdorff_moments(L, lams)
            if cesaro_diagonal_exact(L, lams) != mu:
                return exact_figures(1, Evidence(
                    "refuted", method="diagonal product formula vs moments", precision="exact",
                    counterexample=f"L={L}, schedule {name}: diagonal != moments", cases=cases))
            if matrix_max >= L:
                cases += 1
                refuted = _dense_mismatch(L, name, lams, mu, cases)
                if refuted is not None:
                    return exact_figures(1, refuted)
    return exact_figures(0, Evidence(
        "verified",
        method=("exact Fractions: last-row propagation == Hausdorff entry formula; explicit dense "
                "product of the R(t) == Hausdorff matrix; its diagonal (the eigenvalues of a "
                "triangular matrix) == μ_n == diagonal product formula"),
        discrepancy="0 (exact)", precision="exact", tolerance="exact equality", cases=cases,
        parameters={"lengths": lengths, "dense_matrix_up_to": matrix_max,
                    "schedules": [n for n, _ in _rational_schedules(ctx)]},
    ), {"L": ", ".join(map(str, lengths)),
        "configs": f"{len(_rational_schedules(ctx))} rational schedules"} if ctx.thorough else None)
