"""wu2025:prefix (W3): under the prefix mask (K prefix tokens read each other, later tokens read
causally) attention-only rollouts concentrate their mass on the prefix, and each prefix token
keeps at least ``κ > 0`` (``κ = ε``, the smallest entry on the mask).

wu2025 section 4, prefix-mask theorem (theorem number not confirmed here): attention only, the
prefix-LM mask with K prefix tokens, entries at least ε on the mask.

The check generates 50 prefix-mask kernel stacks (L 2..6, K 1..L, T 1..6, weights 1..9; 300
larger ones with ``--thorough``) and compares exactly (Fractions) at every depth: every prefix
entry against κ and the suffix mass against ``(1-Kε)^t``; uniform prefix kernels must spread the
prefix mass evenly, and the float64 limit of the uniform prefix kernel (L = 16, K = 3, depth
300) gives each prefix token 1/K.  A contrast shows that a causal prefix block (the causal
mask) keeps mass only on token 1.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from fractions import Fraction

import numpy as np

from posbias.errors import InvalidArgument
from posbias.numerics.cases import random_masked_layers_exact
from posbias.numerics.kernels import (
    prefix_kernel,
    prefix_kernel_exact,
    prefix_mask,
    rollout_last_row,
    rollout_matrices_exact,
    uniform_causal_kernel_exact,
)
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import CaseSweep, format_matrix, show_value
from posbias.proofs_checks.claims.wu2025._shared import (
    FIXED_DATE,
    claim_rng,
    epsilon,
    margin_floor,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "prefix_margins"]


def decide(f: Mapping, t: Mapping) -> str:
    """W3: refuted when a prefix token keeps less than κ or the suffix mass exceeds
    (1-Kε)^t at some depth, a uniform prefix row spreads its prefix mass unevenly, or the uniform
    kernel's limit misses 1/K; verified otherwise."""
    if (f["keep_margin"] < t["margin_floor"] or f["suffix_margin"] < t["margin_floor"]
            or not f["uniform_rows_even"] or f["limit_error"] > t["limit_tolerance"]):
        return "refuted"
    return "verified"


RULE = Rule(
    text=("W3 on 50 generated prefix-mask kernels (L 2..6, K 1..L, T 1..6, weights 1..9), exact "
          "Fractions: verified when every case keeps keep_margin = min P(t)[i,j<=K] - κ >= 0 with "
          "κ = ε (the smallest entry on the mask) and suffix_margin = (1-Kε)^t - max_i "
          "Σ_{j>K} P(t)[i,j] >= 0 at every depth, uniform prefix rows spread their prefix mass "
          "evenly, and the uniform prefix kernel (L = 16, K = 3, depth 300, float64) gives each "
          "prefix token 1/K within limit_tolerance = 1e-12; refuted by the first case that "
          "breaks one (printed)."),
    decide=decide,
    thresholds={**margin_floor(),
                "limit_tolerance": Threshold(1e-12, "max |p(j) - 1/K| of the uniform prefix "
                                             "kernel's limit (float64, depth 300)")},
    examples=(
        Example("κ = ε on the default cases", {"keep_margin": Fraction(0),
                "suffix_margin": Fraction(0), "uniform_rows_even": True, "limit_error": 1e-16},
                "verified"),
        Example("κ = 1/K (an equal share for every prefix token): the generated kernels give a "
                "prefix token less", {"keep_margin": Fraction(-27, 28), "suffix_margin": Fraction(0),
                                      "uniform_rows_even": True, "limit_error": 1e-16},
                "refuted", "false"),
    ),
    fixed=FIXED_DATE,
    deciding=("keep_margin", "suffix_margin", "uniform_rows_even", "limit_error"),
    no_paper_figures="wu2025 states W3 as a bound, with no figures",
)

CARD = Card(
    paper=Setting("wu2025 section 4, prefix-mask theorem (W3; theorem number not confirmed "
                  "here): each prefix token keeps some κ > 0", architecture="attention only",
                  residual="off", mask="prefix, K prefix tokens, entries >= ε on the mask",
                  L="any", H="any depth t"),
    test=Setting("exact Fraction rollouts of 50 generated prefix kernels, κ = ε",
                 architecture="attention only", residual="off",
                 mask="prefix, K prefix tokens, entries >= ε on the mask", L="2..6", H="1..6"),
    proof=ProofStatus("numeric", note="exact comparisons on generated kernels: a property test, "
                      "not a proof"),
)


def prefix_margins(kernels: list, eps: Fraction, K: int, kappa: Fraction | None = None) -> dict:
    """Exact margins at every depth ``t >= 1``: every prefix token keeps ``P(t)[i,j] >= κ``
    (``j <= K``, all rows ``i``; ``κ = ε`` unless ``kappa`` is given), and the mass outside the
    prefix obeys ``Σ_{j>K} P(t)[i,j] <= (1 - Kε)^t``."""
    kappa = eps if kappa is None else kappa
    L = len(kernels[0])
    T = len(kernels)
    if not eps > 0 or 1 - K * eps < 0:
        raise InvalidArgument("eps", str(eps), f"a lower bound ε in (0, 1/K] (K = {K})")
    Ps = rollout_matrices_exact(kernels, [Fraction(1)] * T, causal=False)
    keep = None
    suffix = None
    for t in range(1, T + 1):
        P = Ps[t]
        k = min(P[i][j] for i in range(L) for j in range(K)) - kappa
        keep = k if keep is None else min(keep, k)
        s = (1 - K * eps) ** t - max(sum(P[i][K:], Fraction(0)) for i in range(L))
        suffix = s if suffix is None else min(suffix, s)
    return {"keep": keep, "suffix": suffix, "final": Ps[-1]}


