"""barbero2024:no-counting-without-pe: a transformer without positional encodings and without
causal masking is unable to count: its representations depend on the ratio of the token counts
only, so '10' and '1100' get the same representations (Proposition 6.1 / B.9).

The set-function argument: with a full mask and no positional vectors each position reads the
same multiset of tokens, and a softmax average (or any positively weighted average) is unchanged
when every token of the multiset is repeated k times; token-wise maps (residual, MLP, norms)
keep that, layer by layer.  The check draws seeded random networks (rational weights) and token
sequences over three token types, and compares every token type's final representation in a
sequence and in its k-fold repetitions and permutations: exactly (Fractions, with the positive
rational score T_4(s) = Σ_{m<=4} s^m/m! and mean-centring) and at the working precision
(mpmath, exp scores and LayerNorm).  The same pairs with a causal mask, and with positional
vectors, are computed as contrasts: they must differ, or the comparison could not see a
difference at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mpmath

from posbias.numerics.oversquashing import TinyTransformer
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.barbero2024._shared import FIXED, READ, rng
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide", "same_ratio_pairs"]

NETWORKS = 6
PAIRS = 4  # per network


def decide(f: Mapping, t: Mapping) -> str:
    """refuted: two sequences with the same ratios get different representations under the
    mask and encoding tested; inconclusive: none differs but neither do the contrasts (the
    comparison cannot see a difference); verified otherwise."""
    if f["invariance_failures"] > t["allowed"] or f["precise_max_difference"] > t["tolerance"]:
        return "refuted"
    if f["contrasts_distinguished"] == 0:
        return "inconclusive"
    return "verified"


RULE = Rule(
    text=(f"{NETWORKS} seeded networks (3 token types, d = 3, 2 layers, ReLU MLP of 4) x {PAIRS} "
          "sequence pairs with the same token ratios (a sequence of 2..5 tokens and its k-fold "
          "repetition, k = 2..3, shuffled). invariance_failures counts pairs whose per-type final "
          "representations differ exactly (Fractions); precise_max_difference is the largest "
          "difference at dps (exp scores, LayerNorm); contrasts_distinguished counts pairs that "
          "differ under a causal mask or with positional vectors. refuted: a failure, or a "
          "precise difference above tolerance = 10^-(dps-10); inconclusive: no contrast "
          "differs; verified otherwise."),
    decide=decide,
    thresholds={"allowed": Threshold(0, "exact comparisons: no failure", scale="fixed"),
                "tolerance": Threshold(1e-20, "10^-(dps-10), set per run from dps", sensitive=100.0)},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("full mask, no positional encoding: the same representations for the same ratios "
                "('10' and '1100', the paper's example)", {"invariance_failures": 0,
                "precise_max_difference": 3.2e-30, "contrasts_distinguished": 22}, "verified"),
        Example("false: a causal mask without positional encoding cannot count either (the "
                "causal mask breaks the invariance at depth 2)", {"invariance_failures": 22,
                "precise_max_difference": 10.3, "contrasts_distinguished": 24}, "refuted", "false"),
        Example("a comparison that sees no difference anywhere",
                {"invariance_failures": 0, "precise_max_difference": 0.0,
                 "contrasts_distinguished": 0}, "inconclusive"),
    ),
    fixed=FIXED,
    deciding=("invariance_failures", "precise_max_difference", "contrasts_distinguished"),
    no_paper_figures="the paper argues with the sequences '10' and '1100' and reports no value",
)

CARD = Card(
    paper=Setting("barbero2024 Proposition 6.1 (Section 6) and B.9 (Appendix B.3); the proof "
                  "ignores the MLPs and norms, which act token by token; " + READ,
                  architecture="transformer", mask="full (no causal mask)", pe="none",
                  L="any", H="any", width="any"),
    test=Setting("seeded random networks with rational weights: exact Fractions (score T_4, "
                 "mean-centring) and mpmath (exp scores, LayerNorm); causal-mask and "
                 "positional-vector runs as contrasts", architecture="transformer",
                 mask="full (no causal mask)", pe="none", L="2..15", H=2, width=3,
                 cases=NETWORKS * PAIRS),
    proof=ProofStatus("all", note="the set-function argument holds for any positive attention "
                      "score and token-wise maps; the generated cases check it exactly"),
)


def same_ratio_pairs(r: Any, count: int) -> list[tuple[list[int], list[int]]]:
    """``count`` pairs (sequence, its k-fold repetition shuffled), over token types 0, 1, 2; the
    last token of both is the same type (the one read for the answer)."""
    out = []
    for _ in range(count):
        seq = [r.randint(0, 2) for _ in range(r.randint(2, 5))]
        k = r.randint(2, 3)
        body = seq[:-1] * k + [seq[-1]] * (k - 1)
        r.shuffle(body)
        out.append((seq, [*body, seq[-1]]))
    return out


def _by_type(tokens: list[int], reps: list[list[Any]]) -> dict[int, list[list[Any]]]:
    out: dict[int, list[list[Any]]] = {}
    for tok, rep in zip(tokens, reps):
        out.setdefault(tok, []).append(rep)
    return out


def _differ(a: list[int], b: list[int], ra: list, rb: list) -> Any:
    """The largest difference between representations of the same token type (0 when equal),
    and whether every type's representations agree within and across the two sequences."""
    ta, tb = _by_type(a, ra), _by_type(b, rb)
    worst: Any = 0
    for tok, reps in ta.items():
        for u in reps + tb.get(tok, []):
            worst = max(worst, *(abs(x - y) for x, y in zip(u, reps[0])))
    return worst


