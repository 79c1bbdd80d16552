"""posbias:content-as-residual (X4): adding ``d`` to the diagonal logit of a softmax row is a
residual step, ``A(d)[i,:] = (1-γ_i) A(0)[i,:] + γ_i e_i`` with
``γ_i = (e^d - 1) A(0)[i,i] / (1 + (e^d - 1) A(0)[i,i])``.

posbias' own result (docs/explanation/mathematics.rst X4, 'diagonal content is a residual'): one softmax
head with any causal logits and a real diagonal logit ``d``.

The check compares, in mpmath with escalating precision, the dense softmax rows with diagonal
``d`` against the residual formula applied to ``d = 0``, on every entry of 3 random cases
(ALiBi logits, slope in [0, 2), ``d ~ N(0, 9)``, L 2..8; 6 cases with ``--thorough``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import numpy as np

from posbias.numerics.alibi import alibi_kernel_dense_precise, alibi_layer
from posbias.proofs_checks.cards import Card, ProofStatus, Setting
from posbias.proofs_checks.claims._common import sympy_latex
from posbias.proofs_checks.claims.posbias._shared import (
    AGREE_TEXT,
    agree_examples,
    agreement_figures,
    agreement_rule,
    decide_agreement,
    x_source,
)
from posbias.proofs_checks.precision import agree
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """The dense softmax rows against the residual formula (:func:`decide_agreement`)."""
    return decide_agreement(f, t)


RULE = agreement_rule(
    "The dense mpmath softmax row with diagonal logit d against (1 - γ_i) A(0)[i,:] + γ_i e_i, "
    "γ_i = (e^d - 1) A(0)[i,i] / (1 + (e^d - 1) A(0)[i,i]), every entry of 3 random cases "
    "(6 thorough). " + AGREE_TEXT + "verified otherwise.",
    agree_examples("the first-order γ_i = (e^d - 1) A(0)[i,i] (no normalisation)", 0.3)[:3],
    decide)

CARD = Card(
    paper=Setting(x_source(4, "diagonal content is a residual"), kernel="one softmax head, "
                  "causal logits, a real diagonal logit d", L="any"),
    test=Setting("dense mpmath softmax with diagonal d against the residual formula on 3 "
                 "random cases (ALiBi logits, slope in [0, 2), d ~ N(0, 9))",
                 kernel="one softmax head, causal logits, a real diagonal logit d", L="2..8"),
    proof=ProofStatus("numeric", note="the identity is elementary algebra of one softmax "
                      "row; the check compares it numerically, it does not prove it"))


def _latex(sp):
    d, a = sp.symbols("d a_{ii}", real=True)
    gamma = (sp.exp(d) - 1) * a / (1 + (sp.exp(d) - 1) * a)
    return (r"A^{(d)}_{i,:} = (1-\gamma_i)\,A^{(0)}_{i,:} + \gamma_i e_i^{\top},\quad \gamma_i = "
            + sp.latex(gamma))


@claim(
    "posbias:content-as-residual",
    statement="Adding d to the diagonal logit of a softmax row is a residual step: "
    "A(d)[i,:] = (1-γ_i) A(0)[i,:] + γ_i e_i with γ_i = (e^d - 1) A(0)[i,i] / (1 + (e^d - 1) A(0)[i,i]).",
    latex=sympy_latex(_latex),
    expected="verified",
    section="X4",
    assumptions=("one softmax head (any causal logits; here ALiBi), real d",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, gamma: Callable[[Any, Any], Any] | None = None) -> Evidence:
    """X4 numerically; ``gamma(e, a)`` (``e = e^d - 1``, ``a = A(0)[i,i]``) replaces the stated
    ``γ = e a / (1 + e a)`` (``lambda e, a: e * a``, the first-order value, is a false version)."""
    gamma = gamma or (lambda e, a: e * a / (1 + e * a))
    rng = np.random.default_rng(ctx.seed + 2)
    cases = []
    for _ in range(6 if ctx.thorough else 3):
        L = int(rng.integers(2, 9))
        m = float(rng.random() * 2)
        d = float(rng.normal() * 3)
        cases.append((L, m, d))

    def lhs(dps):
        out = []
        for L, m, d in cases:
            A = alibi_kernel_dense_precise(L, alibi_layer([m], diagonal=d), dps=dps)
            out += [x for row in A for x in row]
        return out

    def rhs(dps):
        out = []
        for L, m, d in cases:
            A0 = alibi_kernel_dense_precise(L, alibi_layer([m]), dps=dps)
            e = mpmath.exp(mpmath.mpf(d)) - 1
            for i in range(L):
                g = gamma(e, A0[i][i])
                out += [(1 - g) * A0[i][c] + (g if c == i else 0) for c in range(L)]
        return out

    ag = agree(lhs, rhs, ctx.dps, ctx.max_dps)
    figures = agreement_figures([ag])
    verdict = RULE.apply(figures).verdict
    return Evidence(
        verdict, figures=figures,
        method="dense mpmath softmax kernel with diagonal d vs the residual formula applied to d = 0",
        discrepancy=ag.discrepancy,
        precision=f"dps={ag.dps}",
        tolerance=ag.tolerance(),
        cases=len(cases),
        counterexample=None if ag.ok else f"cases (L, m, d) = {cases}",
        parameters={"cases (L, m, d)": [list(c) for c in cases]},
    )