def _generated_cases(rng: random.Random, n: int, maxL: int, maxT: int,
                     kappa: Callable[[Fraction, int], Fraction] | None, sweep: CaseSweep) -> bool:
    """``n`` generated prefix-mask kernel stacks, their margins recorded in ``sweep``; returns
    whether every uniform prefix kernel's rows spread their prefix mass evenly (exact)."""
    uniform_ok = True
    for _ in range(n):
        sweep.case()
        L = rng.randint(2, maxL)
        K = rng.randint(1, L)
        T = rng.randint(1, maxT)
        mask = prefix_mask(L, K)
        ks = random_masked_layers_exact(rng, mask, T, prefix_kernel_exact(L, K))
        eps = epsilon(ks, mask)
        m = prefix_margins(ks, eps, K, None if kappa is None else Fraction(kappa(eps, K)))
        sweep.low("keep", m["keep"])
        sweep.low("suffix", m["suffix"])
        if m["keep"] < 0 or m["suffix"] < 0:
            sweep.fail(lambda L=L, K=K, T=T, eps=eps, ks=ks: f"L={L}, K={K}, T={T}, ε={eps}, A(1)={format_matrix(ks[0])}")
        if ks[0] is ks[-1] and ks[0] == prefix_kernel_exact(L, K):
            # uniform prefix kernel: every row spreads its prefix mass evenly (exact)
            for row in m["final"]:
                if len(set(row[:K])) != 1:
                    uniform_ok = False
    return uniform_ok


@claim(
    "wu2025:prefix",
    statement="Under the prefix mask (K prefix tokens read each other, later tokens read causally), "
    "attention-only rollouts concentrate their mass on the prefix and each prefix token keeps "
    "at least κ > 0 (κ = ε, the smallest entry on the mask).",
    latex=r"\sum_{j>K} P(t)_{ij} \le (1-K\varepsilon)^{t} \to 0,\qquad "
    r"P(t)_{ij} \ge \kappa = \varepsilon > 0\quad (j \le K,\ t \ge 1)",
    expected="verified",
    section="W3",
    assumptions=("λ_t = 1", "prefix-LM mask with K prefix tokens", "entries >= ε on the mask"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, kappa: Callable[[Fraction, int], Fraction] | None = None) -> Evidence:
    """W3 on generated prefix kernels; ``kappa(eps, K)`` replaces the bound ``κ = ε`` kept by
    every prefix token (``lambda eps, K: Fraction(1, K)``, an equal share, is a false version)."""
    rng = claim_rng(ctx, "prefix")
    n, maxL, maxT = (300, 8, 10) if ctx.thorough else (50, 6, 6)
    sweep = CaseSweep()
    uniform_ok = _generated_cases(rng, n, maxL, maxT, kappa, sweep)
    # the limit for the uniform prefix kernel: each prefix token keeps 1/K
    L, K = 16, 3
    p = rollout_last_row(prefix_kernel(L, K), [1.0] * 300, causal=False)
    limit_err = float(np.max(np.abs(p[:K] - 1.0 / K)))
    # contrast: a causal (lower-triangular) prefix block is just the causal mask, and the prefix
    # collapses onto token 1 (W1): P(30)[8,2] for the Cesàro kernel
    Ps = rollout_matrices_exact(uniform_causal_kernel_exact(8), [1] * 30)
    keep, suffix = sweep.worst["keep"], sweep.worst["suffix"]
    if not uniform_ok:
        sweep.fail("a uniform prefix kernel's rollout spreads its prefix mass unevenly")
    if not limit_err < 1e-12:
        sweep.fail(f"uniform prefix kernel L=16, K=3, depth 300: max |p(j) - 1/K| = {limit_err:.3g}")
    ev = sweep.evidence(
        method="exact Fraction rollouts of generated prefix-mask kernels at every depth: prefix "
        "entries vs ε and suffix mass vs (1-Kε)^t; float64 limit of the uniform prefix kernel",
        rule="verified when every generated case keeps P(t)[i,j] >= ε on the prefix and suffix mass "
        "<= (1-Kε)^t at every depth (exact), uniform prefix rows spread their prefix mass evenly, "
        "and the uniform prefix kernel's limit gives each prefix token 1/K within 1e-12 (float64, "
        "depth 300); refuted by the first case that breaks one of them (printed)",
        ok=uniform_ok and limit_err < 1e-12,
        tolerance="0 (exact comparison); limit within 1e-12 in float64",
        worst_margin=f"min P(t)[i,j≤K] - ε >= {show_value(keep)}; (1-Kε)^t - suffix mass >= {show_value(suffix)}",
        parameters={"cases": n, "L": f"2..{maxL}", "K": "1..L", "T": f"1..{maxT}"},
        details={
            "uniform prefix kernel L=16, K=3, depth 300: max |p(j) - 1/K|, j <= K": f"{limit_err:.3g}",
            "uniform prefix rows spread prefix mass evenly (exact)": uniform_ok,
            "causal prefix block (= causal mask), Cesàro L=8, T=30: P[8,2]": show_value(Ps[30][7][1]),
            "note": "κ > 0 needs the bidirectional prefix block of wu2025's prefix mask; with a causal "
            "prefix block only token 1 keeps mass",
        },
    )
    figures = {"keep_margin": keep, "suffix_margin": suffix, "uniform_rows_even": uniform_ok,
               "limit_error": limit_err, "kappa": "ε" if kappa is None else "kappa(ε, K)"}
    ev.figures, ev.verdict = figures, RULE.apply(figures).verdict
    if ctx.thorough:
        ev.setting = {"L": f"2..{maxL}", "H": f"1..{maxT}"}
    return ev