@claim(
    "barbero2024:no-counting-without-pe",
    statement="Without positional encodings and without causal masking a transformer keeps only "
    "the ratios of the token counts: sequences with the same ratios ('10' and '1100') get the same "
    "representations, so it cannot count.",
    latex=r"z_{i} = \frac{\sum_{v} n_v\, e^{q_i^{\top} k_v}\, v_v}{\sum_{v} n_v\, "
    r"e^{q_i^{\top} k_v}}\ \text{depends on } (n_v)_v \text{ only through } "
    r"\bigl(n_v / \textstyle\sum_w n_w\bigr)_v",
    expected="verified",
    section="Proposition 6.1 / B.9",
    assumptions=("no positional encoding", "full (bidirectional) attention", "token-wise MLPs "
                 "and norms"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, mask: str = "full", positions: bool = False) -> Evidence:
    """The invariance under the mask and encoding given (``mask="causal"`` or
    ``positions=True`` are the false versions for the tests)."""
    r = rng(ctx, "no-counting-without-pe")
    failures = contrasts = cases = 0
    worst = mpmath.mpf(0)
    first: str | None = None
    for net_index in range(NETWORKS):
        net = TinyTransformer(r, vocab=3, d=3, layers=2, hidden=4)
        for a, b in same_ratio_pairs(r, PAIRS):
            cases += 1
            exact = _differ(a, b, net.forward_exact(a, mask=mask, positions=positions),
                            net.forward_exact(b, mask=mask, positions=positions))
            if exact:
                failures += 1
                first = first or (f"network {net_index}: {a} and {b} ({mask} mask, positional "
                                  f"vectors {positions}) differ by {float(exact):.3g}")
            with mpmath.workdps(ctx.dps):
                worst = max(worst, _differ(a, b, net.forward_precise(a, ctx.dps, mask=mask, positions=positions),
                                           net.forward_precise(b, ctx.dps, mask=mask, positions=positions)))
            other = {"mask": "causal"} if mask == "full" and not positions else {"mask": "full", "positions": True}
            contrasts += int(bool(_differ(a, b, net.forward_exact(a, **other),
                                          net.forward_exact(b, **other))))
    tol = mpmath.mpf(10) ** (-(ctx.dps - 10))
    figures: dict[str, Any] = {"invariance_failures": failures,
                               "precise_max_difference": float(mpmath.nstr(worst, 6)),
                               "contrasts_distinguished": contrasts}
    thresholds = {"tolerance": float(tol)}
    verdict = RULE.apply(figures, **thresholds).verdict
    return Evidence(
        verdict, method="seeded random networks: exact Fractions (T_4 scores, centring) and mpmath "
        f"(exp scores, LayerNorm, dps={ctx.dps}) on same-ratio sequence pairs; causal-mask and "
        "positional-vector contrasts",
        discrepancy=("0 (exact); mpmath " + mpmath.nstr(worst, 3)) if verdict == "verified" else None,
        precision=f"exact and dps={ctx.dps}", tolerance=f"exact; {ctx.dps - 10} of {ctx.dps} digits",
        cases=cases, counterexample=first if verdict == "refuted" else None,
        parameters={"networks": NETWORKS, "pairs per network": PAIRS, "mask": mask,
                    "positional vectors": positions},
        details={"contrasts": f"{contrasts} of {cases} pairs differ under "
                 + ("a causal mask (no positional vectors)" if mask == "full" and not positions
                    else "a full mask with positional vectors"),
                 "repeated token": "a sequence of one repeated token is the case '1' vs '1...1': "
                 "every position reads copies of itself, under any mask"},
        figures=figures, thresholds=thresholds)
