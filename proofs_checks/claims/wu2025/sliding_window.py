"""wu2025:sliding-window (W2): attention-only rollouts under a sliding window ``w >= 2`` (entries
at least ε on the window edges) still collapse onto the first token, at the slower rate
``P(t)[i,j] <= C (1-(j-1)ε^h)^{t/(2h)}``, ``h = ⌈(L-1)/(w-1)⌉``.

wu2025 section 4, sliding-window theorem (theorem number not confirmed here): attention only,
token ``i`` reads ``{i-w+1..i}``, entries at least ε on the window.

The check compares exactly (Fractions), with the proof's constant ``C = 1/q_j``, on 30 generated
windows (L 3..6, depths 2h+1..4h, weights 1..9) and on 8 deep cases (weights 1..2) run to the
depth where the weakest bound ``C q_2^{T/(2h)}`` is at most 1/4, the only depths where the rate
``t/(2h)`` (and not one h-layer block) carries the bound; it also checks the proof's key fact
that every h-layer product has causal entries ``>= ε^h``, and the float64 limit of the uniform
window (L = 8, w = 3) at depth 400.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from fractions import Fraction

import mpmath

from posbias.errors import InvalidArgument
from posbias.numerics.cases import random_masked_layers_exact, window_mask
from posbias.numerics.kernels import (
    rollout_last_row,
    rollout_matrices_exact,
    sliding_window_kernel,
    sliding_window_kernel_exact,
)
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import CaseSweep, format_matrix, show_value
from posbias.proofs_checks.claims.wu2025._shared import FIXED_DATE, claim_rng, epsilon, mpf
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "DEEP_CAP", "RULE", "check", "decide", "deep_window_depth",
           "sliding_window_margins"]


def decide(f: Mapping, t: Mapping) -> str:
    """W2: refuted when the bound or the h-layer block fact fails or the uniform window does not
    reach e_1; inconclusive when nothing fails but a deep case did not exercise the rate;
    verified otherwise."""
    if f["bound_failures"] > 0 or f["block_failures"] > 0 or f["limit_gap"] > t["limit_tolerance"]:
        return "refuted"
    if f["unexercised_deep_cases"] > 0:
        return "inconclusive"
    return "verified"


RULE = Rule(
    text=("W2 on 30 generated windows (L 3..6, depths 2h+1..4h) and 8 deep cases (depth where "
          "C q_2^(T/(2h)) <= 1/4), exact Fractions: refuted when some depth of some case has "
          "P(t)[i,j] > C q_j^(t/(2h)) with C = 1/q_j, q_j = 1-(j-1)ε^h (bound_failures > 0), an "
          "h-layer product has a causal entry < ε^h (block_failures > 0), or the uniform window "
          "(L = 8, w = 3) is farther than limit_tolerance = 1e-6 from e_1 at depth 400 "
          "(float64); inconclusive when nothing fails but a deep case did not reach "
          "C q_2^(T/(2h)) <= 1/4 (the rate was not exercised); verified otherwise."),
    decide=decide,
    thresholds={"limit_tolerance": Threshold(1e-6, "distance 1 - p(1) of the uniform window "
                                             "rollout from e_1 at depth 400 (float64)")},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("the stated rate t/(2h), ε^h: no failure, every deep case exercised",
                {"bound_failures": 0, "block_failures": 0, "limit_gap": 0.0,
                 "unexercised_deep_cases": 0}, "verified"),
        Example("a rate 11 t/(2h), beyond the slack of the generated cases (exponent multipliers "
                "up to a* = 7.5 hold, so even the causal exponent t = 2h t/(2h) holds for h <= 3)",
                {"bound_failures": 2053, "block_failures": 0, "limit_gap": 1.1e-16,
                 "unexercised_deep_cases": 0}, "refuted", "false"),
        Example("ε claimed 6/5 of the kernels' smallest window entry: the h-layer blocks fall "
                "below ε^h", {"bound_failures": 3, "block_failures": 5, "limit_gap": 1.1e-16,
                              "unexercised_deep_cases": 0}, "refuted"),
        Example("deep cases stopped at depth 4h: the rate is never exercised",
                {"bound_failures": 0, "block_failures": 0, "limit_gap": 0.0,
                 "unexercised_deep_cases": 8}, "inconclusive"),
    ),
    fixed=FIXED_DATE,
    deciding=("bound_failures", "block_failures", "limit_gap", "unexercised_deep_cases"),
    no_paper_figures="wu2025 states W2 as a bound, with no figures",
)

CARD = Card(
    paper=Setting("wu2025 section 4, sliding-window theorem (W2; theorem number not confirmed "
                  "here)", architecture="attention only", residual="off",
                  mask="sliding window w >= 2, entries >= ε on the window", L="any",
                  H="any depth t"),
    test=Setting("exact Fraction rollouts of generated windows (weights 1..9; deep cases 1..2)",
                 architecture="attention only", residual="off",
                 mask="sliding window w >= 2, entries >= ε on the window", L="3..7",
                 H="2h+1..4h, deep cases to C q_2^(T/2h) <= 1/4 (T <= 230)"),
    proof=ProofStatus("numeric", note="exact comparisons on generated kernels: a property test, "
                      "not a proof"),
)


def sliding_window_margins(kernels: list, eps: Fraction, w: int, *, rate: Fraction = Fraction(1)) -> dict:
    """Exact check of ``P(t)[i,j] <= C (1-(j-1)ε^h)^{t/(2h)}`` with ``C = 1/q_j``,
    ``q_j = 1-(j-1)ε^h``, ``h = ⌈(L-1)/(w-1)⌉``, in the integer-power form
    ``(q_j P(t)[i,j])^{2h} <= q_j^t``; the best constant ``max P(t)[i,j] / q_j^{t/(2h)}``
    (mpmath, 30 digits); and the proof's key fact that every ``h``-layer product has all causal
    entries ``>= ε^h``.

    The constant ``C = 1/q_j`` is the proof's: the ``h``-layer blocks satisfy wu2025's causal
    bound with ``ε^h``, so ``P(t)[i,j] <= q_j^{⌊t/h⌋} <= q_j^{t/(2h) - 1}``.  For ``t <= 4h`` the
    stated bound then already follows from one block (``q_j^{t/(2h)-1} >= q_j``); the rate
    ``t/(2h)`` is exercised only at depths ``t > 4h`` (``rate_depths`` counts them).  There, the
    largest exponent multiplier the rollout supports, ``a* = min (ln P / ln q_j + 1) 2h/t``
    (``P(t)[i,j] <= C q_j^{a t/(2h)}`` for every ``a <= a*``), says how much room the rate has.
    ``rate`` (a positive rational ``a``) tests the claimed exponent ``a t/(2h)`` instead, exactly
    in the form ``(q_j P)^{2h·den(a)} <= q_j^{num(a)·t}`` (``fails`` counts its violations).
    """
    rate = Fraction(rate)
    if rate <= 0:
        raise InvalidArgument("rate", str(rate), "a positive rational exponent multiplier")
    L = len(kernels[0])
    T = len(kernels)
    if isinstance(w, bool) or not isinstance(w, int) or w < 2:
        raise InvalidArgument("w", w, "a window size >= 2")
    h = -(-(L - 1) // (w - 1))
    eh = eps ** h
    if not eps > 0 or 1 - (L - 1) * eh <= 0:
        raise InvalidArgument("eps", str(eps), f"a lower bound ε with (L-1) ε^h < 1 (L = {L}, h = {h})")
    Ps = rollout_matrices_exact(kernels, [Fraction(1)] * T)
    worst = None
    best_c = mpmath.mpf(0)
    fails = 0
    rate_depths = 0
    a_star = None
    with mpmath.workdps(30):
        for t in range(1, T + 1):
            P = Ps[t]
            rate_depths += t > 4 * h
            for j in range(1, L):
                q = 1 - j * eh
                rhs = q ** (rate.numerator * t)
                for i in range(j, L):
                    lhs = (q * P[i][j]) ** (2 * h * rate.denominator)
                    if lhs > rhs:
                        fails += 1
                    c = mpf(P[i][j]) / mpmath.power(mpf(q), mpmath.mpf(t) / (2 * h))
                    best_c = max(best_c, c)
                    # margin in the bound's own scale: C q^{t/2h} - P (mpmath, 30 digits)
                    mg = mpmath.power(mpf(q), mpmath.mpf(t) / (2 * h) - 1) - mpf(P[i][j])
                    worst = mg if worst is None else min(worst, mg)
                    if t > 4 * h and P[i][j] > 0:
                        a = (mpmath.log(mpf(P[i][j])) / mpmath.log(mpf(q)) + 1) * 2 * h / t
                        a_star = a if a_star is None else min(a_star, a)
        q2 = 1 - eh
        floor = mpmath.power(mpf(q2), mpmath.mpf(T) / (2 * h) - 1)  # C q_2^{T/(2h)}: the weakest bound at depth T
    block_min = None
    if h <= T:
        B = Ps[h]
        block_min = min(B[i][j] for i in range(L) for j in range(i + 1))
    return {"fails": fails, "worst": worst, "best_C": best_c, "h": h,
            "block_min": block_min, "eps_h": eh, "rate_depths": rate_depths, "a_star": a_star,
            "bound_at_T": floor}


def deep_window_depth(L: int, w: int, eps: Fraction, target: Fraction = Fraction(1, 4)) -> int:
    """The smallest depth ``T`` at which the weakest bound of the window theorem,
    ``C q_2^{T/(2h)}`` with ``C = 1/q_2``, ``q_2 = 1 - ε^h``, is at most ``target``: the depth a
    check must reach for the rate ``t/(2h)`` to matter (computed in mpmath, 30 digits)."""
    h = -(-(L - 1) // (w - 1))
    with mpmath.workdps(30):
        q = 1 - mpf(Fraction(eps) ** h)
        # q^{T/(2h) - 1} <= target  <=>  T >= 2h (1 + ln target / ln q)
        return int(mpmath.ceil(2 * h * (1 + mpmath.log(mpf(Fraction(target))) / mpmath.log(q))))



#: depth limits of the deep sliding-window cases (default, thorough)
DEEP_CAP = (230, 300)

_METHOD = ("exact Fraction rollouts; bound compared exactly in the form (q P)^(2h) <= q^t with the "
           "proof's constant C = 1/q; h-layer products checked >= ε^h on causal edges; deep cases "
           "to the depth where C q_2^(t/2h) <= 1/4; float64 limit at depth 400")

_RULE_TEXT = ("refuted when some depth t of some case has P(t)[i,j] > C q_j^(t/(2h)) with C = "
              "1/q_j (exact), an h-layer product has a causal entry < ε^h, or the uniform window "
              "(L=8, w=3) is not within 1e-6 of e_1 at depth 400 (the first failure is printed); "
              "inconclusive when nothing fails but a deep case did not reach C q_2^(T/(2h)) <= "
              "1/4 (the rate was not exercised); verified otherwise")


def _window_h(L: int, w: int) -> int:
    """h = ⌈(L-1)/(w-1)⌉, the number of window layers that connect the last token to the first."""
    return -(-(L - 1) // (w - 1))


def _record(m: dict, T: int, sweep: CaseSweep, tally: dict,
            describe: Callable[..., str]) -> None:
    """Count one case's margins (:func:`sliding_window_margins` ``m`` at depth ``T``) in
    ``tally`` and ``sweep``; a bound or h-layer block failure is a counterexample."""
    tally["fails"] += m["fails"]
    tally["depth checks"] += T
    sweep.low("margin", m["worst"])
    sweep.high("C", m["best_C"])
    block_failed = m["block_min"] is not None and m["block_min"] < m["eps_h"]
    if m["block_min"] is not None:
        tally["block checks"] += 1
        tally["block fails"] += block_failed
    if m["fails"] or block_failed:
        sweep.fail(describe)


def _generated_windows(rng: random.Random, n: int, maxL: int, rate_of: Callable,
                       sweep: CaseSweep, tally: dict) -> None:
    """(a) ``n`` generated windows and kernels (weights 1..9) at depths 2h+1..4h: the bound with
    C = 1/q is vacuous (right side >= 1) for t <= 2h."""
    for _ in range(n):
        sweep.case()
        L = rng.randint(3, maxL)
        w = rng.randint(2, L - 1)
        h = _window_h(L, w)
        T = rng.randint(2 * h + 1, 4 * h)
        mask = window_mask(L, w)
        ks = random_masked_layers_exact(rng, mask, T, sliding_window_kernel_exact(L, w))
        eps = epsilon(ks, mask)
        m = sliding_window_margins(ks, eps, w, rate=Fraction(rate_of(h)))
        tally["informative"] += T - 2 * h
        _record(m, T, sweep, tally, lambda L=L, w=w, T=T, eps=eps, ks=ks:
                f"L={L}, w={w}, T={T}, ε={eps}, A(1)={format_matrix(ks[0])}")


def _deep_windows(rng: random.Random, n_deep: int, maxL: int, cap: int, rate_of: Callable,
                  sweep: CaseSweep, tally: dict) -> dict:
    """(b) ``n_deep`` deep cases, where the rate t/(2h) matters: windows whose guaranteed ε
    (weights 1..2, ε >= 1/(2w-1)) lets the weakest bound C q_2^{t/(2h)} fall to 1/4 within the
    depth ``cap``.  Returns their rows, the rate-exercising depths, the smallest exponent
    multiplier a* and the cases that did not reach 1/4."""
    eligible = [(L, w) for L in range(3, maxL + 2) for w in range(2, L)
                if deep_window_depth(L, w, Fraction(1, 2 * w - 1)) <= cap]
    out: dict = {"rows": [], "rate depths": 0, "a*": None, "unexercised": []}
    for _ in range(n_deep):
        sweep.case()
        L, w = eligible[rng.randrange(len(eligible))]
        T = deep_window_depth(L, w, Fraction(1, 2 * w - 1))
        mask = window_mask(L, w)
        ks = random_masked_layers_exact(rng, mask, T, sliding_window_kernel_exact(L, w), max_weight=2)
        eps = epsilon(ks, mask)
        m = sliding_window_margins(ks, eps, w, rate=Fraction(rate_of(_window_h(L, w))))
        out["rate depths"] += m["rate_depths"]
        if m["a_star"] is not None:
            out["a*"] = m["a_star"] if out["a*"] is None else min(out["a*"], m["a_star"])
        if m["bound_at_T"] > mpmath.mpf(1) / 4:
            out["unexercised"].append(f"L={L}, w={w}, T={T}")
        _record(m, T, sweep, tally, lambda L=L, w=w, T=T, eps=eps, ks=ks:
                f"deep case L={L}, w={w}, T={T}, ε={eps}, A(1)={format_matrix(ks[0])}")
        out["rows"].append({"L": L, "w": w, "h": m["h"], "ε": str(eps), "T": T,
                            "T/4h": round(T / (4 * m["h"]), 1),
                            "C q_2^(T/2h)": mpmath.nstr(m["bound_at_T"], 3),
                            "a*": mpmath.nstr(m["a_star"], 3) if m["a_star"] is not None else None})
    return out


def _details(sweep: CaseSweep, tally: dict, deep: dict, p1: float) -> dict:
    """The evidence's details: best constant, depth counts, a*, the deep cases and the limit."""
    return {
        "best constant C observed": show_value(sweep.most["C"]),
        "depths checked (every t = 1..T of each case)": tally["depth checks"],
        "informative depths (t > 2h, where C q^(t/2h) < 1)": tally["informative"],
        "rate-exercising depths (t > 4h, beyond the one-block bound)": deep["rate depths"],
        "smallest exponent multiplier a* supported at t > 4h (P <= C q^(a t/(2h)) for a <= a*)":
            mpmath.nstr(deep["a*"], 3) if deep["a*"] is not None else None,
        "deep cases": deep["rows"],
        "h-layer products checked": tally["block checks"],
        "uniform window L=8, w=3, depth 400: 1 - p(1)": (
            "%.3g" % (1.0 - p1) if p1 != 1.0 else "below float64 resolution (p(1) rounds to 1)"
        ),
        "note": "the proof's h-layer blocks give P(t)[i,j] <= q_j^floor(t/h), twice the stated "
        "exponent; the rollouts decay faster still (a* > 1 at every depth beyond 4h)",
    }


