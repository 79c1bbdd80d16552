"""Claims of chowdhury2026 (*Lost in the Middle at Birth*; THEORY.md section 2, C1-C9).

The Cesàro model at initialization: the discrete rollout of ``N = (1-α)I + αM`` against the
continuum theory (Hardy kernel, density ρ_H, residual mixture, recency delta, dead zone, U shape,
peak/valley), checked by exact rationals, mpmath and the sympy derivations; RoPE at
initialization and the Step-0 fit of real architectures, checked against measurements
(:mod:`posbias.proofs_checks.measured`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from posbias.proofs_checks.claims._common import (
    combine_routes,
    derivation_by_name,
    lambdify_mpmath,
    latex_of_derivation,
    sample_points,
    symbolic_summary,
    with_identities,
)
from posbias.proofs_checks.measured import (
    CLAIMED_SPEARMAN,
    CLAIMED_W1,
    fmt3,
    measurement_plan,
    step0_measurements,
)
from posbias.proofs_checks.precision import agree
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ['check_step0_fit', 'continuum_kernel_check', 'density_check', 'ks_two_sample', 'measured_rope_part', 'primacy_tail_check', 'rope_init_check', 'rope_monte_carlo']


PAPER = "chowdhury2026"


# ----------------------------------------------------------------------------- helpers
def _continuous_part(depth: int, alpha: Fraction):
    """The continuum density's continuous part ``c(x)`` for constant ``α`` as an mpmath
    callable, from the sympy derivation (binomial mixture of Gamma laws in ``t = ln 1/x``)."""
    import sympy

    from posbias.derivations import residual

    a = sympy.Rational(alpha.numerator, alpha.denominator)
    expr = residual.mixture_sum(depth, a, residual.t)
    f = sympy.lambdify(residual.t, expr, modules="mpmath")
    return lambda x: f(mpmath.log(1 / mpmath.mpf(x)))


def _mpf(q: Fraction):
    return mpmath.mpf(q.numerator) / q.denominator


def _nstr(x, n=3) -> str:
    return mpmath.nstr(mpmath.mpf(x), n) if x else "0"


def _interior_error(profile, c, lo=Fraction(1, 10), hi=Fraction(9, 10)):
    """``max |L p(j) - c(j/L)|`` over ``lo <= j/L <= hi`` (mpmath at the working precision)."""
    L = len(profile)
    worst = mpmath.mpf(0)
    for j in range(1, L + 1):
        if lo * L <= j <= hi * L:
            worst = max(worst, abs(L * _mpf(profile[j - 1]) - c(mpmath.mpf(j) / L)))
    return worst


def _growth(lengths, errors):
    """Largest ratio ``c(2L)/c(L)`` of ``c(L) = L·err(L)`` over the last two doublings.

    ``err = O(1/L)`` means ``c`` stays bounded: a ratio above 1 at every doubling would show a
    slower rate, while a ratio below 1 (pre-asymptotically faster decay) is consistent with it.
    """
    c = [L * e for L, e in zip(lengths, errors)]
    return max(float(c[k + 1] / c[k]) for k in range(len(c) - 3, len(c) - 1))


def _rate(lengths, errors):
    """Least-squares slope of ``log err`` against ``log L`` over the three largest ``L``
    (-1 for an O(1/L) rate in the asymptotic regime)."""
    xs = [math.log(L) for L in lengths[-3:]]
    ys = [float(mpmath.log(e)) for e in errors[-3:]]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


# ----------------------------------------------------------------------------- C1
@claim(
    f"{PAPER}:cesaro-stochastic",
    statement="At initialization q·k = 0 makes causal softmax attention the Cesàro matrix M, "
    "and (1-α)I + αM and its powers are causal and row-stochastic.",
    latex=r"\operatorname{softmax}_{j\le i}(0) = \tfrac{1}{i},\quad N=(1-\alpha)I+\alpha M,"
    r"\quad N^H\mathbf{1}=\mathbf{1},\ (N^H)_{ij}=0\ (j>i)",
    expected="verified",
    section="2 (C1)",
)
def _cesaro_stochastic(ctx: CheckContext) -> Evidence:
    from posbias.numerics.kernels import (
        rollout_matrix_exact,
        uniform_causal_kernel_exact,
    )

    cases = 0
    worst = Fraction(0)
    # softmax of zero logits over the causal positions, computed from exp(0) = 1 exactly
    for L in (1, 2, 5, 17):
        for i in range(1, L + 1):
            weights = [Fraction(1)] * i  # exp(0)
            row = [w / sum(weights) for w in weights]
            if row != uniform_causal_kernel_exact(L)[i - 1][:i]:
                return Evidence("refuted", method="exact softmax of zero logits vs Cesàro row",
                                counterexample=f"L={L}, row {i}")
            cases += 1
    lengths = (1, 2, 3, 8, 13) if not ctx.thorough else (1, 2, 3, 8, 13, 24)
    for L in lengths:
        M = uniform_causal_kernel_exact(L)
        for alpha in (Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(1)):
            for H in (0, 1, 2, 5):
                P = rollout_matrix_exact(M, [alpha] * H)
                for i, row in enumerate(P):
                    dev = abs(sum(row) - 1)
                    worst = max(worst, dev)
                    if dev != 0 or any(v < 0 for v in row) or any(row[i + 1:]):
                        return Evidence(
                            "refuted", method="exact L x L product of N",
                            counterexample=f"L={L}, α={alpha}, H={H}, row {i + 1}: {row}",
                        )
                cases += 1
    return Evidence(
        "verified",
        method="exact softmax of zero logits; exact L x L products of N (Fractions)",
        discrepancy="0 (exact)", precision="exact", cases=cases, worst_margin=str(worst),
        parameters={"lengths": list(lengths), "alphas": ["0", "1/3", "1/2", "1"],
                    "depths": [0, 1, 2, 5]},
    )


# ----------------------------------------------------------------------------- X2/C3 limit
@claim(
    f"{PAPER}:discrete-limit",
    statement="L·p(j) of the attention-only Cesàro rollout converges to ρ_H(j/L) at rate O(1/L) "
    "away from the ends.",
    latex=r"\max_{\epsilon\le j/L\le 1-\epsilon}\bigl|L\,(M^H)_{Lj}-\rho_H(j/L)\bigr| = O(1/L),"
    r"\quad \rho_H(x)=\frac{(\ln 1/x)^{H-1}}{(H-1)!}",
    expected="verified",
    section="2 (C2, C3); THEORY X2",
)
def _discrete_limit(ctx: CheckContext) -> Evidence:
    from posbias.numerics.cesaro import cesaro_profile_exact

    depths = (2, 3, 4, 6) if not ctx.thorough else (2, 3, 4, 6, 8, 12)
    lengths = (64, 128, 256, 512) if not ctx.thorough else (64, 128, 256, 512, 1024, 2048)
    table, slopes, growth = {}, {}, {}
    with mpmath.workdps(ctx.dps):
        for H in depths:
            rho = _continuous_part(H, Fraction(1))
            errs = [_interior_error(cesaro_profile_exact(L, [1] * H), rho) for L in lengths]
            table[f"H={H}"] = {str(L): _nstr(e) for L, e in zip(lengths, errs)}
            slopes[H] = _rate(lengths, errs)
            growth[H] = _growth(lengths, errs)
    worst = max(growth.values())
    ok = worst <= 1.1
    return Evidence(
        "verified" if ok else "refuted",
        method="exact Cesàro powers (Fractions) vs sympy-derived ρ_H lambdified to mpmath",
        discrepancy="rate exponents over the three largest L: "
        + ", ".join(f"H={h}: {s:.3f}" for h, s in slopes.items()),
        precision=f"exact profiles, dps={ctx.dps} comparison",
        tolerance="L·err(L) bounded: ratio c(2L)/c(L) <= 1.1 over the last two doublings",
        worst_margin=f"largest c(2L)/c(L) = {worst:.3f}",
        cases=len(depths) * len(lengths),
        counterexample=None if ok else f"L·err(L) grows: ratios {growth}",
        parameters={"depths": list(depths), "lengths": list(lengths), "window": "0.1 <= j/L <= 0.9"},
        details={"max_interior_error": table},
    )


# ----------------------------------------------------------------------------- C5
@claim(
    f"{PAPER}:residual-density",
    statement="With residuals the influence density is the atom (1-α)^H at x = 1 plus the "
    "binomial mixture Σ_k C(H,k) α^k (1-α)^(H-k) (ln 1/x)^(k-1)/(k-1)!.",
    latex=r"\rho(x)=(1-\alpha)^H\delta(1-x)+\sum_{k=1}^{H}\binom{H}{k}\alpha^k(1-\alpha)^{H-k}"
    r"\frac{(\ln 1/x)^{k-1}}{(k-1)!}",
    expected="verified",
    section="2 (C5)",
)
def _residual_density(ctx: CheckContext) -> Evidence:
    from posbias.numerics.cesaro import cesaro_profile_exact

    alphas = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))
    depths = (3, 6)
    lengths = (64, 128, 256, 512)
    slopes, growth, atoms, masses = {}, {}, {}, {}
    with mpmath.workdps(ctx.dps):
        for alpha in alphas:
            for H in depths:
                c = _continuous_part(H, alpha)
                errs = []
                for L in lengths:
                    p = cesaro_profile_exact(L, [alpha] * H)
                    # the last token carries the discrete atom exactly: (1 - α + α/L)^H
                    if p[-1] != (1 - alpha + alpha / L) ** H:
                        return Evidence("refuted", method="exact last entry vs (1-α+α/L)^H",
                                        counterexample=f"α={alpha}, H={H}, L={L}: {p[-1]}")
                    errs.append(_interior_error(p, c))
                key = f"alpha={alpha},H={H}"
                slopes[key] = _rate(lengths, errs)
                growth[key] = _growth(lengths, errs)
                atom = (1 - alpha) ** H
                atoms[key] = "p(L) - (1-α)^H <= Hα/L holds: " + str(
                    all((1 - alpha + alpha / L) ** H - atom <= H * alpha / L for L in lengths))
                masses[key] = _nstr(abs(mpmath.quad(c, [0, 1]) - (1 - _mpf(atom))), 3)
    worst = max(growth.values())
    mass_ok = all(mpmath.mpf(v) < mpmath.mpf(10) ** (-(ctx.dps - 10)) for v in masses.values())
    ok = worst <= 1.1 and mass_ok and all(v.endswith("True") for v in atoms.values())
    return Evidence(
        "verified" if ok else "refuted",
        method="exact N^H last rows (Fractions) vs sympy-derived mixture density (mpmath)",
        discrepancy="rate exponent over the three largest L farthest from -1: "
        f"{max(slopes.values(), key=lambda s: abs(s + 1)):.3f}; "
        f"mass of the continuous part vs 1-(1-α)^H: max {max(masses.values(), key=mpmath.mpf)}",
        precision=f"exact, dps={ctx.dps}",
        tolerance=f"L·err(L) bounded (c(2L)/c(L) <= 1.1); mass to {ctx.dps - 10} digits",
        cases=len(alphas) * len(depths) * len(lengths),
        worst_margin=f"largest c(2L)/c(L) = {worst:.3f}",
        counterexample=None if ok else f"L·err(L) ratios {growth}",
        parameters={"alphas": [str(a) for a in alphas], "depths": list(depths),
                    "lengths": list(lengths)},
        details={"rate_exponents": {k: round(v, 4) for k, v in slopes.items()}, "atom": atoms,
                 "mass_discrepancy": masses},
    )


# ----------------------------------------------------------------------------- recency delta
@claim(
    f"{PAPER}:recency-delta",
    statement="The last token keeps an atom (1-α)^H of influence that does not vanish as L grows "
    "(O(1) in L; it decays geometrically in H).",
    latex=r"p(L)=\Bigl(1-\alpha+\frac{\alpha}{L}\Bigr)^{H}\xrightarrow[L\to\infty]{}(1-\alpha)^H",
    expected="verified",
    section="2 (C5)",
)
def _recency_delta(ctx: CheckContext) -> Evidence:
    from posbias.numerics.cesaro import cesaro_profile_exact

    cases = 0
    worst = None
    for alpha in (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
        for H in (1, 4, 12):
            atom = (1 - alpha) ** H
            prev = None
            for L in (2, 16, 128, 1024):
                pL = cesaro_profile_exact(L, [alpha] * H)[-1]
                closed = (1 - alpha + alpha / L) ** H
                if pL != closed or pL < atom or (prev is not None and pL > prev):
                    return Evidence(
                        "refuted", method="exact p(L) vs (1-α+α/L)^H",
                        counterexample=f"α={alpha}, H={H}, L={L}: p(L)={pL}, closed form {closed}")
                gap = (pL - atom) * L / (H * alpha)  # <= 1 by Bernoulli's inequality bound
                worst = gap if worst is None else max(worst, gap)
                prev = pL
                cases += 1
    ok = worst <= 1
    return Evidence(
        "verified" if ok else "refuted",
        method="exact last entry of the rollout (Fractions) vs the closed form and its limit",
        discrepancy="0 (exact identity p(L) = (1-α+α/L)^H)",
        precision="exact",
        tolerance="exact; 0 <= p(L) - (1-α)^H <= Hα/L",
        cases=cases,
        worst_margin=f"max (p(L)-(1-α)^H)·L/(Hα) = {float(worst):.6g}",
        parameters={"alphas": ["1/10", "1/2", "9/10"], "depths": [1, 4, 12],
                    "lengths": [2, 16, 128, 1024]},
    )


# ----------------------------------------------------------------------------- C6
@claim(
    f"{PAPER}:dead-zone",
    statement="Between the two ends the influence is O(1/(H-1)!) (the factorial dead zone).",
    latex=r"\rho\bigl(\tfrac12\bigr)=O\!\Bigl(\frac{1}{(H-1)!}\Bigr)",
    expected="qualified",
    section="2 (C6)",
)
def _dead_zone(ctx: CheckContext) -> Evidence:
    from posbias.numerics.cesaro import cesaro_profile_exact

    L = 512
    rows = {}
    holds_at_one, fails_below_one = True, []
    rel_disc = mpmath.mpf(0)
    with mpmath.workdps(ctx.dps):
        for H in (6, 12, 24):
            fact = mpmath.factorial(H - 1)
            for alpha in (Fraction(1), Fraction(3, 4), Fraction(1, 2), Fraction(1, 4)):
                cont = _continuous_part(H, alpha)(mpmath.mpf(1) / 2)
                discrete = L * _mpf(cesaro_profile_exact(L, [alpha] * H)[L // 2 - 1])
                lower = H * _mpf(alpha) * (1 - _mpf(alpha)) ** (H - 1)
                scaled = cont * fact  # <= 1 means rho(1/2) <= 1/(H-1)!
                rows[f"H={H},alpha={alpha}"] = {
                    "rho(1/2)": _nstr(cont, 4), "L*p(L/2) at L=512": _nstr(discrete, 4),
                    "1/(H-1)!": _nstr(1 / fact, 3), "H*alpha*(1-alpha)^(H-1)": _nstr(lower, 4),
                    "rho(1/2)*(H-1)!": _nstr(scaled, 4),
                }
                # The discrete route corroborates the continuum one: the O(1/L) Beta smoothing
                # (THEORY X2) is large relative to rho at high H, so only the conclusion
                # (rho(1/2)·(H-1)! below 1 or not) has to agree, by a margin of 10x.
                d_scaled = discrete * fact
                if (scaled <= 1) != (d_scaled <= 1) or not (
                        (scaled <= 1 and d_scaled <= 10) or (scaled > 1 and d_scaled > mpmath.mpf(1) / 10)):
                    return Evidence(
                        "inconclusive", method="continuum vs discrete at x = 1/2",
                        details={"table": rows},
                        discrepancy=f"routes disagree at H={H}, α={alpha}: L·p(L/2)·(H-1)! = "
                        f"{_nstr(d_scaled)} vs ρ(1/2)·(H-1)! = {_nstr(scaled)}; raise L",
                    )
                rel_disc = max(rel_disc, abs(discrete - cont) / cont)
                if alpha == 1:
                    exact_one = mpmath.log(2) ** (H - 1) / fact
                    holds_at_one &= scaled <= 1 and abs(cont - exact_one) <= abs(exact_one) * mpmath.mpf(10) ** (10 - ctx.dps)
                else:
                    if cont < lower:
                        return Evidence("refuted", method="lower bound Hα(1-α)^(H-1)",
                                        counterexample=f"H={H}, α={alpha}")
                    if scaled > 1:
                        fails_below_one.append((H, alpha, scaled))
    if holds_at_one and fails_below_one:
        H, a, sc = max(fails_below_one, key=lambda r: r[2])
        ex = rows["H=24,alpha=1/2"]
        verdict = "qualified"
        correction = (
            "factorial only at α = 1, where ρ_H(1/2) = (ln 2)^(H-1)/(H-1)!; for α < 1, "
            "ρ(1/2) >= Hα(1-α)^(H-1), exponential in H: at H=24, α=1/2, ρ(1/2) = "
            f"{ex['rho(1/2)']} against 1/23! = {ex['1/(H-1)!']}"
        )
    elif holds_at_one:
        verdict, correction = "verified", None
    else:
        verdict, correction = "refuted", "fails even at α = 1"
    return Evidence(
        verdict,
        method="sympy mixture density at x = 1/2 (mpmath) vs exact discrete L·p(L/2), L = 512",
        correction=correction,
        precision=f"dps={ctx.dps}; exact discrete profiles",
        discrepancy=f"largest relative gap continuum vs L·p(L/2): {_nstr(rel_disc, 2)} "
        "(Beta smoothing at L = 512; the conclusions agree)",
        tolerance="both routes on the same side of 1/(H-1)!",
        cases=len(rows),
        parameters={"depths": [6, 12, 24], "alphas": ["1", "3/4", "1/2", "1/4"], "L": L},
        details={"table": rows},
    )


# ----------------------------------------------------------------------------- C7 shape
@claim(
    f"{PAPER}:u-shape",
    statement="The influence profile at initialization is U-shaped: lost in the middle.",
    latex=r"\arg\min_j (N^H)_{Lj}\in\{2,\dots,L-2\}",
    expected="qualified",
    section="2 (C7)",
)
def _u_shape(ctx: CheckContext) -> Evidence:
    from posbias.numerics.cesaro import cesaro_profile_exact

    lengths = (8, 16, 64, 256) if not ctx.thorough else (8, 16, 64, 256, 1024)
    depths = (2, 4, 12, 24)
    alphas = [Fraction(1, 10), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(9, 10),
              Fraction(1)]
    cases, interior, not_monotone = 0, [], []
    argmins = {}
    at_last_with_residual = []
    for L in lengths:
        for H in depths:
            for alpha in alphas:
                p = cesaro_profile_exact(L, [alpha] * H)
                m = min(p)
                arg = p.index(m) + 1
                decreasing = all(p[j] > p[j + 1] for j in range(L - 2))
                argmins.setdefault(str(alpha), set()).add("L-1" if arg == L - 1 else
                                                         "L" if arg == L else str(arg))
                if arg == L and alpha < 1:
                    at_last_with_residual.append(f"L={L}, H={H}, α={alpha}")
                if 2 <= arg <= L - 2:
                    interior.append(f"L={L}, H={H}, α={alpha}: argmin {arg}")
                elif not decreasing:
                    not_monotone.append(f"L={L}, H={H}, α={alpha}: argmin {arg}")
                cases += 1
    if interior:
        return Evidence("verified", method="exact profiles (Fractions)", cases=cases,
                        details={"interior_minima": interior})
    if not_monotone:
        # no interior valley, but the primacy part is not monotone: the correction below would
        # be false, and nothing else is established
        return Evidence("inconclusive", method="exact profiles (Fractions)", cases=cases,
                        discrepancy="no interior minimum, but p is not strictly decreasing on 1..L-1",
                        details={"not_monotone": not_monotone})
    return Evidence(
        "qualified",
        method="exact last rows of N^H (Fractions): argmin and monotonicity, exactly",
        correction="no interior valley: p is strictly decreasing on 1..L-1 in every case, so "
        "the minimum is at L-1 (when the recency atom p(L) = (1-α+α/L)^H stays above p(L-1)) or "
        f"at L (α = 1, and {len(at_last_with_residual)} of the α < 1 cases, e.g. "
        f"{at_last_with_residual[0] if at_last_with_residual else 'none'}, where the profile is "
        "monotone); the profile is a primacy tail plus a recency atom, a 'U' only in its two "
        "ends. An interior valley needs a distance-decaying kernel (ALiBi) or content terms",
        precision="exact",
        cases=cases,
        worst_margin="0 interior minima",
        parameters={"lengths": list(lengths), "depths": list(depths),
                    "alphas": [str(a) for a in alphas]},
        details={"argmin_by_alpha": {k: sorted(v) for k, v in argmins.items()}},
    )


# ----------------------------------------------------------------------------- C7 ratios
BAND = (10 ** 1.5, 10 ** 2.5)  # "≈ 10^2": within half a decade


FLOAT_RATIO_TOL = 1e-12  # float64 profiles of T = 24 layers: rounding is about T L u ~ 1e-13


def _band_intervals(alphas, ratios):
    """Maximal runs of consecutive grid α whose ratio lies in BAND, as [lo, hi] strings."""
    runs, start, last = [], None, None
    for a, r in zip(alphas, ratios):
        inside = BAND[0] <= r <= BAND[1]
        if inside and start is None:
            start = a
        if not inside and start is not None:
            runs.append(f"[{start}, {last}]")
            start = None
        last = a
    if start is not None:
        runs.append(f"[{start}, {last}]")
    return runs


@claim(
    f"{PAPER}:peak-valley",
    statement="Peak-to-valley influence ratio is about 10^2 at initialization.",
    latex=r"\frac{\max(p(1),p(L))}{\min_j p(j)}\approx 10^{2}",
    expected="qualified",
    section="2 (C7)",
)
def _peak_valley(ctx: CheckContext) -> Evidence:
    from posbias.numerics.cesaro import cesaro_profile, cesaro_profile_precise

    alphas = [Fraction(k, 50) for k in range(1, 51)]
    depths = (12, 24)
    lengths = (256, 512, 1024, 2048, 4096)
    table = {}
    spans_first, spans_last = [], []
    for H in depths:
        for L in lengths:
            firsts, lasts = [], []
            for a in alphas:
                p = cesaro_profile(L, [float(a)] * H)
                m = float(p.min())
                firsts.append(float(p[0]) / m if m > 0 else math.inf)
                lasts.append(float(p[-1]) / m if m > 0 else math.inf)
            table[f"H={H},L={L}"] = {
                "first/min in [10^1.5, 10^2.5] for alpha in": _band_intervals(alphas, firsts) or "none",
                "last/min in [10^1.5, 10^2.5] for alpha in": _band_intervals(alphas, lasts) or "none",
                "first/min range over alpha": f"{min(firsts):.3g} .. {max(firsts):.3g}",
                "last/min range over alpha": f"{min(lasts):.3g} .. {max(lasts):.3g}",
            }
            spans_first.append(_band_intervals(alphas, firsts))
            spans_last.append(_band_intervals(alphas, lasts))
    # below the grid: a small α, where the profile is nearly flat except for the last token
    ps = cesaro_profile(4096, [1e-4] * 24)
    small_first, small_last = float(ps[0] / ps.min()), float(ps[-1] / ps.min())
    # cross-check the float64 ratios against the precise path on one setting
    with mpmath.workdps(ctx.dps):
        pp = cesaro_profile_precise(256, [mpmath.mpf(1) / 2] * 24, ctx.dps)
        fp = cesaro_profile(256, [0.5] * 24)
        rel = max(abs(mpmath.mpf(float(f)) - q) / q for f, q in zip(fp, pp))
    measured = None
    try:
        from posbias.proofs_checks.measured import measured_peak_valley

        measured = measured_peak_valley(ctx)
    except ImportError:
        measured = None
    always = all(spans_first) or all(spans_last)
    never = not any(spans_first) and not any(spans_last)
    float_ok = rel <= FLOAT_RATIO_TOL
    if not float_ok:
        verdict = "inconclusive"  # the float64 ratios cannot be trusted: use the precise path
    elif never:
        verdict = "refuted"
    else:
        verdict = "qualified"
    ex = table["H=24,L=4096"]
    correction = (
        "the ratio is ~10^2 only in an α window that moves with H and L, and it depends on "
        "which peak is meant: at H=24, L=4096 first/min is in [10^1.5, 10^2.5] for α in "
        f"{ex['first/min in [10^1.5, 10^2.5] for alpha in']} and last/min for α in "
        f"{ex['last/min in [10^1.5, 10^2.5] for alpha in']}; over the grid α = 1/50, 2/50, ..., 1 "
        f"first/min ranges {ex['first/min range over alpha']} and last/min "
        f"{ex['last/min range over alpha']} (off the grid, at α = 1/10000: first/min "
        f"{small_first:.3g}, last/min {small_last:.3g}; the profile flattens to about Hα/L away "
        "from the last token)"
    )
    if measured:
        correction += f"; measured at initialization: {measured.get('summary', measured)}"
    return Evidence(
        verdict,
        method="fast float64 Cesàro profiles over an α grid (step 1/50), cross-checked with mpmath",
        correction=correction,
        precision=f"float64, checked against dps={ctx.dps}",
        discrepancy=f"float64 vs mpmath relative {_nstr(rel, 2)} (H=24, L=256, α=1/2)",
        tolerance=f"float64 vs mpmath relative difference <= {FLOAT_RATIO_TOL:g} (else inconclusive)",
        cases=len(alphas) * len(depths) * len(lengths),
        parameters={"depths": list(depths), "lengths": list(lengths), "alpha_step": "1/50",
                    "band": "[10^1.5, 10^2.5]", "in_band_for_every_setting": always},
        details={"table": table, "measured_at_init": measured},
    )


# --------------------------------------------------------------------------------- C2 kernel


def continuum_kernel_check(ctx: CheckContext, kernel=None) -> Evidence:
    """Kernel of K^H: symbolic induction + explicit H = 1..6; numerically, the closed form
    against ``(1/x) quad(K_{H-1}(z, y), z = y..x)`` at random points for H = 2..6.

    ``kernel(depth, x, y)`` replaces the closed form under test (default: the stated one).
    """
    from posbias.derivations import hardy

    kernel = kernel or hardy.hardy_kernel_symbolic
    d_ind = derivation_by_name("hardy-kernel")
    d_exp = derivation_by_name("hardy-kernels-explicit")
    if kernel is not hardy.hardy_kernel_symbolic:
        ident, _ = hardy.hardy_induction_step(kernel)
        d_ind = with_identities(d_ind, (ident,))
    depths = range(2, 9 if ctx.thorough else 7)
    xs = sample_points(ctx, 2 * len(depths), "kernel")
    funcs = {h: lambdify_mpmath((hardy.x, hardy.y), kernel(h, hardy.x, hardy.y)) for h in depths}
    prev = {h: lambdify_mpmath((hardy.x, hardy.y), kernel(h - 1, hardy.x, hardy.y)) for h in depths}

    def pairs():
        out = []
        for i, h in enumerate(depths):
            a, b = mpmath.mpf(xs[2 * i]), mpmath.mpf(xs[2 * i + 1])
            out.append((h, max(a, b), min(a, b)))
        return out

    def closed(dps):
        return [funcs[h](xx, yy) for h, xx, yy in pairs()]

    def integrated(dps):
        return [mpmath.quad(lambda zz: prev[h](zz, yy), [yy, xx]) / xx for h, xx, yy in pairs()]

    ag = agree(closed, integrated, ctx.dps, ctx.max_dps)
    return combine_routes(
        [d_ind, d_exp], ag,
        "sympy induction for symbolic H (u = ln(z/y)) and direct integration H = 1..6; "
        "closed form vs mpmath.quad of the composition",
        {"depths": list(depths), "points": xs},
    )


claim(
    "chowdhury2026:continuum-kernel",
    statement="In the continuum limit the Cesaro matrix becomes the Hardy operator "
    "(Kf)(x) = (1/x) int_0^x f, and K^H has kernel (1/x) ln(x/y)^(H-1)/(H-1)! on 0 < y < x.",
    latex=latex_of_derivation("hardy-kernel"),
    expected="verified",
    assumptions=("L -> oo with x = i/L", "H a positive integer"),
    section="C2",
)(continuum_kernel_check)


# -------------------------------------------------------------------------------- C3 density


def density_check(ctx: CheckContext, density=None) -> Evidence:
    """Normalization, Mellin moments, Gamma law: symbolic, and numerically
    ``quad(x^s rho_H)`` vs ``(1+s)^(-H)`` and ``quad(rho_H, 0..e^-t)`` vs mpmath's regularized
    upper incomplete gamma ``Q(H, t)`` for H = 1..8."""
    from posbias.derivations import density as dens

    d = derivation_by_name("density")
    density = density or dens.rho_symbolic
    if density is not dens.rho_symbolic:
        norm, _ = dens.normalization_identity(density)
        mell, _ = dens.mellin_identity(density)
        d = with_identities(d, (norm, mell))
    depths = range(1, 9)
    pts = sample_points(ctx, 2 * len(depths), "density")
    f = {h: lambdify_mpmath((dens.x,), density(h, dens.x)) for h in depths}

    def closed(dps):
        out = []
        for i, h in enumerate(depths):
            s_ = mpmath.mpf(pts[2 * i]) * 3
            t0 = mpmath.mpf(pts[2 * i + 1]) * 4
            out.append((1 + s_) ** (-h))
            out.append(mpmath.gammainc(h, t0, mpmath.inf, regularized=True))
        return out

    def integrated(dps):
        out = []
        for i, h in enumerate(depths):
            s_ = mpmath.mpf(pts[2 * i]) * 3
            t0 = mpmath.mpf(pts[2 * i + 1]) * 4
            out.append(mpmath.quad(lambda xx: xx**s_ * f[h](xx), [0, 1]))
            out.append(mpmath.quad(f[h], [0, mpmath.exp(-t0)]))
        return out

    ag = agree(closed, integrated, ctx.dps, ctx.max_dps)
    return combine_routes(
        [d], ag,
        "sympy (t = ln(1/x), symbolic H) and mpmath.quad of the density vs (1+s)^(-H) and the "
        "regularized incomplete gamma function",
        {"depths": list(depths), "points": pts},
        details={"median_x": d.data.get("median_x")},
    )


claim(
    "chowdhury2026:density",
    statement="Without residuals the final-token density is rho_H(x) = ln(1/x)^(H-1)/(H-1)!: it "
    "integrates to 1, has Mellin moments (1+s)^(-H), and ln(1/x) is Gamma(H,1) distributed.",
    latex=latex_of_derivation("density"),
    expected="verified",
    assumptions=("H a positive integer", "0 < x <= 1"),
    section="C3",
)(density_check)


# --------------------------------------------------------------------------- C4 primacy tail


def primacy_tail_check(ctx: CheckContext) -> Evidence:
    """Divergence rate of rho_H at x -> 0+: the exponent p in rho_H ~ c ln(1/x)^p, estimated
    from two tiny x (mpmath) and compared with the symbolic exponent H - 1.

    The claim says "logarithmically": that is exactly true when p = 1 (H = 2); the check
    reports the correction when some H >= 1 has p != 1.
    """
    from posbias.derivations import density as dens

    d = derivation_by_name("primacy-tail")
    depths = list(range(1, 9))
    f = {h: lambdify_mpmath((dens.x,), dens.rho(h)) for h in depths}

    def exponents(dps):
        out = []
        x1, x2 = mpmath.mpf(10) ** -(10 * dps), mpmath.mpf(10) ** -(20 * dps)
        for h in depths:
            r1, r2 = f[h](x1), f[h](x2)
            out.append(mpmath.log(r2 / r1) / mpmath.log(mpmath.log(1 / x2) / mpmath.log(1 / x1)))
        return out

    def symbolic(dps):
        return [mpmath.mpf(h - 1) for h in depths]

    ag = agree(exponents, symbolic, ctx.dps, ctx.max_dps)
    with mpmath.workdps(ctx.dps):
        est = exponents(ctx.dps)
        non_log = [h for h, p in zip(depths, est) if abs(p - 1) > mpmath.mpf(10) ** (-ctx.dps // 2)]
    correction = None
    if non_log:
        correction = (
            "rho_H(x) = ln(1/x)^(H-1)/(H-1)! exactly, so as x -> 0+ it grows like the power H-1 of "
            "the logarithm: logarithmic only for H = 2, no divergence for H = 1 (rho_1 = 1), "
            "polylogarithmic for H >= 3; always slower than any power x^(-delta), and the mass "
            "below eps is Gamma(H, ln(1/eps))/Gamma(H) -> 0"
        )
    return combine_routes(
        [d], ag,
        "sympy limits and tail mass; divergence exponent from two tiny x in mpmath vs H - 1",
        {"depths": depths},
        details={"exponents": [mpmath.nstr(p, 15) for p in est],
                 "depths_not_logarithmic": non_log},
        correction=correction,
    )


claim(
    "chowdhury2026:primacy-tail",
    statement="Primacy tail: rho_H(x) diverges logarithmically as x -> 0.",
    latex=latex_of_derivation("primacy-tail"),
    expected="qualified",
    assumptions=("H a positive integer",),
    section="C4",
)(primacy_tail_check)


# -------------------------------------------------------------------------------- C8 RoPE


def measured_rope_part(ctx: CheckContext):
    """The measured part of C8: Step-0 influence profiles of a randomly initialized Qwen2-shaped
    model with RoPE on and with RoPE patched to the identity (same weights and inputs).

    The two profiles are compared by Spearman correlation and normalized W1, and read against
    the probe-noise floor (two RoPE-on estimates with independent probes).  Verdict: verified
    when the on/off agreement reaches the claimed Spearman 0.99 or is within 0.005 of the noise
    floor; qualified when Spearman >= 0.9 but RoPE visibly changes the ranking; refuted below.
    Returns None without the ``models`` extra (the claim then rests on its other parts).
    """

    from posbias.proofs_checks.measured import measured_rope_comparison

    m = measured_rope_comparison(ctx)
    if m is None:
        return None
    rho, floor = m["spearman"], m["noise_spearman"]
    if rho >= 0.99 or rho >= floor - 0.005:
        verdict = "verified"
    elif rho >= 0.9:
        verdict = "qualified"
    else:
        verdict = "refuted"
    return Evidence(
        verdict,
        method="Step-0 Jacobian profiles of a random-init transformers model, RoPE on vs off",
        discrepancy=f"Spearman {rho:.4f} (noise floor {floor:.4f}), W1 {m['w1']:.3g} "
        f"(noise floor {m['noise_w1']:.3g})",
        tolerance="Spearman >= 0.99 or within 0.005 of the probe-noise floor",
        correction=None if verdict == "verified" else
        f"RoPE changes the Step-0 ranking beyond probe noise: Spearman {rho:.3f} against a "
        f"noise floor of {floor:.3f} ({m['arch']})",
        parameters={k: m[k] for k in ("arch", "settings", "length", "estimator", "samples", "seed")},
    )


def ks_two_sample(a, b) -> float:
    """Two-sample Kolmogorov-Smirnov statistic ``sup |F_a - F_b|`` (numpy, float64).

    >>> ks_two_sample([0.0, 1.0, 2.0], [0.0, 1.0, 2.0])
    0.0
    """

    a = np.sort(np.asarray(a, dtype=float))
    b = np.sort(np.asarray(b, dtype=float))
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / a.size
    fb = np.searchsorted(b, grid, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


def rope_monte_carlo(seed: int, samples: int = 20000, dim: int = 64, transform=None) -> dict:
    """Monte Carlo comparison of the laws of ``q^T k`` and ``q^T R k``.

    ``q, k ~ N(0, I_dim)`` independent; ``R`` block-diagonal with random angles drawn per sample
    (as RoPE does per position pair).  ``transform(k, rng)`` replaces the rotation (tests pass a
    non-orthogonal map to see the check fail).  Two independent sample sets are drawn so that the
    two-sample KS statistic is compared with its critical value at level 1e-3,
    ``c(a) sqrt((n+m)/(n m))`` with ``c(a) = sqrt(-ln(a/2)/2)``.
    """

    rng = np.random.default_rng(seed)
    half = dim // 2

    def rotate(k, rng):
        theta = rng.uniform(0.0, 2 * np.pi, size=(k.shape[0], half))
        c, s = np.cos(theta), np.sin(theta)
        k1, k2 = k[:, 0::2], k[:, 1::2]
        out = np.empty_like(k)
        out[:, 0::2] = c * k1 - s * k2
        out[:, 1::2] = s * k1 + c * k2
        return out

    transform = transform or rotate
    q1, k1 = rng.standard_normal((samples, dim)), rng.standard_normal((samples, dim))
    q2, k2 = rng.standard_normal((samples, dim)), rng.standard_normal((samples, dim))
    plain = np.einsum("ij,ij->i", q1, k1)
    rotated = np.einsum("ij,ij->i", q2, transform(k2, rng))
    level = 1e-3
    crit = float(np.sqrt(-np.log(level / 2) / 2) * np.sqrt(2.0 / samples))
    ks = ks_two_sample(plain, rotated)
    # moments: variance dim for both (q^T k is a sum of dim products of unit normals, variance 1
    # each); standard error of a sample variance of this law is sqrt(Var(Z^2)/n) with
    # E[Z^4] = 3 dim^2 + 6 dim for Z = q^T k, so Var(Z^2) = 2 dim^2 + 6 dim
    se_var = float(np.sqrt((2 * dim**2 + 6 * dim) / samples))
    var_p, var_r = float(plain.var()), float(rotated.var())
    moments_ok = abs(var_p - var_r) <= 5 * np.sqrt(2) * se_var and abs(plain.mean() - rotated.mean()) <= 5 * np.sqrt(2 * dim / samples)
    return {
        "samples": samples,
        "dim": dim,
        "ks": ks,
        "ks_critical": crit,
        "ks_ok": ks <= crit,
        "var_plain": var_p,
        "var_rotated": var_r,
        "var_expected": float(dim),
        "mean_plain": float(plain.mean()),
        "mean_rotated": float(rotated.mean()),
        "moments_ok": bool(moments_ok),
    }


def rope_init_check(ctx: CheckContext, transform=None) -> Evidence:
    """C8, symbolic part (orthogonality, covariance, characteristic function) and Monte Carlo
    part (two-sample KS and moments); the measured part comes from :func:`measured_rope_part`."""
    d = derivation_by_name("rope-init")
    mc = rope_monte_carlo(ctx.seed, 40000 if ctx.thorough else 20000, 64, transform)
    measured = measured_rope_part(ctx)
    details = {"symbolic": symbolic_summary([d]),
               "monte_carlo": {k: (repr(v) if isinstance(v, float) else v) for k, v in mc.items()},
               "measured_part": "not run: the 'models' extra (torch, transformers) is missing"
               if measured is None else measured.as_dict()}
    mc_ok = mc["ks_ok"] and mc["moments_ok"]
    if not mc_ok:
        verdict = "refuted"
    elif not d.proven:
        verdict = "inconclusive"
    elif measured is not None and measured.verdict != "verified":
        verdict = measured.verdict
    else:
        verdict = "verified"
    return Evidence(
        verdict,
        method="sympy orthogonality and score covariance for d = 2, 4, 6; numpy Monte Carlo "
        "(seeded) two-sample KS at level 1e-3 and variance comparison",
        discrepancy=f"KS {mc['ks']:.3g} (critical {mc['ks_critical']:.3g})",
        precision="exact (symbolic); float64 (Monte Carlo)",
        tolerance="KS level 1e-3; variances within 5 standard errors",
        counterexample=None if mc_ok else
        f"KS {mc['ks']:.3g} > {mc['ks_critical']:.3g} or variances {mc['var_plain']:.4g} vs "
        f"{mc['var_rotated']:.4g}",
        parameters={"seed": ctx.seed, "samples": mc["samples"], "dim": mc["dim"]},
        details=details,
    )


claim(
    "chowdhury2026:rope-init",
    statement="At initialization (isotropic Gaussian queries and keys) a RoPE rotation does not "
    "change the law of the score q^T R k, and Step-0 influence profiles with and without RoPE "
    "agree (measured on a reduced-width Qwen2 shape; --thorough: the full Qwen2-0.5B width, "
    "where RoPE changes the ranking beyond probe noise).",
    latex=latex_of_derivation("rope-init"),
    expected="verified",
    expected_thorough="qualified",
    assumptions=("k ~ N(0, sigma^2 I) independent of q", "RoPE block rotations"),
    section="C8",
)(rope_init_check)


#: tolerance around the claimed figures: one unit in their second decimal
_S_TOL = 0.01
_W_TOL = 0.01
#: far from the claim: Spearman below 0.9 and W1 above 0.1
_S_FAR = 0.9
_W_FAR = 0.1


def _latex_step0():
    import sympy as sp

    j, k, L, H = sp.symbols("j k L H", integer=True, positive=True)
    alpha = sp.Symbol(r"\alpha", positive=True)
    M, I = sp.MatrixSymbol("M", L, L), sp.Identity(L)
    norm = sp.Function(r"\|J\|_{F}")
    p_meas, p_th = sp.symbols(r"p_{\mathrm{Step0}} p_{\mathrm{theory}}")
    rho_s, w1 = sp.Function(r"\rho_{S}"), sp.Function(r"W_{1}")
    parts = [
        sp.Eq(sp.Function(r"p_{\mathrm{Step0}}")(j),
              norm(j) / sp.Sum(norm(k), (k, 1, L))),
        sp.Eq(sp.Function(r"p_{\mathrm{theory}}")(j), sp.Indexed(sp.IndexedBase("P"), L, j)),
        sp.Eq(sp.MatrixSymbol("P", L, L), sp.MatPow((1 - alpha) * I + alpha * M, H)),
        sp.Eq(rho_s(p_meas, p_th), sp.Rational(99, 100)),
        sp.Eq(w1(p_meas, p_th), sp.Rational(1, 50)),
    ]
    return r",\quad ".join(sp.latex(e) for e in parts)


@claim(
    f"{PAPER}:step0-fit",
    statement="At initialization (Step 0) the measured input-output Jacobian influence profile of "
    "untrained causal transformers (Qwen2 with 24 layers, GPT-2) agrees with the Cesàro rollout "
    "N^H, N = (1 - alpha) I + alpha M: Spearman 0.99 and Wasserstein-1 0.02.",
    latex=_latex_step0,
    expected="qualified",
    section="C9",
    assumptions=(
        "randomly initialized transformers models (their own initializers), eval mode, eager "
        "attention, float32; random token ids; Jacobian of the final position's last hidden "
        "state with respect to the input embeddings; Frobenius norms estimated from 12 "
        "Rademacher probes per input, averaged over 3 inputs (8 probes, 2 inputs with --thorough)",
        "theory: Cesàro rollout with the best constant alpha (W1-optimal, the most favourable "
        "reading) and, for comparison, with the measured lambda_t of every block",
        "default: the papers' depths and head layouts at reduced width, L = 128; --thorough: "
        "full widths, L = 256",
    ),
    needs=("models",),
)
def check_step0_fit(ctx):
    runs = step0_measurements(ctx)
    if runs is None:
        return Evidence("needs-data", method="needs the 'models' extra (torch, transformers): "
                        "pip install 'posbias[models]'")
    s_min, w_max = CLAIMED_SPEARMAN - _S_TOL, CLAIMED_W1 + _W_TOL
    per_arch = {}
    matches, far = [], []
    for label, m, c in runs:
        ok = c.spearman_best_alpha >= s_min and c.w1_best_alpha <= w_max
        is_far = c.spearman_best_alpha < _S_FAR and c.w1_best_alpha > _W_FAR
        matches.append(ok)
        far.append(is_far)
        per_arch[label] = {
            "settings": {k: m.settings[k] for k in ("model_type", "num_hidden_layers",
                                                     "hidden_size", "num_attention_heads")},
            "length": m.length, "estimator": m.estimator, "samples": m.samples,
            "best_alpha": round(c.best_alpha, 4),
            "spearman_best_alpha": round(c.spearman_best_alpha, 4),
            "w1_best_alpha": float(f"{c.w1_best_alpha:.4g}"),
            "spearman_measured_lambda": round(c.spearman_measured_lambda, 4),
            "w1_measured_lambda": float(f"{c.w1_measured_lambda:.4g}"),
            "measured_lambda_mean": round(float(m.lambdas.mean()), 4),
            "measured_lambda_range": [round(float(m.lambdas.min()), 4),
                                      round(float(m.lambdas.max()), 4)],
            "attention_tv_from_uniform_max": (None if m.attention_tv is None
                                              else float(f"{m.attention_tv.max():.3g}")),
            "first_over_min": float(f"{c.measured['first_over_min']:.4g}"),
            "last_over_min": float(f"{c.measured['last_over_min']:.4g}"),
            "seconds": round(m.seconds, 2),
        }
    figures = "; ".join(
        f"{label}: Spearman {fmt3(c.spearman_best_alpha)}, W1 {fmt3(c.w1_best_alpha)} at alpha = "
        f"{fmt3(c.best_alpha)} (with the measured lambda_t, mean {fmt3(float(m.lambdas.mean()))}: "
        f"Spearman {fmt3(c.spearman_measured_lambda)}, W1 {fmt3(c.w1_measured_lambda)})"
        for label, m, c in runs)
    method = ("Step-0 Jacobian profiles of randomly initialized transformers models (probe "
              "estimates) vs float64 Cesàro rollouts; Spearman and normalized W1")
    tolerance = (f"Spearman >= {s_min:.2f} and W1 <= {w_max:.2f} (claimed {CLAIMED_SPEARMAN} "
                 f"and {CLAIMED_W1}, each widened by one unit of the second decimal)")
    common = dict(method=method, precision="float32 (transformers), probe estimates",
                  tolerance=tolerance, cases=len(runs),
                  parameters={"seed": ctx.seed, "thorough": ctx.thorough,
                              **{k: v for k, v in measurement_plan(ctx)[1].items()}},
                  details={"per_architecture": per_arch})
    if all(matches):
        return Evidence("verified", discrepancy=figures, **common)
    if all(far):
        return Evidence("refuted", counterexample=figures, **common)
    held = [label for (label, _, _), ok in zip(runs, matches) if ok]
    missed = [label for (label, _, _), ok in zip(runs, matches) if not ok]
    if held:
        scope = f"holds within tolerance for {', '.join(held)}; not for {', '.join(missed)}"
    else:
        scope = (f"no architecture meets the tolerance ({', '.join(missed)}), though none is "
                 f"far off (Spearman >= {_S_FAR} or W1 <= {_W_FAR})")
    worse = [label for label, _, c in runs if c.w1_measured_lambda > 2 * c.w1_best_alpha]
    note = (" The agreement needs a fitted alpha: with the measured mixing coefficients "
            f"lambda_t the W1 is more than twice as large ({', '.join(worse)})."
            if worse else "")
    return Evidence("qualified", correction=f"{scope}. Measured: {figures}.{note}", **common)
