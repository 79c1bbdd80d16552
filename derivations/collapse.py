r"""The exact rate of rank collapse for a fixed causal kernel (wu2024's masked attention).

A causal kernel ``A`` is lower-triangular, so ``det(A - x I) = Π_i (A_ii - x)``: its
eigenvalues are its diagonal.  Row 1 is ``e_1`` (eigenvalue 1, the consensus direction), and the
distance of ``A^t`` from consensus decays at the largest remaining diagonal entry.  For uniform
attention on the causal mask (``A_ii = 1/i``) and on every sliding window ``w >= 2``
(``A_ii = 1/min(i, w)``) that entry is ``A_22 = 1/2``: the exponential rate does not depend on
the mask's locality.  What locality changes is the transient: with ``w = 2`` the eigenvalue 1/2
has a single Jordan block of size ``L - 1`` (``A - I/2`` has rank ``L - 1``), so the distance
behaves like ``t^(L-2) 2^(-t)``, and no two rows at distance beyond ``(w - 1) t`` share
support before ``t`` reaches the mask's radius.

Paper: wu2024 (exponential rank collapse under masks, local masks slowing it).

>>> from posbias.derivations.collapse import window_kernel
>>> window_kernel(3, 2)
Matrix([
[  1,   0,   0],
[1/2, 1/2,   0],
[  0, 1/2, 1/2]])
"""

from __future__ import annotations

import sympy

from posbias.derivations.core import Derivation, Step, derivation, prove_equal
from posbias.validation import check_integer

__all__ = ["collapse_rate_derivation", "window_kernel"]

x = sympy.Symbol("x")
w = sympy.Symbol("w", integer=True, positive=True)


def window_kernel(length: int, window: int) -> sympy.Matrix:
    """Uniform attention on the last ``window`` tokens (itself included), exactly."""
    n = check_integer("length", length, 1)
    ww = check_integer("window", window, 1)
    return sympy.Matrix(n, n, lambda i, j: sympy.Rational(1, min(i + 1, ww)) if i - ww < j <= i else 0)


@derivation("collapse-rate")
def collapse_rate_derivation() -> Derivation:
    """Eigenvalues of causal kernels, the rate 1/2 for every window, the Jordan block of w = 2."""
    size = 5
    a = sympy.Matrix(size, size, lambda i, j: sympy.Symbol(f"a_{i + 1}{j + 1}") if j <= i else 0)
    idents = [
        prove_equal("size 5: det(A - xI) = Π (a_ii - x) for a lower-triangular A (eigenvalues = "
                    "diagonal)", (a - x * sympy.eye(size)).det(),
                    sympy.Mul(*[a[i, i] - x for i in range(size)])),
        prove_equal("row 2 of every window w >= 2 is (1/2, 1/2): A_22 = 1/min(2, w) = 1/2 "
                    "(symbolic w >= 2)", 1 / sympy.Min(2, w + 1), sympy.Rational(1, 2)),
    ]
    for length in range(2, 9):
        A = window_kernel(length, 2)
        idents.append(prove_equal(f"L = {length}, w = 2: rank(A - I/2) = L - 1, one Jordan block "
                                  "of size L - 1 for the eigenvalue 1/2",
                                  (A - sympy.eye(length) / 2).rank(), length - 1))
    for ww in (2, 3, 4, 8):
        A = window_kernel(8, ww)
        diag = sorted((A[i, i] for i in range(8)), reverse=True)
        idents.append(prove_equal(f"L = 8, w = {ww}: second eigenvalue 1/2", diag[1], sympy.Rational(1, 2)))
    expr = sympy.Eq(sympy.Symbol("rho_2"), sympy.Rational(1, 2))
    steps = (
        Step("eigenvalues of a causal kernel: its diagonal", sympy.Eq(sympy.Function("det")(
            sympy.Symbol("A") - x * sympy.Symbol("I")), sympy.Product(sympy.Symbol("a_ii") - x,
                                                                       (sympy.Symbol("i"), 1, sympy.Symbol("L"))))),
        Step("uniform causal (1/i) and window (1/min(i, w)) kernels: the largest diagonal entry "
             "after row 1 is A_22 = 1/2 for every w >= 2", expr),
        Step("w = 2: A - I/2 has rank L - 1, a Jordan block of size L - 1: distance ~ t^(L-2) 2^(-t)",
             sympy.Eq(sympy.Function("tau")(sympy.Symbol("t")),
                      sympy.Symbol("t") ** (sympy.Symbol("L") - 2) * 2 ** (-sympy.Symbol("t")))),
    )
    return Derivation(
        name="collapse-rate",
        title="Rank collapse of a fixed causal kernel: rate 1/2 for every window",
        description="The eigenvalues of a causal kernel are its diagonal; for uniform attention on the "
        "causal mask and on every window w >= 2 the rate of collapse is the second eigenvalue "
        "1/2, while w = 2 has a Jordan block of size L - 1 (a polynomial transient).",
        expression=expr,
        assumptions=("attention only, the same uniform kernel at every layer",
                     "row 1 reads token 1 only (causal)"),
        steps=steps,
        identities=tuple(idents),
        paper="wu2024",
        section="rank collapse under masks",
        proven_for="lower-triangular determinants at size 5 (the general fact: the determinant of "
        "a triangular matrix is the product of its diagonal), A_22 = 1/2 for symbolic w, the "
        "Jordan block for L = 2..8",
    )