@claim(
    "wu2025:sliding-window",
    statement="Attention-only rollouts under a sliding window w >= 2 (entries >= ε on window edges) "
    "still collapse onto the first token, at the slower rate P(t)[i,j] <= C (1-(j-1)ε^h)^{t/(2h)}, "
    "h = ceil((L-1)/(w-1)).",
    latex=r"P(t)_{ij} \le C\,\big(1-(j-1)\varepsilon^{h}\big)^{t/(2h)},\quad "
    r"h = \Big\lceil \frac{L-1}{w-1} \Big\rceil\quad (1 < j \le i)",
    expected="verified",
    section="W2",
    assumptions=("λ_t = 1", "token i reads {i-w+1..i}, w >= 2", "entries >= ε on the window"),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, rate: Fraction | Callable[[int], Fraction | int] = Fraction(1)) -> Evidence:
    """W2 on generated windows; ``rate`` (a Fraction, or a function of ``h`` returning one)
    multiplies the exponent ``t/(2h)``: ``lambda h: 2 * h`` is the causal exponent ``t``
    carried to windows (a false version of the theorem)."""
    rate_of = rate if callable(rate) else (lambda h, r=rate: r)
    rng = claim_rng(ctx, "sliding-window")
    n, maxL = (160, 8) if ctx.thorough else (30, 6)
    n_deep, cap = (24, DEEP_CAP[1]) if ctx.thorough else (8, DEEP_CAP[0])
    sweep = CaseSweep()
    tally = dict.fromkeys(("fails", "block fails", "block checks", "depth checks", "informative"), 0)
    _generated_windows(rng, n, maxL, rate_of, sweep, tally)
    deep = _deep_windows(rng, n_deep, maxL, cap, rate_of, sweep, tally)
    # same limit: uniform window kernel, L = 8, w = 3, fast path at depth 400
    p = rollout_last_row(sliding_window_kernel(8, 3), [1.0] * 400)
    limit_ok = 1.0 - p[0] < 1e-6
    if not limit_ok:
        sweep.fail(f"uniform window L=8, w=3, depth 400: 1 - p(1) = {1.0 - p[0]:.3g} >= 1e-6")
    details = _details(sweep, tally, deep, p[0])
    worst_margin = f"C q^(t/2h) - P(t)[i,j] >= {show_value(sweep.worst['margin'])} with C = 1/q"
    parameters = {"cases": n, "L": f"3..{maxL}", "w": "2..L-1", "T": "2h+1..4h",
                  "deep cases": n_deep, "deep depth cap": cap, "deep weights": "1..2"}
    figures = {"bound_failures": tally["fails"], "block_failures": tally["block fails"],
               "limit_gap": float(1.0 - p[0]), "unexercised_deep_cases": len(deep["unexercised"]),
               "rate": "t/(2h)" if not callable(rate) and rate == 1 else
               (f"{rate} t/(2h)" if not callable(rate) else "t/(2h) times rate(h)")}
    verdict = RULE.apply(figures).verdict
    if verdict == "inconclusive":
        return Evidence("inconclusive", method=_METHOD, precision="exact (best C in mpmath, 30 digits)",
                        cases=sweep.cases, worst_margin=worst_margin, parameters=parameters,
                        details={**details, "rule": _RULE_TEXT,
                                 "reason": "rate not exercised in: " + "; ".join(deep["unexercised"])},
                        figures=figures)
    ev = sweep.evidence(method=_METHOD, rule=_RULE_TEXT, ok=limit_ok,
                        precision="exact (best C in mpmath, 30 digits)",
                        worst_margin=worst_margin, parameters=parameters, details=details)
    ev.figures, ev.verdict = figures, verdict
    return ev
