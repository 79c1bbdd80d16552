"""The notation of the LaTeX sheet: what each symbol of the derivations' formulas means.

:func:`used_notation` collects, from the displayed formulas of the derivations, every free
symbol, every undefined function (``rho_H``, ``K_H``, ``lambda(t)``) and every special function
of sympy (the gamma functions, the Laguerre polynomials ...); :data:`SYMBOLS`, :data:`FUNCTIONS`
and :data:`SPECIAL` say what each one means.  Symbols bound by an integral, a sum, a product or a
limit are defined by that sign and are not listed.  A formula using a symbol that has no entry
here is an error (:func:`notation_entries` raises), so the sheet's Notation block defines every
symbol its formulas use, before the first formula.

Meanings are plain ASCII mathematics, set by :func:`posbias.render.tex.prose_to_latex`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import sympy
from sympy.core.function import AppliedUndef

from posbias.derivations.printing import latex

if TYPE_CHECKING:
    from posbias.derivations import Derivation

__all__ = ["FUNCTIONS", "SPECIAL", "SYMBOLS", "notation_entries", "used_notation"]

#: free symbols and matrix symbols, by sympy name: their meaning
SYMBOLS: dict[str, str] = {
    "x": "position of a token as a fraction of the sequence, x = i/L with 0 < x <= 1 (x = 1 is "
         "the final token); in a kernel, the attending position",
    "y": "position attended to, y = j/L with 0 < y <= x",
    "H": "depth: the number of attention layers, a positive integer",
    "T": "number of layers of a residual schedule, a positive integer",
    "s": "exponent of a Mellin moment, the expectation of X^s",
    "m_H": "median of the Gamma(H, 1) law of ln(1/X) under rho_H",
    "epsilon": "a small position, 0 < epsilon < 1: the tail below it",
    "alpha": "constant weight of attention in every residual layer, 0 < alpha <= 1 (the "
             "identity keeps weight 1 - alpha)",
    "a_H": "mass of the atom at x = 1 (the final token keeping its own value)",
    "t": "log-position t = ln(1/x) > 0",
    "z": "variable of a generating function",
    "c": "diagonal entry 1 - 1/i of the Cesàro matrix at row i, 0 < c <= 1, multiplying the "
         "schedule",
    "q_max": "upper bound of the products lambda(t) c, q_max < 1",
    "a": "coefficient of the harmonic schedule lambda(t) = a/(t+1), 0 < a < 2",
    "eta": "ALiBi slope times the length L (the slope is eta/L), eta > 0",
    "u": "warped position of the ALiBi kernel, uniform under the warp",
    "R_theta": "a 2-by-2 rotation matrix by the angle theta, one block of RoPE",
    r"\|q\|": "Euclidean norm of the query vector q",
    "sigma": "standard deviation of each key coordinate, k ~ N(0, sigma^2 I_d)",
    "omega": "argument of a characteristic function",
    "n": "row index of a causal matrix, 0-indexed (token n + 1)",
    "k": "column index of a causal matrix or index of a moment, 0-indexed, k <= n",
    "H_{n,k}": "entry (n, k) of the Hausdorff matrix of the moments mu(0), mu(1), ...: "
               "lower-triangular, and the product of two such matrices is the one of the "
               "products of their moments",
    "beta": "weight of an attention sink on the first token, 0 <= beta <= 1 (the rest of the "
            "attention of the layer uniform over the past)",
    "alpha_eff": "weight of attention of the sink-free residual layer that a sink layer equals "
                 "away from the first token (up to the factor 1 - alpha beta)",
    "delta": "l1 distance (total variation without the factor 1/2) of the softmaxes of the "
             "logit sequences (1, 0, 1, 0, ...) and (0, 1, 0, 1, ...) of even length",
    "delta_odd": "the same distance at odd length 2m + 1",
    "m": "half the length of a logit sequence, n = 2m or 2m + 1",
    "S": "number of attention-sink tokens at the start (the initial tokens of StreamingLLM)",
    "W": "window: the number of most recent tokens each token reads, itself included",
    "m_sink": "influence of the last token held by the sink tokens",
    "rho_2": "second eigenvalue of a uniform causal or sliding-window kernel: the rate of "
             "rank collapse",
    # the kinetic profile of duerinckx2026 (letters the sheet does not use elsewhere)
    "Y": "log-warp of an attended position y, Y = ln(1/u) >= 0 (u its warped position)",
    "kappa": "rate times time of one mode of the kinetic profile, positive (written c in the "
             "kinetic paper)",
    "tau": "time of the kinetic dynamics, tau > 0 (written t in the kinetic paper)",
    "N": "number of Fourier modes of the kinetic profile",
    "mu_1": "first moment of the modes: b(n) r(n) added over n",
    "mu_2": "second moment of the modes: b(n) r(n)^2 added over n",
    "tau_crit": "time at which the slope of the kinetic profile at the final token changes sign",
    "kappa_crit": "the same threshold for one mode, in rate times time",
}

#: undefined functions, by sympy name: (arguments as written in the block, meaning)
FUNCTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "f": (("y",), "a function on (0, 1] (the values the operator averages)"),
    "K f": (("x",), "the continuum Cesàro (Hardy) operator K applied to f, the mean of f over "
                    "(0, x)"),
    "K_H": (("x", "y"), "kernel of K^H, the H-th power of the Hardy operator; K_1, K_2, ... the "
                        "kernels of the first powers"),
    "rho_H": (("x",), "influence density of the final token over positions x after H attention "
                      "layers without residuals"),
    "rho_c": (("x",), "continuous part of the final-token influence law with residual layers"),
    "w": (("k",), "weight of rho_k in the mixture: the probability that k of the T layers "
                  "attend"),
    "lambda": (("t",), "weight of attention in residual layer t, 0 <= lambda(t) <= 1 (the "
                       "schedule)"),
    "k^ALiBi": (("x", "y"), "continuum ALiBi kernel: the density of attention from x to y"),
    "rho^ALiBi_H": (("y",), "influence density of the final token after H ALiBi layers"),
    "varphi": (("omega",), "characteristic function of the score q^T R_theta k"),
    "mu": (("k",), "k-th moment of a Hausdorff matrix; for a rollout, the product over its "
                   "layers of their moments"),
    "rho_sink": (("t",), "continuous part of the final-token influence law with a sink, in "
                         "t = ln(1/x)"),
    "G": (("z",), "generating function of the window profile of the last token under S sinks "
                  "plus a window of W: the coefficient of z^d is the influence of token L - d; "
                  "G_1 the one of one layer"),
    "psi": (("kappa", "Y"), "the series of the kinetic profile: the first argument to the power "
                            "k+1 times Y^k/(k! (k+1)!), added over k >= 0"),
    "g": (("kappa", "y"), "one mode of the kinetic retrieval profile over attended positions y"),
    "P": (("tau", "y"), "the kinetic retrieval profile at time tau over attended positions y "
                        "(written S_t(s) in the kinetic paper)"),
    "b": (("n",), "weight of mode n of the kinetic profile, positive (written omega_n in the "
                  "kinetic paper, a Gaussian in n)"),
    "r": (("n",), "rate of mode n of the kinetic profile, positive (written a_n in the kinetic "
                  "paper, n^2 times a modified Bessel function I_n of the paper's coupling)"),
}
FUNCTIONS.update({f"K_{h}": FUNCTIONS["K_H"] for h in range(1, 7)})

#: sympy's special functions and matrices, by class name: (LaTeX as printed, meaning)
SPECIAL: dict[str, tuple[str, str]] = {
    "log": (r"\ln", "natural logarithm"),
    "exp": (r"e^{z}", "exponential"),
    "sin": (r"\sin", "sine"),
    "factorial": (r"n!", "factorial; (H - 1)! = Gamma(H)"),
    "gamma": (r"\Gamma\left(z\right)", "the Euler integral of t^(z-1) e^(-t) over t > 0"),
    "uppergamma": (r"\Gamma\left(v, z\right)",
                   "the upper incomplete integral, of t^(v-1) e^(-t) over t > z"),
    "lowergamma": (r"\gamma\left(v, z\right)",
                   "the lower incomplete integral, of t^(v-1) e^(-t) over 0 < t < z"),
    "binomial": (r"\binom{n}{k}", "binomial coefficient"),
    "assoc_laguerre": (r"L_{n}^{\left(v\right)}", "generalized Laguerre polynomial of degree n "
                       "and parameter v"),
    "Identity": (r"\mathbb{I}", "identity matrix"),
    "KroneckerDelta": (r"\delta_{0 k}", "Kronecker delta: 1 when k = 0, else 0"),
    "besseli": (r"I_{\nu}\left(z\right)", "modified Bessel function of the first kind (orders 0 "
                "and 1 here): for order 1, (z/2)^(2k+1)/(k! (k+1)!) added over k >= 0"),
}


def _formulas(derivation: Derivation) -> tuple:
    return (derivation.expression, *derivation.equations)


def used_notation(derivations: Iterable[Derivation]) -> tuple[list[str], list[str], list[str]]:
    """``(symbols, functions, specials)`` used in the displayed formulas of ``derivations``, each
    list in order of first appearance (sympy names; class names for the specials)."""
    symbols: dict[str, None] = {}
    functions: dict[str, None] = {}
    specials: dict[str, None] = {}
    for d in derivations:
        for formula in _formulas(d):
            expr = sympy.sympify(formula)
            for s in sorted(expr.free_symbols, key=sympy.default_sort_key):
                symbols.setdefault(s.name, None)
            for f in sorted(expr.atoms(AppliedUndef), key=sympy.default_sort_key):
                functions.setdefault(type(f).__name__, None)
            for f in sorted(expr.atoms(sympy.Function, sympy.Identity), key=sympy.default_sort_key):
                if not isinstance(f, AppliedUndef):
                    specials.setdefault(type(f).__name__, None)
            for m in expr.atoms(sympy.MatrixSymbol):
                symbols.setdefault(m.name, None)
    return list(symbols), list(functions), list(specials)


def notation_entries(derivations: Iterable[Derivation]) -> list[tuple[str, str, str]]:
    """``(group, LaTeX of the symbol, meaning in ASCII mathematics)`` for every symbol, function
    and special function the formulas of ``derivations`` use, in order of first appearance within
    the groups ``"Symbols"``, ``"Functions"`` and ``"Standard functions"``.  A used symbol without
    an entry raises ``KeyError`` naming it; a name used both as a symbol and as a function (two
    meanings in one sheet) raises ``ValueError``."""
    symbols, functions, specials = used_notation(derivations)
    missing = ([s for s in symbols if s not in SYMBOLS] + [f for f in functions if f not in FUNCTIONS]
               + [c for c in specials if c not in SPECIAL])
    if missing:
        raise KeyError("symbols used in the derivations with no entry in posbias.render.notation: "
                       + ", ".join(missing))
    twice = [s for s in symbols if s in functions]
    if twice:
        raise ValueError("names used in the derivations both as a symbol and as a function, two "
                         "meanings in one sheet: " + ", ".join(twice))
    entries = [("Symbols", latex(sympy.Symbol(s)), SYMBOLS[s]) for s in symbols]
    shown: set[tuple[str, ...]] = set()
    for name in functions:
        args, meaning = FUNCTIONS[name]
        if (meaning,) in shown:  # K_1 .. K_6 share K_H's entry
            continue
        shown.add((meaning,))
        entries.append(("Functions", latex(sympy.Function(name)(*sympy.symbols(args))), meaning))
    entries += [("Standard functions", *SPECIAL[c]) for c in specials]
    return entries
