"""wu2025:causal-collapse (W1): attention-only causal rollouts whose entries are at least ε on
the causal edges satisfy ``P(t)[i,j] <= C (1-(j-1)ε)^t`` for ``1 < j <= i``, so every row tends
to ``e_1``.

wu2025 section 4, causal-mask theorem (theorem number not confirmed here): attention only
(``λ_t = 1``), ``A(t)`` causal and row-stochastic with ``A(t)[i,j] >= ε`` for ``j <= i``.

The check generates 50 causal kernel stacks (L 2..6, T 1..8, weights 1..9 per mask entry; 300
larger ones with ``--thorough``), takes ε as their smallest entry on the mask, and compares
exactly (Fractions) at every depth: the bound with ``C = 1``, its one-step contraction of the
tail mass (the proof's induction step) and the collapse ``1 - P(T)[i,1] <= (1-ε)^T``.  The
Cesàro kernel (L = 8, T = 40) shows how far from sharp the rate is.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from posbias.errors import InvalidArgument
from posbias.numerics.cases import causal_mask, random_masked_layers_exact
from posbias.numerics.kernels import rollout_matrices_exact, uniform_causal_kernel_exact
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting
from posbias.proofs_checks.claims._common import CaseSweep, format_matrix, show_value
from posbias.proofs_checks.claims.wu2025._shared import (
    FIXED_DATE,
    claim_rng,
    epsilon,
    margin_floor,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "causal_collapse_margins", "check", "decide"]

_MARGINS = ("bound_margin", "step_margin", "collapse_margin")


def decide(f: Mapping, t: Mapping) -> str:
    """W1: refuted when an exact margin (the bound, its one-step contraction, the collapse
    onto the first token) is below the floor 0; verified otherwise."""
    return "refuted" if any(f[n] < t["margin_floor"] for n in _MARGINS) else "verified"


RULE = Rule(
    text=("W1 on 50 generated causal kernels (L 2..6, T 1..8, weights 1..9 per entry, ε the "
          "smallest entry on the mask), exact Fractions: verified when every case has "
          "bound_margin = min (1-(j-1)ε)^t - P(t)[i,j] >= 0 (C = 1), step_margin (the one-step "
          "contraction of the tail mass) >= 0 and collapse_margin = (1-ε)^T - max_i (1 - "
          "P(T)[i,1]) >= 0; refuted by the first case that breaks one (printed)."),
    decide=decide,
    thresholds=margin_floor(),
    examples=(
        Example("the stated rate on the default cases: attained (every margin 0 exactly, at the "
                "uniform kernel's first step)", {"bound_margin": Fraction(0),
                "step_margin": Fraction(0), "collapse_margin": Fraction(0)}, "verified"),
        Example("a rate twice as fast, (1-(j-1)ε)^{2t}: the Cesàro kernel L = 3, T = 5 breaks it "
                "(margin -1/4)", {"bound_margin": Fraction(-1, 4),
                "step_margin": Fraction(0), "collapse_margin": Fraction(0)}, "refuted", "false"),
    ),
    fixed=FIXED_DATE,
    deciding=_MARGINS,
    no_paper_figures="wu2025 states W1 as a bound, with no figures",
)

CARD = Card(
    paper=Setting("wu2025 section 4, causal-mask theorem (W1; theorem number not confirmed here)",
                  architecture="attention only", residual="off",
                  mask="causal, entries >= ε on causal edges", L="any", H="any depth t"),
    test=Setting("exact Fraction rollouts of 50 generated kernels (weights 1..9 per mask entry)",
                 architecture="attention only", residual="off",
                 mask="causal, entries >= ε on causal edges", L="2..6", H="1..8"),
    proof=ProofStatus("numeric", note="exact comparisons on generated kernels: a property test, "
                      "not a proof; the one-step contraction checked is the proof's induction step"),
)


def causal_collapse_margins(kernels: list, eps: Fraction, exponent: Fraction = Fraction(1)) -> dict:
    """Exact margins of wu2025's causal bound ``P(t)[i,j] <= (1-(j-1)ε)^t`` (``C = 1``) at every
    depth, of its one-step contraction, and the best constant ``C = max P(t)[i,j]/(1-(j-1)ε)^t``.
    ``exponent`` ``a = p/r`` tests the bound ``(1-(j-1)ε)^{a t}`` instead (compared exactly as
    ``P^r <= (1-(j-1)ε)^{p t}``; the margin is then ``(1-(j-1)ε)^{p t} - P^r``).

    The contraction: with ``g_t(i, j) = Σ_{l>=j} P(t)[i,l]`` (mass of row ``i`` on positions
    ``>= j``), ``g_t(i,j) <= (1 - (j-1) ε) max_k g_{t-1}(k, j)`` for ``j >= 2``.
    """
    L = len(kernels[0])
    T = len(kernels)
    if not eps > 0 or 1 - (L - 1) * eps <= 0:
        raise InvalidArgument("eps", str(eps), f"a lower bound ε in (0, 1/(L-1)) (L = {L})")
    Ps = rollout_matrices_exact(kernels, [Fraction(1)] * T)
    bound_margin = None
    step_margin = None
    best_c = Fraction(0)
    for t in range(1, T + 1):
        P, Q = Ps[t], Ps[t - 1]
        for j in range(1, L):
            rate = 1 - j * eps  # 1 - (j-1) ε for the 1-indexed position j+1
            gprev = max(sum(Q[k][j:], Fraction(0)) for k in range(L))
            for i in range(j, L):
                b = (rate ** t - P[i][j] if exponent == 1 else
                     rate ** (exponent.numerator * t) - P[i][j] ** exponent.denominator)
                bound_margin = b if bound_margin is None else min(bound_margin, b)
                best_c = max(best_c, P[i][j] / rate ** t)
                s = rate * gprev - sum(P[i][j:], Fraction(0))
                step_margin = s if step_margin is None else min(step_margin, s)
    collapse = max(1 - Ps[-1][i][0] for i in range(L))
    return {"bound": bound_margin, "step": step_margin, "best_C": best_c, "off_first": collapse,
            "off_first_bound": (1 - eps) ** T}


@claim(
    "wu2025:causal-collapse",
    statement="Attention-only causal rollouts with entries bounded below by ε on causal edges "
    "satisfy P(t)[i,j] <= C (1-(j-1)ε)^t for 1 < j <= i, so every row tends to e_1.",
    latex=r"A(t)_{ij} \ge \varepsilon\ (j \le i) \;\Longrightarrow\; P(t)_{ij} \le C\,"
    r"\big(1-(j-1)\varepsilon\big)^{t}\ (1 < j \le i),\qquad P(t)_{i,:} \to e_1^{\top}",
    expected="verified",
    section="W1",
    assumptions=("λ_t = 1 (attention only)", "A(t) causal, row-stochastic, A(t)[i,j] >= ε for j <= i"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, exponent: Fraction = Fraction(1)) -> Evidence:
    """W1 on generated kernels; ``exponent`` ``a`` tests the rate ``(1-(j-1)ε)^{a t}``."""
    rng = claim_rng(ctx, "causal-collapse")
    n, maxL, maxT = (300, 8, 12) if ctx.thorough else (50, 6, 8)
    sweep = CaseSweep()
    for _ in range(n):
        sweep.case()
        L, T = rng.randint(2, maxL), rng.randint(1, maxT)
        mask = causal_mask(L)
        ks = random_masked_layers_exact(rng, mask, T, uniform_causal_kernel_exact(L))
        eps = epsilon(ks, mask)
        m = causal_collapse_margins(ks, eps, exponent)
        sweep.low("collapse", m["off_first_bound"] - m["off_first"])
        sweep.low("bound", m["bound"])
        sweep.low("step", m["step"])
        sweep.high("C", m["best_C"])
        if m["bound"] < 0 or m["step"] < 0 or m["off_first"] > m["off_first_bound"]:
            sweep.fail(lambda L=L, T=T, eps=eps, ks=ks: f"L={L}, T={T}, ε={eps}, A(1)={format_matrix(ks[0])}")
    worst_bound, worst_step, best_c = sweep.worst["bound"], sweep.worst["step"], sweep.most["C"]
    # how sharp is the rate? Cesàro L = 8: P(t)[L,2] decays like 2^-t, the bound like (7/8)^t
    L, T = 8, 40
    M = uniform_causal_kernel_exact(L)
    Ps = rollout_matrices_exact(M, [1] * T)
    ratio = Ps[T][L - 1][1] / Ps[T - 1][L - 1][1]
    figures = {"bound_margin": worst_bound, "step_margin": worst_step,
               "collapse_margin": sweep.worst["collapse"], "exponent": exponent}
    verdict = RULE.apply(figures).verdict
    ev = sweep.evidence(
        method="exact Fraction rollouts of generated kernels: the bound with C = 1 at every depth "
        "and its one-step contraction (which carries it to all depths)",
        rule=RULE.text,
        worst_margin=f"(1-(j-1)ε)^t - P(t)[i,j] >= {show_value(worst_bound)}; "
        f"contraction slack >= {show_value(worst_step)}",
        parameters={"cases": n, "L": f"2..{maxL}", "T": f"1..{maxT}", "weights": "1..9 per mask entry",
                    "exponent a in (1-(j-1)ε)^(a t)": str(exponent)},
        details={
            "best constant C observed (C = 1 suffices)": show_value(best_c),
            "Cesàro L=8: P(40)[8,2]/P(39)[8,2]": show_value(ratio),
            "Cesàro L=8: stated rate 1-(j-1)ε for j=2": "7/8",
            "note": "the rate holds but is not sharp: for the Cesàro kernel P(t)[L,j] decays like j^-t",
        },
    )
    ev.figures, ev.verdict = figures, verdict
    return ev
